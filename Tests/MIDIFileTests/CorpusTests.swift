import Foundation
import Testing
import TestSupport
@testable import MIDIFile

/// Every file of the shared jazz-soft corpus, with the outcome it must have.
@Suite("jazz-soft corpus")
struct CorpusTests {
    /// Files that must fail, and how.
    static let fatal: [String: MIDIReadError.Kind] = [
        "test-empty-file.mid": .emptyFile,
        "test-not-a-midi-file.mid": .notMIDI,
    ]

    /// Files that read with exactly these warnings (message prefixes); all others read clean.
    static let expectedWarnings: [String: [String]] = {
        var w: [String: [String]] = [
            "test-2-tracks-type-0.mid": ["format 0 file with 2 tracks"],
            "test-corrupt-file-extra-byte.mid": ["1 trailing byte at end of file ignored"],
            "test-corrupt-file-missing-byte.mid": ["chunk 'MTrk' length 246 runs past end of file; clamped to 245 bytes",
                                                   "track ends inside the length of a meta event 0x2F"],
            "test-non-midi-track.mid": ["unknown chunk 'Junk' (27 bytes) skipped"],
            "test-running-status-metaevent.mid": ["running status used after a meta or sysex event (accepted)"],
            "test-running-status-sysex.mid": ["running status used after a meta or sysex event (accepted)"],
            "test-illegal-message-all.mid": ["F1", "F2", "F3", "F4", "F5", "F6", "F8", "F9", "FA", "FB", "FC", "FD", "FE"].map {
                "illegal \(["F8", "F9", "FA", "FB", "FC", "FD", "FE"].contains($0) ? "realtime" : "system common") message 0x\($0) in a file: skipped"
            },
        ]
        for b in ["f1-xx": "F1", "f2-xx-xx": "F2", "f3-xx": "F3", "f4": "F4", "f5": "F5", "f6": "F6"] {
            w["test-illegal-message-\(b.key).mid"] = ["illegal system common message 0x\(b.value) in a file: skipped"]
        }
        for b in ["f8", "f9", "fa", "fb", "fc", "fd", "fe"] {
            w["test-illegal-message-\(b).mid"] = ["illegal realtime message 0x\(b.uppercased()) in a file: skipped"]
        }
        return w
    }()

    @Test func corpusIsPresent() {
        #expect(Corpus.files().count == 72, "expected the 72 .mid files of ../shared/corpus/jazz-soft")
    }

    @Test(arguments: Corpus.files().map(\.lastPathComponent))
    func fileHasItsExpectedOutcome(name: String) throws {
        let bytes = try Corpus.bytes(name)
        if let kind = Self.fatal[name] {
            #expect(throws: MIDIReadError.self) { try MIDIReader.read(bytes) }
            do { _ = try MIDIReader.read(bytes) } catch { #expect(error.kind == kind) }
            return
        }
        let r = try MIDIReader.read(bytes)
        #expect(r.warnings.map(\.message) == Self.expectedWarnings[name] ?? [], "\(name)")
        #expect(r.warnings.allSatisfy { $0.offset != nil })
        // every track ends with exactly one End of Track
        for t in r.file.tracks {
            #expect(t.events.last?.kind.meta == .endOfTrack)
            #expect(t.events.filter { $0.kind.meta == .endOfTrack }.count == 1)
        }
        // strict mode refuses exactly the files that needed repairs
        if r.warnings.isEmpty {
            #expect(try MIDIReader.read(bytes, strict: true).file == r.file)
        } else {
            #expect(throws: MIDIReadError.self) { try MIDIReader.read(bytes, strict: true) }
        }
        // read → write → read gives identical events
        // (a format-0 file with two tracks stays that way: the writer keeps what it is given)
        let again = try MIDIReader.read(MIDIWriter.write(r.file), strict: r.file.format != 0 || r.file.tracks.count == 1)
        #expect(again.file == r.file)
    }

    @Test func knownContents() throws {
        let scale = try MIDIReader.read(Corpus.bytes("test-c-major-scale.mid")).file
        let notes = NotePairing.notes(in: scale).notes
        #expect(notes.map(\.pitch) == [60, 62, 64, 65, 67, 69, 71, 72])
        let kar = try MIDIReader.read(Corpus.bytes("test-karaoke-kar.mid")).file
        #expect(kar.tracks[0].name == "Karaoke .KAR Test")
        #expect(abs(kar.durationSeconds - 10.6) < 1e-5)  // 90 BPM is 666,667 µs per quarter
        let t2 = try MIDIReader.read(Corpus.bytes("test-2-tracks-type-2.mid")).file
        #expect(t2.format == 2)
        #expect(t2.tracks.count == 2)
    }
}
