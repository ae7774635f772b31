/// What `etude info` and the catalogue show about a file, computed once from the events.
public struct MIDIFileSummary: Sendable {
    public struct TrackSummary: Sendable {
        public var index: Int
        public var name: String?
        public var channels: [Int]
        /// General MIDI programs (0-based) changed to on this track, in order of appearance.
        public var programs: [Int]
        public var noteCount: Int
        public var lowestPitch: Int?
        public var highestPitch: Int?
        public var eventCount: Int
    }

    public struct Timed<Value: Sendable>: Sendable {
        public var tick: Int
        public var seconds: Double
        public var value: Value
    }

    public var format: Int
    public var division: Division
    public var tracks: [TrackSummary]
    /// Tempo changes in effect (a file without any has the 120 BPM default at tick 0).
    public var tempos: [Timed<Int>]
    public var timeSignatures: [Timed<TimeSignature>]
    public var keySignatures: [Timed<KeySignature>]
    public var markers: [Timed<String>]
    public var durationSeconds: Double
    public var noteCount: Int

    public init(file: MIDIFile) {
        format = file.format
        division = file.division
        let map = TempoMap(file: file)
        var tracks: [TrackSummary] = []
        var timeSigs: [Timed<TimeSignature>] = []
        var keySigs: [Timed<KeySignature>] = []
        var markers: [Timed<String>] = []
        var totalNotes = 0
        for (i, track) in file.tracks.enumerated() {
            var channels = Set<Int>()
            var programs: [Int] = []
            var notes = 0
            var lo: Int?
            var hi: Int?
            for e in track.events {
                if let c = e.kind.channel { channels.insert(Int(c)) }
                switch e.kind {
                case .noteOn(_, let k, let v) where v > 0:
                    notes += 1
                    lo = min(lo ?? Int(k), Int(k))
                    hi = max(hi ?? Int(k), Int(k))
                case .programChange(_, let p):
                    if !programs.contains(Int(p)) { programs.append(Int(p)) }
                case .meta(let type, let data):
                    let seconds = map.seconds(atTick: e.tick)
                    switch MetaEvent(type: type, data: data) {
                    case .timeSignature(let ts): timeSigs.append(Timed(tick: e.tick, seconds: seconds, value: ts))
                    case .keySignature(let ks): keySigs.append(Timed(tick: e.tick, seconds: seconds, value: ks))
                    case .text(MetaType.marker, let bytes):
                        markers.append(Timed(tick: e.tick, seconds: seconds, value: TextDecoding.display(bytes)))
                    default: break
                    }
                default: break
                }
            }
            totalNotes += notes
            tracks.append(TrackSummary(index: i, name: track.name, channels: channels.sorted(), programs: programs,
                                       noteCount: notes, lowestPitch: lo, highestPitch: hi, eventCount: track.events.count))
        }
        self.tracks = tracks
        tempos = map.segments.map { Timed(tick: $0.tick, seconds: $0.seconds, value: $0.microsecondsPerQuarter) }
        timeSignatures = timeSigs.sorted { $0.tick < $1.tick }
        keySignatures = keySigs.sorted { $0.tick < $1.tick }
        self.markers = markers.sorted { $0.tick < $1.tick }
        durationSeconds = file.durationSeconds
        noteCount = totalNotes
    }
}

/// General MIDI program names (0-based), for showing instruments by name.
public enum GeneralMIDI {
    public static let programNames: [String] = [
        "Acoustic Grand Piano", "Bright Acoustic Piano", "Electric Grand Piano", "Honky-tonk Piano",
        "Electric Piano 1", "Electric Piano 2", "Harpsichord", "Clavinet", "Celesta", "Glockenspiel",
        "Music Box", "Vibraphone", "Marimba", "Xylophone", "Tubular Bells", "Dulcimer", "Drawbar Organ",
        "Percussive Organ", "Rock Organ", "Church Organ", "Reed Organ", "Accordion", "Harmonica",
        "Tango Accordion", "Acoustic Guitar (nylon)", "Acoustic Guitar (steel)", "Electric Guitar (jazz)",
        "Electric Guitar (clean)", "Electric Guitar (muted)", "Overdriven Guitar", "Distortion Guitar",
        "Guitar Harmonics", "Acoustic Bass", "Electric Bass (finger)", "Electric Bass (pick)",
        "Fretless Bass", "Slap Bass 1", "Slap Bass 2", "Synth Bass 1", "Synth Bass 2", "Violin", "Viola",
        "Cello", "Contrabass", "Tremolo Strings", "Pizzicato Strings", "Orchestral Harp", "Timpani",
        "String Ensemble 1", "String Ensemble 2", "Synth Strings 1", "Synth Strings 2", "Choir Aahs",
        "Voice Oohs", "Synth Voice", "Orchestra Hit", "Trumpet", "Trombone", "Tuba", "Muted Trumpet",
        "French Horn", "Brass Section", "Synth Brass 1", "Synth Brass 2", "Soprano Sax", "Alto Sax",
        "Tenor Sax", "Baritone Sax", "Oboe", "English Horn", "Bassoon", "Clarinet", "Piccolo", "Flute",
        "Recorder", "Pan Flute", "Blown Bottle", "Shakuhachi", "Whistle", "Ocarina", "Lead 1 (square)",
        "Lead 2 (sawtooth)", "Lead 3 (calliope)", "Lead 4 (chiff)", "Lead 5 (charang)", "Lead 6 (voice)",
        "Lead 7 (fifths)", "Lead 8 (bass + lead)", "Pad 1 (new age)", "Pad 2 (warm)", "Pad 3 (polysynth)",
        "Pad 4 (choir)", "Pad 5 (bowed)", "Pad 6 (metallic)", "Pad 7 (halo)", "Pad 8 (sweep)",
        "FX 1 (rain)", "FX 2 (soundtrack)", "FX 3 (crystal)", "FX 4 (atmosphere)", "FX 5 (brightness)",
        "FX 6 (goblins)", "FX 7 (echoes)", "FX 8 (sci-fi)", "Sitar", "Banjo", "Shamisen", "Koto",
        "Kalimba", "Bagpipe", "Fiddle", "Shanai", "Tinkle Bell", "Agogo", "Steel Drums", "Woodblock",
        "Taiko Drum", "Melodic Tom", "Synth Drum", "Reverse Cymbal", "Guitar Fret Noise", "Breath Noise",
        "Seashore", "Bird Tweet", "Telephone Ring", "Helicopter", "Applause", "Gunshot",
    ]

    public static func name(program: Int) -> String {
        programNames.indices.contains(program) ? programNames[program] : "program \(program)"
    }
}
