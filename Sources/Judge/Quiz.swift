import MIDIFile

/// What the quiz asks for.
public enum QuizKind: String, Equatable, Sendable, Codable, CaseIterable {
    /// Etude names a note; play it.
    case notes
    /// Etude plays and names an interval from a lower note; play both notes.
    case intervals
    /// Etude plays and names a chord; play its notes (any octave, any voicing).
    case chords
}

/// A user-facing quiz problem (bad range, bad kind): one line with the fix.
public struct QuizError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// An inclusive range of pitches, written like `C3-C6` (or `48-84`).
public struct PitchRange: Equatable, Sendable, Codable {
    public var lower: Int
    public var upper: Int

    public init(lower: Int, upper: Int) {
        self.lower = min(lower, upper)
        self.upper = max(lower, upper)
    }

    /// Parses `LOW-HIGH` with note names (`C3-C6`, `F#2-Bb4`, `c-1-c1`) or MIDI numbers.
    public static func parse(_ text: String) throws(QuizError) -> PitchRange {
        let chars = Array(text.filter { $0 != " " })
        // The separator is a '-' right after an octave digit (so `C-1` stays one note).
        var split: Int?
        for i in chars.indices where chars[i] == "-" && i > 0 && chars[i - 1].isNumber && i + 1 < chars.count {
            split = i
            break
        }
        guard let s = split,
              let lo = PitchName.parse(String(chars[..<s])),
              let hi = PitchName.parse(String(chars[(s + 1)...])) else {
            throw QuizError("range \"\(TextDecoding.sanitize(text))\" is not like C3-C6; write two notes (or MIDI numbers) joined by '-'")
        }
        guard lo <= hi else {
            throw QuizError("range \"\(TextDecoding.sanitize(text))\" goes downwards; write the lower note first, e.g. C3-C6")
        }
        return PitchRange(lower: lo, upper: hi)
    }

    public var description: String { "\(PitchName.name(lower))-\(PitchName.name(upper))" }
}

/// A small, fast, seedable generator (SplitMix64): a quiz or a routine's random picks replay
/// exactly with the same `--seed`, and tests are reproducible.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One question: what to say, what Etude plays, what counts as right.
public struct QuizQuestion: Equatable, Sendable, Codable {
    public var kind: QuizKind
    /// The line to show, e.g. "Play E4", "Play a major third up from C4".
    public var prompt: String
    /// The pitches of the answer, low to high (Etude plays these for intervals and chords).
    public var pitches: [Int]
    /// The right answer spelled out, shown after a wrong one: "C4 E4".
    public var answerText: String

    /// How many distinct keys make an answer (1, 2, or the chord's size).
    public var answerSize: Int { pitches.count }

    /// Notes and intervals need the exact keys; chords accept any octave and voicing
    /// as long as the set of pitch classes is the chord's.
    public func isCorrect(_ played: Set<Int>) -> Bool {
        switch kind {
        case .notes, .intervals:
            return played == Set(pitches)
        case .chords:
            return played.count >= pitches.count && Set(played.map { $0 % 12 }) == Set(pitches.map { $0 % 12 })
        }
    }
}

/// The outcome of one answered question.
public struct QuizResult: Equatable, Sendable, Codable {
    public var question: QuizQuestion
    public var played: [Int]
    public var correct: Bool
}

/// A quiz: questions drawn at random (seeded) within a range, answers checked, a percentage.
public struct Quiz: Sendable {
    public let kind: QuizKind
    public let range: PitchRange
    public let questions: [QuizQuestion]
    public private(set) var results: [QuizResult] = []

    public static let intervalNames = [
        "minor second", "major second", "minor third", "major third", "perfect fourth", "tritone",
        "perfect fifth", "minor sixth", "major sixth", "minor seventh", "major seventh", "octave",
    ]
    /// Letters from the root to the top note of each interval (a tritone written as an
    /// augmented fourth, the octave as the same letter).
    static let intervalLetters = [1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 6, 7]
    /// Chord qualities and their intervals above the root.
    public static let chordQualities: [(name: String, intervals: [Int])] = [
        ("major", [0, 4, 7]), ("minor", [0, 3, 7]), ("diminished", [0, 3, 6]), ("augmented", [0, 4, 8]),
        ("dominant seventh", [0, 4, 7, 10]), ("major seventh", [0, 4, 7, 11]), ("minor seventh", [0, 3, 7, 10]),
    ]

    /// Draws `count` questions. Throws when the range is too narrow for the kind.
    public init(kind: QuizKind, count: Int = 10, range: PitchRange = PitchRange(lower: 48, upper: 84), seed: UInt64) throws(QuizError) {
        guard count > 0 else { throw QuizError("--questions must be at least 1") }
        let span = range.upper - range.lower
        let needed = kind == .notes ? 0 : (kind == .intervals ? 1 : 6)
        guard span >= needed else {
            throw QuizError("range \(range.description) is too narrow for \(kind.rawValue); widen it, e.g. C3-C6")
        }
        var rng = SeededGenerator(seed: seed)
        var out: [QuizQuestion] = []
        for _ in 0..<count {
            out.append(Self.question(kind: kind, range: range, rng: &rng))
        }
        self.kind = kind
        self.range = range
        questions = out
    }

    static func question(kind: QuizKind, range: PitchRange, rng: inout SeededGenerator) -> QuizQuestion {
        switch kind {
        case .notes:
            let p = Int.random(in: range.lower...range.upper, using: &rng)
            return QuizQuestion(kind: kind, prompt: "Play \(PitchName.name(p))", pitches: [p], answerText: PitchName.name(p))
        case .intervals:
            let maxInterval = min(12, range.upper - range.lower)
            let interval = Int.random(in: 1...maxInterval, using: &rng)
            let root = Int.random(in: range.lower...(range.upper - interval), using: &rng)
            let pitches = [root, root + interval]
            // Spelled from the root: the interval's number counts letters (a sixth is six letters).
            let letter = PitchName.rootLetter(root)
            let names = [PitchName.name(root, letter: letter), PitchName.name(root + interval, letter: letter + intervalLetters[interval - 1])]
            return QuizQuestion(kind: kind, prompt: "Play a \(intervalNames[interval - 1]) up from \(names[0])",
                                pitches: pitches, answerText: names.joined(separator: " "))
        case .chords:
            let span = range.upper - range.lower
            let fitting = chordQualities.filter { ($0.intervals.last ?? 0) <= span }
            let quality = fitting[Int.random(in: 0..<fitting.count, using: &rng)]
            let top = quality.intervals.last ?? 0
            let root = Int.random(in: range.lower...(range.upper - top), using: &rng)
            let pitches = quality.intervals.map { root + $0 }
            // Stacked in thirds: root, third, fifth, seventh on every other letter.
            let letter = PitchName.rootLetter(root)
            let names = pitches.enumerated().map { i, p in PitchName.name(p, letter: letter + 2 * i) }
            let rootName = names[0]
            let rootLetterName = String(rootName.prefix(while: { !$0.isNumber && $0 != "-" }))
            return QuizQuestion(kind: kind, prompt: "Play \(rootLetterName) \(quality.name) (from \(rootName))",
                                pitches: pitches, answerText: names.joined(separator: " "))
        }
    }

    /// The question waiting for an answer, nil when the quiz is over.
    public var current: QuizQuestion? { results.count < questions.count ? questions[results.count] : nil }
    public var isFinished: Bool { current == nil }

    /// Checks the keys played for the current question and moves on.
    @discardableResult
    public mutating func answer(_ played: Set<Int>) -> QuizResult? {
        guard let q = current else { return nil }
        let result = QuizResult(question: q, played: played.sorted(), correct: q.isCorrect(played))
        results.append(result)
        return result
    }

    public var correctCount: Int { results.filter(\.correct).count }

    /// Percentage of answered questions that were right (0 before any answer).
    public var percentage: Double {
        results.isEmpty ? 0 : (100 * Double(correctCount) / Double(results.count) * 100).rounded() / 100
    }
}

/// Gathers the keys of one quiz answer from played events: the answer is complete when as
/// many distinct keys as the question needs have been pressed.
public struct QuizAnswerCollector: Sendable {
    public let size: Int
    public private(set) var pressed: [Int] = []

    public init(size: Int) { self.size = max(1, size) }

    /// Adds a press; returns the answer set once it is complete. Releases are ignored.
    public mutating func add(_ event: PlayedEvent) -> Set<Int>? {
        guard event.isOn, event.velocity > 0 else { return nil }
        if !pressed.contains(event.pitch) { pressed.append(event.pitch) }
        return pressed.count >= size ? Set(pressed) : nil
    }
}
