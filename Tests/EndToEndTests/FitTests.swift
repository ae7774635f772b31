import Foundation
import MIDIFile
import Testing
import TestSupport

/// Fitting the piece to the player as a user runs it: `--transpose` on export and score (the
/// notes moved note for note, the staff respelled in the new key), remembered per lesson; the
/// learner's keyboard (`--keys`, `--range`) in a wait-mode pass fed through a FIFO; and every bad
/// value one line naming the fix.
@Suite(.serialized) struct FitTests {
    static var ode: String { Repo.lesson("level4/ode-to-joy.mid") }
    static var scale: String { Repo.lesson("level2/c-major-scale.mid") }
    static var cadence: String { Repo.lesson("level3/c-major-cadence.abc") }

    /// Every note-on of a file (track, tick, key, channel) in file order.
    static func noteOns(_ path: String) throws -> [(track: Int, tick: Int, key: Int, channel: UInt8)] {
        let file = try MIDIReader.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))).file
        var out: [(track: Int, tick: Int, key: Int, channel: UInt8)] = []
        for (t, track) in file.tracks.enumerated() {
            for e in track.events { if case .noteOn(let c, let k, let v) = e.kind, v > 0 { out.append((t, e.tick, Int(k), c)) } }
        }
        return out
    }

    @Test func transposedExportsAreTheOriginalPlusNNoteForNote() throws {
        let etude = try Etude()
        let plain = etude.home.file("plain.mid")
        #expect(try etude.run(["export", Self.ode, "-o", plain, "--other", "play"]).status == 0)
        let original = try Self.noteOns(plain)
        #expect(original.count > 50)
        for n in [5, -7, 12, -24, 2] {
            let out = etude.home.file("moved\(n).mid")
            let r = try etude.run(["export", Self.ode, "-o", out, "--other", "play", "--transpose", n > 0 ? "+\(n)" : "\(n)"])
            #expect(r.status == 0, "\(r.stderr)")
            let moved = try Self.noteOns(out)
            #expect(moved.count == original.count)
            for (a, b) in zip(original, moved) {
                #expect(a.track == b.track && a.tick == b.tick && a.channel == b.channel && b.key == a.key + n)
            }
        }
        // By key: C major to E♭ major is 3 semitones up.
        let eb = etude.home.file("eb.mid")
        #expect(try etude.run(["export", Self.ode, "-o", eb, "--other", "play", "--transpose", "Eb"]).status == 0)
        #expect(try Self.noteOns(eb).map(\.key) == original.map { $0.key + 3 })
    }

    /// Every `spelling` in `score --json`.
    static func spellings(_ etude: Etude, _ args: [String]) throws -> Set<String> {
        let r = try etude.run(["score", "--json"] + args)
        #expect(r.status == 0, "\(r.stderr)")
        var out = Set<String>()
        func walk(_ o: Any) {
            if let d = o as? [String: Any] {
                if let s = d["spelling"] as? String { out.insert(s) }
                d.values.forEach(walk)
            } else if let a = o as? [Any] { a.forEach(walk) }
        }
        walk(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)))
        return out
    }

    @Test func theStaffIsRespelledInTheNewKey() throws {
        let etude = try Etude()
        for lesson in [Self.scale, Self.cadence] {
            let d = try Self.spellings(etude, [lesson, "--transpose", "D"])
            #expect(d.contains("F#") && d.contains("C#") && !d.contains("Gb") && !d.contains("Db"), "\(lesson): \(d)")
            #expect(try Self.spellings(etude, [lesson, "--transpose", "+2"]) == d)
            let bb = try Self.spellings(etude, [lesson, "--transpose", "Bb"])
            #expect(bb.contains("Bb") && bb.contains("Eb") && !bb.contains("A#") && !bb.contains("D#"), "\(lesson): \(bb)")
        }
        let text = try etude.run(["score", Self.scale, "--transpose", "Bb", "--color", "never", "--width", "80"])
        #expect(text.stdout.contains("(in B♭ major, -2)"), "\(text.stdout)")
    }

    @Test func theTranspositionIsRememberedPerLessonUntilZero() throws {
        let etude = try Etude()
        var r = try etude.run(["loop", Self.ode, "1-2", "--dry-run", "--transpose", "D"])
        #expect(r.status == 0 && r.stdout.hasPrefix("Ode to Joy (in D major, +2): bars 1–2"), "\(r.stdout)\(r.stderr)")
        r = try etude.run(["loop", Self.ode, "1-2", "--dry-run"])
        #expect(r.stdout.hasPrefix("Ode to Joy (in D major, +2)"), "\(r.stdout)")
        #expect(r.stderr.contains("as last time (--transpose D); --transpose 0 plays it as written"), "\(r.stderr)")
        // Export never changes key unasked.
        let out = etude.home.file("asis.mid")
        #expect(try etude.run(["export", Self.ode, "-o", out]).stdout.contains("Wrote"))
        #expect(try Self.noteOns(out).first?.key == 64)
        r = try etude.run(["loop", Self.ode, "1-2", "--dry-run", "--transpose", "0"])
        #expect(r.stdout.hasPrefix("Ode to Joy: bars 1–2"), "\(r.stdout)")
        r = try etude.run(["loop", Self.ode, "1-2", "--dry-run"])
        #expect(r.stdout.hasPrefix("Ode to Joy: bars 1–2") && r.stderr.isEmpty, "\(r.stdout)\(r.stderr)")
    }

    @Test func badValuesAreOneLineNamingTheFix() throws {
        let etude = try Etude()
        let cases: [([String], String)] = [
            (["score", Self.ode, "--transpose", "30"], "etude: --transpose 30: give semitones from −24 to +24, or a key, e.g. --transpose +2\n"),
            (["score", Self.ode, "--transpose", "H"], "etude: --transpose H: not a key or a number of semitones; give a key such as D, Bb or F#m, or semitones such as +2\n"),
            (["export", Self.ode, "-o", etude.home.file("x.mid"), "--transpose", "Dm"], "etude: --transpose Dm: the lesson is in C major; give a major key; try --transpose D\n"),
            (["practice", Self.ode, "--keys", "62"], "etude: --keys 62: give a keyboard size: 88, 76, 73, 61, 49, 37, 25; or --range LOW-HIGH, e.g. --range C2-C7\n"),
            (["practice", Self.ode, "--range", "C4-A4"], "etude: --range C4-A4: a keyboard has at least 12 keys, lowest first; try --range C3-C5\n"),
            (["practice", Self.ode, "--hand", "right", "--range", "C1-B1"],
             "etude: --range C1-B1: none of the 62 notes to play is on those keys (C1–B1); give your keyboard's real range, e.g. --keys 88\n"),
        ]
        for (args, message) in cases {
            let r = try etude.run(args)
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr == message, "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: etude.home.file("x.mid")))
    }

    /// The practice screen's header says the key, and the keyboard drawn is the learner's.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func thePracticeHeaderSaysTheKey() throws {
        let etude = try Etude()
        let pane = try TmuxPane(etude: etude, ["practice", Self.ode, "--transpose", "D", "--keys", "49"], width: 80, height: 24)
        let screen = pane.waitFor { $0.contains("mode: watch") }
        #expect(screen.split(separator: "\n").first?.contains("Ode to Joy (in D major, +2)") == true, "\(screen)")
        #expect(screen.contains("C2") && screen.contains("C6"), "the 49 keys C2–C6 are drawn: \(screen)")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)
    }

    /// A performance without the notes above C7, on 61 keys: Etude plays the C8 itself and the
    /// pass misses nothing. (Through wait mode on a FIFO: `etude judge` is another branch's; on
    /// 88 keys the pass would wait at the C8 for ever.)
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func aPerformanceWithoutTheNotesAboveC7OnSixtyOneKeysMissesNothing() throws {
        let etude = try Etude()
        let lesson = try etude.home.write("high.abc", "X:1\nT:High\nM:4/4\nL:1/4\nQ:1/4=120\nK:C\nC D c''' E|\n")
        let fifo = try etude.home.fifo("notes.fifo")
        let report = etude.home.file("passes.jsonl")
        let pane = try TmuxPane(etude: etude, ["practice", lesson, "--repeat", "1", "--mode", "wait", "--keys", "61",
                                               "--input", fifo.path, "--report", report], width: 80, height: 24)
        #expect(eventually { pane.screen().contains("mode: wait") }, "\(pane.screen())")
        for pitch: UInt8 in [60, 62, 64] {
            fifo.send([0x90, pitch, 90])
            usleep(300_000)
            fifo.send([0x80, pitch, 0])
        }
        #expect(eventually(30) { etude.home.read("passes.jsonl").hasSuffix("\n") }, "\(pane.screen())")
        let json = try #require(try JSONSerialization.jsonObject(with: Data((etude.home.read("passes.jsonl").split(separator: "\n").first ?? "").utf8)) as? [String: Any])
        #expect(json["hit"] as? Int == 3)
        #expect(json["missed"] as? Int == 0)
        #expect(json["wrong"] as? Int == 0)
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        #expect(pane.stderr.contains("your 61 keys (C2–C7): Etude plays the"), "\(pane.stderr)")
    }
}
