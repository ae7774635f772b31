// fuzz-modules: MIDIFile ABC
// fuzz-seeds: Lessons/*/*.abc Tests/ABCTests/Fixtures/*.abc
// fuzz-max-len: 65536
//
// libFuzzer entry point over the ABC importer (built by scripts/fuzz.sh, not by SwiftPM: see
// the pattern at the top of that script). Any crash, hang or broken invariant is a bug.
import ABC
import MIDIFile

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzABCImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let tunes = ABCImport.tunes(inABCText: text)
    // The first tune, and each of the first few by number, as `etude abc --tune` picks them.
    for number in [nil] + tunes.prefix(3).map({ Optional($0.number) }) {
        guard let (file, _) = try? ABCImport.midiFile(fromABCText: text, tune: number) else { continue }
        _ = NotePairing.notes(in: file)
        _ = Annotations(file: file)
        _ = MIDIFileSummary(file: file)
        // Invariant: what the importer builds is a valid file: written, it reads back the same
        // with no repair at all.
        let written = MIDIWriter.write(file)
        guard let again = try? MIDIReader.read(written, strict: true), again.file == file else {
            fatalError("an imported tune does not read back as built")
        }
    }
    return 0
}
