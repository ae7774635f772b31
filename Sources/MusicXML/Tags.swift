/// The MusicXML elements the reader looks at, interned at fixed ids so reading compares integers.
enum Tag: Int32, CaseIterable {
    case scorePartwise, scoreTimewise, partList, scorePart, partName, midiInstrument, midiChannel, midiProgram
    case part, measure, attributes, divisions, key, fifths, mode, time, beats, beatType, senzaMisura, staves
    case clef, sign, line, clefOctaveChange, transpose, chromatic, diatonic, octaveChange, double
    case measureStyle, multipleRest, note, pitch, step, alter, octave, unpitched, rest, chord, grace, cue
    case duration, tie, type, dot, timeModification, actualNotes, normalNotes, staff, notations, tied
    case technical, fingering, articulations, staccato, staccatissimo, spiccato, backup, forward
    case direction, directionType, words, rehearsal, segno, coda, dynamics, metronome, beatUnit, beatUnitDot
    case perMinute, pedal, sound, offset, barline, `repeat`, ending, work, workTitle, movementTitle
    case identification, creator, voice, percussion, miscellaneous, miscellaneousField

    var name: String { Tag.names[Int(rawValue)] }

    static let names: [String] = [
        "score-partwise", "score-timewise", "part-list", "score-part", "part-name", "midi-instrument", "midi-channel", "midi-program",
        "part", "measure", "attributes", "divisions", "key", "fifths", "mode", "time", "beats", "beat-type", "senza-misura", "staves",
        "clef", "sign", "line", "clef-octave-change", "transpose", "chromatic", "diatonic", "octave-change", "double",
        "measure-style", "multiple-rest", "note", "pitch", "step", "alter", "octave", "unpitched", "rest", "chord", "grace", "cue",
        "duration", "tie", "type", "dot", "time-modification", "actual-notes", "normal-notes", "staff", "notations", "tied",
        "technical", "fingering", "articulations", "staccato", "staccatissimo", "spiccato", "backup", "forward",
        "direction", "direction-type", "words", "rehearsal", "segno", "coda", "dynamics", "metronome", "beat-unit", "beat-unit-dot",
        "per-minute", "pedal", "sound", "offset", "barline", "repeat", "ending", "work", "work-title", "movement-title",
        "identification", "creator", "voice", "percussion", "miscellaneous", "miscellaneous-field",
    ]

    /// Elements that change what is heard but that Etude does not play: named once in a warning.
    static let notPlayed: [String: String] = [
        "delayed-turn": "delayed turns",
        "delayed-inverted-turn": "delayed turns", "vertical-turn": "vertical turns", "schleifer": "schleifers", "haydn": "ornaments",
        "wavy-line": "trill lines", "non-arpeggiate": "arpeggio brackets",
        "fermata": "fermatas", "glissando": "glissandos", "slide": "slides", "bend": "bends",
        "harmony": "chord symbols", "figured-bass": "figured bass", "measure-repeat": "measure-repeat signs",
        "beat-repeat": "beat-repeat signs", "slash": "slash notation", "accordion-registration": "accordion registrations",
        "swing": "swing", "breath-mark": "breath marks", "caesura": "caesuras",
    ]
}
