import Foundation
import Testing
import MIDIFile
import TestSupport

/// Writes `bytes` to a fresh folder as `name` and returns its path (the folder lives as long as the test).
final class Scratch {
    let dir: TempDir
    init() throws { dir = try TempDir("etude-cli") }
    func file(_ name: String, _ bytes: [UInt8]) throws -> String { try dir.write(name, bytes) }
}

@Suite("etude info / events")
struct InfoAndEventsTests {
    let etude: Etude
    let scratch: Scratch
    init() throws {
        etude = try Etude()
        scratch = try Scratch()
    }

    @Test func fatalErrorsAreOneLineOnStderrWithExitOne() throws {
        let notMIDI = try scratch.file("song.mid", Array("hello".utf8))
        for command in [["events", notMIDI, "--json"], ["info", notMIDI]] {
            let r = try etude.run(command)
            #expect(r.status == 1)
            #expect(r.stdout.isEmpty)
            #expect(r.stderr == "etude: \(notMIDI): not a MIDI file (no MThd header at byte 0)\n")
        }
        let missing = try etude.run(["info", "/nonexistent/x.mid"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "etude: /nonexistent/x.mid: no such file\n")
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
            let r = try etude.run(args)
            #expect(r.status == 64, "\(args)")
            #expect(r.stdout.isEmpty)
            #expect(r.stderr == expected)
        }
        let help = try etude.run(["info", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW:") && help.stderr.isEmpty)
    }

    @Test func eventsJSONHasTheAgreedShape() throws {
        let path = Repo.jazzSoft.appendingPathComponent("test-running-status-metaevent.mid").path
        let r = try etude.run(["events", path, "--json"])
        #expect(r.status == 0)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
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
        let path = try scratch.file("smpte.mid", b.bytes())
        let r = try etude.run(["events", path, "--json"])
        #expect(r.stdout.hasPrefix("{\"format\":1,\"division\":{\"smpte\":{\"fps\":25,\"ticksPerFrame\":40}},\"durationSeconds\":0.5,"))
        let info = try etude.run(["info", path])
        #expect(info.stdout.contains("SMPTE 25 fps × 40 ticks per frame"))
        #expect(info.stdout.contains("0.500 s"))
    }

    /// Control bytes in a file's text are stripped on the terminal and kept, escaped, in JSON
    /// (issue 31: `info --json` dropped them).
    @Test func infoStripsControlCharactersFromFileText() throws {
        var b = SMFBuilder()
        let evil: [UInt8] = Array("Evil\u{1B}[2J\u{1B}]0;pwned\u{07}Name".utf8)
        b.tracks = [[0x00, 0xFF, 0x03, UInt8(evil.count)] + evil + [0x00, 0xFF, 0x06, 0x03, 0x1B, 0x41, 0x42] + SMFBuilder.endOfTrack]
        let path = try scratch.file("evil.mid", b.bytes())
        let tags: [UInt8] = Array("etude:title=Title\u{1B}]0;x\u{07}".utf8), by: [UInt8] = Array("etude:composer=\u{9B}31mBy".utf8)
        b.tracks[0] = [0x00, 0xFF, 0x01, UInt8(tags.count)] + tags + [0x00, 0xFF, 0x01, UInt8(by.count)] + by + b.tracks[0]
        let titled = try scratch.file("evil-title.mid", b.bytes())
        let json = try etude.run(["info", titled, "--json"])
        #expect(json.status == 0 && json.stdout.contains(#""title":"Title\u001b]0;x\u0007""#), "\(json.stdout)")
        #expect(json.stdout.contains(#""composer":"\u009b31mBy""#), "\(json.stdout)")
        let text = try etude.run(["info", titled])
        #expect(text.stdout.contains("Title:     Title]0;x\n") && text.stdout.contains("Composer:  31mBy\n"), "\(text.stdout)")
        for args in [["info", path], ["info", path, "--json"]] {
            let r = try etude.run(args)
            #expect(r.status == 0)
            #expect(!r.stdout.contains("\u{1B}"))
            #expect(!r.stdout.contains("\u{07}"))
            if args.count == 2 {
                #expect(r.stdout.contains("Evil[2J]0;pwnedName"))
            } else {
                #expect(r.stdout.contains(#"Evil\u001b[2J\u001b]0;pwned\u0007Name"#), "\(r.stdout)")
                #expect(r.stdout.contains(#""text":"\u001bAB""#) || r.stdout.contains(#""text" : "\u001bAB""#), "\(r.stdout)")
            }
        }
    }

    @Test func strictRefusesRepairs() throws {
        let path = Repo.jazzSoft.appendingPathComponent("test-corrupt-file-extra-byte.mid").path
        let r = try etude.run(["info", path, "--strict"])
        #expect(r.status == 1)
        #expect(r.stderr.hasSuffix("(strict mode)\n"))
        #expect(try etude.run(["info", path]).status == 0)
    }
}

@Suite("etude info / events: audit fixes")
struct InfoAndEventsAuditTests {
    let etude: Etude
    let scratch: Scratch
    init() throws {
        etude = try Etude()
        scratch = try Scratch()
    }

    /// One track (body at byte 22) with `body` and an End of Track.
    func midi(_ name: String, _ body: [UInt8]) throws -> String {
        var b = SMFBuilder()
        b.tracks = [body + SMFBuilder.endOfTrack]
        return try scratch.file(name, b.bytes())
    }

    /// The JSON document's warnings as `byte N: message` lines.
    static func warnings(_ json: String) throws -> [String] {
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let list = try #require(doc["warnings"] as? [[String: Any]])
        return list.map { "byte \(($0["offset"] as? Int).map(String.init) ?? "null"): \($0["message"] as? String ?? "?")" }
    }

    @Test func strictRefusesNotePairingProblemsInOneLine() throws {
        let stray = try midi("stray.mid", [0x00, 0x80, 64, 0])
        let unreleased = try midi("held.mid", [0x00, 0x90, 60, 100, 0x60, 0xB0, 64, 127])
        let cases = [
            (stray, "track 1: 1 note-off with no sounding note ignored at byte 22 (strict mode)"),
            (unreleased, "track 1: 1 note never released; ended at the track's end (tick 96) at byte 22 (strict mode)"),
        ]
        for (path, message) in cases {
            for args in [["info", path, "--strict"], ["info", path, "--strict", "--json"], ["events", path, "--strict", "--json"]] {
                let r = try etude.run(args)
                #expect(r.status == 1, "\(args)")
                #expect(r.stdout.isEmpty)
                #expect(r.stderr == "etude: \(path): \(message)\n")
            }
            #expect(try etude.run(["info", path]).status == 0)
        }
    }

    /// Both commands list the same warnings, pairing ones included, each with its byte offset.
    @Test func pairingWarningsHaveOffsetsInBothCommands() throws {
        // 22: stray note-off; 26: note-on never released
        let path = try midi("both.mid", [0x00, 0x80, 64, 0, 0x00, 0x90, 60, 100])
        let events = try etude.run(["events", path, "--json"])
        let info = try etude.run(["info", path, "--json"])
        #expect(events.status == 0 && info.status == 0)
        let expected = [
            "byte 26: track 1: 1 note never released; ended at the track's end (tick 0)",
            "byte 22: track 1: 1 note-off with no sounding note ignored",
        ]
        #expect(try Self.warnings(events.stdout) == expected)
        #expect(try Self.warnings(info.stdout) == expected)
        let text = try etude.run(["info", path])
        #expect(text.stdout.contains("  - byte 22: track 1: 1 note-off with no sounding note ignored\n"))
    }

    @Test func smpte2997IsPrintedAsItsRealRate() throws {
        var b = SMFBuilder()
        b.division = [0xE3, 40]  // 29.97 fps × 40
        b.tracks = [[0x00, 0x90, 60, 100, 0x83, 0x74, 0x80, 60, 0] + SMFBuilder.endOfTrack]
        let path = try scratch.file("smpte2997.mid", b.bytes())
        let division = "\"division\":{\"smpte\":{\"fps\":29.97,\"ticksPerFrame\":40}}"
        let events = try etude.run(["events", path, "--json"])
        #expect(events.stdout.hasPrefix("{\"format\":1,\(division),"))
        let info = try etude.run(["info", path, "--json"])
        #expect(info.stdout.contains(division), "\(info.stdout)")
        let infoDoc = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(infoDoc["format"] as? Int == 1)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(events.stdout.utf8)) as? [String: Any])
        let smpte = try #require((doc["division"] as? [String: Any])?["smpte"] as? [String: Any])
        #expect(smpte["fps"] as? Double == 29.97)
        #expect(try etude.run(["info", path]).stdout.contains("SMPTE 29.97 fps × 40 ticks per frame"))
    }

    @Test func specialAndEmptyFilesSayWhatIsWrong() throws {
        let empty = try scratch.file("empty.mid", [])
        let dir = scratch.dir.path
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
                let r = try etude.run([command, path])
                #expect(r.status == 1, "\(command) \(path)")
                #expect(r.stdout.isEmpty)
                #expect(r.stderr == "etude: \(path): \(message)\n")
            }
        }
    }

    /// Key and time changes once each (a file's tracks often repeat them) at bar numbers, and the
    /// tempo in the beat's note value where that is not the quarter.
    @Test func infoPrintsChangesOnceAtBarsAndTheTempoInTheBeatsValue() throws {
        let bar = 3 * 240  // a 3/8 bar at 480 ticks per quarter
        let conductor = [Build.timeSignature(3, 8), Build.keySignature(sharps: 1), Build.tempo(bpm: 60),
                         Build.timeSignature(2, 8, at: 4 * bar), Build.keySignature(sharps: 1, at: 4 * bar)]
        let piano = [Build.timeSignature(3, 8), Build.keySignature(sharps: 1)]
            + (0..<8).flatMap { Build.note(60 + $0, at: $0 * bar, length: 240) }
        let file = try Build.file([conductor, piano])
        let path = try scratch.file("three-eight.mid", MIDIWriter.write(file))
        let r = try etude.run(["info", path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.contains("Time:      3/8 from bar 1; 2/8 from bar 5"), "\(r.stdout)")
        #expect(lines.contains("Key:       G major from bar 1"), "\(r.stdout)")
        #expect(lines.contains("Tempo:     ♪=120 (60.0 BPM) at 0.000 s"), "\(r.stdout)")
    }
}
