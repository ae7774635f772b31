import Foundation
import Testing
import TestSupport
@testable import MIDIFile

/// Runs the built `etude` binary (make test builds it first).
enum EtudeBinary {
    static let path = Corpus.repoRoot.appendingPathComponent(".build/debug/etude").path

    struct Run { var status: Int32; var out: String; var err: String }

    static func run(_ args: [String]) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, out: String(decoding: o, as: UTF8.self), err: String(decoding: e, as: UTF8.self))
    }

    static func temp(_ name: String, _ bytes: [UInt8]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("etude-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}

@Suite("etude info / events")
struct CLITests {
    @Test func fatalErrorsAreOneLineOnStderrWithExitOne() throws {
        let notMIDI = try EtudeBinary.temp("song.mid", Array("hello".utf8))
        for command in [["events", notMIDI, "--json"], ["info", notMIDI]] {
            let r = try EtudeBinary.run(command)
            #expect(r.status == 1)
            #expect(r.out.isEmpty)
            #expect(r.err == "etude: \(notMIDI): not a MIDI file (no MThd header at byte 0)\n")
        }
        let missing = try EtudeBinary.run(["info", "/nonexistent/x.mid"])
        #expect(missing.status == 1)
        #expect(missing.err == "etude: /nonexistent/x.mid: no such file\n")
    }

    /// A mistyped command line is one line too (not the parser's usage block), naming where the
    /// options are listed; --help still prints the whole help on stdout.
    @Test func commandLineMistakesAreOneLineNamingTheHelp() throws {
        let cases: [([String], String)] = [
            (["frobnicate"], "etude: Unexpected argument 'frobnicate'; see `etude --help`\n"),
            (["info"], "etude: Missing expected argument '<file>'; see `etude info --help`\n"),
            (["list", "--level", "x"], "etude: The value 'x' is invalid for '--level <level>'; see `etude list --help`\n"),
            (["loops", "save", "x", "y"], "etude: Missing expected argument '--bars <bars>'; see `etude loops save --help`\n"),
            (["events", "a.mid", "--bogus"], "etude: Unknown option '--bogus'; see `etude events --help`\n"),
        ]
        for (args, expected) in cases {
            let r = try EtudeBinary.run(args)
            #expect(r.status == 64, "\(args)")
            #expect(r.out.isEmpty)
            #expect(r.err == expected)
        }
        let help = try EtudeBinary.run(["info", "--help"])
        #expect(help.status == 0 && help.out.hasPrefix("OVERVIEW:") && help.err.isEmpty)
    }

    @Test func eventsJSONHasTheAgreedShape() throws {
        let path = Corpus.jazzSoft.appendingPathComponent("test-running-status-metaevent.mid").path
        let r = try EtudeBinary.run(["events", path, "--json"])
        #expect(r.status == 0)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(doc["format"] as? Int == 0)
        #expect((doc["division"] as? [String: Any])?["ticksPerQuarter"] != nil)
        #expect(doc["durationSeconds"] is Double || doc["durationSeconds"] is Int)
        let tracks = try #require(doc["tracks"] as? [[String: Any]])
        let events = try #require(tracks.first?["events"] as? [[String: Any]])
        let kinds = Set(events.compactMap { $0["kind"] as? String })
        #expect(kinds.isSubset(of: ["noteOff", "noteOn", "polyPressure", "controlChange", "programChange", "channelPressure", "pitchBend", "meta", "sysex", "escape"]))
        for e in events {
            #expect(e["tick"] is Int)
            #expect(e["data"] is [Int])
            if e["kind"] as? String == "meta" { #expect(e["type"] is Int) } else if e["kind"] as? String != "sysex" { #expect(e["channel"] is Int) }
        }
        let warnings = try #require(doc["warnings"] as? [[String: Any]])
        #expect(warnings.first?["offset"] is Int)
        #expect(warnings.first?["message"] as? String == "running status used after a meta or sysex event (accepted)")
    }

    @Test func smpteDivisionInJSONAndInfo() throws {
        var b = SMFBuilder()
        b.division = [0xE7, 40]  // 25 fps × 40
        b.tracks = [[0x00, 0x90, 60, 100, 0x83, 0x74, 0x80, 60, 0] + SMFBuilder.endOfTrack]  // 500 ticks = 0.5 s
        let path = try EtudeBinary.temp("smpte.mid", b.bytes())
        let r = try EtudeBinary.run(["events", path, "--json"])
        #expect(r.out.hasPrefix("{\"format\":1,\"division\":{\"smpte\":{\"fps\":25,\"ticksPerFrame\":40}},\"durationSeconds\":0.5,"))
        let info = try EtudeBinary.run(["info", path])
        #expect(info.out.contains("SMPTE 25 fps × 40 ticks per frame"))
        #expect(info.out.contains("0.500 s"))
    }

    @Test func infoStripsControlCharactersFromFileText() throws {
        var b = SMFBuilder()
        let evil: [UInt8] = Array("Evil\u{1B}[2J\u{1B}]0;pwned\u{07}Name".utf8)
        b.tracks = [[0x00, 0xFF, 0x03, UInt8(evil.count)] + evil + [0x00, 0xFF, 0x06, 0x03, 0x1B, 0x41, 0x42] + SMFBuilder.endOfTrack]
        let path = try EtudeBinary.temp("evil.mid", b.bytes())
        for args in [["info", path], ["info", path, "--json"]] {
            let r = try EtudeBinary.run(args)
            #expect(r.status == 0)
            #expect(!r.out.contains("\u{1B}"))
            #expect(!r.out.contains("\u{07}"))
            #expect(r.out.contains("Evil[2J]0;pwnedName"))
        }
    }

    @Test func strictRefusesRepairs() throws {
        let path = Corpus.jazzSoft.appendingPathComponent("test-corrupt-file-extra-byte.mid").path
        let r = try EtudeBinary.run(["info", path, "--strict"])
        #expect(r.status == 1)
        #expect(r.err.hasSuffix("(strict mode)\n"))
        #expect(try EtudeBinary.run(["info", path]).status == 0)
    }
}

@Suite("etude info / events: audit fixes")
struct CLIAuditTests {
    /// One track (body at byte 22) with `body` and an End of Track.
    static func midi(_ name: String, _ body: [UInt8]) throws -> String {
        var b = SMFBuilder()
        b.tracks = [body + SMFBuilder.endOfTrack]
        return try EtudeBinary.temp(name, b.bytes())
    }

    /// The JSON document's warnings as `byte N: message` lines.
    static func warnings(_ json: String) throws -> [String] {
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let list = try #require(doc["warnings"] as? [[String: Any]])
        return list.map { "byte \(($0["offset"] as? Int).map(String.init) ?? "null"): \($0["message"] as? String ?? "?")" }
    }

    @Test func strictRefusesNotePairingProblemsInOneLine() throws {
        let stray = try Self.midi("stray.mid", [0x00, 0x80, 64, 0])
        let unreleased = try Self.midi("held.mid", [0x00, 0x90, 60, 100, 0x60, 0xB0, 64, 127])
        let cases = [
            (stray, "track 1: 1 note-off with no sounding note ignored at byte 22 (strict mode)"),
            (unreleased, "track 1: 1 note never released; ended at the track's end (tick 96) at byte 22 (strict mode)"),
        ]
        for (path, message) in cases {
            for args in [["info", path, "--strict"], ["info", path, "--strict", "--json"], ["events", path, "--strict", "--json"]] {
                let r = try EtudeBinary.run(args)
                #expect(r.status == 1, "\(args)")
                #expect(r.out.isEmpty)
                #expect(r.err == "etude: \(path): \(message)\n")
            }
            #expect(try EtudeBinary.run(["info", path]).status == 0)
        }
    }

    /// Both commands list the same warnings, pairing ones included, each with its byte offset.
    @Test func pairingWarningsHaveOffsetsInBothCommands() throws {
        // 22: stray note-off; 26: note-on never released
        let path = try Self.midi("both.mid", [0x00, 0x80, 64, 0, 0x00, 0x90, 60, 100])
        let events = try EtudeBinary.run(["events", path, "--json"])
        let info = try EtudeBinary.run(["info", path, "--json"])
        #expect(events.status == 0 && info.status == 0)
        let expected = [
            "byte 26: track 1: 1 note never released; ended at the track's end (tick 0)",
            "byte 22: track 1: 1 note-off with no sounding note ignored",
        ]
        #expect(try Self.warnings(events.out) == expected)
        #expect(try Self.warnings(info.out) == expected)
        let text = try EtudeBinary.run(["info", path])
        #expect(text.out.contains("  - byte 22: track 1: 1 note-off with no sounding note ignored\n"))
    }

    @Test func smpte2997IsPrintedAsItsRealRate() throws {
        var b = SMFBuilder()
        b.division = [0xE3, 40]  // 29.97 fps × 40
        b.tracks = [[0x00, 0x90, 60, 100, 0x83, 0x74, 0x80, 60, 0] + SMFBuilder.endOfTrack]
        let path = try EtudeBinary.temp("smpte2997.mid", b.bytes())
        let division = "\"division\":{\"smpte\":{\"fps\":29.97,\"ticksPerFrame\":40}}"
        let events = try EtudeBinary.run(["events", path, "--json"])
        #expect(events.out.hasPrefix("{\"format\":1,\(division),"))
        let info = try EtudeBinary.run(["info", path, "--json"])
        #expect(info.out.hasPrefix("{\"format\":1,\(division),"))
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(events.out.utf8)) as? [String: Any])
        let smpte = try #require((doc["division"] as? [String: Any])?["smpte"] as? [String: Any])
        #expect(smpte["fps"] as? Double == 29.97)
        #expect(try EtudeBinary.run(["info", path]).out.contains("SMPTE 29.97 fps × 40 ticks per frame"))
    }

    @Test func specialAndEmptyFilesSayWhatIsWrong() throws {
        let empty = try EtudeBinary.temp("empty.mid", [])
        let dir = URL(fileURLWithPath: empty).deletingLastPathComponent().path
        let fifo = dir + "/pipe.mid"
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases = [
            ("/dev/null", "not a regular file (a device)"),
            ("/dev/zero", "not a regular file (a device)"),
            (fifo, "not a regular file (a pipe)"),
            (empty, "empty file (0 bytes)"),
            (dir, "is a directory, not a MIDI file"),
        ]
        for (path, message) in cases {
            for command in ["info", "events"] {
                let r = try EtudeBinary.run([command, path])
                #expect(r.status == 1, "\(command) \(path)")
                #expect(r.out.isEmpty)
                #expect(r.err == "etude: \(path): \(message)\n")
            }
        }
    }
}

/// Files Etude writes must be read without error by other tools: mido, for every corpus file.
@Suite("Writer output read by mido")
struct WriterPeerTests {
    @Test(.enabled(if: Tools.peerPython.available, Tools.peerPython.reason))
    func midoReadsEveryRewrittenCorpusFile() throws {
        let python = Tools.peerPython.path ?? ""
        var paths: [String] = []
        for url in Corpus.files() {
            guard let r = try? MIDIReader.read(Corpus.bytes(url.lastPathComponent)) else { continue }
            paths.append(try EtudeBinary.temp(url.lastPathComponent, MIDIWriter.write(r.file)))
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
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = ["-c", script] + paths
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "mido refused: \(text)")
    }
}
