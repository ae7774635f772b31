import ArgumentParser
import Devices
import Judge
import Lesson
import LessonLibrary
import MIDIFile
import MIDIInput
import Reports
import Screen
import Synth

/// An option value with a range or a fixed set, parsed and checked once by its own type (the
/// rule lives in the module that owns it): help lists the values, completions offer them, and
/// a refused value is said in the type's words (`OptionRefusals`, printed by `Main`).
public protocol CheckedOption: ExpressibleByArgument {
    init(parsing text: String) throws
}

extension CheckedOption {
    public init?(checking text: String) {
        guard let value = OptionRefusals.parse(text, Self.init(parsing:)) else { return nil }
        self = value
    }

    public init?(argument: String) { self.init(checking: argument) }
}

extension TempoPercent: CheckedOption {}
extension PracticePlan.Repeat: CheckedOption {}
extension PracticePlan.SpeedTrainer: CheckedOption {}
extension MetronomeVolume: CheckedOption {}
extension TimingWindowMilliseconds: CheckedOption {}
extension AccuracyThreshold: CheckedOption {}
extension InputOffsetMilliseconds: CheckedOption {}
extension AudioBufferMilliseconds: CheckedOption {}
extension NoteArgument: CheckedOption {}
extension PitchRange: CheckedOption {
    /// As typed (`C3-C6`), not as the value prints.
    public var defaultValueDescription: String { "\(PitchName.name(lower))-\(PitchName.name(upper))" }
}
extension PracticeMode: CheckedOption { public init?(argument: String) { self.init(checking: argument) } }
extension PracticePlan.Hands: CheckedOption { public init?(argument: String) { self.init(checking: argument) } }
extension WAVSampleFormat: CheckedOption { public init?(argument: String) { self.init(checking: argument) } }
/// A checked option with a fixed set of words (`names`): help lists them, completions offer them.
public protocol ListedOption: CheckedOption { static var names: [String] { get } }
extension ListedOption {
    public static var allValueStrings: [String] { names }
    public static var defaultCompletionKind: CompletionKind { .list(names) }
}

extension PracticePlan.OtherHand: ListedOption {}
extension NoteNaming: ListedOption {}
extension AudioDriver: ListedOption { public static var names: [String] { known } }
extension BarsArgument: CheckedOption {}
extension Transposition.Request: CheckedOption {}
extension KeyboardKeysArgument: ListedOption {}
extension KeyboardRangeArgument: CheckedOption {}
extension OctaveFit: ListedOption { public init?(argument: String) { self.init(checking: argument) } }
extension EchoChoice.Setting: ListedOption {}
extension Guide.Setting: ListedOption {}
extension MetronomeOut.Channel: CheckedOption {}
extension LessonSound: ListedOption {
    public init?(argument: String) { self.init(checking: argument) }
    public static var names: [String] { allCases.map(\.rawValue) }
}
extension KeyLights.Channel: CheckedOption {}
extension BeatsPerMinute: CheckedOption {}
extension Gestures.Setting: CheckedOption {}

/// `--input`: parsed once here by MIDIInput's own reader (a path for anything it does not
/// know, checked when it opens), carried typed to whatever opens it.
extension InputSpec: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}
