import Follow

/// A recorded performance judged through the score follower (`etude judge`): the keys are
/// aligned to the expected notes (`ScoreAligner`), not anchored on the first key, so a stray key
/// before the start, a missed first note, extra keys, a stop or a restart move no other verdict.
///
/// - Each note a key played is a hit, early or late by its distance from where it was due at
///   the tempo judged: the expected time moved by its attempt's median offset (as play mode
///   judges against a steady tempo).
/// - A key that played no note is wrong when it replaced a note left unplayed within the window
///   (`WrongKeys`: nearest in time, within a chord nearest in pitch), else extra — before,
///   between and after alike. Keys far outside the piece (more than `runOut` seconds before its
///   first note played or after its last: a recording's run-in, the bars that follow) are not judged.
/// - A passage played again (a restart) is judged once, in the last attempt; the keys of the
///   attempts before are set aside and the restart is named.
public struct AlignedPass: Sendable {
    /// What one expected note was played by.
    public struct Note: Equatable, Sendable, Codable {
        /// `ExpectedNote.id`.
        public var id: Int
        /// The key press (an index of the presses given) that played it, nil when none did.
        public var key: Int?
        /// That key's time in the performance, seconds.
        public var playedAt: Double?
        /// Where the note was due in the performance, by the learner's tempo around it.
        public var dueAt: Double
        /// The wrong key (an index of the presses) charged to this note, when one replaced it.
        public var wrongKey: Int?
    }

    /// A passage played more than once: the expected notes it runs from and to, and how often.
    public struct Restart: Equatable, Sendable {
        public var firstID: Int
        public var lastID: Int
        public var times: Int
    }

    public var judgements: [Judgement]
    /// One per expected note, in the order of the notes given.
    public var notes: [Note]
    /// Keys judged extra (indices of the presses).
    public var extras: [Int]
    /// Keys set aside: an earlier attempt's, or far outside the piece.
    public var setAside: [Int]
    public var restarts: [Restart]

    /// Seconds before the first note played and after the last within which a key is judged.
    public static let runOut = 2.0

    /// The most key presses a performance may have: the aligner keeps 32 bytes per hypothesis
    /// per key to trace the best path back (about 150 MB at this size, two hours of fast playing).
    public static let maxPresses = 50_000

    /// Judges `presses` (key presses in time order, any clock) against `expected`.
    public static func judge(expected: [ExpectedNote], presses: [PlayedEvent], window: TimingWindow = TimingWindow()) -> AlignedPass {
        let score = FollowScore(expected.map { ScoreNote(id: $0.id, pitch: $0.pitch, time: $0.time) }, chordTolerance: 0.035)
        let keys = presses.map { PerformedNote(pitch: $0.pitch, time: $0.time) }
        let a = ScoreAligner.align(keys, to: score)
        var byID: [Int: Int] = [:]
        for (i, n) in expected.enumerated() { byID[n.id] = i }
        // The aligner's note k is expected[index[k]].
        let index = score.notes.map { byID[$0.id] ?? 0 }
        // Each attempt's offset: the median of its notes' (played − expected), so no one note
        // (the first, a stray, a stumble) sets the clock the others are judged by.
        var attemptOfKey: [Int: Int] = [:]
        for (n, attempt) in a.attempts.enumerated() { for step in attempt.keys { attemptOfKey[step] = n } }
        var shifts: [Int: [Double]] = [:]
        for (k, key) in a.match.enumerated() {
            guard let key, let at = attemptOfKey[key] else { continue }
            shifts[at, default: []].append(presses[key].time - score.notes[k].time)
        }
        let offset = shifts.mapValues { list -> Double in
            let sorted = list.sorted()
            let mid = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
        }
        var notes = expected.map { Note(id: $0.id, key: nil, playedAt: nil, dueAt: $0.time, wrongKey: nil) }
        var judgements: [Judgement] = []
        let firstPlayed = a.match.compactMap { $0 }.min().map { presses[$0].time }
        let lastPlayed = a.match.compactMap { $0 }.max().map { presses[$0].time }
        for (k, key) in a.match.enumerated() {
            let e = expected[index[k]]
            notes[index[k]].dueAt = a.due[k]
            guard let key else { continue }
            notes[index[k]].key = key
            notes[index[k]].playedAt = presses[key].time
            let shift = attemptOfKey[key].flatMap { offset[$0] } ?? 0
            let error = presses[key].time - (e.time + shift)
            let verdict: Verdict = abs(error) <= window.onTime + 1e-9 ? .onTime : (error < 0 ? .early : .late)
            judgements.append(Judgement(verdict: verdict, expected: e, played: presses[key], errorMs: error * 1000, section: e.section))
        }
        // Keys that played no note: wrong where they replaced one, else extra (or set aside).
        var loose: [Int] = []
        var setAside: [Int] = []
        for (i, role) in a.roles.enumerated() {
            switch role {
            case .matched: continue
            case .superseded: setAside.append(i)
            case .extra, .before, .after:
                let t = presses[i].time
                if let f = firstPlayed, let l = lastPlayed, t < f - runOut || t > l + runOut {
                    setAside.append(i)
                } else {
                    loose.append(i)
                }
            }
        }
        let unplayed = a.match.indices.filter { a.match[$0] == nil }
        let charges = WrongKeys.charge(keys: loose.map { .init(index: $0, pitch: presses[$0].pitch, time: presses[$0].time) },
                                       notes: unplayed.map { .init(index: $0, pitch: score.notes[$0].pitch, time: a.due[$0]) },
                                       window: window.window)
        var charged = Set<Int>()
        for c in charges {
            let e = expected[index[c.note]]
            notes[index[c.note]].wrongKey = c.key
            charged.insert(c.key)
            judgements.append(Judgement(verdict: .wrongPitch, expected: e, played: presses[c.key], errorMs: nil, section: e.section))
        }
        var extras: [Int] = []
        for i in loose where !charged.contains(i) {
            extras.append(i)
            // The section of the note due nearest it.
            var nearest: Int?
            for k in score.notes.indices where nearest.map({ abs(a.due[k] - presses[i].time) < abs(a.due[$0] - presses[i].time) }) ?? true {
                nearest = k
            }
            judgements.append(Judgement(verdict: .extra, expected: nil, played: presses[i], errorMs: nil,
                                        section: nearest.map { expected[index[$0]].section } ?? 0))
        }
        for k in unplayed {
            let e = expected[index[k]]
            judgements.append(Judgement(verdict: .missed, expected: e, played: nil, errorMs: nil, section: e.section))
        }
        // Restarts, by the expected notes their chords run over; the same passage again counts up.
        var restarts: [Restart] = []
        for r in a.restarts {
            let first = score.notes[score.range(ofChord: r.chords.lowerBound).lowerBound].id
            let last = score.notes[score.range(ofChord: r.chords.upperBound).upperBound - 1].id
            if let same = restarts.firstIndex(where: { $0.firstID == first && $0.lastID == last }) {
                restarts[same].times += 1
            } else {
                restarts.append(Restart(firstID: first, lastID: last, times: 2))
            }
        }
        return AlignedPass(judgements: judgements, notes: notes, extras: extras, setAside: setAside.sorted(), restarts: restarts)
    }
}
