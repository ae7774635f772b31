import Testing
import TestSupport
@testable import MIDIFile

/// One format-0 track with `body` (an End of Track appended unless `end` is false). The track
/// body starts at byte 22 (14 header bytes, 8 chunk header bytes).
private func track(_ body: [UInt8], end: Bool = true) -> [UInt8] {
    var b = SMFBuilder()
    b.format = 0
    b.tracks = [end ? body + SMFBuilder.endOfTrack : body]
    return b.bytes()
}

private func timed(_ r: MIDIReadResult) -> [MIDIEvent] { r.file.tracks[0].events }

private let eot = MIDIEvent.Kind.meta(type: MetaType.endOfTrack, data: [])

@Suite("Reader: data bytes with no running status")
struct OrphanDataTests {
    /// The audit's file: a stray `3C 40` before the first event used to shift every later event
    /// (only a note-off at tick 2268 survived).
    @Test func strayRunBeforeTheFirstEventIsSkippedWithOneWarning() throws {
        let bytes = track([0x00, 0x3C, 0x40, 0x00, 0x90, 0x3C, 0x40, 0x60, 0x80, 0x3C, 0x40])
        let r = try MIDIReader.read(bytes)
        #expect(timed(r) == [
            MIDIEvent(tick: 0, .noteOn(channel: 0, key: 0x3C, velocity: 0x40)),
            MIDIEvent(tick: 96, .noteOff(channel: 0, key: 0x3C, velocity: 0x40)),
            MIDIEvent(tick: 96, eot),
        ])
        #expect(r.warnings == [MIDIWarning(offset: 23, message: "2 bytes from data byte 0x3C to 0x40 with no running status: skipped")])
        #expect(throws: MIDIReadError(kind: .strict, offset: 23, message: "2 bytes from data byte 0x3C to 0x40 with no running status: skipped at byte 23 (strict mode)")) {
            try MIDIReader.read(bytes, strict: true)
        }
    }

    /// The next event's delta may be a multi-byte VLQ: it starts at the first byte ≥ 0x80.
    @Test func strayRunBeforeAMultiByteDelta() throws {
        let r = try MIDIReader.read(track([0x00, 0x3C, 0x40, 0x11, 0x83, 0x00, 0x90, 60, 100]))
        #expect(timed(r).map(\.tick) == [384, 384])
        #expect(timed(r)[0].kind == .noteOn(channel: 0, key: 60, velocity: 100))
        #expect(r.warnings == [MIDIWarning(offset: 23, message: "3 bytes from data byte 0x3C to 0x11 with no running status: skipped")])
    }

    /// A byte ≥ 0x80 that does not start an event (a status without its data bytes) is part of
    /// the stray run; the search goes on to the real event.
    @Test func statusBytesWithoutTheirDataAreNotEventStarts() throws {
        let r = try MIDIReader.read(track([0x00, 0x3C, 0xC0, 0x90, 0x41, 0x00, 0x90, 60, 100]))
        #expect(timed(r).map(\.kind) == [.noteOn(channel: 0, key: 60, velocity: 100), eot])
        #expect(r.warnings == [MIDIWarning(offset: 23, message: "4 bytes from data byte 0x3C to 0x41 with no running status: skipped")])
    }

    @Test func loneDataByteRightBeforeAnEventIsASecondDelta() throws {
        let r = try MIDIReader.read(track([0x10, 0x05, 0x90, 60, 100]))
        #expect(timed(r)[0] == MIDIEvent(tick: 21, .noteOn(channel: 0, key: 60, velocity: 100)))
        #expect(r.warnings == [MIDIWarning(offset: 23, message: "data byte 0x05 where an event was expected, with no running status: read as a second delta time")])
    }

    @Test func strayBytesToTheEndOfTheTrack() throws {
        let r = try MIDIReader.read(track([0x00, 0x3C, 0x40, 0x41], end: false))
        #expect(timed(r) == [MIDIEvent(tick: 0, eot)])
        #expect(r.warnings == [
            MIDIWarning(offset: 23, message: "3 bytes from data byte 0x3C with no running status skipped to the end of track 1"),
            MIDIWarning(offset: 26, message: "track 1 has no End of Track; added at tick 0"),
        ])
    }

    /// Audit file rssysex.mid: a data byte after a sysex, with no channel status before it,
    /// used to swallow the real End of Track (a new one landed at tick 16367).
    @Test func dataAfterSysexWithNoEarlierStatus() throws {
        let r = try MIDIReader.read(track([0x00, 0xF0, 0x02, 0x7E, 0xF7, 0x00, 0x3C, 0x40]))
        #expect(timed(r) == [MIDIEvent(tick: 0, .sysex(data: [0x7E, 0xF7])), MIDIEvent(tick: 0, eot)])
        #expect(r.warnings == [MIDIWarning(offset: 28, message: "2 bytes from data byte 0x3C to 0x40 with no running status: skipped")])
    }

    /// With an earlier channel status, a data byte after a sysex is still running status
    /// (accepted with a warning), as before.
    @Test func dataAfterSysexWithAnEarlierStatusIsStillRunningStatus() throws {
        let r = try MIDIReader.read(track([0x00, 0x90, 60, 100, 0x00, 0xF0, 0x01, 0xF7, 0x10, 60, 0]))
        #expect(timed(r)[2] == MIDIEvent(tick: 16, .noteOn(channel: 0, key: 60, velocity: 0)))
        #expect(r.warnings == [MIDIWarning(offset: 31, message: "running status used after a meta or sysex event (accepted)")])
    }
}

@Suite("Reader: delta times longer than 4 bytes")
struct OverlongDeltaTests {
    /// Audit file vlq5.mid: the 5-byte delta used to lose the note (End of Track at 2115773).
    @Test func fiveByteDeltaIsReadWholeAndClamped() throws {
        let r = try MIDIReader.read(track([0x81, 0x81, 0x81, 0x81, 0x01, 0x90, 0x3C, 0x40]))
        #expect(timed(r) == [
            MIDIEvent(tick: 0x0FFF_FFFF, .noteOn(channel: 0, key: 0x3C, velocity: 0x40)),
            MIDIEvent(tick: 0x0FFF_FFFF, eot),
        ])
        #expect(r.warnings == [MIDIWarning(offset: 22, message: "delta time of 5 bytes (at most 4 are allowed): clamped to 268435455 ticks")])
        #expect(MIDIWriter.isRepresentable(r.file))
        #expect(try MIDIReader.read(MIDIWriter.write(r.file), strict: true).file == r.file)
    }

    @Test func paddedDeltaKeepsItsValue() throws {
        let r = try MIDIReader.read(track([0x80, 0x80, 0x80, 0x80, 0x80, 0x05, 0x90, 60, 100]))
        #expect(timed(r)[0] == MIDIEvent(tick: 5, .noteOn(channel: 0, key: 60, velocity: 100)))
        #expect(r.warnings == [MIDIWarning(offset: 22, message: "delta time of 6 bytes (at most 4 are allowed): read as 5 ticks")])
    }

    /// When the byte after 4 continuation bytes starts an event and the longer reading would
    /// not end before one, the event wins: the delta is the first 4 bytes.
    @Test func eventAfterFourContinuationBytesIsKept() throws {
        let r = try MIDIReader.read(track([0x81, 0x81, 0x81, 0x81, 0x90, 0x3C, 0x40]))
        #expect(timed(r)[0] == MIDIEvent(tick: 2_113_665, .noteOn(channel: 0, key: 0x3C, velocity: 0x40)))
        #expect(r.warnings == [MIDIWarning(offset: 22, message: "delta time longer than 4 bytes: the first 4 read as 2113665 ticks")])
    }

    /// Reading on is bounded: 8 bytes with the high bit set are not one delta.
    @Test func endlessContinuationStopsAfterFourBytes() throws {
        let r = try MIDIReader.read(track([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00]))
        #expect(r.warnings.first == MIDIWarning(offset: 22, message: "delta time longer than 4 bytes: the first 4 read as 268435455 ticks"))
        #expect(timed(r).last?.kind == eot)
    }
}

@Suite("Reader: chunks with unprintable IDs")
struct UnprintableChunkTests {
    /// Audit: `ESC [ 2 J` with length 0 before a valid MTrk cut off the rest of the file.
    @Test func skippedByItsLengthWhenAChunkFollows() throws {
        var bytes = track([0x00, 0x90, 60, 100, 0x60, 0x80, 60, 0])
        bytes.insert(contentsOf: [0x1B, 0x5B, 0x32, 0x4A, 0, 0, 0, 0], at: 14)
        let r = try MIDIReader.read(bytes)
        #expect(r.file.tracks.count == 1)
        #expect(timed(r).map(\.tick) == [0, 96, 96])
        #expect(r.warnings == [MIDIWarning(offset: 14, message: "unknown chunk '?[2J' (0 bytes) skipped")])
    }

    /// The audit's file had two: `ESC [ 2 J` and `ESC ] 0 ;`, both of length 0.
    @Test func severalInARow() throws {
        var bytes = track([0x00, 0x90, 60, 100, 0x60, 0x80, 60, 0])
        bytes.insert(contentsOf: [0x1B, 0x5B, 0x32, 0x4A, 0, 0, 0, 0, 0x1B, 0x5D, 0x30, 0x3B, 0, 0, 0, 1, 0x07], at: 14)
        let r = try MIDIReader.read(bytes)
        #expect(timed(r).map(\.tick) == [0, 96, 96])
        #expect(r.warnings == [
            MIDIWarning(offset: 14, message: "unknown chunk '?[2J' (0 bytes) skipped"),
            MIDIWarning(offset: 22, message: "unknown chunk '?]0;' (1 bytes) skipped"),
        ])
    }

    @Test func withABodySkippedToo() throws {
        var bytes = track([])
        bytes.insert(contentsOf: [0x00, 0x01, 0xFE, 0x7F, 0, 0, 0, 3, 9, 9, 9], at: 14)
        let r = try MIDIReader.read(bytes)
        #expect(r.file.tracks.count == 1)
        #expect(r.warnings == [MIDIWarning(offset: 14, message: "unknown chunk '????' (3 bytes) skipped")])
    }

    /// Garbage that is no chunk (length past the end, or nothing chunk-like after it, such as
    /// zero padding) is still trailing bytes, with one warning.
    @Test func otherwiseTrailingBytes() throws {
        let pastEnd = try MIDIReader.read(track([]) + [0x1B, 0x5B, 0x32, 0x4A, 0, 0, 0, 9, 1])
        #expect(pastEnd.warnings == [MIDIWarning(offset: 26, message: "9 trailing bytes at end of file ignored")])
        let padding = try MIDIReader.read(track([]) + [UInt8](repeating: 0, count: 32))
        #expect(padding.warnings == [MIDIWarning(offset: 26, message: "32 trailing bytes at end of file ignored")])
    }
}

@Suite("Reader: malformed meta events")
struct MalformedMetaTests {
    static let cases: [([UInt8], String)] = [
        ([0xFF, 0x51, 0x03, 0x00, 0x00, 0x00], "tempo of 0 microseconds per quarter note: ignored"),
        ([0xFF, 0x51, 0x02, 0x07, 0xA1], "tempo with 2 data bytes (should be 3): ignored"),
        ([0xFF, 0x51, 0x04, 0x07, 0xA1, 0x20, 0x00], "tempo with 4 data bytes (should be 3): the first 3 used"),
        ([0xFF, 0x58, 0x02, 0x03, 0x02], "time signature with 2 data bytes (should be 4)"),
        ([0xFF, 0x58, 0x05, 0x03, 0x02, 0x18, 0x08, 0x00], "time signature with 5 data bytes (should be 4)"),
        ([0xFF, 0x59, 0x01, 0x00], "key signature with 1 data byte (should be 2)"),
        ([0xFF, 0x59, 0x03, 0x00, 0x00, 0x00], "key signature with 3 data bytes (should be 2)"),
        ([0xFF, 0x59, 0x02, 0x08, 0x00], "key signature with 8 sharps (should be -7 to 7)"),
        ([0xFF, 0x59, 0x02, 0xF8, 0x01], "key signature with -8 sharps (should be -7 to 7)"),
        ([0xFF, 0x59, 0x02, 0x00, 0x02], "key signature with mode 2 (should be 0 for major or 1 for minor)"),
        ([0xFF, 0x00, 0x01, 0x05], "sequence number with 1 data byte (should be 0 or 2)"),
        ([0xFF, 0x00, 0x03, 0x00, 0x05, 0x00], "sequence number with 3 data bytes (should be 0 or 2)"),
        ([0xFF, 0x20, 0x02, 0x00, 0x01], "channel prefix with 2 data bytes (should be 1)"),
        ([0xFF, 0x21, 0x00], "port with 0 data bytes (should be 1)"),
        ([0xFF, 0x54, 0x04, 0x60, 0x00, 0x00, 0x00], "SMPTE offset with 4 data bytes (should be 5)"),
    ]

    @Test(arguments: cases)
    func oneWarningAtTheEventAndTheEventKeptRaw(meta: [UInt8], message: String) throws {
        let bytes = track([0x00] + meta)
        let r = try MIDIReader.read(bytes)
        #expect(r.warnings == [MIDIWarning(offset: 22, message: message)])
        #expect(timed(r)[0].kind == .meta(type: meta[1], data: Array(meta[3...])))
        #expect(throws: MIDIReadError(kind: .strict, offset: 22, message: "\(message) at byte 22 (strict mode)")) {
            try MIDIReader.read(bytes, strict: true)
        }
    }

    @Test func wellFormedMetaEventsReadClean() throws {
        let ok: [UInt8] = [0x00, 0xFF, 0x00, 0x00, 0x00, 0xFF, 0x00, 0x02, 0x00, 0x01, 0x00, 0xFF, 0x20, 0x01, 0x0F,
                           0x00, 0xFF, 0x21, 0x01, 0x00, 0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20,
                           0x00, 0xFF, 0x54, 0x05, 0x60, 0, 0, 0, 0, 0x00, 0xFF, 0x58, 0x04, 0x06, 0x03, 0x24, 0x08,
                           0x00, 0xFF, 0x59, 0x02, 0xF9, 0x01, 0x00, 0xFF, 0x59, 0x02, 0x07, 0x00]
        #expect(try MIDIReader.read(track(ok), strict: true).warnings.isEmpty)
    }

    /// The tempo map uses no unusable tempo: 0 µs and too-short tempos are ignored; a long one
    /// uses its first 3 bytes (as `MetaEvent` decodes it).
    @Test func tempoMapIgnoresUnusableTempos() throws {
        let body: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x00, 0x00, 0x00, 0x60, 0xFF, 0x51, 0x02, 0x07, 0xA1,
                             0x60, 0xFF, 0x51, 0x04, 0x0F, 0x42, 0x40, 0x00]
        let r = try MIDIReader.read(track(body))
        #expect(r.warnings.count == 3)
        #expect(TempoMap(file: r.file).changes.map(\.microsecondsPerQuarter) == [500_000, 1_000_000])
        #expect(TempoMap(file: r.file).changes.map(\.tick) == [0, 192])
    }
}

@Suite("Note pairing warnings with byte offsets")
struct PairingOffsetTests {
    // 22: stray note-off; 26: note-on never released; 30: note-on 62; 34: its release by
    // running status; 37: End of Track.
    static let body: [UInt8] = [0x00, 0x80, 64, 0, 0x00, 0x90, 60, 100, 0x10, 0x90, 62, 90, 0x10, 62, 0]

    @Test func offsetOfEachEvent() throws {
        let bytes = track(Self.body)
        #expect((0..<5).map { MIDIReader.offset(ofEvent: $0, inTrack: 0, of: bytes) } == [22, 26, 30, 34, 37])
        #expect(MIDIReader.offset(ofEvent: 5, inTrack: 0, of: bytes) == nil)
        #expect(MIDIReader.offset(ofEvent: 0, inTrack: 1, of: bytes) == nil)
        // an End of Track the reader added is at the track's end
        let noEnd = track([0x00, 0x90, 60, 100], end: false)
        #expect(MIDIReader.offset(ofEvent: 1, inTrack: 0, of: noEnd) == 26)
    }

    @Test func offsetsFollowRecoveriesAndLaterTracks() throws {
        var b = SMFBuilder()
        b.tracks = [SMFBuilder.endOfTrack, [0x00, 0x3C, 0x40, 0x00, 0x90, 60, 100] + SMFBuilder.endOfTrack]
        var bytes = b.bytes()
        bytes.insert(contentsOf: Array("XFIH".utf8) + [0, 0, 0, 1, 7], at: 26)  // after track 1
        let r = try MIDIReader.read(bytes)
        #expect(r.file.tracks[1].events.count == 2)
        // track 2's body starts at 26 + 9 + 8 = 43; its note-on's delta is at 46
        #expect(MIDIReader.offset(ofEvent: 0, inTrack: 1, of: bytes) == 46)
    }

    @Test func pairingWarningsAreLocatedWhenAskedTo() throws {
        let bytes = track(Self.body)
        let file = try MIDIReader.read(bytes).file
        let located = NotePairing.notes(in: file) { MIDIReader.offset(ofEvent: $1, inTrack: $0, of: bytes) }
        #expect(located.warnings == [
            MIDIWarning(offset: 26, message: "track 1: 1 note never released; ended at the track's end (tick 32)"),
            MIDIWarning(offset: 22, message: "track 1: 1 note-off with no sounding note ignored"),
        ])
        let plain = NotePairing.notes(in: file)
        #expect(plain.notes == located.notes)
        #expect(plain.warnings.map(\.message) == located.warnings.map(\.message))
        #expect(plain.warnings.allSatisfy { $0.offset == nil })
    }
}

@Suite("Reader: sysex and meta lengths longer than 4 bytes")
struct OverlongLengthTests {
    /// A padded 6-byte length keeps its value: the sysex is its 3 bytes, the events after it stay.
    @Test func paddedLengthIsReadWhole() throws {
        let r = try MIDIReader.read(track([0x00, 0xF0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x03, 0x7E, 0x7F, 0xF7, 0x00, 0x90, 60, 100]))
        #expect(timed(r) == [
            MIDIEvent(tick: 0, .sysex(data: [0x7E, 0x7F, 0xF7])),
            MIDIEvent(tick: 0, .noteOn(channel: 0, key: 60, velocity: 100)),
            MIDIEvent(tick: 0, eot),
        ])
        #expect(r.warnings == [MIDIWarning(offset: 24, message: "sysex length of 6 bytes (at most 4 are allowed): read as 3")])
        #expect(throws: MIDIReadError.self) {
            try MIDIReader.read(track([0x00, 0xF0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x03, 0x7E, 0x7F, 0xF7]), strict: true)
        }
    }

    /// A huge 5-byte length: none of its bytes is data, the data runs to the end of the track.
    @Test func hugeLengthTakesNoneOfItsBytesAsData() throws {
        let r = try MIDIReader.read(track([0x00, 0xFF, 0x7F, 0x81, 0x80, 0x80, 0x80, 0x7F, 0x01, 0x02], end: false))
        #expect(timed(r).first == MIDIEvent(tick: 0, .meta(type: 0x7F, data: [0x01, 0x02])))
        #expect(r.warnings.first == MIDIWarning(offset: 25, message: "meta event 0x7F length of 5 bytes (at most 4 are allowed): read as 268435455"))
        #expect(r.warnings.contains { $0.message.contains("runs past end of track; clamped to 2 bytes") })
    }
}
