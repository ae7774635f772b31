/// A whole performance aligned to the score: which key played which note, which keys were
/// extra, where the learner started again, and where each note was due in the performance.
public struct Alignment: Equatable, Sendable {
    /// What one key of the performance was.
    public enum Role: Equatable, Sendable {
        /// It played score note `note` (an index of `FollowScore.notes`).
        case matched(note: Int)
        /// A key no note asked for, inside the performance (extra, or a wrong key: see `WrongKeys`).
        case extra
        /// Before the score's first note was reached (a stray key, a recording's run-in).
        case before
        /// After the score's last note (a recording's run-out).
        case after
        /// Played in an attempt the learner then started again: the later attempt is judged.
        case superseded
    }

    /// One run through the score without going back: a restart begins the next.
    public struct Attempt: Equatable, Sendable {
        /// The performance's keys (indices) in it.
        public var keys: ClosedRange<Int>
        /// The first and last chords it reached.
        public var chords: ClosedRange<Int>
    }

    /// A restart: the chords the learner played again (judged once, in the later attempt).
    public struct Restart: Equatable, Sendable {
        public var chords: ClosedRange<Int>
        /// The key that started again.
        public var key: Int
    }

    /// Per key of the performance (in the order given).
    public var roles: [Role]
    /// Per key: where the follower put it (the running position and tempo).
    public var points: [FollowPoint]
    /// Per score note (`FollowScore.notes`): the key that played it, nil when none did.
    public var match: [Int?]
    /// Per score note: the performance time it was due at, by its attempt's tempo and onsets.
    public var due: [Double]
    public var attempts: [Attempt]
    public var restarts: [Restart]
}

/// The offline aligner: the best path of the same walk the online follower takes, traced
/// back over the whole performance (Viterbi over the follower's beams), then each chord judged
/// in the last attempt that reached it.
public enum ScoreAligner {
    /// Aligns `performance` (any order) to `score`.
    public static func align(_ performance: [PerformedNote], to score: FollowScore, model: FollowModel = FollowModel()) -> Alignment {
        let order = performance.indices.sorted { performance[$0].time != performance[$1].time ? performance[$0].time < performance[$1].time : $0 < $1 }
        var search = BeamSearch(score: score, model: model)
        // Every beam, kept compact and in one array (what the path back and its points need).
        var kept: [Hypothesis.Kept] = []
        var stepStart: [Int] = []
        kept.reserveCapacity(order.count * min(model.beam, 32))
        stepStart.reserveCapacity(order.count + 1)
        for i in order {
            search.step(performance[i])
            stepStart.append(kept.count)
            for h in search.beam { kept.append(Hypothesis.Kept(h)) }
        }
        stepStart.append(kept.count)
        let chordCount = score.chordCount
        var roles = Array(repeating: Alignment.Role.before, count: performance.count)
        var points = Array(repeating: FollowPoint(chord: -1, note: nil, scoreTime: 0, performanceTime: 0, tempo: 1, jumped: false),
                           count: performance.count)
        var match: [Int?] = Array(repeating: nil, count: score.notes.count)
        let lastBeam = search.beam
        guard !order.isEmpty, !lastBeam.isEmpty else {
            return Alignment(roles: roles, points: points, match: match, due: score.notes.map(\.time), attempts: [], restarts: [])
        }
        // The best ending, then its path back.
        var at = 0
        for (i, h) in lastBeam.enumerated() where h.cost + search.endCost(h) < lastBeam[at].cost + search.endCost(lastBeam[at]) { at = i }
        var path = Array(repeating: kept[stepStart[order.count - 1] + at], count: order.count)
        for step in stride(from: order.count - 1, through: 0, by: -1) {
            let h = kept[stepStart[step] + at]
            path[step] = h
            at = Int(h.back)
        }
        // Attempts: a jump back (or onto the chord it is at) starts one.
        var attempts: [Alignment.Attempt] = []
        var attemptOf = Array(repeating: -1, count: order.count)
        var restarts: [Alignment.Restart] = []
        var restartAttempt: [Int] = []
        for (step, h) in path.enumerated() {
            let c = Int(h.chord)
            guard c >= 0, c < chordCount else { continue }
            if let last = attempts.last, !(h.jumped && c <= last.chords.upperBound) {
                attempts[attempts.count - 1].keys = last.keys.lowerBound...step
                attempts[attempts.count - 1].chords = min(last.chords.lowerBound, c)...max(last.chords.upperBound, c)
            } else {
                if let last = attempts.last {
                    restarts.append(.init(chords: c...max(c, last.chords.upperBound), key: order[step]))
                    restartAttempt.append(attempts.count)
                }
                attempts.append(.init(keys: step...step, chords: c...c))
            }
            attemptOf[step] = attempts.count - 1
        }
        // Each chord is judged in the last attempt that reached it.
        var owner = Array(repeating: -1, count: chordCount)
        for (a, attempt) in attempts.enumerated() {
            for c in attempt.chords { owner[c] = a }
        }
        // A restart's range ends where the later attempt ended, if sooner.
        for r in restarts.indices {
            let a = restartAttempt[r]
            restarts[r].chords = restarts[r].chords.lowerBound...min(restarts[r].chords.upperBound, attempts[a].chords.upperBound)
        }
        var anchor: [Double?] = Array(repeating: nil, count: chordCount)
        var tempoAt: [Double] = Array(repeating: 1, count: chordCount)
        for (step, h) in path.enumerated() {
            let i = order[step]
            points[i] = FollowPoint(Hypothesis(chord: h.chord, matched: 0, cost: 0, anchor: h.anchor, tempo: h.tempo, back: h.back,
                                               note: h.note, jumped: h.jumped), score: score)
            let c = Int(h.chord)
            if c < 0 { roles[i] = .before; continue }
            if c >= chordCount { roles[i] = .after; continue }
            guard owner[c] == attemptOf[step] else { roles[i] = .superseded; continue }
            if anchor[c] == nil {
                anchor[c] = h.anchor
                tempoAt[c] = h.tempo
            }
            if h.note >= 0 {
                roles[i] = .matched(note: Int(h.note))
                match[Int(h.note)] = i
            } else {
                roles[i] = .extra
            }
        }
        let due = dueTimes(score: score, anchor: anchor, tempo: tempoAt, owner: owner)
        return Alignment(roles: roles, points: points, match: match, due: due, attempts: attempts, restarts: restarts)
    }

    /// Where each note was due in the performance: a chord the learner reached is where they put
    /// it; one they did not is placed between its neighbours in the same attempt (or from the
    /// nearest one at its tempo).
    static func dueTimes(score: FollowScore, anchor: [Double?], tempo: [Double], owner: [Int]) -> [Double] {
        let n = score.chordCount
        var previous = Array(repeating: -1, count: n)
        var next = Array(repeating: -1, count: n)
        var last = -1
        for c in 0..<n {
            if last >= 0, owner[last] != owner[c] { last = -1 }
            previous[c] = last
            if anchor[c] != nil { last = c }
        }
        last = -1
        for c in stride(from: n - 1, through: 0, by: -1) {
            if last >= 0, owner[last] != owner[c] { last = -1 }
            next[c] = last
            if anchor[c] != nil { last = c }
        }
        // Anything anchored at all, for chords whose attempt anchored none.
        let anyAnchored = (0..<n).first { anchor[$0] != nil }
        var chordDue = Array(repeating: 0.0, count: n)
        for c in 0..<n {
            let s = score.chordTime[c]
            if let a = anchor[c] {
                chordDue[c] = a
            } else if previous[c] >= 0, next[c] >= 0, let a = anchor[previous[c]], let b = anchor[next[c]] {
                let s0 = score.chordTime[previous[c]], s1 = score.chordTime[next[c]]
                chordDue[c] = s1 > s0 ? a + (b - a) * (s - s0) / (s1 - s0) : a
            } else if previous[c] >= 0, let a = anchor[previous[c]] {
                chordDue[c] = a + (s - score.chordTime[previous[c]]) * tempo[previous[c]]
            } else if next[c] >= 0, let b = anchor[next[c]] {
                chordDue[c] = b - (score.chordTime[next[c]] - s) * tempo[next[c]]
            } else if let k = anyAnchored, let a = anchor[k] {
                chordDue[c] = a + (s - score.chordTime[k]) * tempo[k]
            } else {
                chordDue[c] = s
            }
        }
        var due = Array(repeating: 0.0, count: score.notes.count)
        for c in 0..<n {
            for i in score.range(ofChord: c) { due[i] = chordDue[c] + (score.notes[i].time - score.chordTime[c]) }
        }
        return due
    }
}

/// Which note a wrong key replaced: the one a teacher would name. Among the notes left unplayed
/// near it, the nearest in time, and within a chord (the same time) the nearest in pitch; each
/// note takes at most one wrong key, each key replaces at most one note.
public enum WrongKeys {
    /// A key or a note as the charge sees it: its index in the caller's list, key and time.
    public struct Item: Equatable, Sendable {
        public var index: Int
        public var pitch: Int
        public var time: Double

        public init(index: Int, pitch: Int, time: Double) {
            self.index = index
            self.pitch = pitch
            self.time = time
        }
    }

    /// How much a semitone weighs against a second: 12 semitones ≈ 0.12 s, so notes struck
    /// together are told apart by pitch, notes a beat apart by time.
    public static let secondsPerSemitone = 0.01

    /// The cost of charging `key` to `note`.
    public static func cost(key: Item, note: Item) -> Double {
        abs(key.time - note.time) + secondsPerSemitone * Double(abs(key.pitch - note.pitch))
    }

    /// Pairs wrong keys with the notes they replaced: only pairs within `window` seconds, the
    /// cheapest first. Returns (key index, note index) pairs.
    public static func charge(keys: [Item], notes: [Item], window: Double) -> [(key: Int, note: Int)] {
        var pairs: [(cost: Double, k: Int, n: Int)] = []
        let byTime = notes.indices.sorted { notes[$0].time < notes[$1].time }
        for (k, key) in keys.enumerated() {
            // The notes within the window, by binary search on time.
            var lo = 0, hi = byTime.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if notes[byTime[mid]].time < key.time - window - 1e-9 { lo = mid + 1 } else { hi = mid }
            }
            var j = lo
            while j < byTime.count, notes[byTime[j]].time <= key.time + window + 1e-9 {
                let n = byTime[j]
                if notes[n].pitch != key.pitch { pairs.append((cost(key: key, note: notes[n]), k, n)) }
                j += 1
            }
        }
        pairs.sort { $0.cost != $1.cost ? $0.cost < $1.cost : ($0.k, $0.n) < ($1.k, $1.n) }
        var keyUsed = Set<Int>(), noteUsed = Set<Int>()
        var out: [(key: Int, note: Int)] = []
        for p in pairs where !keyUsed.contains(p.k) && !noteUsed.contains(p.n) {
            keyUsed.insert(p.k)
            noteUsed.insert(p.n)
            out.append((keys[p.k].index, notes[p.n].index))
        }
        return out
    }
}
