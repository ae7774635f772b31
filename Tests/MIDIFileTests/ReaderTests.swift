import Testing
import TestSupport
@testable import MIDIFile

/// One track body with the given events and an End of Track.
private func file(_ body: [UInt8], format: Int = 0) -> [UInt8] {
    var b = SMFBuilder()
    b.format = format
    b.tracks = [body + SMFBuilder.endOfTrack]
    return b.bytes()
}

private func events(_ bytes: [UInt8]) throws -> [MIDIEvent.Kind] {
    try MIDIReader.read(bytes).file.tracks[0].events.map(\.kind)
}

@Suite("Reader: event kinds")
struct EventKindTests {
    @Test func everyChannelMessage() throws {
        let body: [UInt8] = [
            0x00, 0x81, 60, 64,        // note off ch 2
            0x00, 0x92, 61, 100,       // note on ch 3
            0x00, 0xA3, 62, 5,         // poly pressure
            0x00, 0xB4, 64, 127,       // control change
            0x00, 0xC5, 19,            // program change
            0x00, 0xD6, 77,            // channel pressure
            0x00, 0xE7, 0x00, 0x40,    // pitch bend centre
        ]
        let k = try events(file(body))
        #expect(k[0] == .noteOff(channel: 1, key: 60, velocity: 64))
        #expect(k[1] == .noteOn(channel: 2, key: 61, velocity: 100))
        #expect(k[2] == .polyPressure(channel: 3, key: 62, pressure: 5))
        #expect(k[3] == .controlChange(channel: 4, controller: 64, value: 127))
        #expect(k[4] == .programChange(channel: 5, program: 19))
        #expect(k[5] == .channelPressure(channel: 6, pressure: 77))
        #expect(k[6] == .pitchBend(channel: 7, value: 8192))
        #expect(k[6].data == [0x00, 0x40])
        #expect(k.count == 8)
    }

    @Test func everyMetaEvent() throws {
        var body: [UInt8] = []
        body += [0x00, 0xFF, 0x00, 0x02, 0x00, 0x07]             // sequence number 7
        for type in UInt8(1)...UInt8(15) { body += [0x00, 0xFF, type, 0x02, 0x41, 0x42] }
        body += [0x00, 0xFF, 0x20, 0x01, 0x09]                   // channel prefix
        body += [0x00, 0xFF, 0x21, 0x01, 0x02]                   // port
        body += [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]       // tempo 500000
        body += [0x00, 0xFF, 0x54, 0x05, 0x60, 0x01, 0x02, 0x03, 0x04]  // SMPTE offset
        body += [0x00, 0xFF, 0x58, 0x04, 0x06, 0x03, 0x24, 0x08] // 6/8
        body += [0x00, 0xFF, 0x59, 0x02, 0xFD, 0x01]             // 3 flats minor
        body += [0x00, 0xFF, 0x7F, 0x03, 0x00, 0x00, 0x41]       // sequencer specific
        body += [0x00, 0xFF, 0x4B, 0x01, 0x99]                   // unknown kind, kept raw
        let k = try events(file(body))
        #expect(k[0].meta == .sequenceNumber(7))
        for i in 1...15 {
            #expect(k[i].meta == .text(type: UInt8(i), bytes: [0x41, 0x42]))
            #expect(k[i].meta?.displayText == "AB")
        }
        #expect(k[16].meta == .channelPrefix(9))
        #expect(k[17].meta == .port(2))
        #expect(k[18].meta == .tempo(microsecondsPerQuarter: 500_000))
        #expect(k[19].meta == .smpteOffset(hours: 0x60, minutes: 1, seconds: 2, frames: 3, subframes: 4))
        #expect(k[20].meta == .timeSignature(TimeSignature(numerator: 6, denominatorPower: 3, clocksPerClick: 36, thirtySecondsPerQuarter: 8)))
        #expect(k[21].meta == .keySignature(KeySignature(sharps: -3, minor: true)))
        #expect(KeySignature(sharps: -3, minor: true).name == "C minor")
        #expect(k[22].meta == .sequencerSpecific([0, 0, 0x41]))
        #expect(k[23] == .meta(type: 0x4B, data: [0x99]))
        #expect(k[24].meta == .endOfTrack)
    }

    @Test func sysexAndEscapeWithVLQLengths() throws {
        var body: [UInt8] = [0x00, 0xF0, 0x05, 0x7E, 0x7F, 0x09, 0x01, 0xF7]
        body += [0x00, 0xF7, 0x02, 0xF8, 0xFA]
        let big = [UInt8](repeating: 0x11, count: 200)   // length 200 = 2-byte VLQ 81 48
        body += [0x00, 0xF0, 0x81, 0x48] + big
        let k = try events(file(body))
        #expect(k[0] == .sysex(data: [0x7E, 0x7F, 0x09, 0x01, 0xF7]))
        #expect(k[1] == .escape(data: [0xF8, 0xFA]))
        #expect(k[2] == .sysex(data: big))
    }

    @Test func runningStatusAndVelocityZero() throws {
        let body: [UInt8] = [0x00, 0x90, 60, 100, 0x10, 62, 90, 0x10, 60, 0, 0x10, 62, 0]
        let r = try MIDIReader.read(file(body))
        #expect(r.warnings.isEmpty)
        let k = r.file.tracks[0].events
        #expect(k.map(\.tick) == [0, 16, 32, 48, 48])
        #expect(k[3].kind == .noteOn(channel: 0, key: 62, velocity: 0))
        #expect(k[3].kind.isNoteRelease)
    }

    @Test func vlqSizes() throws {
        // deltas of 1, 2, 3 and 4 bytes
        let body: [UInt8] = [0x7F, 0x90, 60, 1, 0x81, 0x00, 60, 0, 0xFF, 0xFF, 0x7F, 60, 1, 0xFF, 0xFF, 0xFF, 0x7F, 60, 0]
        let t = try MIDIReader.read(file(body)).file.tracks[0].events.map(\.tick)
        #expect(t[0] == 127)
        #expect(t[1] == 127 + 128)
        #expect(t[2] == 127 + 128 + 2_097_151)
        #expect(t[3] == 127 + 128 + 2_097_151 + 268_435_455)
    }
}

@Suite("Reader: recoveries and fatal errors")
struct RecoveryTests {
    @Test func fatalErrorsAreTypedWithOffsets() {
        #expect(throws: MIDIReadError(kind: .emptyFile, offset: 0, message: "empty file (0 bytes)")) { try MIDIReader.read([]) }
        #expect(throws: MIDIReadError(kind: .notMIDI, offset: 0, message: "not a MIDI file (no MThd header at byte 0)")) {
            try MIDIReader.read(Array("hello world, not midi".utf8))
        }
        #expect(throws: MIDIReadError(kind: .truncatedHeader, offset: 0, message: "truncated header (10 bytes, a MIDI header needs 14)")) {
            try MIDIReader.read(Array("MThd".utf8) + [0, 0, 0, 6, 0, 1])
        }
    }

    @Test func runningStatusAfterMetaIsAcceptedWithWarning() throws {
        let body: [UInt8] = [0x00, 0x90, 60, 100, 0x00, 0xFF, 0x01, 0x01, 0x41, 0x10, 60, 0]
        let r = try MIDIReader.read(file(body))
        #expect(r.file.tracks[0].events[2].kind == .noteOn(channel: 0, key: 60, velocity: 0))
        #expect(r.warnings == [MIDIWarning(offset: 22 + 10, message: "running status used after a meta or sysex event (accepted)")])
    }

    @Test func chunkLengthPastEndIsClamped() throws {
        var bytes = file([0x00, 0x90, 60, 100, 0x60, 0x80, 60, 0])
        bytes[18...21] = [0x7F, 0xFF, 0xFF, 0xFF]  // track length claims ~2 GB
        let r = try MIDIReader.read(bytes)
        #expect(r.file.tracks[0].events.count == 3)
        #expect(r.warnings.first?.offset == 18)
        #expect(r.warnings.first?.message.contains("runs past end of file; clamped") == true)
    }

    @Test func hugeMetaLengthAllocatesNothingLarge() throws {
        // meta length VLQ claims 0x0FFFFFFF bytes; only 2 exist
        let bytes = file([0x00, 0xFF, 0x01, 0xFF, 0xFF, 0xFF, 0x7F, 0x41, 0x42])
        let r = try MIDIReader.read(bytes)
        #expect(r.file.tracks[0].events[0].kind == .meta(type: 1, data: [0x41, 0x42, 0x00, 0xFF, 0x2F, 0x00]))
        #expect(r.warnings.contains { $0.message.contains("length 268435455 runs past end of track") })
    }

    @Test func missingEndOfTrackIsAdded() throws {
        var b = SMFBuilder()
        b.tracks = [[0x00, 0x90, 60, 100, 0x60, 0x80, 60, 0]]
        let r = try MIDIReader.read(b.bytes())
        #expect(r.file.tracks[0].events.last == MIDIEvent(tick: 96, .meta(type: 0x2F, data: [])))
        #expect(r.warnings == [MIDIWarning(offset: 30, message: "track 1 has no End of Track; added at tick 96")])
    }

    @Test func unknownChunkSkipped() throws {
        var bytes = file([])
        bytes.insert(contentsOf: Array("XFIH".utf8) + [0, 0, 0, 2, 1, 2], at: 14)
        let r = try MIDIReader.read(bytes)
        #expect(r.file.tracks.count == 1)
        #expect(r.warnings == [MIDIWarning(offset: 14, message: "unknown chunk 'XFIH' (2 bytes) skipped")])
    }

    @Test func headerLengthNotSix() throws {
        var bytes = file([])
        bytes[7] = 8
        bytes.insert(contentsOf: [0xAA, 0xBB], at: 14)
        let r = try MIDIReader.read(bytes)
        #expect(r.file.tracks.count == 1)
        #expect(r.warnings == [MIDIWarning(offset: 4, message: "header length 8 (expected 6): extra header bytes skipped")])
    }

    @Test func trailingBytes() throws {
        let r = try MIDIReader.read(file([]) + [0, 1, 2])
        #expect(r.warnings == [MIDIWarning(offset: 26, message: "3 trailing bytes at end of file ignored")])
    }

    @Test func statusByteWhereDataExpected() throws {
        // note on with only one data byte, then a new status byte
        let r = try MIDIReader.read(file([0x00, 0x90, 60, 0x80, 60, 0]))
        #expect(r.file.tracks[0].events.first?.kind == .noteOff(channel: 0, key: 60, velocity: 0))
        #expect(r.warnings == [MIDIWarning(offset: 25, message: "status byte 0x80 where a data byte was expected: 0x90 message dropped")])
    }

    /// A realtime byte inside a message is skipped when the track reads in step that way (a
    /// byte that only makes sense as a damaged parameter is clipped instead: see
    /// BadDataByteTests). The note-off after the note-on shows which reading is in step.
    @Test func realtimeAndIllegalBytes() throws {
        let r = try MIDIReader.read(file([0x00, 0x90, 60, 0xF8, 100, 0x60, 0x80, 60, 0x40, 0x00, 0x90, 62, 100, 0x60, 0x80, 62, 0x40,
                                          0x00, 0xF2, 1, 2, 0x00, 0xF9]))
        #expect(r.file.tracks[0].events.map(\.kind).prefix(4) == [
            .noteOn(channel: 0, key: 60, velocity: 100), .noteOff(channel: 0, key: 60, velocity: 0x40),
            .noteOn(channel: 0, key: 62, velocity: 100), .noteOff(channel: 0, key: 62, velocity: 0x40),
        ])
        #expect(r.file.tracks[0].events.count == 5)
        #expect(r.warnings.map(\.message) == [
            "realtime byte 0xF8 inside a message skipped",
            "illegal system common message 0xF2 in a file: skipped",
            "illegal realtime message 0xF9 in a file: skipped",
        ])
    }

    @Test func dataByteWithoutRunningStatus() throws {
        let r = try MIDIReader.read(file([0x00, 0x40, 0x00, 0x90, 60, 100]))
        #expect(r.file.tracks[0].events.first?.kind == .noteOn(channel: 0, key: 60, velocity: 100))
        #expect(r.warnings == [MIDIWarning(offset: 23, message: "data byte 0x40 with no running status: skipped")])
    }

    @Test func trackCountMismatch() throws {
        var b = SMFBuilder()
        b.declaredTracks = 3
        b.tracks = [SMFBuilder.endOfTrack]
        #expect(try MIDIReader.read(b.bytes()).warnings.map(\.message) == ["header declares 3 tracks but the file has 1"])
        b.declaredTracks = 1
        b.tracks = [SMFBuilder.endOfTrack, SMFBuilder.endOfTrack]
        let r = try MIDIReader.read(b.bytes())
        #expect(r.file.tracks.count == 2)
        #expect(r.warnings.map(\.message) == ["header declares 1 track but the file has 2; all were read"])
    }

    @Test func riffWrappedFile() throws {
        let smf = file([0x00, 0x90, 60, 100, 0x60, 0x80, 60, 0])
        var riff: [UInt8] = Array("RIFF".utf8)
        let total = 4 + 8 + smf.count
        riff += [UInt8(total & 0xFF), UInt8(total >> 8 & 0xFF), 0, 0] + Array("RMID".utf8)
        riff += Array("data".utf8) + [UInt8(smf.count & 0xFF), UInt8(smf.count >> 8 & 0xFF), 0, 0] + smf
        let r = try MIDIReader.read(riff)
        #expect(r.file == (try MIDIReader.read(smf)).file)
        #expect(r.warnings == [MIDIWarning(offset: 0, message: "RIFF RMID wrapper: read the MIDI data at byte 20")])
        #expect(throws: MIDIReadError.self) { try MIDIReader.read(Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WAVE".utf8)) }
    }

    @Test func strictTurnsWarningsIntoErrors() throws {
        let bytes = file([]) + [0]
        #expect(throws: MIDIReadError(kind: .strict, offset: 26, message: "1 trailing byte at end of file ignored at byte 26 (strict mode)")) {
            try MIDIReader.read(bytes, strict: true)
        }
        #expect(try MIDIReader.read(file([]), strict: true).warnings.isEmpty)
    }

    @Test func neverCrashesOnTruncations() throws {
        // every prefix of a valid file either reads or fails with a typed error
        let full = file([0x00, 0xFF, 0x03, 0x03, 0x41, 0x42, 0x43, 0x00, 0x90, 60, 100, 0x81, 0x00, 0x80, 60, 0, 0x00, 0xF0, 0x02, 1, 0xF7])
        for n in 0...full.count {
            _ = try? MIDIReader.read(Array(full[0..<n]))
        }
    }
}

@Suite("Reader: division and format")
struct DivisionTests {
    @Test(arguments: [(24, 0xE8), (25, 0xE7), (29, 0xE3), (30, 0xE2)])
    func smpteDivisions(fps: Int, byte: Int) throws {
        var b = SMFBuilder()
        b.division = [UInt8(byte), 40]
        // one note at tick 400 (= 10 frames of 40 ticks)
        b.tracks = [[0x83, 0x10, 0x90, 60, 100, 0x00, 0x80, 60, 0] + SMFBuilder.endOfTrack]
        let f = try MIDIReader.read(b.bytes()).file
        #expect(f.division == .smpte(fps: fps, ticksPerFrame: 40))
        let rate = fps == 29 ? 29.97 : Double(fps)
        let map = TempoMap(file: f)
        #expect(abs(map.seconds(atTick: 400) - 10 / rate) < 1e-12)
        #expect(abs(map.tick(atSeconds: 10 / rate) - 400) < 1e-9)
        #expect(abs(f.durationSeconds - 10 / rate) < 1e-12)
        #expect(MIDIWriter.write(f)[12...13] == [UInt8(byte), 40])
    }

    @Test func formatsZeroOneTwo() throws {
        for format in 0...2 {
            var b = SMFBuilder()
            b.format = format
            b.tracks = Array(repeating: SMFBuilder.endOfTrack, count: format == 0 ? 1 : 2)
            let r = try MIDIReader.read(b.bytes())
            #expect(r.file.format == format)
            #expect(r.warnings.isEmpty)
        }
    }
}

@Suite("Reader: large files")
struct LargeFileTests {
    /// Above the parallel threshold tracks parse concurrently: results and warning order must
    /// be exactly those of parsing each track on its own, in file order.
    @Test func parallelParseMatchesTrackByTrack() throws {
        func body(_ seed: Int, withEnd: Bool) -> [UInt8] {
            var b: [UInt8] = []
            for i in 0..<40_000 {
                let key = UInt8(36 + (i * seed) % 48)
                b += [0x00, 0x90, key, 90, 0x10, 0x80, key, 0]
            }
            return withEnd ? b + SMFBuilder.endOfTrack : b
        }
        var big = SMFBuilder()
        big.tracks = [body(3, withEnd: true), body(5, withEnd: false), body(7, withEnd: true)]
        let bytes = big.bytes()
        #expect(bytes.count > 256 * 1024)
        let r = try MIDIReader.read(bytes)
        #expect(r.file.tracks.count == 3)
        for (i, t) in big.tracks.enumerated() {
            var single = SMFBuilder()
            single.tracks = [t]
            #expect(try MIDIReader.read(single.bytes()).file.tracks[0] == r.file.tracks[i])
        }
        #expect(r.warnings.map(\.message) == ["track 2 has no End of Track; added at tick 640000"])
        let notes = NotePairing.notes(in: r.file).notes
        #expect(notes.count == 120_000)
        #expect(notes.allSatisfy { $0.endTick == $0.startTick + 16 })
    }

    /// Big files pair their tracks on all cores straight into one result: it must equal pairing
    /// each track on its own (FIFO for overlaps, orphan releases, unreleased notes), in track order.
    @Test func parallelPairingMatchesTrackByTrack() throws {
        func track(_ seed: Int) -> Track {
            var events: [MIDIEvent] = []
            var tick = 0
            for i in 0..<60_000 {
                let key = UInt8(40 + (i * seed) % 24)
                events.append(MIDIEvent(tick: tick, .noteOn(channel: UInt8(i % 3), key: key, velocity: 80)))
                if i % 5 != 0 {  // every fifth note overlaps a later one of the same pitch
                    events.append(MIDIEvent(tick: tick + 7, .noteOff(channel: UInt8(i % 3), key: key, velocity: 0)))
                }
                if i % 997 == 0 { events.append(MIDIEvent(tick: tick + 3, .noteOn(channel: 9, key: 1, velocity: 0))) }
                tick += 10
            }
            events.sort { $0.tick < $1.tick }
            events.append(MIDIEvent(tick: tick + 100, .meta(type: MetaType.endOfTrack, data: [])))
            return Track(events: events)
        }
        let tracks = [track(3), Track(events: [MIDIEvent(tick: 0, .meta(type: MetaType.endOfTrack, data: []))]), track(7)]
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: tracks)
        let together = NotePairing.notes(in: file)
        var expected: [Note] = []
        var expectedWarnings: [String] = []
        for (t, track) in tracks.enumerated() {
            let alone = NotePairing.notes(in: MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [track]))
            expected += alone.notes.map { var n = $0; n.track = t; return n }
            expectedWarnings += alone.warnings.map { $0.message.replacingOccurrences(of: "track 1:", with: "track \(t + 1):") }
        }
        #expect(together.notes.count == 120_000)
        #expect(together.notes == expected)
        #expect(together.warnings.map(\.message) == expectedWarnings)
        #expect(expectedWarnings.contains { $0.contains("never released") })
        #expect(expectedWarnings.contains { $0.contains("with no sounding note ignored") })
    }
}
