import MIDIFile

/// Piano fingering carried inside a Standard MIDI File, so a lesson keeps its finger numbers
/// when it is copied, converted or exported, and the screen can show them.
///
/// Convention: a text meta event (type 0x01) whose text is `etude:finger=<pitch>:<finger>`,
/// on the same track as the note it describes and at the note-on's tick (written just before
/// the note-on). `<pitch>` is the MIDI key number 0–127, `<finger>` is 1 (thumb) to 5 (little
/// finger). Example: middle C played with the thumb → `etude:finger=60:1`. Other programs see a
/// harmless text event; Etude's reader pairs it back with the note.
public enum Fingering {
    /// The text prefix of a fingering event.
    public static let prefix = "etude:finger="

    /// Where a finger number applies: one note-on on one track.
    public struct Key: Hashable, Sendable {
        public var track: Int
        public var tick: Int
        public var pitch: Int

        public init(track: Int, tick: Int, pitch: Int) {
            self.track = track
            self.tick = tick
            self.pitch = pitch
        }
    }

    /// The text event that marks `pitch` at `tick` as played with `finger` (1–5).
    public static func event(tick: Int, pitch: Int, finger: Int) -> MIDIEvent {
        MIDIEvent(tick: tick, .meta(type: MetaType.text, data: Array("\(prefix)\(pitch):\(finger)".utf8)))
    }

    /// Parses one event's text; nil when it is not a well-formed fingering event.
    public static func parse(_ kind: MIDIEvent.Kind) -> (pitch: Int, finger: Int)? {
        guard case .meta(MetaType.text, let data) = kind else { return nil }
        let prefixBytes = Array(prefix.utf8)
        guard data.count > prefixBytes.count, Array(data[0..<prefixBytes.count]) == prefixBytes else { return nil }
        let rest = String(decoding: data[prefixBytes.count...], as: UTF8.self)
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let pitch = Int(parts[0]), let finger = Int(parts[1]),
              (0...127).contains(pitch), (1...5).contains(finger) else { return nil }
        return (pitch, finger)
    }

    /// Every finger number in a file, keyed by (track index, tick, pitch). Malformed fingering
    /// text is skipped: fingering is a hint, never a reason to reject a lesson.
    public static func fingers(in file: MIDIFile) -> [Key: Int] {
        var out: [Key: Int] = [:]
        for (t, track) in file.tracks.enumerated() {
            for e in track.events {
                if let (pitch, finger) = parse(e.kind) {
                    out[Key(track: t, tick: e.tick, pitch: pitch)] = finger
                }
            }
        }
        return out
    }

    /// The finger for one paired note, if the file gives one.
    public static func finger(for note: Note, in fingers: [Key: Int]) -> Int? {
        fingers[Key(track: note.track, tick: note.startTick, pitch: Int(note.pitch))]
    }
}
