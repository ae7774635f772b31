/// How a file measures time: musical ticks per quarter note, or absolute SMPTE frames.
public enum Division: Equatable, Hashable, Sendable {
    case ticksPerQuarter(Int)
    /// `fps` is the header's frame rate: 24, 25, 29 (meaning 29.97 drop-frame) or 30.
    case smpte(fps: Int, ticksPerFrame: Int)

    /// Frames per second as a real rate (29 → 29.97), so SMPTE files time correctly.
    public var framesPerSecond: Double? {
        guard case .smpte(let fps, _) = self else { return nil }
        return fps == 29 ? 29.97 : Double(fps)
    }
}

/// A MIDI channel message, meta event or system-exclusive packet at an absolute tick.
///
/// Kept as close to the bytes as possible (`data` is what followed the status byte) so that
/// read → write → read is lossless and other parsers can be checked against it byte for byte.
public struct MIDIEvent: Equatable, Hashable, Sendable {
    /// Absolute tick from the start of the track.
    public var tick: Int
    public var kind: Kind

    public init(tick: Int, _ kind: Kind) {
        self.tick = tick
        self.kind = kind
    }

    public enum Kind: Equatable, Hashable, Sendable {
        case noteOff(channel: UInt8, key: UInt8, velocity: UInt8)
        case noteOn(channel: UInt8, key: UInt8, velocity: UInt8)
        case polyPressure(channel: UInt8, key: UInt8, pressure: UInt8)
        case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
        case programChange(channel: UInt8, program: UInt8)
        case channelPressure(channel: UInt8, pressure: UInt8)
        /// 14-bit value, 8192 = centre.
        case pitchBend(channel: UInt8, value: UInt16)
        /// Boxed (`indirect`) so `Kind` stays one word and an event 16 bytes: a big file's events
        /// take a third less memory than with the payload inline.
        indirect case meta(type: UInt8, data: [UInt8])
        /// `F0` packet: bytes after the length, including the trailing `F7` when present.
        case sysex(data: [UInt8])
        /// `F7` escape packet: bytes after the length.
        case escape(data: [UInt8])
    }
}

extension MIDIEvent.Kind {
    /// The JSON/peer-facing name of the event kind.
    public var name: String {
        switch self {
        case .noteOff: return "noteOff"
        case .noteOn: return "noteOn"
        case .polyPressure: return "polyPressure"
        case .controlChange: return "controlChange"
        case .programChange: return "programChange"
        case .channelPressure: return "channelPressure"
        case .pitchBend: return "pitchBend"
        case .meta: return "meta"
        case .sysex: return "sysex"
        case .escape: return "escape"
        }
    }

    /// The channel (0–15) of a channel message, nil for meta and sysex.
    public var channel: UInt8? {
        switch self {
        case .noteOff(let c, _, _), .noteOn(let c, _, _), .polyPressure(let c, _, _),
             .controlChange(let c, _, _), .programChange(let c, _), .channelPressure(let c, _),
             .pitchBend(let c, _):
            return c
        case .meta, .sysex, .escape:
            return nil
        }
    }

    /// The status byte a channel message is written with (nil for meta/sysex).
    public var statusByte: UInt8? {
        switch self {
        case .noteOff(let c, _, _): return 0x80 | c
        case .noteOn(let c, _, _): return 0x90 | c
        case .polyPressure(let c, _, _): return 0xA0 | c
        case .controlChange(let c, _, _): return 0xB0 | c
        case .programChange(let c, _): return 0xC0 | c
        case .channelPressure(let c, _): return 0xD0 | c
        case .pitchBend(let c, _): return 0xE0 | c
        case .meta, .sysex, .escape: return nil
        }
    }

    /// Raw data bytes: after the status byte for channel messages, after the length otherwise.
    public var data: [UInt8] {
        switch self {
        case .noteOff(_, let a, let b), .noteOn(_, let a, let b), .polyPressure(_, let a, let b),
             .controlChange(_, let a, let b):
            return [a, b]
        case .programChange(_, let a), .channelPressure(_, let a):
            return [a]
        case .pitchBend(_, let v):
            return [UInt8(v & 0x7F), UInt8((v >> 7) & 0x7F)]
        case .meta(_, let d), .sysex(let d), .escape(let d):
            return d
        }
    }

    /// Decoded meta event, so callers never re-parse meta payloads by hand.
    public var meta: MetaEvent? {
        guard case .meta(let type, let data) = self else { return nil }
        return MetaEvent(type: type, data: data)
    }

    /// True for a note-on with velocity > 0 (velocity 0 is a note-off by convention).
    public var isSoundingNoteOn: Bool {
        if case .noteOn(_, _, let v) = self { return v > 0 }
        return false
    }

    /// True for a note-off or a note-on with velocity 0.
    public var isNoteRelease: Bool {
        switch self {
        case .noteOff: return true
        case .noteOn(_, _, let v): return v == 0
        default: return false
        }
    }
}

/// Meta event types by their standard numbers.
public enum MetaType {
    public static let sequenceNumber: UInt8 = 0x00
    public static let text: UInt8 = 0x01
    public static let copyright: UInt8 = 0x02
    public static let trackName: UInt8 = 0x03
    public static let instrumentName: UInt8 = 0x04
    public static let lyric: UInt8 = 0x05
    public static let marker: UInt8 = 0x06
    public static let cuePoint: UInt8 = 0x07
    public static let channelPrefix: UInt8 = 0x20
    public static let port: UInt8 = 0x21
    public static let endOfTrack: UInt8 = 0x2F
    public static let tempo: UInt8 = 0x51
    public static let smpteOffset: UInt8 = 0x54
    public static let timeSignature: UInt8 = 0x58
    public static let keySignature: UInt8 = 0x59
    public static let sequencerSpecific: UInt8 = 0x7F
}

/// A meta event decoded from its raw bytes. Malformed payloads (wrong length) decode as
/// `.unknown` so a broken tempo event never crashes or invents a value.
public enum MetaEvent: Equatable, Sendable {
    case sequenceNumber(Int?)
    /// Text kinds 0x01–0x0F (text, copyright, track name, instrument, lyric, marker, cue…).
    case text(type: UInt8, bytes: [UInt8])
    case channelPrefix(UInt8)
    case port(UInt8)
    case endOfTrack
    case tempo(microsecondsPerQuarter: Int)
    case smpteOffset(hours: UInt8, minutes: UInt8, seconds: UInt8, frames: UInt8, subframes: UInt8)
    case timeSignature(TimeSignature)
    case keySignature(KeySignature)
    case sequencerSpecific([UInt8])
    case unknown(type: UInt8, data: [UInt8])

    public init(type: UInt8, data: [UInt8]) {
        switch type {
        case MetaType.sequenceNumber:
            if data.count >= 2 {
                self = .sequenceNumber(Int(data[0]) << 8 | Int(data[1]))
            } else if data.isEmpty {
                self = .sequenceNumber(nil)
            } else {
                self = .unknown(type: type, data: data)
            }
        case 0x01...0x0F:
            self = .text(type: type, bytes: data)
        case MetaType.channelPrefix where data.count >= 1:
            self = .channelPrefix(data[0])
        case MetaType.port where data.count >= 1:
            self = .port(data[0])
        case MetaType.endOfTrack:
            self = .endOfTrack
        case MetaType.tempo where data.count >= 3:
            let us = Int(data[0]) << 16 | Int(data[1]) << 8 | Int(data[2])
            self = us > 0 ? .tempo(microsecondsPerQuarter: us) : .unknown(type: type, data: data)
        case MetaType.smpteOffset where data.count >= 5:
            self = .smpteOffset(hours: data[0], minutes: data[1], seconds: data[2], frames: data[3], subframes: data[4])
        case MetaType.timeSignature where data.count >= 2:
            self = .timeSignature(TimeSignature(
                numerator: Int(data[0]), denominatorPower: Int(data[1]),
                clocksPerClick: data.count > 2 ? Int(data[2]) : 24,
                thirtySecondsPerQuarter: data.count > 3 ? Int(data[3]) : 8))
        case MetaType.keySignature where data.count >= 2:
            self = .keySignature(KeySignature(sharps: Int(Int8(bitPattern: data[0])), minor: data[1] != 0))
        case MetaType.sequencerSpecific:
            self = .sequencerSpecific(data)
        default:
            self = .unknown(type: type, data: data)
        }
    }

    /// Text payload decoded (`TextDecoding.display`): UTF-8 when valid, else Latin-1, on one
    /// line; control characters are kept, and cleaned on every way to a terminal.
    public var displayText: String? {
        guard case .text(_, let bytes) = self else { return nil }
        return TextDecoding.display(bytes)
    }
}

public struct TimeSignature: Equatable, Hashable, Sendable {
    public var numerator: Int
    /// The denominator as a power of two (2 → quarter notes).
    public var denominatorPower: Int
    public var clocksPerClick: Int
    public var thirtySecondsPerQuarter: Int

    public init(numerator: Int, denominatorPower: Int, clocksPerClick: Int = 24, thirtySecondsPerQuarter: Int = 8) {
        self.numerator = numerator
        self.denominatorPower = denominatorPower
        self.clocksPerClick = clocksPerClick
        self.thirtySecondsPerQuarter = thirtySecondsPerQuarter
    }

    public var denominator: Int { denominatorPower >= 0 && denominatorPower < 16 ? 1 << denominatorPower : 4 }

    /// Raw meta payload for writing.
    public var bytes: [UInt8] {
        [UInt8(clamping: numerator), UInt8(clamping: denominatorPower), UInt8(clamping: clocksPerClick), UInt8(clamping: thirtySecondsPerQuarter)]
    }

    public var description: String { "\(numerator)/\(denominator)" }
}

public struct KeySignature: Equatable, Hashable, Sendable {
    /// Negative for flats, positive for sharps (−7…7).
    public var sharps: Int
    public var minor: Bool

    public init(sharps: Int, minor: Bool) {
        self.sharps = sharps
        self.minor = minor
    }

    public var bytes: [UInt8] { [UInt8(bitPattern: Int8(clamping: sharps)), minor ? 1 : 0] }

    /// Conventional key name, e.g. "E♭ major", "F# minor".
    public var name: String {
        let majors = ["Cb", "Gb", "Db", "Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#"]
        let minors = ["Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#", "G#", "D#", "A#"]
        let i = sharps + 7
        guard i >= 0, i < majors.count else { return "unknown key (\(sharps))" }
        return minor ? "\(minors[i]) minor" : "\(majors[i]) major"
    }
}

/// One track chunk: events in file order with absolute ticks.
public struct Track: Equatable, Sendable {
    public var events: [MIDIEvent]

    public init(events: [MIDIEvent] = []) {
        self.events = events
    }

    /// The first track-name meta event, cleaned for display.
    public var name: String? {
        for event in events {
            if case .meta(MetaType.trackName, let data) = event.kind {
                let s = TextDecoding.display(data)
                return s.isEmpty ? nil : s
            }
        }
        return nil
    }

    /// Tick of the last event (End of Track included).
    public var endTick: Int { events.last?.tick ?? 0 }
}

/// A Standard MIDI File: header information and its tracks.
public struct MIDIFile: Equatable, Sendable {
    /// 0 (one track), 1 (simultaneous tracks), 2 (independent sequences).
    public var format: Int
    public var division: Division
    public var tracks: [Track]

    public init(format: Int, division: Division, tracks: [Track]) {
        self.format = format
        self.division = division
        self.tracks = tracks
    }

    /// Ticks per quarter note, or nil for SMPTE-timed files.
    public var ticksPerQuarter: Int? {
        if case .ticksPerQuarter(let t) = division { return t }
        return nil
    }
}

/// Turning bytes from a file into text that is safe to show on a terminal.
public enum TextDecoding {
    /// A C library's message, written into a buffer and ended by a NUL, as text safe to show.
    public static func message(_ buffer: [CChar]) -> String {
        sanitize(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// UTF-8 when valid, else Latin-1; tabs and line breaks become spaces (a name is one
    /// line), surrounding spaces trimmed. Other control characters are kept, as the file has
    /// them: every way out cleans them (`sanitize` at the terminal, `Console`, `CellBuffer`)
    /// or escapes them (`--json` writes `\u001b`), so the model holds the text exactly.
    public static func display(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        func keep(_ u: Unicode.Scalar) {
            scalars.append(u.value == 0x09 || u.value == 0x0A || u.value == 0x0D ? " " : u)
        }
        if let s = String(validating: bytes, as: UTF8.self) {
            for u in s.unicodeScalars { keep(u) }
        } else {
            for b in bytes { keep(Unicode.Scalar(b)) }
        }
        var out = String(scalars)
        while out.first == " " { out.removeFirst() }
        while out.last == " " { out.removeLast() }
        return out
    }

    /// Removes control characters from any string (e.g. file names) before display: the one
    /// rule for text from a file, the database, a path or the user on its way to a terminal.
    /// With `keepingLineBreaks`, newlines stay (text of several lines, as `Console.out` prints).
    public static func sanitize(_ text: String, keepingLineBreaks: Bool = false) -> String {
        var scalars = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            if keepingLineBreaks && u == "\n" { scalars.append(u) } else { append(u, to: &scalars) }
        }
        return String(scalars)
    }

    /// True for what a terminal could act on instead of showing: C0 and C1 control characters,
    /// DEL, and the bidi overrides, embeddings, isolates and marks (text must not reorder what
    /// follows it).
    @inline(__always)
    public static func isTerminalControl(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        if v < 0x20 || v == 0x7F { return true }
        if v < 0x80 { return false }
        return v < 0xA0 || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x061C || v == 0x200E || v == 0x200F
    }

    /// True when `text` holds nothing `sanitize` would remove (newlines allowed with
    /// `allowingLineBreaks`): lets large outputs through without a copy.
    public static func isClean(_ text: String, allowingLineBreaks: Bool = false) -> Bool {
        // ASCII first, byte by byte (JSON of a big file is hundreds of MB of it); scalars only
        // when something beyond ASCII is there.
        enum Verdict { case clean, control, beyondASCII }
        let verdict: Verdict? = text.utf8.withContiguousStorageIfAvailable { bytes in
            var high = false
            for b in bytes {
                if b >= 0x80 { high = true } else if b == 0x7F || (b < 0x20 && !(allowingLineBreaks && b == 0x0A)) { return .control }
            }
            return high ? .beyondASCII : .clean
        }
        if verdict == .clean { return true }
        if verdict == .control { return false }
        return !text.unicodeScalars.contains { isTerminalControl($0) && !(allowingLineBreaks && $0 == "\n") }
    }

    private static func append(_ u: Unicode.Scalar, to scalars: inout String.UnicodeScalarView) {
        let v = u.value
        if v == 0x09 || v == 0x0A || v == 0x0D {
            scalars.append(" ")
        } else if isTerminalControl(u) {
            return
        } else {
            scalars.append(u)
        }
    }
}

extension Int {
    /// `value` without its fraction, as `Int(_:)` gives, but for any Double: NaN is 0 and
    /// anything beyond ±2^53 stops there. For numbers from a file, the database or the user,
    /// where `Int(_:)` would trap on 1e308 or infinity.
    public init(saturating value: Double) {
        let limit = 9_007_199_254_740_992.0
        self = value.isNaN ? 0 : Int(Swift.min(Swift.max(value, -limit), limit))
    }
}
