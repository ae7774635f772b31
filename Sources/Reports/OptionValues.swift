import Foundation
import Judge
import Lesson
import MIDIFile
import Screen
import Synth

// The values of the command-line options with a range or a fixed set, each parsed and checked
// by one initializer here or in the module that owns the rule (`TempoPercent`, `PracticeMode`,
// `PracticePlan.Hands` … in Lesson). The executable makes them option types; a refused value
// is said once, by its type, as `--NAME VALUE: what is wrong`.

/// A refused option value that can say what is wrong, given the option's name (`--window`).
public protocol OptionWording: Error {
    func worded(option: String) -> String
}

extension PlanError: OptionWording {
    /// `--hand middle: use left, right or both` (a suggestion names the option too).
    public func worded(option: String) -> String {
        guard setting != nil else { return problem }
        return worded { _, value in "\(option) \(value)" }
    }
}

extension PlanError {
    /// The command line's words: `--bars 40-44: the lesson has 32 bars`.
    public var cliMessage: String {
        worded { setting, value in "--\(Self.optionName(setting)) \(value)" }
    }

    /// The option that gives `setting` on the command line.
    public static func optionName(_ setting: Setting) -> String {
        switch setting {
        case .speedTrainer: return "speed-trainer"
        case .metronomeVolume: return "metronome-volume"
        default: return setting.rawValue
        }
    }
}

extension QuizError: OptionWording {
    /// The quiz's own sentence (it quotes the value itself).
    public func worded(option: String) -> String { message }
}

/// A value refused by one of the types below: `--NAME VALUE: problem`.
public struct OptionProblem: OptionWording, Sendable {
    public var value: String
    public var problem: String

    public init(_ value: String, _ problem: String) {
        self.value = safe(value)
        self.problem = problem
    }

    public func worded(option: String) -> String { "\(option) \(value): \(problem)" }
}

/// An `on|off` option as a learner types it (yes/no and true/false too), refused with the
/// option's own `hint` of what each answer means: the rule written once for every switch.
public protocol OnOffSetting: Equatable, Sendable, CustomStringConvertible {
    static var hint: String { get }
    var on: Bool { get }
    init(on: Bool)
}

extension OnOffSetting {
    public static var names: [String] { ["on", "off"] }

    public init(parsing text: String) throws(OptionProblem) {
        switch text.lowercased() {
        case "on", "yes", "true": self.init(on: true)
        case "off", "no", "false": self.init(on: false)
        default: throw OptionProblem(text, Self.hint)
        }
    }

    public var description: String { on ? "on" : "off" }
}

/// The last value an option type refused, so the parser's generic "The value 'x' is invalid
/// for '--tempo <tempo>'" becomes the type's own line. The parser runs once, on one thread;
/// the lock only keeps Swift's checks honest.
public enum OptionRefusals {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var last: (text: String, wording: any OptionWording)?

    /// `parse(text)`, or nil with the refusal kept.
    public static func parse<T>(_ text: String, _ parse: (String) throws -> T) -> T? {
        do {
            return try parse(text)
        } catch let wording as any OptionWording {
            lock.withLock { last = (text, wording) }
            return nil
        } catch {
            return nil
        }
    }

    /// The refused value's own line for the parser's message about it, nil when the message
    /// is about something else.
    public static func message(forParserMessage message: String) -> String? {
        guard let (text, wording) = lock.withLock({ last }) else { return nil }
        let head = "The value '\(text)' is invalid for '"
        guard let start = message.range(of: head) else { return nil }
        let option = message[start.upperBound...].prefix { $0 != " " && $0 != "'" }
        guard option.hasPrefix("-") else { return nil }
        return wording.worded(option: String(option))
    }
}

/// `--window MS`: how close to its time a played note counts, 10–2000 ms.
public struct TimingWindowMilliseconds: Equatable, Sendable, CustomStringConvertible {
    public static let range: ClosedRange<Double> = 10...2000
    public let milliseconds: Double

    public init(_ milliseconds: Double) { self.milliseconds = milliseconds }

    public init(parsing text: String) throws(OptionProblem) {
        let ms = text.lowercased().hasSuffix("ms") ? String(text.dropLast(2)) : text
        guard let w = Double(ms.trimmingCharacters(in: .whitespaces)), w.isFinite, Self.range.contains(w) else {
            throw OptionProblem(text, "give the timing window in milliseconds, 10–2000 (e.g. 150)")
        }
        milliseconds = w
    }

    /// The judge's window: on time within 50 ms (or the whole window when it is smaller).
    public var window: TimingWindow { TimingWindow(window: milliseconds / 1000, onTime: min(0.05, milliseconds / 1000)) }
    public var description: String { NumberText.short(milliseconds) }
}

/// `--threshold PERCENT`: the accuracy a clean pass needs, 0–100 %.
public struct AccuracyThreshold: Equatable, Sendable, CustomStringConvertible {
    public let percent: Double

    public init(_ percent: Double) { self.percent = percent }

    public init(parsing text: String) throws(OptionProblem) {
        let pct = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let t = Double(pct.trimmingCharacters(in: .whitespaces)), t.isFinite, (0...100).contains(t) else {
            throw OptionProblem(text, "give an accuracy percent 0–100 (e.g. 90)")
        }
        percent = t
    }

    public var description: String { NumberText.short(percent) }
}

/// `--offset MS`: the learner's input offset for one session, within ±`Calibration.offsetLimitMs`.
public struct InputOffsetMilliseconds: Equatable, Sendable, CustomStringConvertible {
    /// Whole milliseconds (positive: the notes arrive late).
    public let milliseconds: Double

    public init(parsing text: String) throws(OptionProblem) {
        let number = text.lowercased().hasSuffix("ms") ? String(text.dropLast(2)) : text
        let limit = Calibration.offsetLimitMs
        guard let ms = Double(number.trimmingCharacters(in: .whitespaces)), ms.isFinite, abs(ms) <= limit else {
            throw OptionProblem(text, "give your input offset in milliseconds, −\(Int(limit)) to \(Int(limit)) (positive when your notes arrive late; `etude calibrate` measures it)")
        }
        milliseconds = ms.rounded()
    }

    public var description: String { NumberText.short(milliseconds) }
}

/// `--audio-buffer MS`: the live synth's buffer, `FluidSynthLive.Options.bufferRange`.
public struct AudioBufferMilliseconds: Equatable, Sendable, CustomStringConvertible {
    public let milliseconds: Double

    public init(parsing text: String) throws(OptionProblem) {
        let number = text.lowercased().hasSuffix("ms") ? String(text.dropLast(2)) : text
        let r = FluidSynthLive.Options.bufferRange
        guard let ms = Double(number.trimmingCharacters(in: .whitespaces)), ms.isFinite, r.contains(ms) else {
            throw OptionProblem(text, "give the audio buffer in milliseconds, \(Int(r.lowerBound))–\(Int(r.upperBound)) (e.g. 20; longer is safer from crackles, shorter answers sooner)")
        }
        milliseconds = ms
    }

    public var description: String { NumberText.short(milliseconds) }
}

/// `--split NOTE`: a note name (`C4`, `F#3`) or a MIDI number 0–127.
public struct NoteArgument: Equatable, Sendable, CustomStringConvertible {
    public let pitch: Int

    public init(parsing text: String) throws(OptionProblem) {
        guard let p = PitchName.parse(text) else {
            throw OptionProblem(text, "give a note such as C4 or F#3, or a MIDI number 0–127")
        }
        pitch = p
    }

    public var description: String { PitchName.name(pitch) }
}

/// `--audio-driver NAME`: the drivers Etude knows to try. Another name is passed on to
/// FluidSynth as it is (its builds differ); one it lacks plays silently, said once.
public struct AudioDriver: Equatable, Sendable, CustomStringConvertible {
    public static let known = ["pipewire", "pulseaudio", "alsa", "jack", "sdl2", "oss"]
    public let name: String

    public init(parsing text: String) throws(OptionProblem) {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw OptionProblem(text, "name an audio driver: \(Self.known.joined(separator: ", "))") }
        self.name = name
    }

    public var description: String { name }
}

extension NoteNaming: CustomStringConvertible {
    /// The words `--note-names` takes, in the order help lists them.
    public static let names = ["scientific", "yamaha"]

    /// `scientific` (middle C = C4, also `c4`) or `yamaha` (C3, also `c3`).
    public init(parsing text: String) throws(OptionProblem) {
        switch text.lowercased() {
        case "scientific", "c4": self = .scientific
        case "yamaha", "c3": self = .yamaha
        default: throw OptionProblem(text, "use scientific (middle C = C4) or yamaha (middle C = C3)")
        }
    }

    public var description: String { self == .scientific ? "scientific" : "yamaha" }
}

extension WAVSampleFormat {
    /// `s16` or `float`.
    public init(parsing text: String) throws(OptionProblem) {
        guard let f = WAVSampleFormat(rawValue: text.lowercased()) else { throw OptionProblem(text, "use s16 or float") }
        self = f
    }
}

extension PitchRange {
    /// `C3-C6`, `F#2-Bb4` or MIDI numbers (the quiz's words for what is wrong).
    public init(parsing text: String) throws(QuizError) { self = try PitchRange.parse(text) }
}

extension LessonSound: CustomStringConvertible {
    /// `--sound synth|instrument|both`.
    public init(parsing text: String) throws(OptionProblem) {
        guard let s = LessonSound(rawValue: text.lowercased()) else {
            throw OptionProblem(text, "use synth (Etude's sound), instrument (your instrument, through etude:midi_out) or both")
        }
        self = s
    }

    public var description: String { rawValue }
}

/// `--bpm N`: the tempo the lesson's first tempo becomes, in beats per minute (positive).
public struct BeatsPerMinute: Equatable, Sendable, CustomStringConvertible {
    public let value: Double

    public init(parsing text: String) throws(OptionProblem) {
        guard let v = Double(text.trimmingCharacters(in: .whitespaces)), v > 0, v.isFinite else {
            throw OptionProblem(text, "give a positive number of beats per minute, e.g. 60")
        }
        value = v
    }

    public var description: String { NumberText.short(value) }
}

extension OptionRefusals {
    /// `--offset -12` as `--offset=-12`: the parser would take `-12` for short options, yet an
    /// input offset can be negative and a mistyped `--tempo -5%` deserves the tempo's own
    /// message. No Etude option takes a negative number as a separate argument otherwise.
    public static func negativeValuesJoined(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var i = 0
        while i < arguments.count {
            let word = arguments[i]
            if word == "--" { out += arguments[i...]; break }
            if word.hasPrefix("--"), !word.contains("="), i + 1 < arguments.count, looksNegative(arguments[i + 1]) {
                out.append(word + "=" + arguments[i + 1])
                i += 2
                continue
            }
            out.append(word)
            i += 1
        }
        return out
    }

    static func looksNegative(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word.count > 1 else { return false }
        let next = word[word.index(after: word.startIndex)]
        return next.isNumber || next == "."
    }
}
