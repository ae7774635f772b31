import Foundation
import Listening

/// What an input can do, asked of the source itself instead of found by its type: a new
/// device says what it is here, and no caller outside MIDIInput downcasts a source.
public struct InputCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The source sounds the learner's notes itself (Etude's JACK client plays `midi_in` in
    /// its callback while echo is on): the hookup must not sound them a second time.
    public static let soundsItself = InputCapabilities(rawValue: 1 << 0)
    /// Only key presses mean something (a microphone; the computer keyboard is onset-only
    /// too): the practice judges onsets, not how long a key was held.
    public static let onsetsOnly = InputCapabilities(rawValue: 1 << 1)
    /// A microphone: the instrument sounds in the room by itself (never echoed), the listener
    /// is told the keys the lesson expects and the keys Etude itself began, and has a signal.
    public static let listens = InputCapabilities(rawValue: 1 << 2)
}

/// The stable names devices are remembered under (offsets, keyboards, echo, a microphone's
/// set-up): one per device as the learner plugs it in, the same across runs.
public enum InputDeviceID {
    /// The computer keyboard (`--input keys`, or the fallback when no MIDI keyboard is found).
    public static let computerKeyboard = "keys"

    /// A microphone by its source: `audio` (the default source) or `audio:NAME`.
    public static func audio(_ source: String?) -> String { source.map { "audio:" + $0 } ?? "audio" }

    /// A microphone named the way a learner may name it outside `--input` (`judge --calibration`):
    /// `audio`, `audio:NAME`, or the bare source `NAME`, read by `--input`'s own reader.
    public static func audio(naming text: String) -> String {
        if case .audio(let named) = InputSpec(text) { return audio(named) }
        return audio(text)
    }

    /// An ALSA port without its address, which changes when the keyboard is replugged:
    /// `Digital Piano MIDI 1 (24:0)` → `midi:Digital Piano MIDI 1`.
    public static func alsa(_ portName: String) -> String { "midi:" + withoutAddress(portName) }

    /// A JACK MIDI port by its full name.
    public static func jack(_ port: String) -> String { "jack:" + port }

    /// A device or FIFO by its absolute, standardized path.
    public static func path(_ path: String) -> String {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path)
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
        return url.standardizedFileURL.path
    }

    /// The device a typed name means as `--input` would open it (`calibrate --reset midi`),
    /// without opening it: nil for an ALSA port not plugged in now.
    public static func named(_ text: String) -> String? { InputSpec(text).deviceID }

    /// `Digital Piano MIDI 1 (24:0)` → `Digital Piano MIDI 1`.
    public static func withoutAddress(_ name: String) -> String {
        guard let r = name.range(of: #" \(\d+:\d+\)$"#, options: .regularExpression) else { return name }
        return String(name[..<r.lowerBound])
    }
}
