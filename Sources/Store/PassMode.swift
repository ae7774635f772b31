import Foundation
import Lesson

/// How a stored pass was played: the `pass.mode` column, stored as its raw value ("play",
/// "wait", "judge", "quiz-interval"…) and read back typed, so no reader parses it again.
///
/// A value no case names (a developer tool's tag, a mode a newer Etude wrote) is kept as
/// `other`, never refused: the history stays readable.
public enum PassMode: Hashable, Sendable {
    /// A practice session's mode (watch, wait, play, memory).
    case practice(PracticeMode)
    /// `etude judge` of a recorded performance.
    case judge
    /// `etude quiz` of a kind ("interval", "chord"…).
    case quiz(String)
    /// Anything else, as stored.
    case other(String)

    public static let play = PassMode.practice(.play)
    public static let wait = PassMode.practice(.wait)
    public static let watch = PassMode.practice(.watch)
    public static let memory = PassMode.practice(.memory)

    static let judgeName = "judge"
    static let quizPrefix = "quiz-"

    /// Modes whose score is the piece played in time (play, memory, a judged recording): the
    /// only ones the browser's and `etude list`'s "best" reads. Wait mode's score is not of the
    /// same kind (the music waited), so a wait-mode 100 is never that best.
    public var scoresInTime: Bool {
        switch self {
        case .practice(let m): return m == .play || m == .memory
        case .judge: return true
        case .quiz, .other: return false
        }
    }

    /// Every mode `scoresInTime` holds for, for the database's triggers.
    public static let inTime: [PassMode] = [.play, .memory, .judge]

    /// How the stats name the mode: "play", "wait", "judged", "quiz".
    public var label: String {
        switch self {
        case .practice(let m): return m.rawValue
        case .judge: return "judged"
        case .quiz: return "quiz"
        case .other(let s): return s
        }
    }
}

extension PassMode: RawRepresentable {
    public init(rawValue: String) {
        if let m = PracticeMode(rawValue: rawValue) { self = .practice(m) }
        else if rawValue == Self.judgeName { self = .judge }
        else if rawValue.hasPrefix(Self.quizPrefix) { self = .quiz(String(rawValue.dropFirst(Self.quizPrefix.count))) }
        else { self = .other(rawValue) }
    }

    public var rawValue: String {
        switch self {
        case .practice(let m): return m.rawValue
        case .judge: return Self.judgeName
        case .quiz(let kind): return Self.quizPrefix + kind
        case .other(let s): return s
        }
    }
}

extension PassMode: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

