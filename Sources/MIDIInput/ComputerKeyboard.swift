/// The computer keyboard as a small piano, for learners without a MIDI keyboard at hand.
///
/// Two rows, like a piano: the home row holds the white keys, the row above the black keys:
///
///     w e   t y u   o p
///    a s d f g h j k l ; '
///
/// `a` is C of the base octave, `k` the C above; `z`/`x` move down/up an octave. Terminals
/// report no key release, so these notes are onset-only (see `ComputerKeyboardPiano`).
public struct ComputerKeyboardLayout: Equatable, Sendable {
    /// Keys and their semitone above the base C, in the order the help overlay lists them.
    public static let noteKeys: [(key: Character, semitone: Int)] = [
        ("a", 0), ("w", 1), ("s", 2), ("e", 3), ("d", 4), ("f", 5), ("t", 6), ("g", 7),
        ("y", 8), ("h", 9), ("u", 10), ("j", 11), ("k", 12), ("o", 13), ("l", 14), ("p", 15),
        (";", 16), ("'", 17),
    ]
    public static let octaveDownKey: Character = "z"
    public static let octaveUpKey: Character = "x"
    public static let octaveRange = 0...8

    /// Scientific octave of the C under `a` (4 = middle C, MIDI 60).
    public private(set) var baseOctave: Int

    public init(baseOctave: Int = 4) {
        self.baseOctave = min(max(baseOctave, Self.octaveRange.lowerBound), Self.octaveRange.upperBound)
    }

    /// What one key press means.
    public enum Action: Equatable, Sendable {
        case note(pitch: UInt8)
        case octaveChanged(baseOctave: Int)
    }

    /// The pitch a key plays at the current octave, nil for keys that are not notes.
    public func pitch(for key: Character) -> UInt8? {
        let lower = Character(key.lowercased())
        guard let entry = Self.noteKeys.first(where: { $0.key == lower }) else { return nil }
        let pitch = (baseOctave + 1) * 12 + entry.semitone
        return (0...127).contains(pitch) ? UInt8(pitch) : nil
    }

    /// What to type for `pitch` at the current octave, among the letters `a`…`k` (C to the C
    /// above): "d", or "z d" / "x x d" when the octave must move first (each `z` down, `x` up).
    public func keys(for pitch: Int) -> String {
        let offset = pitch - (baseOctave + 1) * 12
        let octaves = offset == 12 ? 0 : Int((Double(offset) / 12).rounded(.down))
        let semitone = offset - octaves * 12
        let letter = Self.noteKeys.first { $0.semitone == semitone }.map { String($0.key) } ?? "?"
        let moves = String(repeating: octaves < 0 ? "\(Self.octaveDownKey) " : "\(Self.octaveUpKey) ", count: abs(octaves))
        return moves + letter
    }

    /// Applies a key: a note, an octave shift, or nil when the key is not part of the layout.
    public mutating func press(_ key: Character) -> Action? {
        let lower = Character(key.lowercased())
        if lower == Self.octaveDownKey || lower == Self.octaveUpKey {
            let next = baseOctave + (lower == Self.octaveUpKey ? 1 : -1)
            if Self.octaveRange.contains(next) { baseOctave = next }
            return .octaveChanged(baseOctave: baseOctave)
        }
        return pitch(for: key).map { .note(pitch: $0) }
    }

    /// One row per key: what to press and the note it plays now, for the help overlay.
    public var legend: [(key: String, note: String)] {
        Self.noteKeys.compactMap { entry in
            pitch(for: entry.key).map { (String(entry.key), Self.noteName(Int($0))) }
        } + [(String(Self.octaveDownKey), "octave down"), (String(Self.octaveUpKey), "octave up")]
    }

    /// The layout drawn as text lines for the help overlay.
    public var helpLines: [String] {
        [
            " w e   t y u   o p      black keys",
            "a s d f g h j k l ; '   white keys: a = \(Self.noteName((baseOctave + 1) * 12)), k = \(Self.noteName((baseOctave + 2) * 12))",
            "z / x  octave down / up (now octave \(baseOctave)); notes sound for a fixed length",
        ]
    }

    static func noteName(_ pitch: Int) -> String {
        let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
        return names[((pitch % 12) + 12) % 12] + String(pitch / 12 - 1)
    }
}

/// Computer-keyboard presses turned into played notes with a fixed sounding length.
///
/// A press gives a note-on at once; its note-off is due `noteLength` seconds later (a repeat
/// press of the same key first releases the old note). The caller asks for due releases on
/// each tick, so held-note state, the synth and the recorder all see proper note-offs.
public struct ComputerKeyboardPiano: Sendable {
    public var layout: ComputerKeyboardLayout
    /// Seconds each onset-only note sounds.
    public var noteLength: Double
    /// Velocity of every key press (terminals report none).
    public var velocity: UInt8
    public var channel: UInt8
    private var sounding: [(pitch: UInt8, due: Double)] = []

    public init(layout: ComputerKeyboardLayout = ComputerKeyboardLayout(), noteLength: Double = 0.4,
                velocity: UInt8 = 90, channel: UInt8 = 0) {
        self.layout = layout
        self.noteLength = noteLength
        self.velocity = velocity
        self.channel = channel
    }

    /// A key press at `time`: the events it causes (release of the same pitch, then note-on),
    /// a status line for an octave change, nothing for keys outside the layout.
    public mutating func press(_ key: Character, at time: Double) -> [InputEvent] {
        switch layout.press(key) {
        case .none:
            return []
        case .octaveChanged(let octave):
            return [.status("computer keyboard: a = C\(octave)")]
        case .note(let pitch):
            var out: [InputEvent] = []
            if let i = sounding.firstIndex(where: { $0.pitch == pitch }) {
                sounding.remove(at: i)
                out.append(.note(PlayedNote(kind: .off, pitch: pitch, velocity: 0, channel: channel, time: time)))
            }
            sounding.append((pitch, time + noteLength))
            out.append(.note(PlayedNote(kind: .on, pitch: pitch, velocity: velocity, channel: channel, time: time)))
            return out
        }
    }

    /// Note-offs whose fixed length has run out by `time`, stamped at their due time.
    public mutating func releases(dueBy time: Double) -> [PlayedNote] {
        var out: [PlayedNote] = []
        sounding.removeAll { entry in
            guard entry.due <= time else { return false }
            out.append(PlayedNote(kind: .off, pitch: entry.pitch, velocity: 0, channel: channel, time: entry.due))
            return true
        }
        return out.sorted { $0.time < $1.time }
    }

    /// When the next release is due, so the caller can sleep until then.
    public var nextReleaseTime: Double? { sounding.map(\.due).min() }
}
