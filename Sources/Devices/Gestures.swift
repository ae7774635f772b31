import Foundation
import MIDIFile
import Practice
import Reports
import Screen

/// Hands-free commands from the instrument (`--gestures`, off by default): keys outside the
/// lesson's range that restart the pass, pause, slow down or speed up by 5 %, or recall the
/// next saved loop. A gesture key is never a lesson note: it is refused when the lesson uses it,
/// and its notes never reach the judge or the recording.
public struct Gestures: Equatable, Sendable {
    /// Key → command.
    public var keys: [Int: PracticeCommand]

    /// The commands a gesture can give, by the name `--gestures` uses.
    public static let commands: [(name: String, command: PracticeCommand)] = [
        ("restart", .restart), ("pause", .playPause), ("slower", .tempoDown), ("faster", .tempoUp), ("loop", .recallLoop),
    ]

    /// `--gestures on`: the five lowest white keys, A0 B0 C1 D1 E1, below almost every lesson.
    public static let standard = Gestures(keys: [21: .restart, 23: .playPause, 24: .tempoDown, 26: .tempoUp, 28: .recallLoop])

    /// `--gestures off|on|NAME=KEY,…` as typed (e.g. `restart=A0,pause=B0,slower=C1,faster=D1,loop=E1`),
    /// checked where it is typed; `gestures` is nil for off.
    public struct Setting: Equatable, Sendable, CustomStringConvertible {
        public let text: String
        public let gestures: Gestures?

        public init(parsing text: String) throws(OptionProblem) {
            self.text = text
            guard text.lowercased() != "off" else { gestures = nil; return }
            if text.lowercased() == "on" { gestures = standard; return }
            var keys: [Int: PracticeCommand] = [:]
            for item in text.split(separator: ",") {
                let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, let command = commands.first(where: { $0.name == parts[0].lowercased() })?.command,
                      let key = PitchName.parse(parts[1]), keys[key] == nil else {
                    throw OptionProblem(text, "use on, off, or NAME=KEY pairs such as restart=A0,pause=B0,slower=C1,faster=D1,loop=E1 (one key each)")
                }
                keys[key] = command
            }
            guard !keys.isEmpty else { throw OptionProblem(text, "name at least one gesture, e.g. restart=A0") }
            gestures = Gestures(keys: keys)
        }

        public var description: String { text }
    }

    /// The help overlay's line: the keys, lowest first, and what each does.
    public var helpEntry: PracticeKeys.Entry {
        let sorted = keys.sorted { $0.key < $1.key }
        let words = sorted.map { key, command in Self.commands.first { $0.command == command }?.name ?? "?" }
        return PracticeKeys.Entry(keys: sorted.map { PitchName.name($0.key) }.joined(separator: " "),
                                  action: "instrument: " + words.joined(separator: ", "))
    }

    /// One line when a gesture key is a note of the lesson (it would be taken for one).
    public func check(lessonRange range: ClosedRange<Int>?) throws {
        guard let range, let inside = keys.keys.sorted().first(where: { range.contains($0) }) else { return }
        throw EtudeFailure("--gestures: \(PitchName.name(inside)) is inside the lesson's range (\(PitchName.name(range.lowerBound))–\(PitchName.name(range.upperBound))); pick keys outside it")
    }
}

extension Gestures {
    /// Makes the gesture keys commands to `controller` on `hookup` (nil: no session listens, as
    /// between a routine's entries; the keys still never sound nor count as notes).
    public func route(_ hookup: InputHookup, to controller: PracticeController?) {
        let commands = controller.map(GestureCommands.init)
        let keys = self.keys
        hookup.gestures(Set(keys.keys)) { pitch in
            if let command = keys[pitch] { commands?.give(command) }
        }
    }
}

/// Hands a gesture's command from the input's thread to the session, whose front end runs it
/// on the screen's thread (the controller is that thread's alone).
final class GestureCommands: @unchecked Sendable {
    private weak var session: PracticeSession?  // set once, here
    init(_ controller: PracticeController) { session = controller.session }
    func give(_ command: PracticeCommand) { session?.command(command) }
}
