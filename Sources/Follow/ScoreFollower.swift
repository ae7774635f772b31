/// Where the follower puts the performance after a key.
public struct FollowPoint: Equatable, Sendable {
    /// The chord the key landed on (an index of the score's chords); -1 before the score
    /// started, `chordCount` after it ended.
    public var chord: Int
    /// The score note the key played (an index of `FollowScore.notes`), nil for an extra key.
    public var note: Int?
    /// The score time of that chord's onset (the score's first onset before it, its last after).
    public var scoreTime: Double
    /// Performance time of that onset: where the learner put it.
    public var performanceTime: Double
    /// Performance seconds per score second: 1 at the written (practised) tempo, 1.25 when the
    /// learner plays at 80 % of it.
    public var tempo: Double
    /// True when the key made the follower jump (a restart, a passage skipped).
    public var jumped: Bool
}

/// The online follower: feed it keys as they are played and read where the learner is and at
/// what tempo. A value, no clock of its own: the caller (a test's virtual clock, the practice
/// runtime's) says when each key came and asks for the position at any moment; nothing blocks
/// or waits. Robust to stray and wrong keys, missed notes, rolled chords, restarts and jumps,
/// and a learner who slows, rushes or stops: each key is weighed against a beam of hypotheses
/// (`FollowModel`), and the best is reported.
public struct ScoreFollower: Sendable {
    public let score: FollowScore
    private var search: BeamSearch
    /// After the last key: where the follower put it.
    public private(set) var current: FollowPoint?

    public init(score: FollowScore, model: FollowModel = FollowModel()) {
        self.score = score
        search = BeamSearch(score: score, model: model)
    }

    /// Takes one key press; returns where it puts the learner.
    @discardableResult
    public mutating func play(_ key: PerformedNote) -> FollowPoint {
        search.step(key)
        let best = search.beam[0]
        let point = FollowPoint(best, score: score)
        current = point
        return point
    }

    /// Forgets the keys so far and waits for the learner at chord `chord` (0: the start), at
    /// the tempo they kept: the music was moved there (a pass begun again, a jump by hand), so
    /// the next key is weighed from there, not from wherever the learner last was.
    public mutating func restart(atChord chord: Int = 0) {
        search.reset(before: chord, tempo: current?.tempo ?? 1)
        current = nil
    }

    /// The first chord at or after score time `time` (`chordCount` when none is).
    public func chord(atOrAfter time: Double) -> Int {
        var lo = 0, hi = score.chordCount
        while lo < hi {
            let mid = (lo + hi) / 2
            if score.chordTime[mid] < time - 1e-9 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Tempo as a share of the written one (1.25 seconds per score second → 0.8).
    public var tempoRatio: Double { 1 / (current?.tempo ?? 1) }

    /// Where the learner is at performance time `time`, in score seconds: the last onset placed,
    /// moved on at their tempo, but never past the next chord's onset (a learner who stops is
    /// waited for there). Nil before the first key.
    public func position(at time: Double) -> Double? {
        guard let p = current else { return nil }
        let c = p.chord
        guard c >= 0, c < score.chordCount else { return p.scoreTime }
        let moved = p.scoreTime + max(0, time - p.performanceTime) / p.tempo
        let next = c + 1 < score.chordCount ? score.chordTime[c + 1] : p.scoreTime
        return min(moved, max(next, p.scoreTime))
    }
}

extension FollowPoint {
    init(_ h: Hypothesis, score: FollowScore) {
        let c = Int(h.chord)
        let time: Double
        if c < 0 {
            time = score.chordTime.first ?? 0
        } else if c >= score.chordCount {
            time = score.chordTime.last ?? 0
        } else {
            time = score.chordTime[c]
        }
        self.init(chord: c, note: h.note >= 0 ? Int(h.note) : nil, scoreTime: time, performanceTime: h.anchor.isNaN ? 0 : h.anchor,
                  tempo: h.tempo, jumped: h.jumped)
    }
}
