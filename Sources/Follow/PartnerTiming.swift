import Clocks
import Follow

/// How Etude's part keeps the learner's tempo (`--follow`), as a teacher at a second piano
/// does: the music runs at the tempo the learner has been playing, waits at the learner's next
/// note when they are late (so the other hand comes in with them, not before), catches up to
/// them when they are early, falls silent when they stop for a beat, and comes back in at the
/// note they pick up on. Where the learner is and at what tempo come from the one score
/// follower (`ScoreFollower`, the same walk that aligns `etude judge`'s recordings and names
/// wrong keys): a wrong key, an extra, a missed note, a restart or a jump are told apart there,
/// not by rules of the partner's own. This value only turns the follower's estimate into
/// smooth moves of the music. Pure: it reads where the music is (a `FollowedClock.Warp`) and
/// the learner's notes still to come, and says how to move the warp; the session applies it.
///
/// Times: `wall` is the base clock (when a key went down); score times are the followed
/// clock's (the transport's event times). `beat` is a beat in score seconds. The follower's
/// own score is the plan's practised notes in seconds at the pass's tempo (`Onset.time` of
/// `init(score:)`), the same whatever the transport does; a note's `id` ties it to the pass.
public struct PartnerTiming: Sendable {
    /// A note of the learner's part, at its score time.
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
        /// The learner went back (a restart) or far on: the music moves to this note of the
        /// follower's score (its `id` a lesson note), the learner on it at `wall`.
        public var relocate: Onset?
    }

    /// The learner's tempo as a rate of the plan's (1 = as planned).
    public private(set) var rate = 1.0
    /// The score time of the last note of the learner's part the music met them at.
    public private(set) var reached: Double?
    /// True while Etude's part is silent, waiting for the learner to play again.
    public private(set) var silenced = false
    /// False until the music met the learner on a key of theirs (this pass, since following
    /// began, or since the music was moved by hand): their first key then sets the time.
    public private(set) var metLearner = false
    /// When the music began to wait at its cap (wall time).
    private var waitingSince: Double?
    /// The one follower: every key the learner plays goes through it.
    public private(set) var follower: ScoreFollower?

    /// Extremes of the rate: beyond them a learner is not playing the piece at another tempo
    /// but stopping or rushing, which the wait and the jump handle.
    public static let rates: ClosedRange<Double> = 0.4...2.5
    /// The cap stands this far before the awaited note, so the music's notes at its time wait.
    public static let capMargin = 0.001
    /// How much the rate may move on one note (a smooth tempo, no audible jumps).
    public static let stepLimit = 0.2
    /// Beats the follower's place may lie behind the music before the music goes back to it
    /// (a restart), and ahead before it goes on there at once (a jump) rather than skipping on.
    public static let backBeats = 1.0
    public static let onBeats = 4.0

    /// A partner following nothing yet (`heard` moves nothing until it has a score).
    public init() { hearingDelay = 0 }

    /// A partner following the learner through `score`: the practised notes of the plan, in
    /// seconds at the pass's tempo; `rate`, the tempo the learner kept so far; `hearingDelay`,
    /// how late (base seconds) their keys reach it after they sounded (a microphone's listener).
    public init(score: [Onset], rate: Double = 1, hearingDelay: Double = 0) {
        follower = ScoreFollower(score: FollowScore(score.map { ScoreNote(id: $0.id, pitch: $0.pitch, time: $0.time) }))
        self.rate = min(max(rate, Self.rates.lowerBound), Self.rates.upperBound)
        self.hearingDelay = max(0, hearingDelay)
    }

    /// How late the learner's keys reach the partner after they sounded (base seconds): the
    /// music runs on that far past their next note before it waits, so a learner on time is
    /// met on time, not when their note is heard.
    public let hearingDelay: Double

    /// The first note of the learner's part still ahead of where they are.
    static func awaited(after reached: Double?, in pending: [Onset]) -> Onset? {
        pending.first { $0.time > (reached ?? -.infinity) + 1e-6 }
    }

    /// The cap before the learner's next note, nil when none is left.
    func cap(pending: [Onset]) -> Double? {
        Self.awaited(after: reached, in: pending).map { $0.time - Self.capMargin + hearingDelay * rate }
    }

    /// A key went down at `wall`: the follower places it, and the music moves to meet the
    /// learner there. Nil when the key moves nothing (a chord's other notes, an extra key, a
    /// key before the score). `pending`: the pass's notes from about where the music is, on the
    /// music's clock, judged or not (the next after the learner's is where the music waits); `timeOf`: a lesson note's time on the music's
    /// clock in the pass under way (nil: not in the part of the pass being played).
    public mutating func heard(pitch: Int, wall: Double, warp: FollowedClock.Warp, pending: [Onset], beat: Double,
                               timeOf: (Int) -> Double?) -> Move? {
        guard var follower else { return nil }
        let before = follower.current
        let point = follower.play(PerformedNote(pitch: pitch, time: wall))
        self.follower = follower
        let score = follower.score
        guard point.chord >= 0, point.chord < score.chordCount else { return nil }
        // Another key of the chord the learner is on (or an extra beside it): nothing moves.
        if let b = before, b.chord == point.chord, abs(b.performanceTime - point.performanceTime) < 1e-9 { return nil }
        // Coming in (the pass's first note, or after the music was moved) only on a note of
        // the score or a slip beside one: a stray key before the start, taken for a wrong first
        // note, would start the music early, and its clock never goes back.
        let notes = score.notes[score.range(ofChord: point.chord)]
        if !metLearner && point.note == nil && !notes.contains(where: { abs($0.pitch - pitch) <= 2 }) { return nil }
        guard let first = notes.first else { return nil }
        // The learner's tempo, as the follower has it, moved on smoothly.
        let estimate = 1 / max(point.tempo, 1e-6)
        let limited = min(max(estimate, rate * (1 - Self.stepLimit)), rate * (1 + Self.stepLimit))
        rate = min(max(limited, Self.rates.lowerBound), Self.rates.upperBound)
        let wasSilent = silenced
        silenced = false
        waitingSince = nil
        let at = min(wall, point.performanceTime)
        let music = warp.score(atWall: wall)
        let target = notes.compactMap { timeOf($0.id) }.min()
        let wentBack = before.map { point.chord < $0.chord } ?? false
        metLearner = true
        if let target, !(wentBack && target < music - Self.backBeats * beat), target - music <= Self.onBeats * beat {
            reached = target
            var move = Move(wall: at, score: target, rate: rate, cap: cap(pending: pending))
            // Jumped ahead over music that should not sound all at once.
            if target - music > 0.25 * beat { move.skipBefore = target - 0.01 }
            move.resume = wasSilent
            return move
        }
        // A restart, or a jump beyond what skipping on covers: the music goes there.
        var move = Move(wall: at, score: nil, rate: rate, cap: nil)
        move.relocate = Onset(pitch: first.pitch, time: first.time, id: first.id)
        move.resume = wasSilent
        return move
    }

    /// The music's clock moved on (every few milliseconds, at wall time `wall`): keep the cap
    /// at the learner's next note, and fall silent once the music waited there a beat.
    public mutating func tick(wall: Double, warp: FollowedClock.Warp, pending: [Onset], beat: Double) -> Move? {
        // Silent, the music stands where it stopped until the learner plays (its transport is
        // paused there: moving the clock would move the music under it).
        guard !silenced else { return nil }
        // The pass's notes not known yet (its first events still to come): the cap at the
        // learner's first note stands.
        if pending.isEmpty && reached == nil { return nil }
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

    /// Forget where the learner was (a new pass, a jump by hand, following turned on): the
    /// music waits for their next note from here, and the follower for it at score time
    /// `from` (the follower's score; nil: its start). The tempo they kept is kept.
    public mutating func restart(from: Double? = nil) {
        reached = nil
        metLearner = false
        waitingSince = nil
        silenced = false
        if var f = follower {
            f.restart(atChord: from.map { f.chord(atOrAfter: $0) } ?? 0)
            follower = f
        }
    }

    /// The music was moved to where the learner is (`Move.relocate`): their last onset is `score`.
    public mutating func relocated(at score: Double, wall: Double) {
        reached = score
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
