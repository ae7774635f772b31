import MIDIFile

/// One note as recorded: when it started and ended, in seconds from the recording's start.
public struct RecordedNote: Equatable, Hashable, Sendable {
    public var pitch: Int
    public var velocity: Int
    public var channel: Int
    public var start: Double
    public var end: Double
}

/// Turns what was played into a Standard MIDI File, for `etude record` and "save this pass".
///
/// Note lengths come from note-offs where the source sends them. Onset-only sources (the
/// computer keyboard), and notes still held when recording stops without an end time, get
/// `fixedLength`, cut short where the same key is struck again so no two copies overlap.
/// The file is format 0 at `ticksPerQuarter`, with one tempo and one time signature, so it
/// re-reads (here or in any sequencer) as the same notes.
public struct PerformanceRecorder: Sendable {
    public var ticksPerQuarter: Int
    public var bpm: Double
    public var timeSignature: TimeSignature
    /// Seconds (on the played-note clock) that become tick 0.
    public var startTime: Double
    /// True for sources without key releases: every note gets `fixedLength`.
    public var onsetOnly: Bool
    public var fixedLength: Double
    /// Track name written into the file.
    public var title: String
    public private(set) var events: [PlayedEvent] = []

    public init(startTime: Double, bpm: Double = 120, timeSignature: TimeSignature = TimeSignature(numerator: 4, denominatorPower: 2),
                ticksPerQuarter: Int = 480, onsetOnly: Bool = false, fixedLength: Double = 0.4, title: String = "Etude recording") {
        self.startTime = startTime
        self.bpm = bpm > 0 ? bpm : 120
        self.timeSignature = timeSignature
        self.ticksPerQuarter = max(1, min(ticksPerQuarter, 0x7FFF))
        self.onsetOnly = onsetOnly
        self.fixedLength = max(0.01, fixedLength)
        self.title = title
    }

    public mutating func record(_ event: PlayedEvent) {
        guard (0...127).contains(event.pitch) else { return }
        events.append(event)
    }

    /// Played notes paired on → off (first in, first out per key and channel).
    /// `endTime` (same clock as the events) ends notes still held; without it they get `fixedLength`.
    public func notes(endTime: Double? = nil) -> [RecordedNote] {
        let ordered = events.enumerated().sorted { a, b in
            a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
        }.map(\.element)
        var notes: [RecordedNote] = []
        var open: [Int: [Int]] = [:]  // key*16+channel → indices into notes
        for e in ordered {
            let key = e.pitch * 16 + (e.channel & 0x0F)
            let t = max(0, e.time - startTime)
            if e.isOn && e.velocity > 0 {
                notes.append(RecordedNote(pitch: e.pitch, velocity: max(1, min(127, e.velocity)), channel: e.channel & 0x0F, start: t, end: -1))
                if !onsetOnly { open[key, default: []].append(notes.count - 1) }
            } else if !onsetOnly, var list = open[key], !list.isEmpty {
                let i = list.removeFirst()
                open[key] = list
                notes[i].end = max(t, notes[i].start)
            }
        }
        let stop = endTime.map { max(0, $0 - startTime) }
        for i in notes.indices where notes[i].end < 0 {
            var end = notes[i].start + fixedLength
            if !onsetOnly, let stop { end = max(stop, notes[i].start) }
            // Cut at the next strike of the same key so the copies never overlap.
            if let next = notes[(i + 1)...].first(where: { $0.pitch == notes[i].pitch && $0.channel == notes[i].channel && $0.start > notes[i].start }) {
                end = min(end, next.start)
            }
            notes[i].end = end
        }
        return notes
    }

    /// Seconds from the recording's start → ticks at the recording tempo.
    public func tick(_ seconds: Double) -> Int {
        Int((seconds * bpm / 60 * Double(ticksPerQuarter)).rounded())
    }

    /// The recording as a format-0 MIDI file.
    public func midiFile(endTime: Double? = nil) -> MIDIFile {
        let us = max(1, min(0xFFFFFF, Int((60_000_000 / bpm).rounded())))
        let header: [MIDIEvent] = [
            MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(title.utf8))),
            MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xFF), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)])),
            MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: timeSignature.bytes)),
        ]
        // Offs sort before ons at the same tick so a re-struck key is released first.
        var body: [(tick: Int, order: Int, event: MIDIEvent)] = []
        for n in notes(endTime: endTime) {
            let start = tick(n.start)
            let end = max(start + 1, tick(n.end))
            let c = UInt8(n.channel), k = UInt8(n.pitch)
            body.append((start, 1, MIDIEvent(tick: start, .noteOn(channel: c, key: k, velocity: UInt8(n.velocity)))))
            body.append((end, 0, MIDIEvent(tick: end, .noteOff(channel: c, key: k, velocity: 64))))
        }
        body.sort { $0.tick != $1.tick ? $0.tick < $1.tick : $0.order < $1.order }
        let last = body.last?.tick ?? 0
        let events = header + body.map(\.event) + [MIDIEvent(tick: last, .meta(type: MetaType.endOfTrack, data: []))]
        return MIDIFile(format: 0, division: .ticksPerQuarter(ticksPerQuarter), tracks: [Track(events: events)])
    }

    /// The recording as .mid bytes.
    public func bytes(endTime: Double? = nil) -> [UInt8] {
        MIDIWriter.write(midiFile(endTime: endTime))
    }
}
