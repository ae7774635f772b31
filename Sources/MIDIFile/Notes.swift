import Dispatch

/// A sounding note: a note-on paired with its release.
///
/// Ticks come first and the track index is stored in 32 bits, so a note is 24 bytes, not 32:
/// a million-note file pairs into 24 MB.
public struct Note: Equatable, Hashable, Sendable {
    public var startTick: Int
    public var endTick: Int
    private var trackIndex: Int32
    public var channel: UInt8
    public var pitch: UInt8
    public var velocity: UInt8

    public var track: Int {
        get { Int(trackIndex) }
        set { trackIndex = Int32(clamping: newValue) }
    }

    public init(track: Int, channel: UInt8, pitch: UInt8, velocity: UInt8, startTick: Int, endTick: Int) {
        self.startTick = startTick
        self.endTick = endTick
        self.trackIndex = Int32(clamping: track)
        self.channel = channel
        self.pitch = pitch
        self.velocity = velocity
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

    /// A pitch written on a given letter (0 = C … 6 = B; counted on past B into the next
    /// octave): the spelling intervals and chords need, D + a minor sixth is `Bb4`, not `A#4`.
    /// Double accidentals are `bb` and `##`.
    public static func name(_ pitch: Int, letter: Int, octaveOfMiddleC: Int = 4) -> String {
        let l = ((letter % 7) + 7) % 7
        let natural = [0, 2, 4, 5, 7, 9, 11][l]
        var alter = ((pitch % 12) - natural + 12) % 12
        if alter > 6 { alter -= 12 }
        let octave = (pitch - alter) / 12 - 5 + octaveOfMiddleC
        let accidental = alter > 0 ? String(repeating: "#", count: alter) : String(repeating: "b", count: -alter)
        return ["C", "D", "E", "F", "G", "A", "B"][l] + accidental + String(octave)
    }

    /// The letter a key's note is usually written on as the root of an interval or chord: the
    /// white keys their own, the black keys as in the common keys (D♭, E♭, F♯, A♭, B♭).
    public static func rootLetter(_ pitch: Int) -> Int {
        [0, 1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 6][((pitch % 12) + 12) % 12]
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
    /// The notes and the pairing warnings (notes never released, note-offs with no sounding
    /// note): one warning per kind per track, located at the first such event when `locate`
    /// (track, event index → byte offset) is given, e.g. `MIDIReader.offset(ofEvent:inTrack:of:)`
    /// over the bytes the file was read from; `locate` is only called when there is a warning.
    public static func notes(in file: MIDIFile, locate: ((_ track: Int, _ event: Int) -> Int?)? = nil) -> (notes: [Note], warnings: [MIDIWarning]) {
        let tracks = file.tracks
        let totalEvents = tracks.reduce(0) { $0 + $1.events.count }
        // Big multi-track files pair their tracks on all cores.
        let parallel = tracks.count > 1 && totalEvents >= 100_000
        func each(_ body: @escaping @Sendable (Int) -> Void) {
            if parallel {
                DispatchQueue.concurrentPerform(iterations: tracks.count, execute: body)
            } else {
                for t in tracks.indices { body(t) }
            }
        }
        // Count the note-ons first, so every track pairs straight into its own slice of the
        // result: no per-track arrays to merge afterwards.
        var counts = [Int](repeating: 0, count: tracks.count)
        counts.withUnsafeMutableBufferPointer { out in
            let slots = SlotBuffer(out)  // each iteration writes only its own slot
            each { t in slots.base[t] = soundingNoteOns(tracks[t]) }
        }
        var firsts = [Int](repeating: 0, count: tracks.count)
        var total = 0
        for t in tracks.indices {
            firsts[t] = total
            total += counts[t]
        }
        var tallies = [Tally](repeating: Tally(), count: tracks.count)
        let notes = [Note](unsafeUninitializedCapacity: total) { buffer, initialized in
            let result = SlotBuffer(buffer)
            tallies.withUnsafeMutableBufferPointer { out in
                let slots = SlotBuffer(out)
                let firsts = firsts, counts = counts
                each { t in
                    let slice = UnsafeMutableBufferPointer(rebasing: result.base[firsts[t]..<(firsts[t] + counts[t])])
                    slots.base[t] = pair(tracks[t], index: t, into: slice)
                }
            }
            initialized = total
        }
        var warnings: [MIDIWarning] = []
        for (t, track) in tracks.enumerated() {
            let tally = tallies[t]
            let unreleased = tally.unreleased, orphanOffs = tally.orphanOffs
            if unreleased > 0 {
                let at = locate.flatMap { $0(t, eventIndex(ofNoteOn: tally.firstUnreleasedNote, in: track)) }
                warnings.append(MIDIWarning(offset: at, message: "track \(t + 1): \(unreleased) note\(unreleased == 1 ? "" : "s") never released; ended at the track's end (tick \(track.endTick))"))
            }
            if orphanOffs > 0 {
                let at = locate.flatMap { $0(t, tally.firstOrphanOff) }
                warnings.append(MIDIWarning(offset: at, message: "track \(t + 1): \(orphanOffs) note-off\(orphanOffs == 1 ? "" : "s") with no sounding note ignored"))
            }
        }
        return (notes, warnings)
    }

    /// One track's pairing problems: counts, and where the first of each kind is.
    struct Tally {
        var unreleased = 0
        var orphanOffs = 0
        /// Index among the track's sounding note-ons of the first note never released.
        var firstUnreleasedNote = -1
        /// Event index of the first note-off with no sounding note.
        var firstOrphanOff = -1
    }

    /// Event index of the `n`-th (0-based) sounding note-on of a track (warnings only).
    static func eventIndex(ofNoteOn n: Int, in track: Track) -> Int {
        var seen = 0
        for (i, e) in track.events.enumerated() where e.kind.isSoundingNoteOn {
            if seen == n { return i }
            seen += 1
        }
        return -1
    }

    static func soundingNoteOns(_ track: Track) -> Int {
        track.events.withUnsafeBufferPointer { events in
            var n = 0
            for i in events.indices {
                if case .noteOn(_, _, let v) = events[i].kind, v > 0 { n += 1 }
            }
            return n
        }
    }

    /// Pairs one track's notes into `notes` (exactly its sounding note-ons long), in note-on order.
    static func pair(_ track: Track, index: Int, into notes: UnsafeMutableBufferPointer<Note>) -> Tally {
        // One FIFO of pending notes per channel × pitch, kept as a linked list through `next`
        // so pairing allocates nothing per note; the FIFOs' heads and tails live on the stack.
        var next = [Int32](repeating: -1, count: notes.count)
        var count = 0
        var orphanOffs = 0
        var firstOrphanOff = -1
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * 16 * 128) { slots in
        slots.initialize(repeating: -1)
        let head = UnsafeMutableBufferPointer(rebasing: slots[0..<(16 * 128)])
        let tail = UnsafeMutableBufferPointer(rebasing: slots[(16 * 128)...])
        next.withUnsafeMutableBufferPointer { next in
        track.events.withUnsafeBufferPointer { events in
            for i in events.indices {
                switch events[i].kind {
                case .noteOn(let c, let k, let v) where v > 0:
                    let slot = Int(c & 0x0F) &* 128 &+ Int(k & 0x7F)
                    let n = Int32(truncatingIfNeeded: count)
                    notes.initializeElement(at: count, to: Note(track: index, channel: c, pitch: k, velocity: v, startTick: events[i].tick, endTick: -1))
                    count += 1
                    if tail[slot] >= 0 { next[Int(tail[slot])] = n } else { head[slot] = n }
                    tail[slot] = n
                case .noteOn(let c, let k, _), .noteOff(let c, let k, _):
                    let slot = Int(c & 0x0F) &* 128 &+ Int(k & 0x7F)
                    let first = head[slot]
                    if first >= 0 {
                        notes[Int(first)].endTick = events[i].tick
                        head[slot] = next[Int(first)]
                        if head[slot] < 0 { tail[slot] = -1 }
                    } else {
                        if orphanOffs == 0 { firstOrphanOff = i }
                        orphanOffs += 1
                    }
                default:
                    break
                }
            }
        }
        }
        }
        var tally = Tally(orphanOffs: orphanOffs, firstOrphanOff: firstOrphanOff)
        let end = track.endTick
        for i in 0..<count where notes[i].endTick < 0 {
            notes[i].endTick = max(end, notes[i].startTick)
            if tally.unreleased == 0 { tally.firstUnreleasedNote = i }
            tally.unreleased += 1
        }
        return tally
    }
}

private struct SlotBuffer<T>: @unchecked Sendable {
    let base: UnsafeMutableBufferPointer<T>
    init(_ base: UnsafeMutableBufferPointer<T>) { self.base = base }
}
