import Dispatch

/// A sounding note: a note-on paired with its release.
public struct Note: Equatable, Hashable, Sendable {
    public var track: Int
    public var channel: UInt8
    public var pitch: UInt8
    public var velocity: UInt8
    public var startTick: Int
    public var endTick: Int

    public init(track: Int, channel: UInt8, pitch: UInt8, velocity: UInt8, startTick: Int, endTick: Int) {
        self.track = track
        self.channel = channel
        self.pitch = pitch
        self.velocity = velocity
        self.startTick = startTick
        self.endTick = endTick
    }

    public var durationTicks: Int { endTick - startTick }
}

/// Pitch names for display, with middle C (60) as C4 by default.
public enum PitchName {
    static let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]

    /// `octaveOfMiddleC` is 4 (scientific) or 3 (Yamaha).
    public static func name(_ pitch: Int, octaveOfMiddleC: Int = 4) -> String {
        let octave = pitch / 12 - 5 + octaveOfMiddleC
        return names[((pitch % 12) + 12) % 12] + String(octave)
    }

    /// Parses `C4`, `F#3`, `Bb2`, `c-1` (middle C = C4) or a plain MIDI number.
    public static func parse(_ text: String, octaveOfMiddleC: Int = 4) -> Int? {
        if let n = Int(text), (0...127).contains(n) { return n }
        var chars = Array(text.uppercased())
        guard let letter = chars.first, let base = ["C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11][String(letter)] else { return nil }
        chars.removeFirst()
        var semis = base
        while let c = chars.first, c == "#" || c == "B" || c == "♯" || c == "♭" {
            semis += (c == "#" || c == "♯") ? 1 : -1
            chars.removeFirst()
        }
        guard let octave = Int(String(chars)) else { return nil }
        let pitch = (octave - octaveOfMiddleC + 5) * 12 + semis
        return (0...127).contains(pitch) ? pitch : nil
    }
}

/// Pairs note-ons with note-offs.
///
/// A note-on with velocity 0 is a note-off; overlapping notes of the same pitch on the same
/// channel are released first-in-first-out; a note never released ends at its track's end.
public enum NotePairing {
    public static func notes(in file: MIDIFile) -> (notes: [Note], warnings: [MIDIWarning]) {
        var notes: [Note] = []
        var warnings: [MIDIWarning] = []
        notes.reserveCapacity(file.tracks.reduce(0) { $0 + $1.events.count / 2 })
        // Big multi-track files pair their tracks on all cores.
        var perTrack = [(notes: [Note], unreleased: Int, orphanOffs: Int)](repeating: ([], 0, 0), count: file.tracks.count)
        let totalEvents = file.tracks.reduce(0) { $0 + $1.events.count }
        if file.tracks.count > 1 && totalEvents >= 100_000 {
            let tracks = file.tracks
            perTrack.withUnsafeMutableBufferPointer { out in
                let slots = SlotBuffer(out)  // each iteration writes only its own slot
                DispatchQueue.concurrentPerform(iterations: tracks.count) { t in slots.base[t] = pair(tracks[t], index: t) }
            }
        } else {
            for (t, track) in file.tracks.enumerated() { perTrack[t] = pair(track, index: t) }
        }
        for (t, track) in file.tracks.enumerated() {
            let (trackNotes, unreleased, orphanOffs) = perTrack[t]
            notes.append(contentsOf: trackNotes)
            if unreleased > 0 {
                warnings.append(MIDIWarning(offset: nil, message: "track \(t + 1): \(unreleased) note\(unreleased == 1 ? "" : "s") never released; ended at the track's end (tick \(track.endTick))"))
            }
            if orphanOffs > 0 {
                warnings.append(MIDIWarning(offset: nil, message: "track \(t + 1): \(orphanOffs) note-off\(orphanOffs == 1 ? "" : "s") with no sounding note ignored"))
            }
        }
        return (notes, warnings)
    }

    /// Notes of one track, in note-on order.
    static func pair(_ track: Track, index: Int) -> (notes: [Note], unreleased: Int, orphanOffs: Int) {
        // One FIFO of pending notes per channel × pitch, kept as a linked list through `next`
        // so pairing allocates nothing per note beyond the result.
        var head = [Int32](repeating: -1, count: 16 * 128)
        var tail = [Int32](repeating: -1, count: 16 * 128)
        var next: [Int32] = []
        var notes: [Note] = []
        notes.reserveCapacity(track.events.count / 2)
        next.reserveCapacity(track.events.count / 2)
        var orphanOffs = 0
        for e in track.events {
            switch e.kind {
            case .noteOn(let c, let k, let v) where v > 0:
                let slot = Int(c & 0x0F) &* 128 &+ Int(k & 0x7F)
                let n = Int32(notes.count)
                notes.append(Note(track: index, channel: c, pitch: k, velocity: v, startTick: e.tick, endTick: -1))
                next.append(-1)
                if tail[slot] >= 0 { next[Int(tail[slot])] = n } else { head[slot] = n }
                tail[slot] = n
            case .noteOn(let c, let k, _), .noteOff(let c, let k, _):
                let slot = Int(c & 0x0F) &* 128 &+ Int(k & 0x7F)
                let first = head[slot]
                if first >= 0 {
                    notes[Int(first)].endTick = e.tick
                    head[slot] = next[Int(first)]
                    if head[slot] < 0 { tail[slot] = -1 }
                } else {
                    orphanOffs += 1
                }
            default:
                break
            }
        }
        var unreleased = 0
        let end = track.endTick
        for i in notes.indices where notes[i].endTick < 0 {
            notes[i].endTick = max(end, notes[i].startTick)
            unreleased += 1
        }
        return (notes, unreleased, orphanOffs)
    }
}

private struct SlotBuffer<T>: @unchecked Sendable {
    let base: UnsafeMutableBufferPointer<T>
    init(_ base: UnsafeMutableBufferPointer<T>) { self.base = base }
}
