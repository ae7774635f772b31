import Follow

/// A small deterministic generator (the tests' performances are the same every run).
struct Seeded {
    var state: UInt64
    init(_ seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    /// Uniform in 0..<1.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Scores the tests follow, in score seconds.
enum Scores {
    /// Ode to Joy's melody (Etude's level-4 arrangement, right hand: 62 notes) at 100 bpm.
    static let odeToJoy: [ScoreNote] = {
        let a: [(Int, Double)] = [(64, 1), (64, 1), (65, 1), (67, 1), (67, 1), (65, 1), (64, 1), (62, 1), (60, 1), (60, 1), (62, 1), (64, 1)]
        let phraseA = a + [(64, 1.5), (62, 0.5), (62, 2)]
        let phraseB = a + [(62, 1.5), (60, 0.5), (60, 2)]
        let phraseC: [(Int, Double)] = [(62, 1), (62, 1), (64, 1), (60, 1), (62, 1), (64, 0.5), (65, 0.5), (64, 1), (60, 1), (62, 1), (64, 0.5), (65, 0.5),
                                        (64, 1), (62, 1), (60, 1), (62, 1), (55, 2)]
        var beat = 0.0
        var out: [ScoreNote] = []
        for (p, d) in phraseA + phraseB + phraseC + phraseB {
            out.append(ScoreNote(id: out.count, pitch: p, time: beat * 0.6))
            beat += d
        }
        return out
    }()

    /// Bar (from 1, four beats of 0.6 s) of a score time.
    static func bar(_ time: Double) -> Int { Int((time / 2.4 + 1e-6).rounded(.down)) + 1 }

    /// A I–IV–V–I cadence, both hands (bass and a three-note chord), a chord a beat, `times` over.
    static func cadence(times: Int = 4) -> [ScoreNote] {
        let chords: [[Int]] = [[48, 60, 64, 67], [53, 60, 65, 69], [55, 59, 62, 67], [48, 60, 64, 67]]
        var out: [ScoreNote] = []
        for r in 0..<times {
            for (k, chord) in chords.enumerated() {
                for p in chord { out.append(ScoreNote(id: out.count, pitch: p, time: Double(r * 4 + k) * 0.8)) }
            }
        }
        return out
    }
}

/// A performance made from a score: each note played at the time a tempo curve puts it, with
/// mistakes planted; `truth` says which key played which note.
struct Performance {
    var keys: [PerformedNote] = []
    /// Per score note (in the order given): the key that plays it, nil when none does.
    var truth: [Int?]

    /// `warp` maps score time to performance time; `drop` leaves notes out; `wrong` plays a
    /// neighbour key instead (the note is then unplayed: truth nil); `spread` rolls chords.
    init(_ notes: [ScoreNote], warp: (Double) -> Double = { $0 + 2 }, jitter: Double = 0, seed: UInt64 = 1,
         drop: Set<Int> = [], wrong: [Int: Int] = [:], spread: Double = 0) {
        var rng = Seeded(seed)
        truth = Array(repeating: nil, count: notes.count)
        var chordRank: [Double: Int] = [:]
        for (i, n) in notes.enumerated() {
            if drop.contains(i) { continue }
            let rank = chordRank[n.time, default: 0]
            chordRank[n.time] = rank + 1
            let t = warp(n.time) + (rng.unit() * 2 - 1) * jitter + Double(rank) * spread
            if let w = wrong[i] {
                keys.append(PerformedNote(pitch: w, time: t))
            } else {
                truth[i] = keys.count
                keys.append(PerformedNote(pitch: n.pitch, time: t))
            }
        }
    }

    /// Adds a key no note asks for.
    mutating func insert(_ key: PerformedNote) { keys.append(key) }

    /// The share of score notes the alignment matched to the key that played them (and of notes
    /// nobody played, left unmatched).
    func accuracy(_ a: Alignment, notes: [ScoreNote], score: FollowScore) -> Double {
        // The aligner's notes are sorted; map them back to the order given by id.
        var right = 0
        for (k, n) in score.notes.enumerated() {
            let given = notes.firstIndex { $0.id == n.id }!
            if a.match[k] == truth[given] { right += 1 }
        }
        return Double(right) / Double(notes.count)
    }
}
