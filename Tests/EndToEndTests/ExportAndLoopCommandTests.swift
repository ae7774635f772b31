import Foundation
import Lesson
import MIDIFile
import Testing
import TestSupport

/// `etude export`, `etude loop --dry-run` and `etude info` on a lesson built in code.
@Suite struct ExportCommandTests {
    let etude: Etude
    let dir: TempDir
    /// Twelve 4/4 bars at 120 BPM, right hand "RH", left hand "LH" (see `Build.twelveBars`).
    let src: String
    init() throws {
        etude = try Etude()
        dir = try TempDir("etude-export")
        src = try dir.write("twelve.mid", MIDIWriter.write(try Build.twelveBars()))
    }

    @Test func exportWritesTheBarsAsPractised() throws {
        #expect(EtudeBinary.isBuilt, "build etude first: \(EtudeBinary.path)")
        let out = dir.file("rh.mid")
        let r = try etude.run(["export", src, "-o", out, "--hand", "right", "--bars", "5-8", "--tempo", "50%", "--repeat", "2", "--metronome"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("Wrote \(out): bars 5–8 × 2, right hand, tempo 50% (60 BPM)"))
        let back = Lesson(file: try MIDIReader.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))).file)
        #expect(back.hands == [.right])
        #expect(back.bars.count == 8)
        #expect(back.tempoMap.bpm(atTick: 0) == 60)
        #expect(back.markers.map(\.value) == ["Repeat 1/2", "Repeat 2/2"])

        let info = try etude.run(["info", out])
        #expect(info.stdout.contains("Hands:     right 32, left 0, accompaniment 32 — track names: \"Right Hand\" → right"))
        let json = try etude.run(["info", out, "--json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((doc["hands"] as? [String: Any])?["method"] as? String == "trackNames", "\(json.stdout)")
    }

    @Test(arguments: [
        (["--bars", "40-44"], "etude: --bars 40-44: the lesson has 12 bars"),
        (["--bars", "0-2"], "etude: --bars 0-2: bars start at 1 (this lesson has no pickup bar 0); it has 12 bars"),
        (["--tempo", "-5%"], "etude: --tempo -5%: the tempo must be between 10% and 400%"),
        (["--bpm", "-60"], "etude: --bpm -60: give a positive number of beats per minute, e.g. 60"),
        (["--bars", "8-5"], "etude: --bars 8-5: the first bar comes after the last; did you mean 5-8?"),
        (["--tempo", "500%"], "etude: --tempo 500%: the tempo must be between 10% and 400%"),
        (["--tempo", "50%", "--bpm", "60"], "etude: --tempo and --bpm both given: use one of them"),
        (["--bpm", "2000"], "etude: --bpm 2000: that is 1666.7% of the lesson's 120 BPM; use 12–480 BPM (10–400%)"),
        (["--hand", "middle"], "etude: --hand middle: use left, right or both"),
        (["--repeat", "forever"], "etude: --repeat forever: an export needs a number of passes, e.g. --repeat 4"),
        (["--split", "H9"], "etude: --split H9: give a note such as C4 or F#3, or a MIDI number 0–127"),
    ])
    func exportErrorsAreOneLine(args: [String], message: String) throws {
        let out = dir.file("x.mid")
        let r = try etude.run(["export", src, "-o", out] + args)
        #expect(r.status == 1)
        #expect(r.stderr == message + "\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func exportNamesBadPaths() throws {
        let missing = try etude.run(["export", dir.file("nope.mid"), "-o", dir.file("x.mid")])
        #expect(missing.status == 1 && missing.stderr.hasSuffix("nope.mid: no such file\n"))
        let notMidi = try dir.write("text.mid", "hello")
        let bad = try etude.run(["export", notMidi, "-o", dir.file("x.mid")])
        #expect(bad.status == 1 && bad.stderr.contains("not a MIDI file"))
        let toDir = try etude.run(["export", src, "-o", dir.path])
        #expect(toDir.status == 1 && toDir.stderr.contains("is a directory"))
        let noFolder = try etude.run(["export", src, "-o", dir.file("no/such/x.mid")])
        #expect(noFolder.status == 1 && noFolder.stderr.contains("does not exist"))
    }
}

@Suite struct LoopCommandTests {
    let etude: Etude
    let dir: TempDir
    let src: String
    init() throws {
        etude = try Etude()
        dir = try TempDir("etude-loop")
        src = try dir.write("twelve.mid", MIDIWriter.write(try Build.twelveBars()))
    }

    @Test func dryRunPrintsTheSpeedTrainerPasses() throws {
        let r = try etude.run(["loop", src, "5-8", "--hand", "right", "--speed-trainer", "60:100:20",
                               "--final-slow-pass", "--repeat", "5", "--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == """
        Twelve Bars: bars 5–8, right hand (other hand: play)
        pass 1: 60% (72 BPM), 13.3 s
        pass 2: 80% (96 BPM), 10.0 s
        pass 3: 100% (120 BPM), 8.0 s
        pass 4: 100% (120 BPM), 8.0 s
        pass 5: 60% (72 BPM), 13.3 s

        """)
        let bad = try etude.run(["loop", src, "9-14", "--dry-run"])
        #expect(bad.status == 1)
        #expect(bad.stderr == "etude: bars 9-14: the lesson has 12 bars\n")
        let slow = try etude.run(["loop", src, "1-2", "--final-slow-pass", "--dry-run"])
        #expect(slow.stderr == "etude: --final-slow-pass: only works with --speed-trainer START:TARGET:STEP\n")
    }

    @Test func infoReportsHandsAndBars() throws {
        let r = try etude.run(["info", src])
        #expect(r.stdout.contains("Title:     Twelve Bars\n"))
        #expect(r.stdout.contains("Hands:     right 47, left 12 — track names: \"RH\" → right, \"LH\" → left\n"))
        #expect(r.stdout.contains("Bars:      12; sections of 4 bars (3)\n"))
        let split = try etude.run(["info", src, "--split", "C4"])
        #expect(split.stdout.contains("split at C4 (--split)"))
    }
}
