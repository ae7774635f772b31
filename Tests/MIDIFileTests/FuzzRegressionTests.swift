import Testing
@testable import MIDIFile

/// Inputs the fuzzer (make fuzz) found, kept so they never come back.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// Found in the first minute: a run of 0xFF bytes read as a 4-byte delta followed by a meta
    /// event with a 268 MB length. The reader clamps it, but the gap before the next event is
    /// longer than one SMF delta can hold, so the round-trip invariant must exclude such files
    /// and the writer must clamp instead of overflowing.
    @Test func gapLongerThanOneDelta() throws {
        var b = SMFBuilder()
        b.format = 0
        b.tracks = [[0x00, 0xFF, 0x03, 0x02, 0x47, 0x53, 0x83, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]
        let r = try MIDIReader.read(b.bytes())
        #expect(r.warnings.map(\.message).contains("delta time longer than 4 bytes"))
        #expect(r.warnings.map(\.message).contains { $0.hasPrefix("meta event 0xFF length 268435455 runs past end of track") })
        #expect(MIDIWriter.isRepresentable(r.file) == false)
        let again = try MIDIReader.read(MIDIWriter.write(r.file))
        #expect(again.file.tracks[0].events.count == r.file.tracks[0].events.count)
        #expect(MIDIWriter.isRepresentable(again.file))
    }
}
