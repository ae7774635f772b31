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
        for (t, track) in file.tracks.enumerated() {
            let (trackNotes, unreleased, orphanOffs) = pair(track, index: t)
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
        // One FIFO of pending note indices per channel × pitch.
        var pending = [[Int]](repeating: [], count: 16 * 128)
        var heads = [Int](repeating: 0, count: 16 * 128)
        var notes: [Note] = []
        notes.reserveCapacity(track.events.count / 2)
        var orphanOffs = 0
        for e in track.events {
            switch e.kind {
            case .noteOn(let c, let k, let v) where v > 0:
                let slot = Int(c & 0x0F) * 128 + Int(k & 0x7F)
                pending[slot].append(notes.count)
                notes.append(Note(track: index, channel: c, pitch: k, velocity: v, startTick: e.tick, endTick: -1))
            case .noteOn(let c, let k, _), .noteOff(let c, let k, _):
                let slot = Int(c & 0x0F) * 128 + Int(k & 0x7F)
                if heads[slot] < pending[slot].count {
                    notes[pending[slot][heads[slot]]].endTick = e.tick
                    heads[slot] += 1
                    if heads[slot] == pending[slot].count {
                        pending[slot].removeAll(keepingCapacity: true)
                        heads[slot] = 0
                    }
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
