import Synchronization

/// The music's own time when Etude follows the learner (`--follow`): it runs at the rate the
/// learner plays (score seconds per second of the base clock), can be held at a point the
/// learner has not reached yet, and is moved on when they get there, so the transport, the
/// falling notes, the metronome and the judge all move with the learner instead of a fixed
/// tempo. A warp of the base clock: `score = anchorScore + rate × (base − anchorWall)`, never
/// past `cap`, never backwards (a `TimeSource` never goes back: events would play twice).
///
/// Read from any thread (a `Mutex` guards three numbers, held only to copy them); changed by
/// the practice runtime's owner. Not for an audio callback.
public final class FollowedClock: TimeSource {
    /// The line the music follows and the point it must not pass.
    public struct Warp: Equatable, Sendable {
        public var anchorWall: Double
        public var anchorScore: Double
        /// Score seconds per base second: 1 is the plan's tempo, 0.8 the learner 20 % slower.
        public var rate: Double
        /// The music stops here until the learner comes (nil: nothing to wait for).
        public var cap: Double?

        /// The line through (`anchorWall`, `anchorScore`) at `rate`, held at `cap`.
        public init(anchorWall: Double, anchorScore: Double, rate: Double, cap: Double?) {
            self.anchorWall = anchorWall
            self.anchorScore = anchorScore
            self.rate = rate
            self.cap = cap
        }

        /// Where the line is at base time `wall`, ignoring the cap (where the learner is expected).
        public func projected(atWall wall: Double) -> Double {
            // Exactly the base clock until the learner is first followed (no rounding on the way).
            if rate == 1 && anchorScore == anchorWall { return wall }
            return anchorScore + rate * (wall - anchorWall)
        }

        /// The music's time at base time `wall`.
        public func score(atWall wall: Double) -> Double {
            let s = projected(atWall: wall)
            guard let cap else { return s }
            return min(s, max(cap, anchorScore))
        }
    }

    public let base: any TimeSource
    private let state: Mutex<(warp: Warp, last: Double)>

    /// Starts at the base clock's time, at the plan's tempo (rate 1).
    public init(base: any TimeSource) {
        self.base = base
        let now = base.now
        state = Mutex((Warp(anchorWall: now, anchorScore: now, rate: 1, cap: nil), now))
    }

    public var warp: Warp { state.withLock { $0.warp } }

    public var now: Double {
        let wall = base.now
        return state.withLock { s in
            let t = max(s.last, s.warp.score(atWall: wall))
            s.last = t
            return t
        }
    }

    /// The music's rate now (0 while it waits at its cap).
    public var rate: Double {
        let wall = base.now
        return state.withLock { s in
            if let cap = s.warp.cap, s.warp.projected(atWall: wall) >= cap { return 0 }
            return s.warp.rate
        }
    }

    public var isRealTime: Bool { base.isRealTime }

    /// Where the learner is expected at base time `wall` (the line, past any cap): what a note
    /// played then is judged against.
    public func projected(atWall wall: Double) -> Double { state.withLock { $0.warp.projected(atWall: wall) } }

    /// Moves the line: from base time `wall` the music is at `score` (nil: where it is now,
    /// so nothing jumps) and runs at `rate`, waiting at `cap`. A `score` behind the music's
    /// time is taken as that time (never backwards). A `wall` already past (a key heard late,
    /// stamped when it sounded) puts the music where that line is now, not `score` now.
    public func retime(atWall wall: Double, score: Double? = nil, rate: Double, cap: Double?) {
        let now = max(wall, base.now)
        state.withLock { s in
            let here = max(s.last, s.warp.score(atWall: now))
            let start = max(here, score.map { $0 + max(0, rate) * (now - wall) } ?? here)
            s.warp = Warp(anchorWall: now, anchorScore: start, rate: max(0, rate), cap: cap)
            s.last = start
        }
    }

    /// Sleeps until the music's time reaches `time`, a few milliseconds at a time (the line
    /// may move meanwhile); returns early while the music waits at its cap, so a caller's loop
    /// looks again.
    public func sleep(until time: Double) {
        let step = 0.005
        while now < time {
            let w = state.withLock { s -> Double? in
                let r = s.warp.rate
                guard r > 0 else { return nil }
                if let cap = s.warp.cap, time > cap { return nil }
                return s.warp.anchorWall + (time - s.warp.anchorScore) / r
            }
            guard let w else {
                base.sleep(until: base.now + step)
                return
            }
            base.sleep(until: min(w, base.now + step))
        }
    }

    /// Base seconds until the music's time moves on by `seconds` (at the current rate; a
    /// short look again while it waits).
    public func baseSeconds(for seconds: Double) -> Double {
        let r = rate
        return r > 0 ? seconds / r : 0.005
    }
}
