import Testing
import TestSupport
@testable import MIDIFile

/// Inputs the fuzzer (make fuzz) found, kept so they never come back.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// Found in the first minute: after a stray data byte, a run of 0xFF bytes was read as a
    /// 4-byte delta followed by a meta event with a 268 MB length. Since stray data bytes are
    /// skipped up to the next real event, the run is skipped with them (no event starts in it:
    /// `FF FF` is no meta event) and nothing lands at tick 268 million.
    @Test func strayBytesBeforeARunOfFF() throws {
        var b = SMFBuilder()
        b.format = 0
        b.tracks = [[0x00, 0xFF, 0x03, 0x02, 0x47, 0x53, 0x83, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]
        let r = try MIDIReader.read(b.bytes())
        #expect(r.warnings.map(\.message) == [
            "11 bytes from data byte 0x00 with no running status skipped to the end of track 1",
            "track 1 has no End of Track; added at tick 384",
        ])
        #expect(r.file.tracks[0].events.map(\.tick) == [0, 384])
        let again = try MIDIReader.read(MIDIWriter.write(r.file), strict: true)
        #expect(again.file == r.file)
    }

    /// What the input above first exposed: a gap between two events longer than one SMF delta
    /// can hold (here two maximal deltas around a skipped realtime byte). The round-trip
    /// invariant must exclude such files and the writer must clamp instead of overflowing.
    @Test func gapLongerThanOneDelta() throws {
        var b = SMFBuilder()
        b.format = 0
        b.tracks = [[0x00, 0xFF, 0x03, 0x02, 0x47, 0x53, 0xFF, 0xFF, 0xFF, 0x7F, 0xF9, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0x2F, 0x00]]
        let r = try MIDIReader.read(b.bytes())
        #expect(r.warnings.map(\.message) == ["illegal realtime message 0xF9 in a file: skipped"])
        #expect(r.file.tracks[0].events.map(\.tick) == [0, 2 * 0x0FFF_FFFF])
        #expect(MIDIWriter.isRepresentable(r.file) == false)
        let again = try MIDIReader.read(MIDIWriter.write(r.file))
        #expect(again.file.tracks[0].events.count == r.file.tracks[0].events.count)
        #expect(MIDIWriter.isRepresentable(again.file))
    }
}
