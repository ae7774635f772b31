import Foundation
import Jack
import LessonLibrary
import MIDIInput
import Practice
import Reports
import Store

/// `--echo on|off`: whether Etude sounds what the learner plays. A digital piano sounds itself,
/// and Etude's copy would follow it a few milliseconds late; the lesson, the other hand and the
/// metronome sound either way. The choice is remembered per input device (like the calibrated
/// offset) and asked once, on a terminal, the first time a MIDI instrument is used.
public enum EchoChoice {
    /// `--echo on|off` as typed, checked where it is typed.
    public struct Setting: OnOffSetting {
        public static let hint = "use on (Etude sounds your notes) or off (your instrument does)"
        public let on: Bool
        public init(on: Bool) { self.on = on }
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
        } else if echo == nil, let named = askable(deviceID: device, sourceName: hookup.sourceName, listening: hookup.isListening),
                  let answer = ask(named) {
            echo = answer
            try? store?.saveInputEcho(answer, device: device)
        }
        let on = echo ?? true
        hookup.echo = on
        return label(on)
    }

    /// The instrument to ask about, as the learner knows it ("JACK port piano:out", "MIDI port
    /// Digital Piano"), or nil when the question makes no sense: only a MIDI instrument the
    /// learner names is asked about — never a FIFO or a file (a program's notes, no sound of
    /// their own), a microphone (it hears the piano, never echoes), `--input jack` alone
    /// (Etude's own `midi_in`: nobody named yet) or an Etude's own port.
    public static func askable(deviceID: String, sourceName: String?, listening: Bool,
                               isCharacterDevice: (String) -> Bool = ByteStreamInput.isCharacterDevice,
                               etudes: () -> Set<String> = { JackClient.current?.etudeClients() ?? [] }) -> String? {
        guard let sourceName, !listening, deviceID != InputDeviceID.computerKeyboard, !deviceID.hasPrefix("audio") else { return nil }
        if deviceID.hasPrefix("jack:") {
            // `--input jack` alone is Etude's own midi_in; another Etude's port is no instrument.
            guard !EtudePorts.isEtudes(sourceName, etudes: etudes(), own: JackClient.current?.name) else { return nil }
        } else if deviceID.hasPrefix("midi:") {
            guard !sourceName.lowercased().hasPrefix("etude") else { return nil }
        } else {
            guard isCharacterDevice(deviceID) else { return nil }  // a FIFO or a file: a program's notes
            // A MIDI device node (`/dev/snd/midiC1D0`, `/dev/midi1`), not any character device
            // (`/dev/zero` is no instrument: it is refused as not MIDI, without a question).
            let name = (deviceID as NSString).lastPathComponent.lowercased()
            guard name.hasPrefix("midi") || name.hasPrefix("umidi") || name.hasPrefix("amidi") else { return nil }
        }
        return InputDevice.description(deviceID)
    }

    /// `echo on` / `echo off`, as the header shows it.
    public static func label(_ on: Bool) -> String { on ? "echo on" : "echo off" }

    /// The question, on a terminal only (nil without one, or after 60 s without an answer):
    /// true when Etude should sound the notes. One key answers (`y`/`n`, no Enter): the
    /// terminal reads key by key while it waits.
    public static func askOnTerminal(_ device: String) -> Bool? {
        // On the terminal the learner reads (stdout), as a screen is: never only in a log.
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { return nil }
        Console.out("\(device) is new here. Does it make its own sound?\n  y: yes, Etude stays silent for your notes (--echo off)\n  n: no, Etude sounds them (--echo on)\n[y/n] ")
        var saved = termios()
        let keyByKey = tcgetattr(STDIN_FILENO, &saved) == 0
        if keyByKey {
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        }
        defer {
            if keyByKey { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        }
        let answer = readAnswer()
        Console.out(answer.map { $0 ? "n\n" : "y\n" } ?? "\n")
        return answer
    }

    private static func readAnswer() -> Bool? {
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
