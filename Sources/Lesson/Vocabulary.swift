import Foundation

/// A plan a user can get wrong: which setting, the value as given, and the problem, so each
/// front end names the setting in its own words (`--bars 40-44` on the command line,
/// `bars=40-44` in a routine entry, `bars 40-44` on the practice screen).
public struct PlanError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The settings a plan is made of.
    public enum Setting: String, Equatable, Sendable, CaseIterable {
        case bars, hand, other, tempo, bpm, speedTrainer, `repeat`, metronomeVolume, mode, transpose, keys, range, fit

        /// The setting in plain words, for screens and messages that are not a command line.
        public var words: String {
            switch self {
            case .other: return "other hand"
            case .speedTrainer: return "speed trainer"
            case .metronomeVolume: return "metronome volume"
            default: return rawValue
            }
        }
    }

    /// How a suggestion is joined to the problem: `; try --hand left` or `, e.g. --repeat 4`.
    public enum SuggestionStyle: Equatable, Sendable { case tryThis, example }

    /// Nil for problems that are about no single setting.
    public var setting: Setting?
    /// The value as the user gave it (`40-44`, `500%`).
    public var value: String
    public var problem: String
    /// A value of the same setting that would work.
    public var suggestion: String?
    public var suggestionStyle: SuggestionStyle

    public init(_ setting: Setting?, _ value: String, _ problem: String, suggestion: String? = nil,
                style: SuggestionStyle = .tryThis) {
        self.setting = setting
        self.value = value
        self.problem = problem
        self.suggestion = suggestion
        self.suggestionStyle = style
    }

    /// A problem that is about no single setting.
    public init(_ problem: String) {
        self.init(nil, "", problem)
    }

    /// The message with each setting named by `name(setting, value)`.
    public func worded(_ name: (Setting, String) -> String) -> String {
        guard let setting else { return problem }
        var text = "\(name(setting, value)): \(problem)"
        if let suggestion {
            text += suggestionStyle == .tryThis ? "; try \(name(setting, suggestion))" : ", e.g. \(name(setting, suggestion))"
        }
        return text
    }

    /// Plain words: `bars 40-44: the lesson has 32 bars` (the practice screen's).
    public var message: String { worded { "\($0.words) \($1)" } }

    public var description: String { message }
}

/// A tempo as a percentage of the lesson's own: the one range (10–400 %), parser and message
/// for the command line, routines, saved loops and the practice screen's `+`/`-` keys.
public struct TempoPercent: Equatable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public static let range: ClosedRange<Double> = 10...400
    /// What `+` and `-` change it by.
    public static let step = 5.0
    public static let full = TempoPercent(unchecked: 100)

    public let value: Double

    /// Checks the range; the error names the tempo as given.
    public init(_ value: Double, as given: String? = nil) throws(PlanError) {
        guard value.isFinite, Self.range.contains(value) else {
            throw PlanError(.tempo, given ?? "\(Self.text(value))%", Self.rangeProblem)
        }
        self.value = value
    }

    /// `75%`, `75` or `72.5%`.
    public init(parsing text: String) throws(PlanError) {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix("%") { t.removeLast() }
        guard let v = Double(t.trimmingCharacters(in: .whitespaces)), v.isFinite else {
            throw PlanError(.tempo, text, "write a percentage such as 75%")
        }
        try self.init(v, as: text)
    }

    /// The nearest tempo in range (for values stored by older versions).
    public static func clamped(_ value: Double) -> TempoPercent {
        TempoPercent(unchecked: value.isFinite ? min(range.upperBound, max(range.lowerBound, value)) : 100)
    }

    private init(unchecked value: Double) { self.value = value }

    /// One `+`/`-` step up or down, on the 5 % grid, kept in range.
    public func stepped(up: Bool) -> TempoPercent {
        .clamped(((value / Self.step).rounded() + (up ? 1 : -1)) * Self.step)
    }

    public static let rangeProblem = "the tempo must be between \(Int(range.lowerBound))% and \(Int(range.upperBound))%"

    /// 70, 72.5 (one decimal at most).
    public static func text(_ p: Double) -> String { NumberText.short(p) }

    /// `70` or `72.5`, without the percent sign.
    public var text: String { Self.text(value) }
    public var description: String { "\(text)%" }

    public static func < (a: TempoPercent, b: TempoPercent) -> Bool { a.value < b.value }

    public init(from decoder: any Decoder) throws {
        let v = try decoder.singleValueContainer().decode(Double.self)
        do { try self.init(v) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.problem))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }
}

/// How the learner practises: the four modes, for `--mode`, routine entries, the history and
/// the practice screen's `M` key.
public enum PracticeMode: String, Equatable, Hashable, Sendable, CaseIterable, Codable {
    /// Listen and look: nothing is judged.
    case watch
    /// The lesson stops at each chord of the practised hand until all its notes are held.
    case wait
    /// Real time: each played note is matched to the nearest expected note within the window.
    case play
    /// As `play`, with falling notes and key hints hidden.
    case memory

    /// True for the modes that score passes.
    public var judges: Bool { self != .watch }
    /// Memory mode hides what to play.
    public var hidesFallingNotes: Bool { self == .memory }
    public var hidesKeyHints: Bool { self == .memory }
    /// Real-time modes start each pass with a count-in so the learner can come in on time.
    public var countsIn: Bool { self == .play || self == .memory }
    /// Etude's part can follow the learner's tempo (`--follow`) where they play in real time.
    public var follows: Bool { self == .play || self == .memory }

    /// `watch`, `wait`, `play` or `memory` (any case).
    public init(parsing text: String) throws(PlanError) {
        guard let m = PracticeMode(rawValue: text.lowercased()) else {
            throw PlanError(.mode, text, "use watch, wait, play or memory")
        }
        self = m
    }

    /// The next mode for `M`.
    public var next: PracticeMode {
        let all = Self.allCases
        return all[((all.firstIndex(of: self) ?? 0) + 1) % all.count]
    }
}

/// Numbers as Etude writes them to people: whole numbers plain, others with one decimal (70,
/// 72.5, -12), so a value read back from a message is the value typed.
public enum NumberText {
    public static func short(_ x: Double) -> String {
        guard x.isFinite, abs(x) < 1e9 else { return String(x) }
        let tenths = Int((x * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : String(format: "%.1f", Double(tenths) / 10)
    }
}
