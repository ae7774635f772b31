/// A note the learner is expected to play, as the lesson engine lays it out in time.
///
/// Judge keeps its own input types so it depends on nothing but plain values: the lesson
/// engine converts its notes into these (times already scaled to the practice tempo).
public struct ExpectedNote: Equatable, Hashable, Sendable, Codable {
    /// Stable identity (e.g. the note's index in the lesson), echoed back in judgements.
    public var id: Int
    public var pitch: Int
    /// Onset in seconds on the same clock as the played notes.
    public var time: Double
    public var duration: Double
    /// Which hand or part the note belongs to ("right", "left", "both", a track name…).
    public var part: String
    /// Index of the section (phrase, group of bars) the note lies in, for per-section scores.
    public var section: Int
    /// The velocity the score asks for (its dynamics), nil when the lesson marks none: the ear
    /// then gives no loudness verdict.
    public var marked: Int?
    /// The dynamic marked where the note is ("p", "mf"…), when the lesson names it.
    public var dynamic: String?
    /// Staccato or tenuto, which change how long the note should be held.
    public var articulation: Articulation?

    public init(id: Int, pitch: Int, time: Double, duration: Double = 0.5, part: String = "right", section: Int = 0,
                marked: Int? = nil, dynamic: String? = nil, articulation: Articulation? = nil) {
        self.id = id
        self.pitch = pitch
        self.time = time
        self.duration = duration
        self.part = part
        self.section = section
        self.marked = marked
        self.dynamic = dynamic
        self.articulation = articulation
    }
}

/// A key going down or up, as Judge sees it (the MIDIInput module's `PlayedNote` maps 1:1).
public struct PlayedEvent: Equatable, Hashable, Sendable, Codable {
    public var pitch: Int
    public var velocity: Int
    /// Seconds on the same clock as the expected notes.
    public var time: Double
    /// True for a key press, false for a release.
    public var isOn: Bool
    public var channel: Int

    public init(pitch: Int, velocity: Int = 90, time: Double, isOn: Bool = true, channel: Int = 0) {
        self.pitch = pitch
        self.velocity = velocity
        self.time = time
        self.isOn = isOn
        self.channel = channel
    }
}

/// Expected notes that start together, grouped for the wait gate.
public struct Chord: Equatable, Sendable {
    public var time: Double
    public var notes: [ExpectedNote]
    public var pitches: Set<Int> { Set(notes.map(\.pitch)) }

    public init(time: Double, notes: [ExpectedNote]) {
        self.time = time
        self.notes = notes
    }

    /// Groups notes of the practised parts into chords: notes whose onsets lie within
    /// `tolerance` seconds of the chord's first note belong to it (a rolled or slightly
    /// humanised chord still counts as one).
    public static func group(_ notes: [ExpectedNote], parts: Set<String>? = nil, tolerance: Double = 0.02) -> [Chord] {
        let selected = notes.filter { parts?.contains($0.part) ?? true }
            .sorted { $0.time != $1.time ? $0.time < $1.time : $0.pitch < $1.pitch }
        var chords: [Chord] = []
        for note in selected {
            if let last = chords.last, note.time - last.time <= tolerance {
                chords[chords.count - 1].notes.append(note)
            } else {
                chords.append(Chord(time: note.time, notes: [note]))
            }
        }
        return chords
    }
}
