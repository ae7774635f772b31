// fuzz-modules: MIDIFile .build/checkouts/ZIPFoundation/Sources/ZIPFoundation MusicXML
// fuzz-seeds: Fuzz/mxl-seeds/*.mxl
// fuzz-max-len: 65536
// fuzz-options: -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048
// fuzz-asan: detect_leaks=0
// fuzz-swiftc: -I .build/checkouts/ZIPFoundation/Sources/CZLib -Xcc -D_GNU_SOURCE=1
//
// libFuzzer entry point over compressed MusicXML (.mxl): Etude's own zip checks (ZipDirectory,
// Inflate in Sources/MusicXML/Container.swift) and, behind them, ZIPFoundation (compiled from
// the package checkout, so `swift build` must have resolved it) and the score reader. Seeds are
// whole and damaged archives (Fuzz/make-mxl-seeds.py). Any crash or trap is a bug: ZIPFoundation
// traps on an offset past the end of an in-memory archive, and the checks must stop every such
// archive first. Leak checks are off as in FuzzMusicXML.swift (Foundation's XMLParser leaks).
// The process's RSS grows about 0.5 KB per input (5 KB per whole archive read) under ASan with
// nothing leaked or held (LeakSanitizer, globals and stacks not counted as roots, finds 175 KB
// after 3,000 archives): allocator growth, not a growing Etude structure. The RSS limit is 4 GB
// (a run of 7 million inputs reaches it, naming the empty input) and one allocation of more
// than 2 GB still stops the run.
import Foundation
import MIDIFile
@testable import MusicXML

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMXL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Every input is an archive as far as the signature goes (the text reader has its own target).
    if !MXLContainer.isZip(bytes) {
        bytes = [0x50, 0x4B, 0x03, 0x04] + bytes
    }
    // Invariant: an archive the checks pass has every entry's data inside the bytes.
    var spans: [String: ZipDirectory.Span] = [:]
    if ZipDirectory.problem(bytes, spans: &spans) == nil {
        for (name, span) in spans where span.data.lowerBound < 0 || span.data.upperBound > bytes.count {
            fatalError("entry \(name) passed the checks with its data at \(span.data) in \(bytes.count) bytes")
        }
    }
    var limits = MusicXMLLimits()
    limits.maxXMLBytes = 8 << 20
    limits.maxPerformedBars = 20_000
    limits.maxPerformedNotes = 200_000
    guard let result = try? MusicXMLImport.midiFile(fromBytes: bytes, limits: limits) else { return 0 }
    // Invariant: what is read is a lesson file that writes and reads back unchanged.
    let written = MIDIWriter.write(result.file)
    guard let again = try? MIDIReader.read(written), again.file == result.file else { fatalError("the MIDI file does not round-trip") }
    return 0
}
