/// Serialises a `MIDIFile` to Standard MIDI File bytes that every other tool reads.
///
/// Each track gets exactly one End of Track (at the later of its last event and any End of
/// Track it already had), events are written in tick order, and running status is used for
/// compactness.
public enum MIDIWriter {
    public static func write(_ file: MIDIFile) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(14 + file.tracks.reduce(0) { $0 + 8 + $1.events.count * 4 })
        out.append(contentsOf: Array("MThd".utf8))
        appendU32(6, to: &out)
        let format = file.format
        appendU16(format, to: &out)
        appendU16(file.tracks.count, to: &out)
        switch file.division {
        case .ticksPerQuarter(let t):
            appendU16(t & 0x7FFF, to: &out)
        case .smpte(let fps, let tpf):
            out.append(UInt8(bitPattern: Int8(clamping: -fps)))
            out.append(UInt8(clamping: tpf))
        }
        for track in file.tracks {
            writeTrack(track, to: &out)
        }
        return out
    }

    /// The largest gap one SMF delta time can hold.
    public static let maximumDelta = 0x0FFF_FFFF

    /// False when some gap between consecutive events is longer than one delta can hold; such a
    /// gap (only seen in corrupt files) is shortened to `maximumDelta` when written.
    public static func isRepresentable(_ file: MIDIFile) -> Bool {
        for track in file.tracks {
            var previous = 0
            for e in track.events {
                if e.tick - previous > maximumDelta { return false }
                previous = max(previous, e.tick)
            }
        }
        return true
    }

    static func writeTrack(_ track: Track, to out: inout [UInt8]) {
        out.append(contentsOf: Array("MTrk".utf8))
        let lengthAt = out.count
        appendU32(0, to: &out)
        let bodyStart = out.count

        var endTick = 0
        var sorted = true
        var previous = Int.min
        for e in track.events {
            endTick = max(endTick, e.tick)
            if e.tick < previous { sorted = false }
            previous = e.tick
        }
        let events: [MIDIEvent]
        if sorted {
            events = track.events
        } else {
            // Stable sort by tick: keeps same-tick order as given.
            events = track.events.enumerated().sorted { a, b in
                a.element.tick != b.element.tick ? a.element.tick < b.element.tick : a.offset < b.offset
            }.map(\.element)
        }

        var tick = 0
        var running: UInt8 = 0
        for event in events {
            if case .meta(MetaType.endOfTrack, _) = event.kind { continue }
            appendVLQ(max(0, event.tick - tick), to: &out)
            tick = max(tick, event.tick)
            switch event.kind {
            case .meta(let type, let data):
                out.append(0xFF)
                out.append(type)
                appendVLQ(data.count, to: &out)
                out.append(contentsOf: data)
                running = 0
            case .sysex(let data):
                out.append(0xF0)
                appendVLQ(data.count, to: &out)
                out.append(contentsOf: data)
                running = 0
            case .escape(let data):
                out.append(0xF7)
                appendVLQ(data.count, to: &out)
                out.append(contentsOf: data)
                running = 0
            default:
                if let status = event.kind.statusByte {
                    if status != running {
                        out.append(status)
                        running = status
                    }
                    for b in event.kind.data { out.append(b & 0x7F) }
                }
            }
        }
        appendVLQ(max(0, endTick - tick), to: &out)
        out.append(contentsOf: [0xFF, MetaType.endOfTrack, 0x00])

        let length = out.count - bodyStart
        out[lengthAt] = UInt8((length >> 24) & 0xFF)
        out[lengthAt + 1] = UInt8((length >> 16) & 0xFF)
        out[lengthAt + 2] = UInt8((length >> 8) & 0xFF)
        out[lengthAt + 3] = UInt8(length & 0xFF)
    }

    static func appendU32(_ v: Int, to out: inout [UInt8]) {
        out.append(UInt8((v >> 24) & 0xFF))
        out.append(UInt8((v >> 16) & 0xFF))
        out.append(UInt8((v >> 8) & 0xFF))
        out.append(UInt8(v & 0xFF))
    }

    static func appendU16(_ v: Int, to out: inout [UInt8]) {
        out.append(UInt8((v >> 8) & 0xFF))
        out.append(UInt8(v & 0xFF))
    }

    /// Variable-length quantity, clamped to the 4-byte maximum the format allows.
    public static func appendVLQ(_ value: Int, to out: inout [UInt8]) {
        var v = min(max(value, 0), maximumDelta)
        var buffer: [UInt8] = [UInt8(v & 0x7F)]
        v >>= 7
        while v > 0 {
            buffer.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(contentsOf: buffer.reversed())
    }
}
