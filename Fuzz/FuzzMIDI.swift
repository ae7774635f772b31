// fuzz-modules: MIDIFile
// fuzz-seeds: $CORPUS/*.mid Lessons/*/*.mid
// fuzz-max-len: 65536
//
// libFuzzer entry point over the MIDI reader (built by scripts/fuzz.sh, not by SwiftPM: see the
// pattern at the top of that script). Any crash, hang or broken invariant is a bug.
import MIDIFile

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMIDIReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let result = try? MIDIReader.read(bytes) else { return 0 }
    let file = result.file
    _ = NotePairing.notes(in: file)
    _ = TempoMap(file: file)
    _ = file.durationSeconds
    _ = MIDIFileSummary(file: file)
    // Invariant: whatever was read survives write → read unchanged, for every file whose gaps
    // fit in one SMF delta (a gap over 0x0FFFFFFF ticks cannot be written; the writer clamps it).
    guard MIDIWriter.isRepresentable(file) else { return 0 }
    let written = MIDIWriter.write(file)
    guard let again = try? MIDIReader.read(written), again.file == file else {
        fatalError("round trip changed the file")
    }
    return 0
}
