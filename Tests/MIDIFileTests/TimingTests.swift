import Testing
@testable import MIDIFile

@Suite("Tempo map, notes, writer")
struct TimingTests {
    func twoTrackFile() -> MIDIFile {
        // conductor: 120 BPM, then 60 BPM at tick 960; notes on track 2
        let conductor = Track(events: [
            MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20])),
            MIDIEvent(tick: 960, .meta(type: MetaType.tempo, data: [0x0F, 0x42, 0x40])),
            MIDIEvent(tick: 960, .meta(type: MetaType.endOfTrack, data: [])),
        ])
        let notes = Track(events: [
            MIDIEvent(tick: 0, .noteOn(channel: 0, key: 60, velocity: 90)),
            MIDIEvent(tick: 480, .noteOn(channel: 0, key: 60, velocity: 80)),  // overlapping same pitch
            MIDIEvent(tick: 960, .noteOff(channel: 0, key: 60, velocity: 0)),
            MIDIEvent(tick: 1440, .noteOn(channel: 0, key: 60, velocity: 0)),
            MIDIEvent(tick: 1440, .noteOn(channel: 1, key: 64, velocity: 70)),  // never released
            MIDIEvent(tick: 1920, .meta(type: MetaType.endOfTrack, data: [])),
        ])
        return MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [conductor, notes])
    }

    @Test func tempoChangesOnAnyTrack() {
        let map = TempoMap(file: twoTrackFile())
        #expect(map.seconds(atTick: 480) == 0.5)
        #expect(map.seconds(atTick: 960) == 1.0)
        #expect(map.seconds(atTick: 1440) == 2.0)
        #expect(map.tick(atSeconds: 2.0) == 1440)
        #expect(map.bpm(atTick: 100) == 120)
        #expect(map.bpm(atTick: 1000) == 60)
        #expect(twoTrackFile().durationSeconds == 3.0)
    }

    @Test func notePairingFIFOAndUnreleased() {
        let (notes, warnings) = NotePairing.notes(in: twoTrackFile())
        #expect(notes == [
            Note(track: 1, channel: 0, pitch: 60, velocity: 90, startTick: 0, endTick: 960),
            Note(track: 1, channel: 0, pitch: 60, velocity: 80, startTick: 480, endTick: 1440),
            Note(track: 1, channel: 1, pitch: 64, velocity: 70, startTick: 1440, endTick: 1920),
        ])
        #expect(warnings.map(\.message) == ["track 2: 1 note never released; ended at the track's end (tick 1920)"])
    }

    @Test func writerRoundTripAndSingleEndOfTrack() throws {
        var f = twoTrackFile()
        f.tracks[1].events.insert(MIDIEvent(tick: 100, .meta(type: MetaType.endOfTrack, data: [])), at: 1)
        f.tracks[1].events.insert(MIDIEvent(tick: 100, .sysex(data: [0x7E, 0x7F, 0x09, 0x01, 0xF7])), at: 1)
        f.tracks[1].events.insert(MIDIEvent(tick: 100, .pitchBend(channel: 3, value: 16383)), at: 1)
        let bytes = MIDIWriter.write(f)
        let back = try MIDIReader.read(bytes, strict: true).file
        var expected = twoTrackFile()
        expected.tracks[1].events.insert(MIDIEvent(tick: 100, .sysex(data: [0x7E, 0x7F, 0x09, 0x01, 0xF7])), at: 1)
        expected.tracks[1].events.insert(MIDIEvent(tick: 100, .pitchBend(channel: 3, value: 16383)), at: 1)
        #expect(back == expected)
        #expect(back.tracks.allSatisfy { t in t.events.filter { $0.kind.meta == .endOfTrack }.count == 1 })
    }

    @Test func vlqEncoding() {
        for (value, expected) in [(0, [0x00]), (127, [0x7F]), (128, [0x81, 0x00]), (8192, [0xC0, 0x00]),
                                  (16383, [0xFF, 0x7F]), (2_097_151, [0xFF, 0xFF, 0x7F]), (0x0FFF_FFFF, [0xFF, 0xFF, 0xFF, 0x7F])] {
            var out: [UInt8] = []
            MIDIWriter.appendVLQ(value, to: &out)
            #expect(out == expected.map(UInt8.init))
        }
    }

    @Test func pitchNames() {
        #expect(PitchName.name(60) == "C4")
        #expect(PitchName.name(60, octaveOfMiddleC: 3) == "C3")
        #expect(PitchName.name(21) == "A0")
        #expect(PitchName.name(108) == "C8")
        #expect(PitchName.parse("C4") == 60)
        #expect(PitchName.parse("F#3") == 54)
        #expect(PitchName.parse("Bb2") == 46)
        #expect(PitchName.parse("H9") == nil)
    }

    @Test func textIsSanitised() {
        let evil: [UInt8] = Array("Title\u{1B}[2J\u{07}\tok".utf8) + [0x9B]
        // Decoded as the file has it (one line), cleaned on its way to a terminal (issue 31:
        // JSON escapes what the terminal never sees).
        #expect(TextDecoding.display(evil) == "Title\u{1B}[2J\u{07} ok\u{9B}")
        #expect(TextDecoding.sanitize(TextDecoding.display(evil)) == "Title[2J ok")
        #expect(TextDecoding.sanitize("a\u{1B}]0;x\u{07}b") == "a]0;xb")
    }

    @Test func lessonTagsRoundTrip() throws {
        var tags = LessonTags(title: "Minuet", composer: "Petzold", level: 4, description: "G major")
        var f = MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [Track(events: tags.events)])
        f = try MIDIReader.read(MIDIWriter.write(f)).file
        tags.all = ["title": "Minuet", "composer": "Petzold", "level": "4", "description": "G major"]
        #expect(LessonTags(file: f) == tags)
    }
}

@Suite("Tempo map cursor")
struct CursorTests {
    @Test func cursorAgreesWithSearchForwardAndBackward() {
        let changes = (0..<50).map { (tick: $0 * 100, us: 300_000 + $0 * 7_000) }
        let map = TempoMap(division: .ticksPerQuarter(96), changes: changes)
        var cursor = map.cursor()
        for tick in stride(from: 0, through: 6000, by: 37) { #expect(cursor.seconds(atTick: tick) == map.seconds(atTick: tick)) }
        for tick in stride(from: 6000, through: 0, by: -53) { #expect(cursor.seconds(atTick: tick) == map.seconds(atTick: tick)) }
    }
}
