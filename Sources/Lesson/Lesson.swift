import Foundation
import MIDIFile

/// One of the learner's two hands.
public enum Hand: String, Equatable, Hashable, Sendable, CaseIterable {
    case right, left

    public var other: Hand { self == .right ? .left : .right }
    /// "right hand" / "left hand", for messages.
    public var name: String { "\(rawValue) hand" }
}

/// Who plays a note: one of the hands, or the accompaniment (drums, other instruments).
public enum Part: Equatable, Hashable, Sendable {
    case hand(Hand)
    case accompaniment

    public var hand: Hand? {
        if case .hand(let h) = self { return h }
        return nil
    }

    public var name: String { hand?.name ?? "accompaniment" }
    /// "right", "left" or "accompaniment": the part label the Judge's `ExpectedNote` takes.
    public var key: String { hand?.rawValue ?? "accompaniment" }
}

/// A note of the lesson with the part that plays it. Ticks are the lesson's own (see
/// `Lesson.ticksPerQuarter`; SMPTE files are converted to 480 ticks per quarter at 120 BPM).
public struct LessonNote: Equatable, Hashable, Sendable {
    public var pitch: UInt8
    public var velocity: UInt8
    public var channel: UInt8
    /// Index of the source track.
    public var track: Int
    public var startTick: Int
    public var endTick: Int
    public var part: Part

    public init(pitch: UInt8, velocity: UInt8, channel: UInt8, track: Int, startTick: Int, endTick: Int, part: Part) {
        self.pitch = pitch
        self.velocity = velocity
        self.channel = channel
        self.track = track
        self.startTick = startTick
        self.endTick = endTick
        self.part = part
    }
}

/// A channel message other than a note (program, controller, pitch bend, pressure), kept so
/// loops and exports can restore the sound in force at any bar.
public struct ChannelEvent: Equatable, Sendable {
    public var tick: Int
    public var track: Int
    public var kind: MIDIEvent.Kind

    public init(tick: Int, track: Int, kind: MIDIEvent.Kind) {
        self.tick = tick
        self.track = track
        self.kind = kind
    }
}

/// Something timed from the conductor side of the file (signatures, markers).
public struct TimedValue<Value: Equatable & Sendable>: Equatable, Sendable {
    public var tick: Int
    public var value: Value

    public init(tick: Int, value: Value) {
        self.tick = tick
        self.value = value
    }
}

/// How the notes were given to the hands: shown by `etude info` so a wrong guess is visible.
public struct HandAssignment: Equatable, Sendable {
    public enum Method: String, Equatable, Sendable {
        /// The score's staves said which hand (`etude:hand=` annotations, e.g. from MusicXML).
        case staves
        /// Parts named for voices: soprano and alto right, tenor and bass left.
        case voiceNames
        /// Track names said which hand (e.g. "RH", "Left Hand", "Pravá ruka").
        case trackNames
        /// Two piano tracks or channels: the higher mean pitch is the right hand.
        case partsByPitch
        /// Three or more parts shared out between the hands by register and voice leading.
        case voiceLeading
        /// One piano part split by the hand model (`HandModel`).
        case handModel
        /// The user's split point (`--split`).
        case splitPoint
        /// One piano part played by one hand only (a single melodic line).
        case singleHand
        /// No notes for the hands at all.
        case none
    }

    public var method: Method
    /// One line for people, e.g. `track names: "RH" → right, "LH" → left`.
    public var description: String
}

/// A source track as the lesson sees it.
public struct LessonTrack: Equatable, Sendable {
    public var index: Int
    public var name: String?
    public var channels: [UInt8]
    public var noteCount: Int
}

/// A piano lesson built from a MIDI file: notes by hand, bars and beats, sections,
/// accompaniment, and everything needed to play or export any part of it.
///
/// Pure value: building it never touches a device or the clock, so every practice feature
/// (loops, hands, tempo) is tested without sound.
public struct Lesson: Sendable {
    public var title: String
    public var composer: String?
    public var tags: LessonTags
    /// Ticks per quarter note of every tick in this lesson.
    public var ticksPerQuarter: Int
    /// The file's own tempo map, in lesson ticks.
    public var tempoMap: TempoMap
    public var bars: BarMap
    public var sections: [Section]
    public var timeSignatures: [TimedValue<TimeSignature>]
    public var keySignatures: [TimedValue<KeySignature>]
    public var markers: [TimedValue<String>]
    /// Every note, sorted by start tick then pitch.
    public var notes: [LessonNote] {
        didSet { noteEnds = NoteEndIndex(endTicks: notes.map(\.endTick)) }
    }
    /// The notes' end ticks as a tree: the notes sounding at a tick without a pass over all.
    public private(set) var noteEnds: NoteEndIndex
    /// Programs, controllers, bends and pressure, sorted by tick (file order within a tick).
    public var channelEvents: [ChannelEvent]
    public var tracks: [LessonTrack]
    public var handAssignment: HandAssignment
    /// Tick where the music ends (last note release, else last event).
    public var endTick: Int
    /// Lowest to highest note (drums included), nil without notes: on narrow terminals the
    /// keyboard shows only this range. Computed once.
    public var pitchRange: ClosedRange<Int>?
    /// What the file says beyond MIDI (fingering, spelling, staves, clefs, printed bars): see
    /// `Annotation`. Empty for plain MIDI files.
    public var annotations: Annotations

    /// Builds the lesson. `fileName` is the title fallback; `split` (a MIDI pitch) forces the
    /// piano notes at or above it to the right hand and below it to the left.
    public init(file original: MIDIFile, fileName: String? = nil, split: Int? = nil) {
        let file = Lesson.normalized(original)
        ticksPerQuarter = file.ticksPerQuarter ?? 480
        tempoMap = TempoMap(file: file)
        tags = LessonTags(file: file)
        annotations = Annotations(file: file)

        var timeSigs: [TimedValue<TimeSignature>] = []
        var keySigs: [TimedValue<KeySignature>] = []
        var markers: [TimedValue<String>] = []
        var channelEvents: [ChannelEvent] = []
        var lastEventTick = 0
        for (t, track) in file.tracks.enumerated() {
            for e in track.events {
                lastEventTick = max(lastEventTick, e.tick)
                switch e.kind {
                case .noteOn, .noteOff:
                    break
                case .meta(let type, let data):
                    switch MetaEvent(type: type, data: data) {
                    case .timeSignature(let ts) where ts.numerator > 0 && ts.denominatorPower >= 0 && ts.denominatorPower <= 6:
                        timeSigs.append(TimedValue(tick: e.tick, value: ts))
                    case .keySignature(let ks):
                        keySigs.append(TimedValue(tick: e.tick, value: ks))
                    case .text(MetaType.marker, let bytes):
                        markers.append(TimedValue(tick: e.tick, value: TextDecoding.display(bytes)))
                    default:
                        break
                    }
                case .sysex, .escape:
                    break
                default:
                    channelEvents.append(ChannelEvent(tick: e.tick, track: t, kind: e.kind))
                }
            }
        }
        timeSignatures = Lesson.stableSorted(timeSigs)
        keySignatures = Lesson.stableSorted(keySigs)
        self.markers = Lesson.stableSorted(markers)
        self.channelEvents = channelEvents.enumerated().sorted { a, b in
            a.element.tick != b.element.tick ? a.element.tick < b.element.tick : a.offset < b.offset
        }.map(\.element)

        let paired = NotePairing.notes(in: file).notes
        let assigned = HandAssigner.assign(notes: paired, file: file, channelEvents: self.channelEvents, split: split,
                                           staves: annotations.hands)
        var notes = assigned.notes
        notes.sort { a, b in
            if a.startTick != b.startTick { return a.startTick < b.startTick }
            if a.pitch != b.pitch { return a.pitch < b.pitch }
            return a.track < b.track
        }
        self.notes = notes
        noteEnds = NoteEndIndex(endTicks: notes.map(\.endTick))
        if let low = notes.lazy.map(\.pitch).min(), let high = notes.lazy.map(\.pitch).max() {
            pitchRange = Int(low)...Int(high)
        }
        handAssignment = assigned.assignment
        endTick = notes.map(\.endTick).max() ?? lastEventTick

        tracks = file.tracks.enumerated().map { i, track in
            var channels = Set<UInt8>()
            var count = 0
            for e in track.events {
                if let c = e.kind.channel { channels.insert(c) }
                if e.kind.isSoundingNoteOn { count += 1 }
            }
            return LessonTrack(index: i, name: track.name, channels: channels.sorted(), noteCount: count)
        }

        let onsets = notes.compactMap { $0.channel == 9 ? nil : $0.startTick }
        var bars = BarMap(ticksPerQuarter: ticksPerQuarter, timeSignatures: timeSignatures, endTick: endTick, onsets: onsets)
        // Closing rest bars: a track end placed exactly on a bar line up to four bars after
        // the last note is part of the piece (exports of bars ending in rests rely on it).
        if lastEventTick > endTick {
            let longer = BarMap(ticksPerQuarter: ticksPerQuarter, timeSignatures: timeSignatures, endTick: lastEventTick, onsets: onsets)
            if longer.bars.last?.endTick == lastEventTick, longer.bars.count - bars.bars.count <= 4,
               longer.hasPickup == bars.hasPickup {
                bars = longer
                endTick = lastEventTick
            }
        }
        if !annotations.bars.isEmpty {
            // A score's printed bar lines: the piece ends with its last bar.
            endTick = max(endTick, lastEventTick)
            bars = BarMap(ticksPerQuarter: ticksPerQuarter, timeSignatures: timeSignatures, printedBars: annotations.bars, endTick: endTick)
        }
        self.bars = bars
        sections = Section.sections(bars: bars, markers: self.markers)

        composer = tags.composer.flatMap { $0.isEmpty ? nil : $0 }
        title = Lesson.title(tags: tags, file: file, fileName: fileName)
    }

    /// Builds the lesson straight from SMF bytes (lenient read; warnings are dropped here,
    /// `etude info` shows them).
    public init(bytes: [UInt8], fileName: String? = nil, split: Int? = nil) throws(MIDIReadError) {
        let result = try MIDIReader.read(bytes)
        self.init(file: result.file, fileName: fileName, split: split)
    }

    /// The finger the file gives a note (1 = thumb … 5), if any.
    public func finger(of note: LessonNote) -> Int? {
        annotations.fingers[Annotations.Key(track: note.track, tick: note.startTick, pitch: Int(note.pitch))]
    }

    /// A grace note (`etude:grace`): drawn small, played short, never required of the learner.
    public func isGrace(_ note: LessonNote) -> Bool {
        !annotations.graces.isEmpty && annotations.graces[Annotations.Key(track: note.track, tick: note.startTick, pitch: Int(note.pitch))] != nil
    }

    /// A note the lesson plays that the learner may play but need not: a grace note, or one of
    /// the notes an ornament is played with (`etude:ornament=P:note`).
    public func isAccepted(_ note: LessonNote) -> Bool {
        if annotations.graces.isEmpty && annotations.ornamentNotes.isEmpty { return false }
        let key = Annotations.Key(track: note.track, tick: note.startTick, pitch: Int(note.pitch))
        return annotations.graces[key] != nil || annotations.ornamentNotes.contains(key)
    }

    /// How the file spells a note (MusicXML and ABC say it; MIDI does not).
    public func spelling(of note: LessonNote) -> SpelledPitch? {
        annotations.spellings[Annotations.Key(track: note.track, tick: note.startTick, pitch: Int(note.pitch))]
    }

    /// The hands that have at least one note.
    public var hands: Set<Hand> {
        var s = Set<Hand>()
        for n in notes { if let h = n.part.hand { s.insert(h) } }
        return s
    }

    /// Notes of one part, for `etude info` and sanity checks.
    public func noteCount(_ part: Part) -> Int {
        notes.reduce(0) { $0 + ($1.part == part ? 1 : 0) }
    }

    /// Length in seconds at the file's own tempo.
    public var durationSeconds: Double { tempoMap.seconds(atTick: endTick) }

    /// Index into `sections` of the section holding a tick (for per-section scores).
    public func sectionIndex(atTick tick: Int) -> Int {
        let number = bars.bar(atTick: tick).number
        // Sections are in bar order: the last one starting at or before the bar, by bisection
        // (asked for every note of a pass; a scan made 1,000,000 notes × 15,000 sections).
        var lo = 0, hi = sections.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sections[mid].firstBar <= number { lo = mid + 1 } else { hi = mid }
        }
        return max(0, lo - 1)
    }

    /// Time signature in force at a tick (4/4 when the file has none).
    public func timeSignature(atTick tick: Int) -> TimeSignature {
        Lesson.value(in: timeSignatures, atTick: tick) ?? TimeSignature(numerator: 4, denominatorPower: 2)
    }

    public func keySignature(atTick tick: Int) -> KeySignature? {
        Lesson.value(in: keySignatures, atTick: tick)
    }

    static func value<V>(in list: [TimedValue<V>], atTick tick: Int) -> V? {
        var found: V?
        for item in list {
            if item.tick <= tick { found = item.value } else { break }
        }
        return found
    }

    static func stableSorted<V>(_ list: [TimedValue<V>]) -> [TimedValue<V>] {
        list.enumerated().sorted { a, b in
            a.element.tick != b.element.tick ? a.element.tick < b.element.tick : a.offset < b.offset
        }.map(\.element)
    }

    static func title(tags: LessonTags, file: MIDIFile, fileName: String?) -> String {
        if let t = tags.all["title"], !t.isEmpty { return t }
        if let first = file.tracks.first, let name = first.name, HandAssigner.hand(fromName: name) == nil, !isGenericName(name) {
            return name
        }
        if let first = file.tracks.first {
            for e in first.events where e.tick == 0 {
                if case .meta(MetaType.text, let data) = e.kind {
                    let text = TextDecoding.display(data)
                    if !text.isEmpty, !text.hasPrefix(LessonTags.prefix), text.count <= 80 { return text }
                }
            }
        }
        guard let fileName else { return "Untitled" }
        var base = Substring(fileName)
        if let slash = base.lastIndex(of: "/") { base = base[base.index(after: slash)...] }
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = base[..<dot] }
        let clean = TextDecoding.sanitize(String(base))
        return clean.isEmpty ? "Untitled" : clean
    }

    /// Track names that say nothing about the piece ("Piano", "Track 1", a GM instrument).
    static func isGenericName(_ name: String) -> Bool {
        let lower = name.lowercased().trimmingCharacters(in: .whitespaces)
        if ["piano", "untitled", "track", "melody", "music", "sequence", "song", "midi"].contains(lower) { return true }
        if lower.hasPrefix("track"), Int(lower.dropFirst(5).trimmingCharacters(in: .whitespaces)) != nil { return true }
        return GeneralMIDI.programNames.contains { $0.lowercased() == lower }
    }

    /// Format-2 files are played as simultaneous tracks; SMPTE-timed files are converted to
    /// 480 ticks per quarter at 120 BPM so bars and beats exist for them too.
    static func normalized(_ file: MIDIFile) -> MIDIFile {
        guard case .smpte = file.division else { return file }
        let map = TempoMap(file: file)
        var out = MIDIFile(format: file.format == 0 ? 0 : 1, division: .ticksPerQuarter(480), tracks: [])
        for track in file.tracks {
            var t = Track()
            for e in track.events {
                if case .meta(MetaType.tempo, _) = e.kind { continue }
                let tick = Int((map.seconds(atTick: e.tick) * 960).rounded())
                t.events.append(MIDIEvent(tick: tick, e.kind))
            }
            out.tracks.append(t)
        }
        return out
    }
}
