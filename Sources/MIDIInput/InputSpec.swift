/// What `--input` asked for.
public enum InputSpec: Equatable, Sendable {
    /// `--input keys`: the computer keyboard only.
    case computerKeyboard
    /// `--input midi`, `midi:NAME`, `midi:CLIENT:PORT`: a keyboard on the ALSA sequencer.
    case alsa(PortTarget)
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
        } else {
            self = .byteStream(path: text)
        }
    }

    /// The running source for this spec, or nil for the computer keyboard (which the terminal
    /// feeds through `ComputerKeyboardPiano`). Throws `InputError`; when its
    /// `fallBackToComputerKeyboard` is true, show the message and use the computer keyboard.
    public func makeSource(clock: any InputClock = MonotonicClock()) -> (any InputSource)? {
        switch self {
        case .computerKeyboard: return nil
        case .alsa(let target): return ALSAInput(target: target, clock: clock)
        case .byteStream(let path): return ByteStreamInput(path: path, clock: clock)
        }
    }
}
