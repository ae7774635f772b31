import Follow

/// How far from the written time a played note may be and still count, and what "on time" is.
///
/// Defaults: a note within ±150 ms of an expected note of the same pitch is a hit; a hit
/// within ±50 ms is on time, earlier is early, later is late. A played key with no expected
/// note of its pitch within the window is a wrong pitch when some other expected note is
/// within the window, and an extra otherwise. An expected note nobody played within the
/// window is missed.
public struct TimingWindow: Equatable, Sendable, Codable {
    /// Half-width of the matching window, seconds.
    public var window: Double
    /// Half-width of "on time", seconds.
    public var onTime: Double

    public init(window: Double = 0.150, onTime: Double = 0.050) {
        self.window = max(0, window)
        self.onTime = min(max(0, onTime), max(0, window))
    }
}

/// The verdict on one note.
public enum Verdict: String, Equatable, Hashable, Sendable, Codable, CaseIterable {
    case early, onTime, late, wrongPitch, missed, extra

    /// Early, on time and late are all hits (the right key within the window).
    public var isHit: Bool { self == .early || self == .onTime || self == .late }
}

/// One judged note: what was expected, what was played, how far off.
public struct Judgement: Equatable, Sendable, Codable {
    public var verdict: Verdict
    /// The matched note (hits, missed), or the nearest expected note (wrong pitch).
    public var expected: ExpectedNote?
    /// The played key (all verdicts except missed).
    public var played: PlayedEvent?
    /// Played minus expected time in milliseconds (hits only): negative = early.
    public var errorMs: Double?
    /// Section the judgement counts towards.
    public var section: Int

    public init(verdict: Verdict, expected: ExpectedNote?, played: PlayedEvent?, errorMs: Double?, section: Int) {
        self.verdict = verdict
        self.expected = expected
        self.played = played
        self.errorMs = errorMs
        self.section = section
    }
}

/// Play mode (and memory mode): real time, each played key matched as it arrives.
///
/// Each key press is matched to the nearest unmatched expected note of the same pitch among
/// the practised parts within the window. Wrong pitches and extras never consume an expected
/// note, so a wrong key counts as wrong and the right note, unplayed, as missed. Feed presses
/// with `play`, call `expire(upTo:)` as the clock runs (for missed-note feedback), and
/// `finish()` at the end of the pass.
public struct PlayMatcher: Sendable {
    public let window: TimingWindow
    /// The music's clock seconds per real second while these notes are played: 1, but for
    /// `--recording`, whose pace warps the clock to the recording's. The window and the errors
    /// stay in real seconds, as the learner heard the recording and played with it.
    public var timeScale: Double = 1 {
        didSet { if !(timeScale.isFinite && timeScale > 0) { timeScale = 1 } }
    }
    /// The window's half-widths on the music's clock.
    private var reach: Double { window.window * timeScale }
    private var onTimeReach: Double { window.onTime * timeScale }
    /// The practised notes, sorted by time.
    public private(set) var expected: [ExpectedNote]
    private var matched: [Bool]
    /// Every expected note before this index is matched or judged missed.
    private var expiredBefore = 0
    public private(set) var judgements: [Judgement] = []
    /// Expected note → the wrong-key judgement charged to it while it was unplayed.
    private var wrongCharged: [Int: Int] = [:]

    public init(expected: [ExpectedNote], parts: Set<String>? = nil, window: TimingWindow = TimingWindow()) {
        self.window = window
        self.expected = expected.filter { parts?.contains($0.part) ?? true }
            .sorted { $0.time != $1.time ? $0.time < $1.time : $0.pitch < $1.pitch }
        matched = Array(repeating: false, count: self.expected.count)
    }

    /// Judges one played event; releases return nil (play mode scores onsets only).
    ///
    /// A wrong key is charged to the note it replaced (`WrongKeys`): among the unplayed notes in
    /// the window, the nearest in time, and within a chord the nearest in pitch. A slip onto the
    /// neighbour key, nearer the note it replaced than the next note of the key struck, is that
    /// one wrong note, not the next note early (if that next note is then never played, `expire`
    /// takes the key back as it, early).
    public mutating func play(_ event: PlayedEvent) -> Judgement? {
        guard event.isOn else { return nil }
        let t = event.time
        var start = firstIndex(atOrAfter: t - reach - 1e-9)
        var best: Int?
        var nearestAny: Int?
        var replaced: Int?
        var samePitchInWindow = false
        let key = WrongKeys.Item(index: -1, pitch: event.pitch, time: t)
        func item(_ i: Int) -> WrongKeys.Item { .init(index: i, pitch: expected[i].pitch, time: expected[i].time) }
        while start < expected.count, expected[start].time <= t + reach + 1e-9 {
            let note = expected[start]
            let distance = abs(note.time - t)
            if nearestAny.map({ distance < abs(expected[$0].time - t) }) ?? true { nearestAny = start }
            if note.pitch == event.pitch {
                samePitchInWindow = true
                if !matched[start], best.map({ distance < abs(expected[$0].time - t) }) ?? true { best = start }
            } else if !matched[start], replaced.map({ WrongKeys.cost(key: key, note: item(start)) < WrongKeys.cost(key: key, note: item($0)) }) ?? true {
                replaced = start
            }
            start += 1
        }
        // A slip: the neighbour key struck nearer the note it replaced than its own next note.
        if let b = best, let r = replaced, abs(expected[r].pitch - event.pitch) <= 2, expected[r].time < expected[b].time, t < expected[b].time,
           abs(expected[b].time - t) > onTimeReach + 1e-9, abs(expected[r].time - t) + 1e-9 < abs(expected[b].time - t) {
            best = nil
        }
        let judgement: Judgement
        if let i = best {
            judgement = hit(i, by: event)
            // A wrong key charged to this note before it was played replaced another of its chord.
            if let w = wrongCharged[i] { recharge(w, from: i) }
        } else if let i = replaced {
            judgement = Judgement(verdict: .wrongPitch, expected: expected[i], played: event, errorMs: nil, section: expected[i].section)
            wrongCharged[i] = judgements.count
        } else if let i = nearestAny, !samePitchInWindow {
            judgement = Judgement(verdict: .wrongPitch, expected: expected[i], played: event, errorMs: nil, section: expected[i].section)
        } else {
            judgement = Judgement(verdict: .extra, expected: nil, played: event, errorMs: nil, section: nearestSection(to: t))
        }
        judgements.append(judgement)
        return judgement
    }

    private mutating func hit(_ i: Int, by event: PlayedEvent) -> Judgement {
        matched[i] = true
        let error = (event.time - expected[i].time) / timeScale
        let verdict: Verdict = abs(error) <= window.onTime + 1e-9 ? .onTime : (error < 0 ? .early : .late)
        return Judgement(verdict: verdict, expected: expected[i], played: event, errorMs: error * 1000, section: expected[i].section)
    }

    /// Notes this close in time are one chord.
    static let chordTolerance = 0.035

    /// The wrong key judged at `w`, charged to note `i` that has now been played: charged
    /// instead to the unplayed note of the same chord it most likely replaced, if there is one.
    private mutating func recharge(_ w: Int, from i: Int) {
        wrongCharged[i] = nil
        guard let key = judgements[w].played else { return }
        let item = WrongKeys.Item(index: -1, pitch: key.pitch, time: key.time)
        var start = firstIndex(atOrAfter: key.time - reach - 1e-9)
        var other: Int?
        while start < expected.count, expected[start].time <= key.time + reach + 1e-9 {
            if !matched[start], expected[start].pitch != key.pitch, wrongCharged[start] == nil,
               abs(expected[start].time - expected[i].time) <= Self.chordTolerance,
               other.map({ WrongKeys.cost(key: item, note: .init(index: start, pitch: expected[start].pitch, time: expected[start].time))
                   < WrongKeys.cost(key: item, note: .init(index: $0, pitch: expected[$0].pitch, time: expected[$0].time)) }) ?? true {
                other = start
            }
            start += 1
        }
        guard let o = other else { return }
        judgements[w].expected = expected[o]
        judgements[w].section = expected[o].section
        wrongCharged[o] = w
    }

    /// Judges as missed every unmatched expected note whose window closed before `now`.
    public mutating func expire(upTo now: Double) -> [Judgement] {
        var out: [Judgement] = []
        while expiredBefore < expected.count, expected[expiredBefore].time + reach < now {
            if !matched[expiredBefore] {
                let note = expected[expiredBefore]
                if let w = slipOnto(expiredBefore), let key = judgements[w].played {
                    // The key judged a slip onto this note's key was this note, played early.
                    if let from = judgements[w].expected, let k = expected.firstIndex(of: from), wrongCharged[k] == w { wrongCharged[k] = nil }
                    judgements[w] = hit(expiredBefore, by: key)
                } else {
                    matched[expiredBefore] = true
                    out.append(Judgement(verdict: .missed, expected: note, played: nil, errorMs: nil, section: note.section))
                }
            }
            expiredBefore += 1
        }
        judgements.append(contentsOf: out)
        return out
    }

    /// A wrong-key judgement of this note's key within its window, charged to another note
    /// that came before it: a slip that was this note after all.
    private func slipOnto(_ i: Int) -> Int? {
        let note = expected[i]
        var j = judgements.count - 1
        var looked = 0
        while j >= 0, looked < 64 {
            let g = judgements[j]
            if g.verdict == .wrongPitch, let key = g.played, key.pitch == note.pitch, abs(key.time - note.time) <= reach + 1e-9,
               let from = g.expected, from.time < note.time {
                return j
            }
            j -= 1
            looked += 1
        }
        return nil
    }

    /// The tempo changed at pass time `time`: every note due after it comes `scale` times as
    /// far from it (0.5 → twice as fast), so the rest of the pass is judged at the new tempo.
    /// Notes already due, matched or judged keep their times.
    public mutating func retime(after time: Double, scale: Double) {
        guard scale.isFinite, scale > 0 else { return }
        for i in expected.indices where expected[i].time > time {
            expected[i].time = time + (expected[i].time - time) * scale
            expected[i].duration *= scale
        }
    }

    /// Ends the pass: every note still unmatched is missed. Returns the pass report.
    public mutating func finish() -> PassReport {
        _ = expire(upTo: .infinity)
        return report()
    }

    /// The report over everything judged so far.
    public func report() -> PassReport {
        PassReport(judgements: judgements, window: window, sections: Set(expected.map(\.section)))
    }

    /// The expected notes neither matched nor expired yet, from `time` on, in order, at most
    /// `limit`: what a partner following the learner still waits for.
    public func open(from time: Double, limit: Int) -> [ExpectedNote] {
        var out: [ExpectedNote] = []
        var i = max(firstIndex(atOrAfter: time), expiredBefore)
        while i < expected.count && out.count < limit {
            if !matched[i] { out.append(expected[i]) }
            i += 1
        }
        return out
    }

    private func firstIndex(atOrAfter time: Double) -> Int {
        var lo = 0, hi = expected.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if expected[mid].time < time { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    private func nearestSection(to time: Double) -> Int {
        guard !expected.isEmpty else { return 0 }
        let i = firstIndex(atOrAfter: time)
        if i == 0 { return expected[0].section }
        if i == expected.count { return expected[i - 1].section }
        return abs(expected[i].time - time) < abs(expected[i - 1].time - time) ? expected[i].section : expected[i - 1].section
    }
}
