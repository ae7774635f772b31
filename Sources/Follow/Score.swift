/// A note of the score as the follower sees it: what key, and when it is due in score time
/// (seconds at the tempo the score is written or practised at; the follower learns how much
/// faster or slower the performance goes).
public struct ScoreNote: Equatable, Hashable, Sendable {
    /// The caller's identity for the note (e.g. the lesson note's index), echoed back.
    public var id: Int
    public var pitch: Int
    /// Onset in score seconds.
    public var time: Double

    public init(id: Int, pitch: Int, time: Double) {
        self.id = id
        self.pitch = pitch
        self.time = time
    }
}

/// A key press of the performance: the follower reads onsets only (releases, velocities and the
/// pedal are the ear's business once the notes are aligned).
public struct PerformedNote: Equatable, Hashable, Sendable {
    public var pitch: Int
    /// Onset in performance seconds (any origin: a recording's start, a clock's reading).
    public var time: Double

    public init(pitch: Int, time: Double) {
        self.pitch = pitch
        self.time = time
    }
}

/// The score the follower walks through: its notes in time order, grouped into chords (notes
/// whose onsets lie within `chordTolerance` of the chord's first), with each key's chords
/// indexed so a jump can look only where the key played is written.
public struct FollowScore: Sendable {
    /// The notes, sorted by time then pitch.
    public let notes: [ScoreNote]
    /// Each chord's first note in `notes` (its notes run to the next chord's first).
    public let chordStart: [Int]
    /// Each chord's onset in score seconds (its first note's).
    public let chordTime: [Double]
    /// Notes before each chord, with one more entry (the total): skipped notes counted in O(1).
    let notesBefore: [Int]
    /// Key → the chords (ascending) in which it is written.
    let chordsWithPitch: [[Int32]]

    /// Groups `notes` (any order) into chords; a chord holds at most 64 notes (more are split).
    public init(_ notes: [ScoreNote], chordTolerance: Double = 0.035) {
        let sorted = notes.sorted { $0.time != $1.time ? $0.time < $1.time : $0.pitch < $1.pitch }
        self.notes = sorted
        var starts: [Int] = []
        var times: [Double] = []
        for (i, n) in sorted.enumerated() {
            if let t = times.last, let s = starts.last, n.time - t <= chordTolerance, i - s < 64 { continue }
            starts.append(i)
            times.append(n.time)
        }
        chordStart = starts
        chordTime = times
        notesBefore = starts + [sorted.count]
        var byPitch = Array(repeating: [Int32](), count: 128)
        for c in starts.indices {
            let end = c + 1 < starts.count ? starts[c + 1] : sorted.count
            var seen = Set<Int>()
            for i in starts[c]..<end where (0..<128).contains(sorted[i].pitch) && seen.insert(sorted[i].pitch).inserted {
                byPitch[sorted[i].pitch].append(Int32(c))
            }
        }
        chordsWithPitch = byPitch
    }

    /// How many chords.
    public var chordCount: Int { chordStart.count }

    /// The notes of chord `c`, as a range of `notes`.
    public func range(ofChord c: Int) -> Range<Int> { notesBefore[c]..<notesBefore[c + 1] }

    /// The chord note `i` (an index of `notes`) belongs to.
    public func chord(ofNote i: Int) -> Int {
        var lo = 0, hi = chordStart.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if chordStart[mid] <= i { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }
}

/// What the follower weighs, as costs (negative log-odds, roughly): a played key that matches no
/// note, a note never played, a jump in the score, and how far a key may fall from where the
/// tempo so far puts it. The defaults are tuned on the lessons with the perturbations the
/// tests and `etude-bench follow` plant.
public struct FollowModel: Equatable, Sendable {
    /// A key that matches no unplayed note of the chord it lands on (extra or wrong).
    public var extraCost = 3.5
    /// A wrong key a semitone or two from a note of the chord it comes in on, on time: a slip
    /// onto the neighbour key, a little cheaper than an extra, so the learner is taken to be
    /// on that chord (the key played in place of its note) rather than still on the last one.
    public var slipCost = 3.2
    /// A key before the score starts (a stray, a recording's run-in): as dear as an extra, so
    /// waiting outside the score is never cheaper than following it through its mistakes.
    public var beforeCost = 3.6
    /// A key after the score ended (a recording's run-out): cheap, the piece is over.
    public var afterCost = 1.0
    /// A score note left unplayed.
    public var missCost = 3.0
    /// Jumping back in the score (a restart); grows slowly with the distance.
    public var jumpCost = 9.0
    /// Jumping on past `maxSkip` chords (a skipped passage), besides the notes skipped.
    public var skipCost = 2.0
    /// Most chords an ordinary step may move forward (skipping the ones between as missed).
    public var maxSkip = 8
    /// Keys of one chord played this far apart cost nothing (a rolled or uneven chord).
    public var chordSpread = 0.12
    /// Timing: the allowed deviation of an onset from where the tempo puts it is
    /// `timingFloor + timingShare × the interval`, seconds.
    public var timingFloor = 0.05
    public var timingShare = 0.25
    /// The timing cost of one onset is at most this (a stop, a hesitation: never worse than this).
    public var lateCap = 2.0
    public var earlyCap = 5.0
    /// How much one interval moves the tempo estimate (0 = fixed, 1 = the last interval's).
    public var tempoGain = 0.35
    /// Hypotheses kept after each key, and how far (in cost) behind the best one they may be.
    public var beam = 96
    public var beamWidth = 40.0
    /// Jumps considered per key: the chords nearest the current position where the key is written.
    public var jumpCandidates = 16

    public init() {}
}
