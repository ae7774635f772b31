import MIDIFile
import Testing
@testable import MIDIInput

@Suite struct MIDIByteParserTests {
    func parse(_ bytes: [UInt8]) -> [MIDIEvent.Kind] {
        var p = MIDIByteParser()
        return p.feed(bytes)
    }

    @Test func runningStatusReusesTheLastChannelStatus() {
        let out = parse([0x91, 60, 100, 64, 90, 67, 80])
        #expect(out == [
            .noteOn(channel: 1, key: 60, velocity: 100),
            .noteOn(channel: 1, key: 64, velocity: 90),
            .noteOn(channel: 1, key: 67, velocity: 80),
        ])
    }

    @Test func noteOnWithVelocityZeroIsANoteOff() throws {
        let out = parse([0x90, 60, 100, 60, 0, 0x80, 62, 64])
        #expect(out.count == 3)
        let notes = out.compactMap { PlayedNote($0, time: 1.5) }
        #expect(notes.map(\.kind) == [.on, .off, .off])
        #expect(notes.map(\.pitch) == [60, 60, 62])
        #expect(notes.allSatisfy { $0.time == 1.5 })
    }

    @Test func realtimeBytesInterleavedAnywhereAreTransparent() {
        // Clock (F8), active sensing (FE), start/continue/stop between status and data,
        // between the two data bytes, and between running-status messages.
        let out = parse([0xF8, 0x90, 0xF8, 60, 0xFE, 100, 0xFA, 62, 0xFB, 0xFC, 90, 0xF8, 0xFF])
        #expect(out == [
            .noteOn(channel: 0, key: 60, velocity: 100),
            .noteOn(channel: 0, key: 62, velocity: 90),
        ])
    }

    @Test func sysexIsSkippedWholeAndCancelsRunningStatus() {
        let out = parse([0x90, 60, 100,
                         0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF8, 0x40, 0xF7,  // sysex with a clock inside
                         62, 90,                                         // no status: dropped
                         0x80, 60, 0])
        #expect(out == [
            .noteOn(channel: 0, key: 60, velocity: 100),
            .noteOff(channel: 0, key: 60, velocity: 0),
        ])
    }

    @Test func sysexCutShortByAStatusByteStillParsesTheNextMessage() {
        let out = parse([0xF0, 0x43, 0x10, 0x92, 64, 70])
        #expect(out == [.noteOn(channel: 2, key: 64, velocity: 70)])
    }

    @Test func systemCommonResetsRunningStatusAndSkipsItsData() {
        // Song position (F2 lsb msb), song select (F3 n), tune request (F6), then stray data.
        let out = parse([0x90, 60, 100, 0xF2, 0x10, 0x20, 61, 100, 0xF3, 5, 0xF6, 62, 100, 0x90, 63, 100])
        #expect(out == [
            .noteOn(channel: 0, key: 60, velocity: 100),
            .noteOn(channel: 0, key: 63, velocity: 100),
        ])
    }

    @Test func otherChannelMessagesParseWithTheirOwnLengths() {
        let out = parse([0xC3, 5, 6, 0xB0, 64, 127, 0xE1, 0x00, 0x40, 0xD2, 33, 0xA0, 60, 20])
        #expect(out == [
            .programChange(channel: 3, program: 5),
            .programChange(channel: 3, program: 6),
            .controlChange(channel: 0, controller: 64, value: 127),
            .pitchBend(channel: 1, value: 8192),
            .channelPressure(channel: 2, pressure: 33),
            .polyPressure(channel: 0, key: 60, pressure: 20),
        ])
    }

    @Test func aMessageSplitAcrossFeedsCompletes() {
        var p = MIDIByteParser()
        #expect(p.feed([0x90, 60]).isEmpty)
        #expect(p.feed([100]) == [.noteOn(channel: 0, key: 60, velocity: 100)])
    }

    @Test func leadingDataBytesWithoutStatusAreDropped() {
        #expect(parse([60, 100, 0x90, 61, 100]) == [.noteOn(channel: 0, key: 61, velocity: 100)])
    }
}
