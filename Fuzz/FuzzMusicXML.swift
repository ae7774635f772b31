// fuzz-modules: MIDIFile MusicXML
// fuzz-seeds: Fuzz/musicxml-seeds/*.musicxml
// fuzz-max-len: 65536
// fuzz-options: -timeout=60 -rss_limit_mb=8192 -malloc_limit_mb=2048
// fuzz-asan: detect_leaks=0
//
// libFuzzer entry point over the MusicXML text reader (built by scripts/fuzz.sh, not by SwiftPM;
// the .mxl archive path needs ZIPFoundation and is left out of this build). Any crash, hang,
// broken invariant or unbounded growth is a bug; an error is the expected answer to most inputs.
// Leak checks are off: Foundation's XMLParser leaks the error string of every document libxml2
// refuses (72 bytes in _CFErrorCreateFromXMLInterface, swift-corelibs-foundation), which would
// stop the run at the first malformed input; memory is still bounded by -rss_limit_mb.
import Foundation
import MIDIFile
@testable import MusicXML

/// Two trees read the same: names, text, attributes, lines and shape.
func sameTree(_ a: XMLTree, _ b: XMLTree) -> Bool {
    guard a.nodes.count == b.nodes.count else { return false }
    for i in a.nodes.indices {
        if a.name(i) != b.name(i) || a.text(i) != b.text(i) || a.line(i) != b.line(i)
            || a.nodes[i].parent != b.nodes[i].parent || a.nodes[i].nextSibling != b.nodes[i].nextSibling { return false }
        let x = a.nodes[i].attrs < 0 ? [:] : a.attributes[Int(a.nodes[i].attrs)]
        let y = b.nodes[i].attrs < 0 ? [:] : b.attributes[Int(b.nodes[i].attrs)]
        if x != y { return false }
    }
    return true
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMusicXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var limits = MusicXMLLimits()
    limits.maxPerformedBars = 20_000
    limits.maxPerformedNotes = 200_000
    // Invariant: moving the indentation out of the way changes nothing that is read. The
    // reader keeps the moved reading only when it succeeds (else it reads the bytes as
    // written), so that reading must be the one of the bytes as written.
    let safe = EmptyInstructions.removed(bytes) ?? bytes
    if (try? XMLTreeReader.precheck(bytes, limits: limits)) != nil, let moved = Blanks.moved(safe, minimum: 0),
       let b = try? XMLTreeReader.parse(moved, limits: limits) {
        guard let a = try? XMLTreeReader.parse(safe, limits: limits) else { fatalError("moving blanks made a document readable") }
        if !sameTree(a, b) { fatalError("moving blanks changed the tree") }
    }
    guard let result = try? MusicXMLImport.midiFile(fromXML: bytes, limits: limits) else { return 0 }
    // Invariant: what is read is a lesson file: it writes and reads back unchanged, every note
    // pairs, every annotation it wrote parses.
    let file = result.file
    let written = MIDIWriter.write(file)
    guard let again = try? MIDIReader.read(written), again.file == file else { fatalError("the MIDI file does not round-trip") }
    let pairing = NotePairing.notes(in: file)
    if !pairing.warnings.isEmpty { fatalError("notes that do not pair: \(pairing.warnings.first?.message ?? "")") }
    let annotations = Annotations(file: file)
    if annotations.bars.isEmpty { fatalError("no bar annotations") }
    var texts = 0
    for track in file.tracks {
        for e in track.events {
            guard case .meta(MetaType.text, let d) = e.kind, d.starts(with: Array("etude:".utf8)) else { continue }
            let text = String(decoding: d, as: UTF8.self)
            let key = text.dropFirst(6).prefix { $0 != "=" }
            if ["finger", "spell", "hand", "clef", "bar"].contains(String(key)) {
                if Annotation(e.kind) == nil { fatalError("an annotation that does not parse: \(text)") }
                texts += 1
            }
        }
    }
    _ = texts
    _ = TempoMap(file: file)
    return 0
}
