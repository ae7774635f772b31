import Foundation
import Store
import Testing
import TestSupport

/// Issue 39's small things as a user meets them: `--version`, the entry keys in `routine new
/// --help`, `routine import` that replaces only with `--replace`, `judge` storing a recording
/// once, "did you mean" for a mistyped title, whole-word search, the browser opening on ▸, and
/// `--fit octave` leaving Für Elise's one low A1 to Etude.
@Suite struct SmallThingsTests {
    @Test func versionPrintsTheVersionFile() throws {
        let r = try Etude().run("--version")
        let version = try String(contentsOf: Repo.root.appendingPathComponent("VERSION"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(r.status == 0 && r.stdout == version + "\n" && r.stderr.isEmpty, "\(r.stdout)\(r.stderr)")
    }

    @Test func routineNewHelpListsEveryEntryKey() throws {
        let etude = try Etude()
        for command in [["routine", "new"], ["routine", "edit"]] {
            let help = try etude.run(command + ["--help"]).stdout
            for key in ["lesson=", "random=", "hand=", "tempo=", "bars=", "mode=", "minutes=", "reps=", "pause=", "transpose="] {
                #expect(help.contains(key), "etude \(command.joined(separator: " ")) --help lacks \(key)")
            }
        }
    }

    @Test func routineImportRefusesToReplaceWithoutReplace() throws {
        let etude = try Etude()
        let lesson = "C major five-finger position: parallel motion"
        #expect(try etude.run("routine", "new", "warm-up", "--entry", "lesson=\(lesson);minutes=2").status == 0)
        let before = try etude.run("routine", "export", "warm-up").stdout
        let other = try etude.run("routine", "new", "other", "--entry", "random=favourite;reps=3")
        #expect(other.status == 0)
        let file = etude.home.file("other.json")
        #expect(try etude.run("routine", "export", "other", "--output", file).status == 0)
        var r = try etude.run("routine", "import", file, "--name", "warm-up")
        #expect(r.status == 1 && r.stderr == "etude: a routine named warm-up exists; add --replace to replace it, or --name NEW to keep both\n", "\(r.stderr)")
        #expect(try etude.run("routine", "export", "warm-up").stdout == before, "nothing replaced")
        r = try etude.run("routine", "import", file, "--name", "warm-up", "--replace")
        #expect(r.status == 0 && r.stdout == "Imported warm-up (1 entry)\n", "\(r.stdout)\(r.stderr)")
        #expect(try etude.run("routine", "export", "warm-up").stdout.contains("favourite"))
    }

    @Test func judgeStoresARecordingOnceByItsContent() throws {
        let etude = try Etude()
        let lesson = Repo.lesson("level1/c-major-five-finger-parallel.mid")
        // The lesson itself played back is a performance of it.
        for _ in 0..<3 {
            let r = try etude.run("judge", lesson, lesson, "--json")
            #expect(r.status == 0, "\(r.stderr)")
        }
        let s = try Store.open(path: etude.database)
        #expect(try s.passes().filter { $0.mode.rawValue == "judge" }.count == 1, "three looks at one recording are one pass")
        // Judged another way (one hand) it is another pass; a changed file is another recording.
        #expect(try etude.run("judge", lesson, lesson, "--hand", "right").status == 0)
        // The same bytes under another name: still the same recording.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: lesson)))
        let copy = etude.home.file("copy.mid")
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        #expect(try etude.run("judge", lesson, copy).status == 0)
        #expect(try s.passes().filter { $0.mode.rawValue == "judge" }.count == 2)
    }

    @Test func aMistypedTitleGetsADidYouMean() throws {
        let etude = try Etude()
        let r = try etude.run("info", "Ode to Jyo")
        #expect(r.status == 1 && r.stderr == "etude: Ode to Jyo: no such lesson or file; did you mean \"Ode to Joy\"? (`etude list` shows titles and ids)\n", "\(r.stderr)")
        let far = try etude.run("info", "Xylophone concerto")
        #expect(far.status == 1 && !far.stderr.contains("did you mean"), "\(far.stderr)")
    }

    @Test func listMatchesWholeWords() throws {
        let etude = try Etude()
        let dir = try TempDir("etude-words")
        try LessonMaker.write(dir.file("episode.mid"), title: "An Episode in C")
        try LessonMaker.write(dir.file("ode.mid"), title: "Little Ode")
        #expect(try etude.run("library", "add", dir.path).status == 0)
        let r = try etude.run("list", "ode")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Ode to Joy") && r.stdout.contains("Little Ode"), "\(r.stdout)")
        #expect(!r.stdout.contains("Episode"), "\(r.stdout)")
    }

    @Test func octaveFitLeavesFuerElisesLowNoteToEtude() throws {
        let etude = try Etude()
        let r = try etude.run("practice", Repo.lesson("level5/fur-elise.mid"), "--keys", "61", "--fit", "octave")
        // No terminal here: the screen is refused, after the keyboard's notices.
        #expect(r.stderr.contains("Etude plays the left-hand notes off it (1 below C2)"), "\(r.stderr)")
        #expect(!r.stderr.contains("moved"), "\(r.stderr)")
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theBrowserOpensOnTheNextLesson() throws {
        let etude = try Etude()
        let json = try JSONSerialization.jsonObject(with: Data(try etude.run("next", "--json").stdout.utf8)) as? [String: Any]
        let next = try #require(json?["title"] as? String)
        try #require(next.hasPrefix("C major five-finger position"), "\(next)")
        let pane = try TmuxPane(etude: etude, [], width: 120, height: 30)
        var screen = pane.waitFor { $0.contains("Etude — lessons") && $0.contains("▸") }
        // The first row is another lesson (level 1 sorts "A minor" first); Enter is on ▸.
        #expect(screen.contains("A minor five-finger"), "\(screen)")
        try pane.keys("Enter")
        screen = pane.waitFor { $0.contains("Practise ") }
        #expect(screen.contains("Practise \(next)"), "\(screen)")
        try pane.keys("Escape")
        _ = pane.waitFor { !$0.contains("Practise ") }
        try pane.keys("C-q")
        _ = pane.waitFor { $0.contains("EXIT=") }
        #expect(pane.exitStatus() != nil)
    }
}
