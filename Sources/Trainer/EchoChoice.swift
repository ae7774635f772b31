import Foundation
import MIDIInput
import Practice
import Store

/// `--echo on|off`: whether Etude sounds what the learner plays. A digital piano sounds itself,
/// and Etude's copy would follow it a few milliseconds late; the lesson, the other hand and the
/// metronome sound either way. The choice is remembered per input device (like the calibrated
/// offset) and asked once, on a terminal, the first time a MIDI instrument is used.
public enum EchoChoice {
    /// `--echo on|off` as typed, checked where it is typed.
    public struct Setting: Equatable, Sendable, CustomStringConvertible {
        public static let names = ["on", "off"]
        public let on: Bool

        public init(parsing text: String) throws(OptionProblem) {
            switch text.lowercased() {
            case "on", "yes", "true": on = true
            case "off", "no", "false": on = false
            default: throw OptionProblem(text, "use on (Etude sounds your notes) or off (your instrument does)")
            }
        }

        public var description: String { on ? "on" : "off" }
    }

    /// Decides the echo for an opened input and switches the hookup to it: `explicit` (and
    /// remembered for the device), else the stored choice, else — a MIDI instrument's first
    /// time, on a terminal — the answer to `ask` (remembered), else on. Returns the label the
    /// header shows (nil for the computer keyboard, which makes no sound of its own).
    @discardableResult
    public static func apply(to hookup: InputHookup, explicit: Bool?, library: Library?,
                             ask: (String) -> Bool? = askOnTerminal) -> String? {
        guard !hookup.usesComputerKeyboard else { return nil }
        let device = hookup.deviceID
        let store = library?.storeIfAvailable
        var echo = explicit ?? (try? store?.inputEcho(device: device)) ?? nil
        if let explicit {
            try? store?.saveInputEcho(explicit, device: device)
        } else if echo == nil, let answer = ask(InputDevice.description(device)) {
            echo = answer
            try? store?.saveInputEcho(answer, device: device)
        }
        let on = echo ?? true
        hookup.echo = on
        return label(on)
    }

    /// `echo on` / `echo off`, as the header shows it.
    public static func label(_ on: Bool) -> String { on ? "echo on" : "echo off" }

    /// The question, on a terminal only (nil without one, or after 60 s without an answer):
    /// true when Etude should sound the notes.
    public static func askOnTerminal(_ device: String) -> Bool? {
        guard isatty(STDIN_FILENO) == 1, isatty(STDERR_FILENO) == 1 else { return nil }
        Console.error("etude: \(device) is new here. Does it make its own sound? y: yes, Etude stays silent for your notes (--echo off); n: no, Etude sounds them (--echo on) [y/n] ")
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline {
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 200) >= 0 else { return nil }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            var byte: UInt8 = 0
            guard read(STDIN_FILENO, &byte, 1) == 1 else { return nil }
            switch byte {
            case UInt8(ascii: "y"), UInt8(ascii: "Y"): tcflush(STDIN_FILENO, TCIFLUSH); return false
            case UInt8(ascii: "n"), UInt8(ascii: "N"): tcflush(STDIN_FILENO, TCIFLUSH); return true
            case 3, 27, UInt8(ascii: "q"): return nil
            default: continue
            }
        }
        return nil
    }
}
