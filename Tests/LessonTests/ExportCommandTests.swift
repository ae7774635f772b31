import Foundation
import Testing
import MIDIFile
@testable import Lesson

/// `etude export` and `etude info` end to end, through the built binary.
@Suite struct ExportCommandTests {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let binary = repoRoot.appendingPathComponent(".build/debug/etude").path

    static func etude(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("etude-export-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func lessonFile(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("twelve.mid").path
        try Data(MIDIWriter.write(try Build.twelveBars())).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func exportWritesTheBarsAsPractised() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary), "build first: swift build")
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = try Self.lessonFile(in: dir)
        let out = dir.appendingPathComponent("rh.mid").path
        let r = try Self.etude(["export", src, "-o", out, "--hand", "right", "--bars", "5-8", "--tempo", "50%", "--repeat", "2", "--metronome"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("Wrote \(out): bars 5–8 × 2, right hand, tempo 50% (60 BPM)"))
        let back = Lesson(file: try MIDIReader.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))).file)
        #expect(back.hands == [.right])
        #expect(back.bars.count == 8)
        #expect(back.tempoMap.bpm(atTick: 0) == 60)
        #expect(back.markers.map(\.value) == ["Repeat 1/2", "Repeat 2/2"])

        let info = try Self.etude(["info", out])
        #expect(info.out.contains("Hands:     right 32, left 0, accompaniment 32 — track names: \"Right Hand\" → right"))
        let json = try Self.etude(["info", out, "--json"])
        #expect(json.out.contains("\"hands\":{\"method\":\"trackNames\""))
    }

    @Test(arguments: [
        (["--bars", "40-44"], "etude: --bars 40-44: the lesson has 12 bars"),
        (["--bars", "8-5"], "etude: --bars 8-5: the first bar comes after the last; did you mean 5-8?"),
        (["--tempo", "500%"], "etude: --tempo 500%: the tempo must be between 10% and 400%"),
        (["--tempo", "50%", "--bpm", "60"], "etude: --tempo and --bpm both given: use one of them"),
        (["--bpm", "2000"], "etude: --bpm 2000: that is 1666.7% of the lesson's 120 BPM; use 12–480 BPM (10–400%)"),
        (["--hand", "middle"], "etude: --hand middle: use left, right or both"),
        (["--repeat", "forever"], "etude: --repeat forever: an export needs a number of passes, e.g. --repeat 4"),
        (["--split", "H9"], "etude: --split H9: give a note such as C4 or F#3, or a MIDI number 0–127"),
    ])
    func exportErrorsAreOneLine(args: [String], message: String) throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = try Self.lessonFile(in: dir)
        let out = dir.appendingPathComponent("x.mid").path
        let r = try Self.etude(["export", src, "-o", out] + args)
        #expect(r.status == 1)
        #expect(r.err == message + "\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func exportNamesBadPaths() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = try Self.lessonFile(in: dir)
        let missing = try Self.etude(["export", dir.appendingPathComponent("nope.mid").path, "-o", dir.appendingPathComponent("x.mid").path])
        #expect(missing.status == 1 && missing.err.hasSuffix("nope.mid: no such file\n"))
        let notMidi = dir.appendingPathComponent("text.mid")
        try Data("hello".utf8).write(to: notMidi)
        let bad = try Self.etude(["export", notMidi.path, "-o", dir.appendingPathComponent("x.mid").path])
        #expect(bad.status == 1 && bad.err.contains("not a MIDI file"))
        let toDir = try Self.etude(["export", src, "-o", dir.path])
        #expect(toDir.status == 1 && toDir.err.contains("is a directory"))
        let noFolder = try Self.etude(["export", src, "-o", dir.appendingPathComponent("no/such/x.mid").path])
        #expect(noFolder.status == 1 && noFolder.err.contains("does not exist"))
    }
}

@Suite struct LoopCommandTests {
    @Test func dryRunPrintsTheSpeedTrainerPasses() throws {
        let dir = try ExportCommandTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = try ExportCommandTests.lessonFile(in: dir)
        let r = try ExportCommandTests.etude(["loop", src, "5-8", "--hand", "right", "--speed-trainer", "60:100:20",
                                              "--final-slow-pass", "--repeat", "5", "--dry-run"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == """
        Twelve Bars: bars 5–8, right hand (other hand: play)
        pass 1: 60% (72 BPM), 13.3 s
        pass 2: 80% (96 BPM), 10.0 s
        pass 3: 100% (120 BPM), 8.0 s
        pass 4: 100% (120 BPM), 8.0 s
        pass 5: 60% (72 BPM), 13.3 s

        """)
        let bad = try ExportCommandTests.etude(["loop", src, "9-14", "--dry-run"])
        #expect(bad.status == 1)
        #expect(bad.err == "etude: bars 9-14: the lesson has 12 bars\n")
        let slow = try ExportCommandTests.etude(["loop", src, "1-2", "--final-slow-pass", "--dry-run"])
        #expect(slow.err == "etude: --final-slow-pass: only works with --speed-trainer START:TARGET:STEP\n")
    }

    @Test func infoReportsHandsAndBars() throws {
        let dir = try ExportCommandTests.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = try ExportCommandTests.lessonFile(in: dir)
        let r = try ExportCommandTests.etude(["info", src])
        #expect(r.out.contains("Title:     Twelve Bars\n"))
        #expect(r.out.contains("Hands:     right 47, left 12 — track names: \"RH\" → right, \"LH\" → left\n"))
        #expect(r.out.contains("Bars:      12; sections of 4 bars (3)\n"))
        let split = try ExportCommandTests.etude(["info", src, "--split", "C4"])
        #expect(split.out.contains("split at C4 (--split)"))
    }
}
