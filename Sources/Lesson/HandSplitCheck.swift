import MIDIFile

/// How well the one-track split finds the hands of a piece whose hands are known: the piece's
/// tracks are merged into one unnamed track (what a downloaded single-track file looks like),
/// split again, and every note is compared with the hand its own track named. Shared by the
/// tests and `etude-bench`, so both measure the same thing.
public enum HandSplitCheck {
    /// One piece checked.
    public struct Outcome: Equatable, Sendable {
        /// Notes compared.
        public var notes: Int
        /// Notes the split put in the other hand (or in no hand).
        public var wrong: Int
        /// How the merged piece was split.
        public var method: HandAssignment.Method
        /// How the original was read (track names, for a valid check).
        public var truthMethod: HandAssignment.Method
    }

    /// Every track's notes and conductor events in one unnamed track on channel 1, without
    /// names, programs or annotations: nothing but the notes says which hand plays them.
    public static func merged(_ file: MIDIFile) -> MIDIFile {
        var events: [MIDIEvent] = []
        for track in file.tracks {
            for e in track.events {
                switch e.kind {
                case .noteOn(_, let k, let v): events.append(MIDIEvent(tick: e.tick, .noteOn(channel: 0, key: k, velocity: v)))
                case .noteOff(_, let k, let v): events.append(MIDIEvent(tick: e.tick, .noteOff(channel: 0, key: k, velocity: v)))
                case .meta(let type, _) where type == MetaType.trackName || type == MetaType.endOfTrack || type == MetaType.text:
                    break
                case .meta: events.append(e)
                default: break
                }
            }
        }
        let sorted = events.enumerated().sorted { a, b in
            a.element.tick != b.element.tick ? a.element.tick < b.element.tick : a.offset < b.offset
        }.map(\.element)
        return MIDIFile(format: 0, division: file.division, tracks: [Track(events: sorted)])
    }

    /// Splits the merged piece and counts the notes whose hand differs from the original's
    /// (notes are matched by onset and key, so a doubled note counts once per hand).
    public static func check(_ file: MIDIFile) -> Outcome {
        let truth = Lesson(file: file)
        var expected: [Int: [Part]] = [:]
        for n in truth.notes { expected[n.startTick &* 128 &+ Int(n.pitch), default: []].append(n.part) }
        let split = Lesson(file: merged(file))
        var wrong = 0
        for n in split.notes {
            let key = n.startTick &* 128 &+ Int(n.pitch)
            if let i = expected[key]?.firstIndex(of: n.part) {
                expected[key]?.remove(at: i)
            } else {
                wrong += 1
            }
        }
        return Outcome(notes: split.notes.count, wrong: wrong, method: split.handAssignment.method,
                       truthMethod: truth.handAssignment.method)
    }
}
