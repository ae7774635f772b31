import MIDIFile

extension Lesson {
    /// The dynamics the lesson's score prints (empty for a MIDI file): what the staff draws and
    /// the ear judges by (`MarkedDynamics`).
    public var markedDynamics: MarkedDynamics { MarkedDynamics(annotations: annotations, endTick: endTick) }
}
