import Clocks
import Listening
import Jack
/// What `--input` asked for: the option's type (parsed once, where the command line is read),
/// carried typed to whatever opens it.
public enum InputSpec: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// `--input keys`: the computer keyboard only.
    case computerKeyboard
    /// `--input midi`, `midi:NAME`, `midi:CLIENT:PORT`: a keyboard on the ALSA sequencer.
    case alsa(PortTarget)
    /// `--input audio`, `audio:SOURCE`: an acoustic piano through a microphone (PulseAudio or
    /// PipeWire source; nil = the default source).
    case audio(source: String?)
    /// `--input jack` (Etude's own `midi_in` port) or `jack:PORT` (PORT connected to it).
    case jack(port: String?)
    /// Anything else: a raw MIDI byte stream (`/dev/midi1`, a FIFO, a file).
    case byteStream(path: String)

    /// Parses the `--input` value. Never fails: unknown text is taken as a path, and opening
    /// it reports a clear error if it does not exist.
    public init(_ text: String) {
        let lower = text.lowercased()
        if lower == "keys" || lower == "keyboard" || lower == "computer" {
            self = .computerKeyboard
        } else if lower == "midi" {
            self = .alsa(.firstKeyboard)
        } else if lower.hasPrefix("midi:") {
            self = .alsa(PortTarget(String(text.dropFirst(5))))
        } else if lower == "audio" || lower == "mic" || lower == "microphone" {
            self = .audio(source: nil)
        } else if lower.hasPrefix("audio:") {
            let name = String(text.dropFirst(6))
            self = .audio(source: name.isEmpty ? nil : name)
        } else if lower == "jack" {
            self = .jack(port: nil)
        } else if lower.hasPrefix("jack:") {
            let port = String(text.dropFirst(5))
            self = .jack(port: port.isEmpty ? nil : port)
        } else {
            self = .byteStream(path: text)
        }
    }

    /// An input as the library stored it (`etude setup`'s instrument, the input a resumed
    /// session was left on): its `description`, read back by the one parser.
    public static func stored(_ text: String) -> InputSpec { InputSpec(text) }

    /// The value as `--input` takes it (`keys`, `midi:24:0`, `jack:PORT`, a path): parsing it
    /// gives this value again.
    public var description: String {
        switch self {
        case .computerKeyboard: return "keys"
        case .alsa(.firstKeyboard): return "midi"
        case .alsa(.named(let name)): return "midi:" + name
        case .alsa(.address(let client, let port)): return "midi:\(client):\(port)"
        case .audio(let source): return source.map { "audio:" + $0 } ?? "audio"
        case .jack(let port): return port.map { "jack:" + $0 } ?? "jack"
        case .byteStream(let path): return path
        }
    }

    /// The file a byte stream reads (a device or FIFO), nil for the other inputs: no command
    /// writes over it.
    public var filePath: String? {
        if case .byteStream(let path) = self { return path }
        return nil
    }

    /// The device this spec names without opening it (for `calibrate --reset` and what is
    /// remembered per device before the input opens): nil for an ALSA port not plugged in now.
    /// An opened source's own `deviceID` is the same name.
    public var deviceID: String? {
        switch self {
        case .computerKeyboard: return InputDeviceID.computerKeyboard
        case .byteStream(let path): return InputDeviceID.path(path)
        case .jack(let port): return InputDeviceID.jack(port ?? "\(JackClient.requestedName):midi_in")
        case .audio(let source): return InputDeviceID.audio(source)
        case .alsa(let target):
            guard let port = target.pick(from: (try? ALSASequencer.inputPorts()) ?? []) else { return nil }
            return InputDeviceID.alsa(port.displayName)
        }
    }

    /// Refuses a byte-stream path that is no instrument (missing, a regular file, a folder), and
    /// `jack[:PORT]` without a server or port, before anything opens; ALSA ports and the computer
    /// keyboard are checked when they open.
    public func check() throws(InputError) {
        switch self {
        case .byteStream(let path): _ = try ByteStreamInput.check(path)
        case .jack(let port): _ = try JackInput.check(port: port)
        case .audio(let source): try AudioInput.check(source: source)
        default: break
        }
    }

    /// The running source for this spec, or nil for the computer keyboard (which the terminal
    /// feeds through `ComputerKeyboardPiano`). Throws `InputError`; when its
    /// `fallBackToComputerKeyboard` is true, show the message and use the computer keyboard.
    public func makeSource(clock: any TimeSource = MonotonicClock(), listening: ListeningProfile = ListeningProfile()) -> (any InputSource)? {
        switch self {
        case .computerKeyboard: return nil
        case .alsa(let target): return ALSAInput(target: target, clock: clock)
        case .audio(let source): return AudioInput(source: source, profile: listening, clock: clock)
        case .byteStream(let path): return ByteStreamInput(path: path, clock: clock)
        case .jack(let port): return JackInput(port: port)
        }
    }
}

/// An input as opened for a lesson: the running source (nil = computer keyboard only) and a
/// line to show when Etude fell back to the computer keyboard.
public struct OpenedInput: Sendable {
    public var source: (any InputSource)?
    public var notice: String?
}

extension InputSpec {
    /// Opens and starts the input, applying the fallback rule: when MIDI input is impossible
    /// here (no ALSA sequencer, no keyboard plugged in) the result has no source and a one-line
    /// `notice`, and the caller uses the computer keyboard. Errors the user must fix (unknown
    /// port name, unreadable device or file) are thrown as one-line `InputError`s.
    public func open(clock: any TimeSource = MonotonicClock(), listening: ListeningProfile = ListeningProfile(),
                     handler: @escaping @Sendable (InputEvent) -> Void) throws(InputError) -> OpenedInput {
        try start(makeSource(clock: clock, listening: listening)) { _ in handler }
    }

    /// `open` in two steps, for a caller whose handler must reach an object it builds first:
    /// `source` is this spec's `makeSource` (nil = the computer keyboard, nothing starts), and
    /// `handler(for:)` gives the handler of whichever source starts (`source`, or the JACK port
    /// `--input midi[:NAME]` falls back to), called just before it starts delivering. The
    /// fallback rule and the errors are `open`'s.
    public func start(_ source: (any InputSource)?,
                      handler: (any InputSource) -> @Sendable (InputEvent) -> Void) throws(InputError) -> OpenedInput {
        guard let source else { return OpenedInput(source: nil, notice: nil) }
        do {
            try source.start(handler(source))
            return OpenedInput(source: source, notice: nil)
        } catch {
            // `--input midi[:NAME]` finds JACK MIDI ports too (PipeWire shows every USB
            // keyboard as one) when the ALSA sequencer has none that fits.
            if case .alsa(let target) = self, let jack = Self.jackPort(for: target) {
                let source = JackInput(port: jack)
                if (try? source.start(handler(source))) != nil { return OpenedInput(source: source, notice: nil) }
            }
            guard error.fallBackToComputerKeyboard else { throw error }
            return OpenedInput(source: nil, notice: error.message)
        }
    }

    /// The JACK MIDI source `--input midi[:NAME]` means when a JACK server answers: the first
    /// hardware source, or the one NAME names; nil when there is none.
    static func jackPort(for target: PortTarget) -> String? {
        let sources = JackInput.sourcePorts()
        switch target {
        case .firstKeyboard: return sources.first
        case .named(let name): return JackClient.pick(name, from: sources)
        case .address: return nil
        }
    }
}
