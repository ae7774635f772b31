import MIDIFile

/// A teacher's ear: beyond when each key went down, how long it sounded against its written
/// length (releases) and how loud it was against the rest of the learner's own pass (dynamics).
///
/// Everything here is a pure function of plain values — the expected notes, the onset
/// judgements `PlayMatcher` (or the wait gate) made, and every played event of the pass with
/// the sustain pedal — so play mode, `etude judge` and the tests all use the same code.

/// How long a note sounded against its written length.
public enum ReleaseVerdict: String, Equatable, Hashable, Sendable, Codable, CaseIterable {
    case ok, short, long
}

/// How loud a note was against the dynamic marked, relative to the learner's own playing.
public enum LoudnessVerdict: String, Equatable, Hashable, Sendable, Codable, CaseIterable {
    case ok, loud, soft
}

/// A written articulation that changes how long a note should be held.
public enum Articulation: String, Equatable, Hashable, Sendable, Codable, CaseIterable {
    /// Detached: any length up to `ReleaseTolerance.staccatoAbove` of the value is right.
    case staccato
    /// Held for its full value: short below `ReleaseTolerance.tenutoBelow`.
    case tenuto
}

/// When a note counts as released too early or held too long.
///
/// The held ratio is the time the note sounded divided by its written length at the tempo
/// practised. Sounded means pedal-aware: a key lifted while the sustain pedal is down sounds on
/// until the pedal comes up (or the key is struck again), so a finger lifted under the pedal is
/// not short. Long is judged on the key alone: holding the pedal is the player's choice.
///
/// Defaults (Neothesia #172's 83–112 % was the reference; a little wider, because a legato
/// player lifts a repeated key before striking it again and overlaps the next key a little):
/// - short: sounded for less than 80 % of the value, minus 80 ms of slack;
/// - long: key held for more than 120 % of the value, plus 80 ms of slack;
/// - staccato: never short; long when the key is held past 60 % of the value (+ slack);
/// - tenuto: short below 90 % (− slack).
/// The slack keeps very short notes (a sixteenth at a fast tempo) from being judged to the
/// millisecond.
public struct ReleaseTolerance: Equatable, Sendable, Codable {
    public var shortBelow: Double
    public var longAbove: Double
    public var slackSeconds: Double
    public var staccatoAbove: Double
    public var tenutoBelow: Double

    public init(shortBelow: Double = 0.80, longAbove: Double = 1.20, slackSeconds: Double = 0.08,
                staccatoAbove: Double = 0.60, tenutoBelow: Double = 0.90) {
        self.shortBelow = shortBelow
        self.longAbove = longAbove
        self.slackSeconds = max(0, slackSeconds)
        self.staccatoAbove = staccatoAbove
        self.tenutoBelow = tenutoBelow
    }

    /// The verdict for one note: `sounded` and `keyHeld` in seconds, `written` its length.
    public func verdict(sounded: Double, keyHeld: Double, written: Double, articulation: Articulation? = nil) -> ReleaseVerdict {
        guard written > 0, sounded.isFinite, keyHeld.isFinite else { return .ok }
        let low: Double? = switch articulation {
        case .staccato?: nil
        case .tenuto?: tenutoBelow
        case nil: shortBelow
        }
        let high = articulation == .staccato ? staccatoAbove : longAbove
        if let low, sounded < low * written - slackSeconds { return .short }
        if keyHeld > high * written + slackSeconds { return .long }
        return .ok
    }
}

/// When a note counts as too loud or too soft.
///
/// Keyboards' velocity curves differ, so loudness is judged against the learner's own pass.
/// The learner's contrast is measured first: the slope of their velocities against the
/// velocities marked (least squares over the notes hit), held between `minimumContrast` and
/// `maximumContrast`. The velocity expected of a note is then the learner's mean velocity moved
/// by that slope × (the velocity marked − the mean marked); a note more than `tolerance` steps
/// above it is loud, below it soft. So a learner whose p is clearly softer than their f, on any
/// keyboard, is right everywhere; p and f played alike (slope 0, held up to 0.6) or reversed
/// make the p notes loud and the f notes soft; a note sticking out of an even scale by more
/// than 12 steps is named. Without dynamics in the lesson there are no loudness verdicts.
public struct LoudnessTolerance: Equatable, Sendable, Codable {
    public var minimumContrast: Double
    public var maximumContrast: Double
    public var tolerance: Double

    public init(minimumContrast: Double = 0.6, maximumContrast: Double = 2.5, tolerance: Double = 12) {
        self.minimumContrast = max(0, minimumContrast)
        self.maximumContrast = max(self.minimumContrast, maximumContrast)
        self.tolerance = max(0, tolerance)
    }
}

/// One expected note as the ear heard it: the `notes` list of a pass report.
public struct NoteVerdict: Equatable, Sendable, Codable {
    /// The bar as printed (e.g. "9", "12@2"); set by whoever knows the lesson's bars.
    public var bar: String
    /// The bar's place in the performance (what loops count), with `bar`.
    public var barNumber: Int?
    /// Beat within the bar, from 1 (1.5 = halfway through the first beat).
    public var beat: Double
    public var pitch: Int
    /// "right", "left", "accompaniment"… (`HandLabel.short` spells it RH/LH beside a verdict).
    public var hand: String
    /// When the key went down: hit (on time), early, late, missed, or wrong (a wrong key struck
    /// where this note was due, and the note never came).
    public var onset: OnsetVerdict
    /// The wrong key struck where this note was due (MIDI pitch): the key played instead of a
    /// `wrong` note, or the slip before a note struck right (`wrongKeyFirst`). Nil otherwise.
    public var played: Int?
    /// Played minus written onset, ms (hits only).
    public var timingMs: Double?
    /// Nil when releases were not judged (onset-only input, wait mode, a missed note).
    public var release: ReleaseVerdict?
    /// Sounded time over written length (pedal-aware), nil when not judged.
    public var heldRatio: Double?
    /// Nil when loudness was not judged (no dynamics, onset-only input, a missed note).
    public var loudness: LoudnessVerdict?
    /// The velocity played (hits only).
    public var velocity: Int?
    /// The dynamic marked where the note is ("p", "f"…), when the lesson names it.
    public var dynamic: String?
    /// True when a wrong key was struck where this note was due before it was hit (wait mode's
    /// wrong keys, a play-mode slip corrected in time); a stray key after the hit is not "first".
    public var wrongKeyFirst: Bool?
    /// Index of the expected note (`ExpectedNote.id`).
    public var id: Int

    public init(id: Int, bar: String = "", beat: Double = 1, pitch: Int, hand: String, onset: OnsetVerdict, timingMs: Double? = nil,
                release: ReleaseVerdict? = nil, heldRatio: Double? = nil, loudness: LoudnessVerdict? = nil, velocity: Int? = nil,
                dynamic: String? = nil, played: Int? = nil, wrongKeyFirst: Bool? = nil) {
        self.id = id
        self.bar = bar
        self.beat = beat
        self.pitch = pitch
        self.hand = hand
        self.onset = onset
        self.timingMs = timingMs
        self.release = release
        self.heldRatio = heldRatio
        self.loudness = loudness
        self.velocity = velocity
        self.dynamic = dynamic
        self.played = played
        self.wrongKeyFirst = wrongKeyFirst
    }

    /// True when anything about the note was wrong (onset, release or loudness).
    public var isFault: Bool { worst != .ok }

    /// Struck right (on time, early or late) but after a wrong key, or held or played off.
    public var isHeardOff: Bool {
        guard onset.isHit else { return false }
        return wrongKeyFirst == true || (release.map { $0 != .ok } ?? false) || (loudness.map { $0 != .ok } ?? false)
    }

    /// The note's one mark: its worst verdict, onset first (wrong, missed, early, late), then a
    /// wrong key before it, then its release, then its loudness.
    public var worst: VerdictMark {
        if onset != .hit { return VerdictMark(onset) }
        if wrongKeyFirst == true { return .wrongKeyFirst }
        switch release {
        case .short?: return .short
        case .long?: return .long
        case .ok?, nil: break
        }
        switch loudness {
        case .loud?: return .loud
        case .soft?: return .soft
        case .ok?, nil: break
        }
        return .ok
    }

    /// Every verdict the note carries, worst first (a late note held short is both): what a
    /// bar's counts count.
    public var marks: [VerdictMark] {
        var out: [VerdictMark] = []
        if onset != .hit { out.append(VerdictMark(onset)) }
        if wrongKeyFirst == true { out.append(.wrongKeyFirst) }
        switch release {
        case .short?: out.append(.short)
        case .long?: out.append(.long)
        case .ok?, nil: break
        }
        switch loudness {
        case .loud?: out.append(.loud)
        case .soft?: out.append(.soft)
        case .ok?, nil: break
        }
        return out
    }

    /// The note's name, with the key played instead when it was wrong: "D4", "D4 → D#4".
    public var pitchText: String {
        PitchName.name(pitch) + (onset == .wrong ? played.map { " → " + PitchName.name($0) } ?? "" : "")
    }

    /// The note with its wrong key, for a wrong note or one struck after a wrong key:
    /// "D4 → D#4" (D#4 played instead), "D#4 before D4" (D#4 first, then D4); the name alone
    /// otherwise.
    public var wrongKeyText: String {
        guard let played else { return PitchName.name(pitch) }
        return onset == .wrong ? pitchText : PitchName.name(played) + " before " + PitchName.name(pitch)
    }
}

/// A key press's sound, for the ear: when the key went down and up, and where the pedal was.
public struct Ear: Sendable {
    public var release: ReleaseTolerance
    public var loudness: LoudnessTolerance
    /// False for onset-only input (the computer keyboard: fixed lengths) and for wait mode
    /// (the music stops for each chord, so lengths mean nothing).
    public var judgesReleases: Bool
    /// False for input without real velocities (the computer keyboard).
    public var judgesLoudness: Bool

    public init(release: ReleaseTolerance = ReleaseTolerance(), loudness: LoudnessTolerance = LoudnessTolerance(),
                judgesReleases: Bool = true, judgesLoudness: Bool = true) {
        self.release = release
        self.loudness = loudness
        self.judgesReleases = judgesReleases
        self.judgesLoudness = judgesLoudness
    }

    /// What the ear made of a pass.
    public struct Hearing: Equatable, Sendable {
        /// One per expected note, in time order.
        public var notes: [NoteVerdict]
        /// Population spread (standard deviation) of the played velocities about what the
        /// dynamics ask, in velocity steps: 0 is perfectly even. Nil without real velocities.
        public var evennessSpread: Double?
        /// True when the lesson marks dynamics for the notes practised.
        public var hasDynamics: Bool
    }

    /// Judges releases and loudness of every expected note.
    ///
    /// - Parameters:
    ///   - expected: the notes practised, on the same clock as `judgements` and `events`.
    ///   - judgements: the onset verdicts (`PlayMatcher.judgements`, or the wait gate's).
    ///   - events: every key event of the pass (presses and releases), any order.
    ///   - pedal: sustain pedal changes (time, down), any order.
    ///   - endTime: when the pass ended: a key still down then is released there.
    public func hear(expected: [ExpectedNote], judgements: [Judgement], events: [PlayedEvent],
                     pedal: [(time: Double, down: Bool)] = [], endTime: Double? = nil) -> Hearing {
        let keys = KeyTimeline(events: events)
        let pedalLine = PedalTimeline(pedal)
        // Indices, not copies: a judgement carries its expected note (strings and all).
        var hitAt: [Int: Int] = [:]
        hitAt.reserveCapacity(expected.count)
        // The first wrong key struck where each note was due.
        var wrongAt: [Int: PlayedEvent] = [:]
        for (i, j) in judgements.enumerated() {
            guard let id = j.expected?.id else { continue }
            if j.verdict.isHit { hitAt[id] = i } else if j.verdict == .wrongPitch, let p = j.played,
                                                         wrongAt[id].map({ p.time < $0.time }) ?? true { wrongAt[id] = p }
        }
        let ordered = expected.indices.sorted { a, b in
            expected[a].time != expected[b].time ? expected[a].time < expected[b].time : expected[a].pitch < expected[b].pitch
        }
        var notes: [NoteVerdict] = []
        notes.reserveCapacity(ordered.count)
        var velocities: [(index: Int, played: Double, marked: Double?)] = []
        velocities.reserveCapacity(ordered.count)
        for k in ordered {
            let n = expected[k]
            var v = NoteVerdict(id: n.id, pitch: n.pitch, hand: n.part, onset: .missed, dynamic: n.dynamic)
            if let ji = hitAt[n.id], let played = judgements[ji].played {
                let j = judgements[ji]
                v.onset = OnsetVerdict(struck: j.verdict) ?? .hit
                v.timingMs = j.errorMs.map { ($0 * 10).rounded() / 10 }
                // "First" only when the wrong key came before the right one, and not as a stray
                // beside a note of the same chord already struck nearer to it (an extra).
                if let slip = wrongAt[n.id], slip.time < played.time,
                   !expected.contains(where: { m in
                       m.id != n.id && abs(m.time - n.time) < 0.03 && abs(slip.pitch - m.pitch) < abs(slip.pitch - n.pitch)
                           && (hitAt[m.id].flatMap { judgements[$0].played?.time }.map { $0 <= slip.time } ?? false)
                   }) {
                    v.wrongKeyFirst = true
                    v.played = slip.pitch
                }
                if judgesLoudness, played.velocity > 0 {
                    v.velocity = played.velocity
                    velocities.append((notes.count, Double(played.velocity), n.marked.map(Double.init)))
                }
                if judgesReleases, n.duration > 0, let up = keys.release(pitch: played.pitch, after: played.time) ?? endTime {
                    let keyUp = max(up, played.time)
                    var soundEnd = keyUp
                    if pedalLine.isDown(at: keyUp) {
                        soundEnd = pedalLine.nextUp(after: keyUp) ?? endTime ?? keyUp
                        if let again = keys.nextPress(pitch: played.pitch, after: played.time) { soundEnd = min(soundEnd, again) }
                        soundEnd = max(soundEnd, keyUp)
                    }
                    let sounded = soundEnd - played.time
                    v.heldRatio = (sounded / n.duration * 100).rounded() / 100
                    v.release = release.verdict(sounded: sounded, keyHeld: keyUp - played.time, written: n.duration,
                                                articulation: n.articulation)
                }
            } else if let slip = wrongAt[n.id] {
                v.onset = .wrong
                v.played = slip.pitch
            }
            notes.append(v)
        }
        // Loudness: only where the lesson marks dynamics, relative to the learner's own mean.
        let marked = velocities.compactMap(\.marked)
        let hasDynamics = !marked.isEmpty
        var spread: Double?
        if !velocities.isEmpty {
            let count = Double(velocities.count)
            let playedMean = velocities.reduce(0) { $0 + $1.played } / count
            let markedMean = marked.isEmpty ? 0 : marked.reduce(0, +) / Double(marked.count)
            // The learner's own contrast: their velocities' slope against the marked ones.
            var covariance = 0.0, variance = 0.0
            for v in velocities {
                guard let m = v.marked else { continue }
                covariance += (m - markedMean) * (v.played - playedMean)
                variance += (m - markedMean) * (m - markedMean)
            }
            let slope = variance > 0 ? min(max(covariance / variance, loudness.minimumContrast), loudness.maximumContrast) : 0
            var squares = 0.0
            for (i, played, m) in velocities {
                let want = playedMean + slope * ((m ?? markedMean) - markedMean)
                let off = played - want
                squares += off * off
                guard m != nil else { continue }
                notes[i].loudness = off > loudness.tolerance ? .loud : off < -loudness.tolerance ? .soft : .ok
            }
            if velocities.count >= 2 { spread = ((squares / count).squareRoot() * 10).rounded() / 10 }
        }
        return Hearing(notes: notes, evennessSpread: spread, hasDynamics: hasDynamics)
    }
}

/// Every key's presses and releases, sorted, for finding a press's release quickly.
struct KeyTimeline {
    /// pitch → (time, isOn) in time order.
    private var byPitch: [Int: [(time: Double, on: Bool)]] = [:]

    init(events: [PlayedEvent]) {
        for e in events {
            byPitch[e.pitch, default: []].append((e.time, e.isOn && e.velocity > 0))
        }
        for k in byPitch.keys {
            byPitch[k]?.sort { $0.time != $1.time ? $0.time < $1.time : (!$0.on && $1.on) }
        }
    }

    /// Index of the first entry at or after `time`.
    private func first(_ list: [(time: Double, on: Bool)], atOrAfter time: Double) -> Int {
        var lo = 0, hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if list[mid].time < time - 1e-9 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The release of the key pressed at `time`: its next release, or the next press of the
    /// same key (a re-strike ends the note), nil when neither came.
    func release(pitch: Int, after time: Double) -> Double? {
        guard let list = byPitch[pitch] else { return nil }
        var i = first(list, atOrAfter: time)
        // The press itself (a release stamped at the same instant sorts before it).
        while i < list.count, !list[i].on { i += 1 }
        i += 1
        return i < list.count ? list[i].time : nil
    }

    /// The next press of the key after `time`.
    func nextPress(pitch: Int, after time: Double) -> Double? {
        guard let list = byPitch[pitch] else { return nil }
        var i = first(list, atOrAfter: time)
        while i < list.count, !list[i].on || list[i].time <= time + 1e-9 { i += 1 }
        return i < list.count ? list[i].time : nil
    }
}

/// The sustain pedal over a pass.
struct PedalTimeline {
    private let changes: [(time: Double, down: Bool)]

    init(_ changes: [(time: Double, down: Bool)]) {
        self.changes = changes.sorted { $0.time < $1.time }
    }

    /// Index of the last change at or before `time`, nil before the first.
    private func last(atOrBefore time: Double) -> Int? {
        var lo = 0, hi = changes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if changes[mid].time <= time + 1e-9 { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : lo - 1
    }

    func isDown(at time: Double) -> Bool {
        last(atOrBefore: time).map { changes[$0].down } ?? false
    }

    func nextUp(after time: Double) -> Double? {
        var i = (last(atOrBefore: time) ?? -1) + 1
        while i < changes.count, changes[i].down { i += 1 }
        return i < changes.count ? changes[i].time : nil
    }
}
