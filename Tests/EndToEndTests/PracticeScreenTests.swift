import Foundation
import Testing
import TestSupport

/// `etude practice` on a real pseudo-terminal (tmux), silent (no audio device reachable):
/// keys act on what the screen shows, and the tty modes are exactly restored however it ends.
@Suite(.serialized) struct PracticeScreenTests {
    static var ode: String { Repo.lesson("level4/ode-to-joy.mid") }

    /// `etude practice args…` in a 100×30 pane.
    static func practice(_ etude: Etude, _ args: [String]) throws -> TmuxPane {
        try TmuxPane(etude: etude, ["practice"] + args)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func barsAdvanceTempoAndLoopKeysShowAndQuitRestoresTheTerminal() throws {
        let pane = try Self.practice(try Etude(), [Self.ode])
        #expect(eventually { pane.screen().contains("Ode to Joy") }, "\(pane.screen())")
        #expect(eventually { (ScreenText.bar(in: pane.screen()) ?? 0) >= 2 }, "the bar counter advances: \(pane.screen())")
        #expect(pane.screen().contains("(100%)"))
        try pane.keys("-")
        #expect(eventually { pane.screen().contains("♩=95 (95%)") }, "\(pane.screen())")
        try pane.keys("Space")
        #expect(eventually { pane.screen().contains("■ silent (no audio) · Ode to Joy") }, "\(pane.screen())")
        let here = try #require(ScreenText.bar(in: pane.screen()))
        try pane.keys("[")
        #expect(eventually { pane.screen().contains("press ] at its last bar") }, "\(pane.screen())")
        try pane.keys("Right")
        try pane.keys("Right")
        try pane.keys("]")
        #expect(eventually { pane.screen().contains("loop \(here)–\(here + 2)") }, "\(pane.screen())")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0)
        #expect(pane.ttyRestored, "stty -g differs after q")
        #expect(pane.stderr.contains("no audio device"))
    }

    /// The first minutes of a learner at 80×24 with no audio device: the screen says it is
    /// silent, the footer keeps `? help` and `q quit`, `M` takes watch mode to wait mode, and a
    /// play-mode pass begins with its count-in, shown in the header.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func at80x24SilentFooterModeSwitchAndCountIn() throws {
        let etude = try Etude()
        let pane = try TmuxPane(etude: etude, ["practice", Self.ode], width: 80, height: 24)
        var screen = pane.waitFor { $0.contains("mode: watch") }
        let lines = { (s: String) in s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        #expect(lines(screen).first?.contains("silent (no audio) · Ode to Joy") == true, "\(screen)")
        #expect(lines(screen).count >= 24 && lines(screen)[23].contains("? help") && lines(screen)[23].contains("q quit"), "\(screen)")
        try pane.keys("M")
        screen = pane.waitFor { $0.contains("mode: wait") }
        #expect(screen.contains("mode: wait"), "\(screen)")
        #expect(lines(screen)[23].contains("q quit"), "\(screen)")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)

        let play = try TmuxPane(etude: etude, ["practice", Self.ode, "--mode", "play", "--tempo", "50%"], width: 80, height: 24)
        screen = play.waitFor { $0.contains("count-in") }
        let header = lines(screen).first ?? ""
        #expect(header.contains("count-in ") && header.contains("/4 → bar 1/16"), "\(screen)")
        // The count-in leads into bar 1 (4 beats at ♩=50: 4.8 s).
        screen = play.waitFor(15) { $0.contains("bar 1:") }
        #expect(screen.contains("bar 1:") && !screen.contains("count-in"), "\(screen)")
        try play.keys("q")
        #expect(play.exitStatus() == 0 && play.ttyRestored)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason),
          arguments: [("TERM", Int32(15)), ("INT", Int32(2)), ("HUP", Int32(1))])
    func signalsRestoreTheTerminal(name: String, number: Int32) throws {
        let pane = try Self.practice(try Etude(), [Self.ode])
        #expect(eventually { (ScreenText.bar(in: pane.screen()) ?? 0) >= 1 }, "\(pane.screen())")
        let pid = try #require(pane.pid)
        #expect(kill(pid, number) == 0)
        #expect(pane.exitStatus() == 128 + number, "SIG\(name)")
        #expect(pane.ttyRestored, "stty -g differs after SIG\(name)")
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func ctrlCQuitsWith130AndRestoresTheTerminal() throws {
        let pane = try Self.practice(try Etude(), [Self.ode])
        #expect(eventually { (ScreenText.bar(in: pane.screen()) ?? 0) >= 1 }, "\(pane.screen())")
        try pane.keys("C-c")
        #expect(pane.exitStatus() == 130)
        #expect(pane.ttyRestored)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func aTooSmallTerminalSaysSoAndPracticeResumesWhenEnlarged() throws {
        let pane = try Self.practice(try Etude(), [Self.ode])
        #expect(eventually { pane.screen().contains("Ode to Joy") }, "\(pane.screen())")
        try pane.resize(width: 50, height: 12)
        #expect(eventually { pane.screen().contains("Terminal too small: 50×12") }, "\(pane.screen())")
        try pane.resize(width: 100, height: 30)
        #expect(eventually { pane.screen().contains("Ode to Joy") && pane.screen().contains("bar ") }, "\(pane.screen())")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0)
        #expect(pane.ttyRestored)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func ctrlZPausesAndTheScreenComesBackAfterContinue() throws {
        let pane = try Self.practice(try Etude(), [Self.ode])
        #expect(eventually { pane.screen().contains("▶ silent (no audio) · Ode to Joy") }, "\(pane.screen())")
        let pid = try #require(pane.pid)
        try pane.keys("C-z")
        #expect(eventually { !pane.screen().contains("Ode to Joy") }, "the terminal is handed back while stopped: \(pane.screen())")
        #expect(kill(pid, SIGCONT) == 0)
        #expect(eventually { pane.screen().contains("■ silent (no audio) · Ode to Joy") }, "redrawn, paused: \(pane.screen())")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0)
        #expect(pane.ttyRestored)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func playOnATerminalUsesTheScreenAndEndsWithThePiece() throws {
        let etude = try Etude()
        // Four quarter notes at 120 BPM, then four more: 4 s.
        let tune = try etude.home.write("short.abc", "X:1\nT:Short Tune\nM:4/4\nL:1/4\nQ:1/4=120\nK:C\nCDEF|GABc|\n")
        let pane = try TmuxPane(etude: etude, ["play", tune])
        #expect(eventually { pane.screen().contains("▶ silent (no audio) · Short Tune") }, "\(pane.screen())")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        #expect(pane.ttyRestored)
    }

    @Test func aBadPlanIsOneLineBeforeTheScreenOpens() throws {
        let etude = try Etude()
        let r = try etude.run(["practice", Self.ode, "--bars", "40-44"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("etude: --bars 40-44: "), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stdout.isEmpty)
        let names = try etude.run(["practice", Self.ode, "--note-names", "german"])
        #expect(names.status == 1)
        #expect(names.stderr == "etude: --note-names german: use scientific (middle C = C4) or yamaha (middle C = C3)\n")
        let notty = try etude.run(["practice", Self.ode])
        #expect(notty.status == 1)
        #expect(notty.stderr.contains("the practice screen needs a terminal"), "\(notty.stderr)")
    }
}

/// `etude practice --mode …` on a real pseudo-terminal (tmux), silent: the learner plays a
/// Level 1 lesson from the computer keyboard or a FIFO and the results panel shows the pass.
/// Wait mode (and a wide window in play mode) keeps these independent of machine speed.
@Suite(.serialized) struct PracticeModesTests {
    static var lesson: String { Repo.lesson("level1/c-major-five-finger-parallel.mid") }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func waitModeFromTheComputerKeyboardShowsAPerfectResultsPanel() throws {
        let pane = try PracticeScreenTests.practice(try Etude(), [Self.lesson, "--hand", "right", "--bars", "1-1", "--repeat", "1", "--mode", "wait", "--input", "keys"])
        #expect(eventually { pane.screen().contains("mode: wait") }, "\(pane.screen())")
        // Bar 1 of the right hand: C D E F = a s d f on the computer keyboard.
        try MIDIBytes.playFirstBar(pane)
        #expect(eventually(30) { ScreenText.figures(pane.screen()) != nil }, "\(pane.screen())")
        let f = ScreenText.figures(pane.screen())
        #expect(f?["hit"] == 4, "\(pane.screen())")
        #expect(f?["missed"] == 0 && f?["wrong"] == 0)
        #expect(pane.screen().contains("accuracy 100"), "\(pane.screen())")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        #expect(pane.ttyRestored)
    }

    /// `v` shows the grand staff while the piece plays; in wait mode a wrong key turns the note
    /// the learner owed red on it (and marks it ×, for terminals without colour).
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theStaffFollowsPlayingAndShowsAWrongNoteInRed() throws {
        let etude = try Etude()
        let watch = try PracticeScreenTests.practice(etude, [Self.lesson])
        #expect(eventually { watch.screen().contains("mode: watch") }, "\(watch.screen())")
        try watch.keys("v")
        // The grand staff: its brace, the treble and bass clefs' marks, a fingered note.
        var screen = watch.waitFor { $0.contains("⎧") && $0.contains("⎩") && $0.contains("●1") }
        #expect(screen.contains("⎧") && screen.contains("⎩") && screen.contains("●1"), "\(screen)")
        #expect(eventually { (ScreenText.bar(in: watch.screen()) ?? 0) >= 2 }, "it plays on with the staff shown: \(watch.screen())")
        try watch.keys("q")
        #expect(watch.exitStatus() == 0 && watch.ttyRestored)

        let wait = try PracticeScreenTests.practice(etude, [Self.lesson, "--hand", "right", "--mode", "wait", "--input", "keys"])
        #expect(eventually { wait.screen().contains("mode: wait") }, "\(wait.screen())")
        try wait.keys("v")
        screen = wait.waitFor { $0.contains("⎧") && $0.contains("●1") }
        #expect(!screen.contains("×1"))
        // Bar 1 wants C4 (a); s is D4.
        try wait.keys("s")
        screen = wait.waitFor { $0.contains("×1") }
        #expect(screen.contains("×1"), "the owed C4 is marked wrong: \(screen)")
        let styled = wait.screenWithStyles()
        let red = ["38;5;167m", "38;2;225;55;55m", "31m", "91m"]
        let line = styled.split(separator: "\n").first { $0.contains("×") } ?? ""
        #expect(red.contains { line.contains($0) }, "the wrong note is red: \(line)")
        try wait.keys("q")
        #expect(wait.exitStatus() == 0 && wait.ttyRestored)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func playModeFromTheComputerKeyboardScoresThePass() throws {
        // 72 BPM at 50 %: a quarter note every 1.67 s; the window is wide (±600 ms).
        let pane = try PracticeScreenTests.practice(try Etude(), [Self.lesson, "--hand", "right", "--bars", "1-1", "--repeat", "1", "--tempo", "50%",
                                                                  "--mode", "play", "--input", "keys", "--window", "600"])
        #expect(eventually { pane.screen().contains("mode: play") }, "\(pane.screen())")
        for key in ["a", "s", "d", "f"] {
            try pane.keys(key)
            usleep(1_666_000)
        }
        #expect(eventually(30) { ScreenText.figures(pane.screen()) != nil }, "\(pane.screen())")
        let f = try #require(ScreenText.figures(pane.screen()))
        // Every expected note is accounted for, hit or missed, whatever the machine's load.
        #expect((f["hit"] ?? 0) + (f["missed"] ?? 0) == 4, "\(pane.screen())")
        #expect(pane.screen().contains("accuracy"))
        #expect(pane.screen().contains("score"))
        try pane.keys("q")
        #expect(pane.exitStatus() == 0)
        #expect(pane.ttyRestored)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func fifoInputWritesOneReportLinePerPassAndItsEndIsShown() throws {
        let etude = try Etude()
        let fifo = etude.home.file("notes.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Held open for writing (O_RDWR never blocks on a FIFO) before etude opens it.
        let fd = open(fifo, O_RDWR | O_CLOEXEC)  // not inherited by tmux, so closing it ends the input
        #expect(fd >= 0)
        let report = etude.home.file("passes.jsonl")
        func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        let pane = try PracticeScreenTests.practice(etude, [Self.lesson, "--hand", "right", "--bars", "1-1", "--repeat", "1", "--mode", "wait",
                                                            "--input", fifo, "--report", report])
        #expect(eventually { pane.screen().contains("mode: wait") }, "\(pane.screen())")
        MIDIBytes.playFirstBar(fd)
        #expect(eventually(30) { read(report).hasSuffix("\n") }, "\(pane.screen())")
        let lines = read(report).split(separator: "\n")
        #expect(lines.count == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(json["hit"] as? Int == 4)
        #expect(json["missed"] as? Int == 0)
        #expect(json["wrong"] as? Int == 0)
        #expect(json["extra"] as? Int == 0)
        #expect(json["accuracy"] as? Double == 100)
        #expect(json["score"] as? Double == 100)
        #expect(json["timingMeanMs"] != nil && json["timingSdMs"] != nil)
        #expect((json["sections"] as? [[String: Any]])?.isEmpty == false)
        #expect(eventually { ScreenText.figures(pane.screen())?["hit"] == 4 }, "\(pane.screen())")
        // The writer closes the FIFO: a message, and the screen carries on.
        close(fd)
        #expect(eventually { pane.screen().lowercased().contains("closed") || pane.screen().lowercased().contains("ended") },
                "\(pane.screen())")
        #expect(pane.screen().contains("mode: wait"))
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        #expect(pane.ttyRestored)
    }

    @Test func badPlayingOptionsAreOneLineBeforeTheScreenOpens() throws {
        let etude = try Etude()
        let cases: [([String], String)] = [
            (["--mode", "fast"], "etude: --mode fast: use watch, wait, play or memory\n"),
            (["--window", "abc"], "etude: --window abc: give the timing window in milliseconds, 10–2000 (e.g. 150)\n"),
            (["--threshold", "120"], "etude: --threshold 120: give an accuracy percent 0–100 (e.g. 90)\n"),
        ]
        for (args, message) in cases {
            let r = try etude.run(["practice", Self.lesson] + args)
            #expect(r.status == 1)
            #expect(r.stderr == message)
            #expect(r.stdout.isEmpty)
        }
    }
}

/// The history hooks through the CLI: passes recorded, resume state saved and replayed, a loop
/// saved from the practice screen (`s`) and recalled by `etude loop --saved`.
@Suite(.serialized) struct PracticeHistoryTests {
    static var ode: String { PracticeScreenTests.ode }

    @Test func loopPlaysEveryPassAndRecordsThemAndTheResumeState() throws {
        let etude = try Etude()
        let r = try etude.run(["loop", Self.ode, "2-3", "--tempo", "400%", "--repeat", "2", "--hand", "right", "--other", "mute",
                               "--metronome"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "pass 1: bars 2–3 at 400%, 1.2 s\npass 2: bars 2–3 at 400%, 1.2 s\n", "\(r.stdout)")
        #expect(r.stderr.contains("no audio device"))
        let stats = try etude.run(["stats", Self.ode, "--json"])
        #expect(stats.stdout.contains("\"passes\":2,\"scoredPasses\":0"), "\(stats.stdout)")
        let resume = try etude.run(["resume", "--json"])
        #expect(resume.stdout.contains("\"hand\":\"right\""), "\(resume.stdout)")
        #expect(resume.stdout.contains("\"tempoPercent\":400"))
        #expect(resume.stdout.contains("\"loop\":{\"firstBar\":2,\"lastBar\":3"))
        #expect(resume.stdout.contains("\"mode\":\"watch\""))
        #expect(resume.stdout.contains("\"otherHand\":\"mute\"") && resume.stdout.contains("\"metronome\":true"), "\(resume.stdout)")
        let shown = try etude.run(["resume", "--show"])
        #expect(shown.stdout.contains("Hand:     right (other hand: mute)") && shown.stdout.contains("Tempo:    400%, metronome on"),
                "\(shown.stdout)")
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func sSavesTheLoopThatLoopSavedRecallsAndResumeReopensThePracticeState() throws {
        let etude = try Etude()
        do {
            let pane = try PracticeScreenTests.practice(etude, [Self.ode, "--bars", "2-3", "--tempo", "70%", "--hand", "right"])
            #expect(eventually { pane.screen().contains("loop 2–3") }, "\(pane.screen())")
            try pane.keys("s")
            #expect(eventually { pane.screen().contains("saved loop \"bars 2-3 at 70%, right hand\"") }, "\(pane.screen())")
            try pane.keys("q")
            #expect(pane.exitStatus() == 0 && pane.ttyRestored)
        }

        let listed = try etude.run(["loops", "list", Self.ode])
        #expect(listed.stdout.contains("bars 2-3 at 70%, right hand"), "\(listed.stdout)\(listed.stderr)")
        let recalled = try etude.run(["loop", Self.ode, "--saved", "bars 2-3 at 70%, right hand", "--dry-run"])
        #expect(recalled.status == 0, "\(recalled.stderr)")
        #expect(recalled.stdout.contains("bars 2–3, right hand"), "\(recalled.stdout)")
        #expect(recalled.stdout.contains("pass 1: 70%"), "\(recalled.stdout)")
        let missing = try etude.run(["loop", Self.ode, "--saved", "nope", "--dry-run"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("etude: --saved nope: no saved loop of that name for this lesson (saved: \"bars 2-3 at 70%, right hand\")"))

        // resume --play opens the practice screen with the saved hand, tempo and loop.
        let resumed = try TmuxPane(etude: etude, ["resume", "--play"])
        #expect(eventually { resumed.screen().contains("(70%)") && resumed.screen().contains("hand: right") && resumed.screen().contains("loop 2–3") },
                "\(resumed.screen())")
        try resumed.keys("q")
        #expect(resumed.exitStatus() == 0 && resumed.ttyRestored)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func shiftLOnThePracticeScreenRecallsASavedLoopAndResumeNamesIt() throws {
        let etude = try Etude()
        let saved = try etude.run(["loops", "save", Self.ode, "hard bit", "--bars", "3-4", "--hand", "left", "--tempo", "60%",
                                   "--other-hand", "mute"])
        #expect(saved.status == 0, "\(saved.stderr)")
        let pane = try PracticeScreenTests.practice(etude, [Self.ode])
        #expect(eventually { pane.screen().contains("hand: both") }, "\(pane.screen())")
        try pane.keys("L")
        #expect(eventually {
            let s = pane.screen()
            return s.contains("loop 3–4") && s.contains("hand: left") && s.contains("(60%)")
        }, "\(pane.screen())")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)
        let resume = try etude.run(["resume", "--json"])
        #expect(resume.stdout.contains("\"hand\":\"left\"") && resume.stdout.contains("\"tempoPercent\":60"), "\(resume.stdout)")
        #expect(resume.stdout.contains("\"loop\":{\"firstBar\":3,\"lastBar\":4,\"name\":\"hard bit\"}"), "\(resume.stdout)")
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func practiceLeftMidPassStillCountsItsTime() throws {
        let etude = try Etude()
        let pane = try PracticeScreenTests.practice(etude, [Self.ode])
        #expect(eventually { pane.screen().contains("bar 3:") }, "\(pane.screen())")   // 4+ s into the piece
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)
        let stats = try etude.run(["stats", Self.ode, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], "\(stats.stdout)")
        #expect(json["passes"] as? Int == 0 && json["scoredPasses"] as? Int == 0, "\(stats.stdout)")
        #expect((json["totalSeconds"] as? Double ?? 0) >= 3, "\(stats.stdout)")
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func practicePassesGoToTheHistory() throws {
        let etude = try Etude()
        let pane = try PracticeScreenTests.practice(etude, [Self.ode, "--bars", "1-1", "--tempo", "400%"])
        #expect(eventually { pane.screen().contains("loop 1 ×2") }, "\(pane.screen())")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)
        let stats = try etude.run(["stats", Self.ode, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], "\(stats.stdout)")
        #expect((json["passes"] as? Int ?? 0) >= 2, "\(stats.stdout)")
    }
}
