import Foundation
import Testing
import TestSupport
@testable import MIDIFile

/// Files Etude writes must be read without error by other tools: mido, for every corpus file.
@Suite("Writer output read by mido")
struct WriterPeerTests {
    @Test(.enabled(if: Tools.peerPython.available, Tools.peerPython.reason))
    func midoReadsEveryRewrittenCorpusFile() throws {
        let python = try #require(Tools.peerPython.path)
        let dir = try TempDir("etude-writer-peer")
        var paths: [String] = []
        for url in Corpus.files() {
            guard let r = try? MIDIReader.read(Corpus.bytes(url.lastPathComponent)) else { continue }
            paths.append(try dir.write(url.lastPathComponent, MIDIWriter.write(r.file)))
        }
        #expect(paths.count == 70)
        let script = """
        import sys, mido
        bad = []
        for p in sys.argv[1:]:
            try:
                mido.MidiFile(p)
            except Exception as e:
                bad.append(f"{p}: {e}")
        print("\\n".join(bad)); sys.exit(1 if bad else 0)
        """
        let r = try ProcessRunner.run(python, ["-c", script] + paths)
        #expect(r.status == 0, "mido refused: \(r.stdout)")
    }
}
