import Clocks

/// How Etude's part keeps the learner's tempo (`--follow`), as a teacher at a second piano
/// does: the music runs at the tempo the learner has been playing, waits at the learner's next
/// note when they are late (so the other hand comes in with them, not before), catches up to
/// them when they are early, falls silent when they stop for a beat, and comes back in at the
/// note they pick up on. Pure: it reads where the music is (a `FollowedClock.Warp`) and the
/// learner's notes still to come, and says how to move the warp; the session applies it.
///
/// Times: `wall` is the base clock (when a key went down); score times are the followed
/// clock's (the transport's event times). `beat` is a beat in score seconds.
public struct PartnerTiming: Sendable {
    /// A note of the learner's part still to be played, at its score time.
    public struct Onset: Equatable, Sendable {
        public var pitch: Int
        public var time: Double
        /// The note's index in `Lesson.notes` (its bar), -1 when not known.
        public var id: Int
        public init(pitch: Int, time: Double, id: Int = -1) {
            self.pitch = pitch
            self.time = time
            self.id = id
        }
    }

    /// What the session does with the music.
    public struct Move: Equatable, Sendable {
        /// From wall time `wall` the music is at `score` (nil: where it is) at `rate`, waiting at `cap`.
        public var wall: Double
        public var score: Double?
        public var rate: Double
        public var cap: Double?
        /// Notes of Etude's part due before this score time are skipped, not played at once
        /// (the learner jumped ahead over them).
        public var skipBefore: Double?
        /// The learner stopped: silence Etude's part (its notes end) until they play again.
        public var silence = false
        /// The learner came back in after a silence: play on.
        public var resume = false
    }

    /// The learner's tempo as a rate of the plan's (1 = as planned).
    public private(set) var rate = 1.0
    /// The score time of the last note of the learner's part the music met them at.
    public private(set) var reached: Double?
    /// True while Etude's part is silent, waiting for the learner to play again.
    public private(set) var silenced = false
    /// The learner's onsets lately, for the tempo (one per score time).
    private var recent: [(wall: Double, score: Double)] = []
    /// When the music began to wait at its cap (wall time).
    private var waitingSince: Double?
    /// Keys the learner struck lately that met nothing where the music is (wall time, pitch):
    /// three in a row and they are somewhere else, a restart or a jump (`locate`).
    public private(set) var lost: [(wall: Double, pitch: Int)] = []

    /// Extremes of the rate: beyond them a learner is not playing the piece at another tempo
    /// but stopping or rushing, which the wait and the jump handle.
    public static let rates: ClosedRange<Double> = 0.4...2.5
    /// The cap stands this far before the awaited note, so the music's notes at its time wait.
    public static let capMargin = 0.001
    /// How much the rate may move on one note (a smooth tempo, no audible jumps).
    public static let stepLimit = 0.2

    public init() {}

    /// The first note of the learner's part still ahead of where they are.
    static func awaited(after reached: Double?, in pending: [Onset]) -> Onset? {
        pending.first { $0.time > (reached ?? -.infinity) + 1e-6 }
    }

    /// The cap before the learner's next note, nil when none is left.
    func cap(pending: [Onset]) -> Double? {
        Self.awaited(after: reached, in: pending).map { $0.time - Self.capMargin }
    }

    /// A key went down at `wall`: where is the learner, and how does the music move? Nil when
    /// the note moves nothing (a chord's other notes, an extra key between the learner's notes).
    /// `behind`: the keys of the learner's part in the bars just played; a key among them is
    /// not taken for a wrong key in place (it may be a restart: `locate`).
    public mutating func heard(pitch: Int, wall: Double, warp: FollowedClock.Warp, pending: [Onset], beat: Double,
                               behind: Set<Int> = []) -> Move? {
        let expectedAt = warp.projected(atWall: wall)
        let music = warp.score(atWall: wall)
        let ahead = pending.filter { $0.time > (reached ?? -.infinity) + 1e-6 }
        // The learner's note: the first note still to come with this key, near where they are
        // expected (a note skipped or played early included); else a wrong key where the music
        // waits for them.
        var target: Double?
        if let match = ahead.first(where: { $0.pitch == pitch && $0.time <= max(expectedAt, music) + 1.5 * beat }) {
            target = match.time
        } else if let next = ahead.first, max(expectedAt, music) >= next.time - 0.5 * beat, !behind.contains(pitch),
                  ahead.contains(where: { abs($0.time - next.time) < 0.03 && abs($0.pitch - pitch) <= 2 }) {
            // A slip onto a neighbour of the key awaited: the learner is there, on a wrong key.
            target = next.time
        }
        guard let target else {
            lost.append((wall, pitch))
            if lost.count > 3 { lost.removeFirst(lost.count - 3) }
            return nil
        }
        lost = []
        let wasSilent = silenced
        if wasSilent {
            recent = []  // the stop is not a tempo
        }
        recent.append((wall, target))
        if recent.count > 6 { recent.removeFirst(recent.count - 6) }
        if let estimate = Self.tempo(recent, beat: beat) {
            let limited = min(max(estimate, rate * (1 - Self.stepLimit)), rate * (1 + Self.stepLimit))
            rate = min(max(limited, Self.rates.lowerBound), Self.rates.upperBound)
        }
        reached = target
        silenced = false
        waitingSince = nil
        var move = Move(wall: wall, score: target, rate: rate, cap: cap(pending: pending))
        // Jumped ahead over music that should not sound all at once.
        if target - music > 0.25 * beat { move.skipBefore = target - 0.01 }
        move.resume = wasSilent
        return move
    }

    /// The music's clock moved on (every few milliseconds, at wall time `wall`): keep the cap
    /// at the learner's next note, and fall silent once the music waited there a beat.
    public mutating func tick(wall: Double, warp: FollowedClock.Warp, pending: [Onset], beat: Double) -> Move? {
        // Silent, the music stands where it stopped until the learner plays (its transport is
        // paused there: moving the clock would move the music under it).
        guard !silenced else { return nil }
        let cap = cap(pending: pending)
        if !Self.same(cap, warp.cap) {
            waitingSince = nil
            return Move(wall: wall, score: nil, rate: rate, cap: cap)
        }
        guard let cap, warp.score(atWall: wall) >= cap - 1e-9 else {
            waitingSince = nil
            return nil
        }
        let since = waitingSince ?? wall
        waitingSince = since
        guard !silenced, wall - since >= beat / max(rate, Self.rates.lowerBound) else { return nil }
        silenced = true
        var move = Move(wall: wall, score: nil, rate: rate, cap: cap)
        move.silence = true
        return move
    }

    /// Caps a rounding apart are one cap (the coach re-anchors its times note by note).
    static func same(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let x?, let y?): return abs(x - y) < 1e-6
        default: return false
        }
    }

    /// The learner's rate from their last onsets: least squares of score time on wall time,
    /// over at least half a beat of music.
    static func tempo(_ points: [(wall: Double, score: Double)], beat: Double) -> Double? {
        guard points.count >= 2, let first = points.first, let last = points.last, last.score - first.score >= 0.5 * beat else { return nil }
        let n = Double(points.count)
        let mw = points.reduce(0) { $0 + $1.wall } / n
        let ms = points.reduce(0) { $0 + $1.score } / n
        var num = 0.0, den = 0.0
        for p in points {
            num += (p.wall - mw) * (p.score - ms)
            den += (p.wall - mw) * (p.wall - mw)
        }
        guard den > 1e-9 else { return nil }
        let slope = num / den
        return slope.isFinite && slope > 0 ? slope : nil
    }

    /// Forget where the learner was (a new pass, a jump by hand): the music waits for their
    /// next note from here.
    public mutating func restart() {
        reached = nil
        recent = []
        waitingSince = nil
        silenced = false
        lost = []
    }

    /// The learner's last three keys met nothing where the music is: where in the pass they are
    /// playing (the onsets of the three in a row, each key among an onset's notes), the match
    /// nearest `near`; nil when the three are found nowhere (stray keys: the music goes on).
    /// Returns the first of the three onsets and the last.
    /// `within`: onsets this close are one chord (in the onsets' unit).
    public func locate(in onsets: [Onset], near: Double, within: Double = 0.03) -> (first: Onset, last: Onset)? {
        guard lost.count == 3 else { return nil }
        var groups: [[Onset]] = []
        for o in onsets.sorted(by: { $0.time < $1.time }) {
            if let t = groups.last?.first?.time, abs(o.time - t) < within { groups[groups.count - 1].append(o) } else { groups.append([o]) }
        }
        guard groups.count >= 3 else { return nil }
        // Played as those notes are written: the two gaps between the three keys in about the
        // proportion of the two gaps in the score (a stray key between notes is not a restart).
        let w0 = lost[1].wall - lost[0].wall, w1 = lost[2].wall - lost[1].wall
        guard w0 > 0.02, w1 > 0.02 else { return nil }
        var best: (first: Onset, last: Onset)?
        for i in 0...(groups.count - 3) {
            let fits = (0..<3).allSatisfy { k in groups[i + k].contains { $0.pitch == lost[k].pitch } }
            guard fits, let first = groups[i].first(where: { $0.pitch == lost[0].pitch }),
                  let last = groups[i + 2].first(where: { $0.pitch == lost[2].pitch }) else { continue }
            let s0 = groups[i + 1][0].time - groups[i][0].time, s1 = groups[i + 2][0].time - groups[i + 1][0].time
            guard s0 > 0, s1 > 0 else { continue }
            let ratio = (s1 / s0) / (w1 / w0)
            guard ratio >= 0.5 && ratio <= 2 else { continue }
            if best.map({ abs(last.time - near) < abs($0.last.time - near) }) ?? true { best = (first, last) }
        }
        return best
    }

    /// The music was moved to where the learner is (`locate`): their last onset is `score`.
    public mutating func relocated(at score: Double, wall: Double) {
        reached = score
        recent = [(wall, score)]
        lost = []
        waitingSince = nil
        silenced = false
    }

    /// The tempo per bar from the learner's onsets (`bar`, percent of the lesson's tempo), in
    /// the order played: each bar's mean.
    public static func byBar(_ samples: [(bar: Int, percent: Double)]) -> [(bar: Int, percent: Double)] {
        var sums: [Int: (Double, Int)] = [:]
        var order: [Int] = []
        for s in samples {
            if sums[s.bar] == nil { order.append(s.bar) }
            let v = sums[s.bar] ?? (0, 0)
            sums[s.bar] = (v.0 + s.percent, v.1 + 1)
        }
        return order.compactMap { b in sums[b].map { (b, $0.0 / Double($0.1)) } }
    }

    /// One line for the results: `tempo 100 → 86 % in bars 5–8`, or steady.
    public static func summary(_ bars: [(bar: Int, percent: Double)]) -> String? {
        guard let first = bars.first else { return nil }
        let start = first.percent
        guard let extreme = bars.max(by: { abs($0.percent - start) < abs($1.percent - start) }),
              abs(extreme.percent - start) >= 5 else {
            return "tempo steady at \(Int(start.rounded())) %"
        }
        // The bars around the extreme that stay near it.
        let near = bars.filter { abs($0.percent - extreme.percent) <= max(3, abs(extreme.percent - start) / 3) }.map(\.bar)
        let lo = near.min() ?? extreme.bar, hi = near.max() ?? extreme.bar
        let where_ = lo == hi ? "in bar \(lo)" : "in bars \(lo)–\(hi)"
        return "tempo \(Int(start.rounded())) → \(Int(extreme.percent.rounded())) % \(where_)"
    }
}
