import Judge
import MIDIInput

extension PlayedEvent {
    /// The judge's view of a played note from any input source.
    init(_ note: PlayedNote) {
        self.init(pitch: Int(note.pitch), velocity: Int(note.velocity), time: note.time,
                  isOn: note.kind == .on, channel: Int(note.channel))
    }
}
