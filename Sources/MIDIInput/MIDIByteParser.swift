import MIDIFile

/// Turns a live MIDI byte stream into channel messages, one byte at a time.
///
/// Live streams (a `/dev/midi*` node, a FIFO, a capture file) differ from file tracks: there
/// are no delta times, any byte may be lost or arrive mid-message, realtime bytes (F8–FF:
/// clock, active sensing…) may sit anywhere — even between a status byte and its data — and
/// must not disturb the message around them. The parser keeps only the state the MIDI 1.0
/// specification requires: running status and the data bytes collected so far.
///
/// - Running status: data bytes after a complete message reuse the last channel status.
/// - Realtime bytes F8–FF are ignored and never reset running status or pending data.
/// - Sysex (F0 … F7) is skipped whole; it cancels running status.
/// - System common (F1–F6) cancels running status; its data bytes are skipped.
/// - Stray data bytes with no status are dropped.
/// - Note-on with velocity 0 is returned as it arrived; `PlayedNote` treats it as a note-off.
public struct MIDIByteParser: Sendable {
    private var status: UInt8 = 0
    private var first: UInt8 = 0
    private var haveFirst = false
    private var inSysex = false
    /// Data bytes still to skip after a system common message.
    private var skip = 0

    public init() {}

    /// Feeds one byte; returns a channel message when this byte completes one.
    public mutating func feed(_ byte: UInt8) -> MIDIEvent.Kind? {
        if byte >= 0xF8 { return nil }  // realtime: transparent
        if byte & 0x80 != 0 {
            haveFirst = false
            skip = 0
            switch byte {
            case 0xF0:
                inSysex = true
                status = 0
            case 0xF7:
                inSysex = false
                status = 0
            case 0xF1, 0xF3:
                inSysex = false
                status = 0
                skip = 1
            case 0xF2:
                inSysex = false
                status = 0
                skip = 2
            case 0xF4, 0xF5, 0xF6:
                inSysex = false
                status = 0
            default:
                inSysex = false
                status = byte
            }
            return nil
        }
        if inSysex { return nil }
        if skip > 0 {
            skip -= 1
            return nil
        }
        guard status != 0 else { return nil }
        let channel = status & 0x0F
        switch status & 0xF0 {
        case 0xC0:
            return .programChange(channel: channel, program: byte)
        case 0xD0:
            return .channelPressure(channel: channel, pressure: byte)
        default:
            break
        }
        if !haveFirst {
            first = byte
            haveFirst = true
            return nil
        }
        haveFirst = false
        switch status & 0xF0 {
        case 0x80: return .noteOff(channel: channel, key: first, velocity: byte)
        case 0x90: return .noteOn(channel: channel, key: first, velocity: byte)
        case 0xA0: return .polyPressure(channel: channel, key: first, pressure: byte)
        case 0xB0: return .controlChange(channel: channel, controller: first, value: byte)
        case 0xE0: return .pitchBend(channel: channel, value: UInt16(first) | UInt16(byte) << 7)
        default: return nil
        }
    }

    /// Feeds a buffer; returns every message it completes, in order.
    public mutating func feed<S: Sequence>(_ bytes: S) -> [MIDIEvent.Kind] where S.Element == UInt8 {
        var out: [MIDIEvent.Kind] = []
        for b in bytes {
            if let m = feed(b) { out.append(m) }
        }
        return out
    }
}
