import Foundation
import Store
import Testing
import TestSupport

/// What a learner trips on at 80×24 (issue 27): one-line players that stay on one row, titles
/// that keep their key, `g` to a bar, the speed trainer's panel, resume in bars.
@Suite(.serialized) struct NewcomerWalkTests {
    static var ode: String { Repo.lesson("level4/ode-to-joy.mid") }
    static let fiveFinger = "C major five-finger position: parallel motion"

    static func rows(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// A routine's status is redrawn on one row, cut to 80 columns; its summary wraps between
    /// words, never inside one.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func routineStatusStaysOnOneRowAndTheSummaryWrapsBetweenWords() throws {
        let etude = try Etude()
        let made = try etude.run(["routine", "new", "warm-up", "--entry", "lesson=\(Self.fiveFinger);minutes=0.08;pause=2"])
        try #require(made.status == 0, "\(made.stderr)")
        let pane = try TmuxPane(etude: etude, ["routine", "run", "warm-up"], width: 80, height: 24)
        var playingSeen = false
        for _ in 0..<40 {
            let screen = pane.screen()
            let rows = Self.rows(screen)
            #expect(rows.filter { $0.hasPrefix("Next: 1/1") }.count <= 1, "the countdown redraws in place: \(screen)")
            let status = rows.filter { $0.hasPrefix("1/1 C major five-finger") }
            #expect(status.count <= 1, "the status redraws in place: \(screen)")
            // The title is what is cut: the clock and the keys stay in view.
            if let row = status.first, !playingSeen { playingSeen = row.hasSuffix("[→ skip, q quit]") && row.contains(" / 0:") }
            if screen.contains("EXIT=") { break }
            usleep(250_000)
        }
        #expect(playingSeen, "the entry's status was shown")
        let screen = pane.waitFor { $0.contains("EXIT=") }
        #expect(screen.contains("EXIT=0"), "\(screen)")
        let rows = Self.rows(screen)
        let start = try #require(rows.firstIndex { $0.hasPrefix("Played 1/1") }, "\(screen)")
        let summary = rows[start...].prefix { !$0.hasPrefix("Routine") }
        #expect(summary.count >= 2, "the summary is longer than a row: \(screen)")
        let words = "Played 1/1 \(Self.fiveFinger):".split(separator: " ").map(String.init) + ["faded", "out"]
        for w in words {
            #expect(summary.contains { $0.split(separator: " ").map(String.init).contains(w) }, "\(w) is whole on a row: \(summary)")
        }
        #expect(screen.contains("Routine warm-up done."))
    }

    /// `etude loop` and `etude play --no-screen` at 80 columns: one status row, updated in place.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func loopAndPlayStatusLinesStayOnOneRow() throws {
        let etude = try Etude()
        for args in [["loop", Self.ode, "1-2"], ["play", Self.ode, "--no-screen"]] {
            let pane = try TmuxPane(etude: etude, args, width: 80, height: 24)
            let screen = pane.waitFor { $0.contains("[space pause") }
            usleep(1_500_000)
            let later = pane.screen()
            // One status row, and at 80 columns its keys are still in view.
            #expect(Self.rows(later).filter { $0.contains("[space pause") && $0.contains("q quit]") }.count == 1, "\(args[0]): \(screen)\n---\n\(later)")
            #expect(Self.rows(later).allSatisfy { $0.count <= 80 })
            try pane.keys("q")
            #expect(pane.exitStatus() == 0 && pane.ttyRestored)
        }
    }

    /// `etude record` at 80×24: which letters are notes, then one status row counted in place,
    /// and an ending that says what was written (no lesson to carry on).
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func recordSaysWhichLettersAreNotesAndCountsInPlace() throws {
        let etude = try Etude()
        let out = etude.home.file("mine.mid")
        let pane = try TmuxPane(etude: etude, ["record", "-o", out], width: 80, height: 24)
        var screen = pane.waitFor { $0.contains("● recording") }
        #expect(screen.contains("white keys: a = C4"), "\(screen)")
        try pane.keys("a", "s", "d")
        screen = pane.waitFor { $0.contains("3 notes") }
        usleep(1_200_000)
        screen = pane.screen()
        #expect(Self.rows(screen).filter { $0.hasPrefix("● recording") }.count == 1, "\(screen)")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)
        screen = pane.waitFor { $0.contains("EXIT=") }
        #expect(screen.contains("recorded 3 notes"), "\(screen)")
        #expect(!screen.contains("lesson"), "\(screen)")
    }

    /// `etude quiz` at 80×24: each question and its answer on rows of their own, none wider than
    /// the terminal, and the closing line in words.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func quizLinesFitTheTerminal() throws {
        let pane = try TmuxPane(etude: try Etude(), ["quiz", "intervals", "--questions", "2", "--input", "keys", "--seed", "3"], width: 80, height: 24)
        var screen = pane.waitFor { $0.contains("?") || $0.contains("play") }
        for _ in 0..<2 {
            try pane.keys("a")
            usleep(900_000)
            try pane.keys("k")
            usleep(1_500_000)
        }
        screen = pane.waitFor(20) { $0.contains("EXIT=") }
        #expect(pane.exitStatus() == 0 && pane.ttyRestored, "\(screen)")
        let rows = Self.rows(pane.joinedScreen())
        #expect(rows.allSatisfy { $0.count <= 80 }, "\(screen)")
        #expect(screen.contains("%"), "\(screen)")
    }

    /// `etude calibrate` on lines (its input a FIFO, stdin no terminal): the beat counts on one
    /// row, in place.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func calibrateOnLinesCountsTheBeatsInPlace() throws {
        let etude = try Etude()
        let fifo = etude.home.file("taps.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let fd = open(fifo, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let pane = try TmuxPane(etude: etude, ["calibrate", "--input", fifo, "--beats", "8"], width: 80, height: 24, stdinFrom: "/dev/null")
        var sawBeat = false
        for _ in 0..<60 {
            let screen = pane.screen()
            let beats = Self.rows(screen).filter { $0.hasPrefix("beat ") }
            #expect(beats.count <= 1, "the beat is redrawn in place: \(screen)")
            if !beats.isEmpty { sawBeat = true }
            if screen.contains("EXIT=") { break }
            usleep(200_000)
        }
        #expect(sawBeat, "\(pane.screen())")
        #expect(pane.exitStatus() != nil)
    }

    /// Searching "minuet" at 80 columns: the G and its major or minor survive the fitting.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theBrowserKeepsTheKeyOfEachMinuet() throws {
        let pane = try TmuxPane(etude: try Etude(), [], width: 80, height: 24)
        _ = pane.waitFor { $0.contains("Etude — lessons") }
        try pane.type("minuet")
        let screen = pane.waitFor { $0.contains("Search: minuet") && $0.contains("G minor") }
        #expect(screen.contains("Minuet in G major") && screen.contains("Minuet in G minor"), "\(screen)")
        #expect(!screen.contains("Etude curriculum") && !screen.contains("Menuet"), "\(screen)")
        try pane.keys("C-q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)
    }

    /// `g` 12 Enter goes to bar 12; where letters are notes (wait mode on the computer
    /// keyboard) Alt-g and F10 do it.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func gThenABarNumberAndEnterGoesToThatBar() throws {
        let etude = try Etude()
        let pane = try TmuxPane(etude: etude, ["practice", Self.ode], width: 80, height: 24)
        _ = pane.waitFor { $0.contains("mode: watch") }
        try pane.keys("Space")
        try pane.keys("g")
        var screen = pane.waitFor { $0.contains("go to bar:") }
        #expect(screen.contains("go to bar:"), "the prompt shows: \(screen)")
        try pane.keys("1", "2", "Enter")
        screen = pane.waitFor { ScreenText.bar(in: $0) == 12 }
        #expect(ScreenText.bar(in: screen) == 12, "\(screen)")
        try pane.keys("g", "9", "9", "Enter")
        screen = pane.waitFor { $0.contains("the lesson has 16 bars") }
        #expect(screen.contains("bar 99: the lesson has 16 bars"), "\(screen)")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)

        let wait = try TmuxPane(etude: etude, ["practice", Self.ode, "--mode", "wait", "--input", "keys"], width: 80, height: 24)
        _ = wait.waitFor { $0.contains("mode: wait") }
        try wait.keys("M-g")
        _ = wait.waitFor { $0.contains("go to bar:") }
        try wait.keys("5", "Enter")
        screen = wait.waitFor { ScreenText.bar(in: $0) == 5 }
        #expect(ScreenText.bar(in: screen) == 5, "Alt-g: \(screen)")
        try wait.keys("F10")
        _ = wait.waitFor { $0.contains("go to bar:") }
        try wait.keys("7", "Enter")
        screen = wait.waitFor { ScreenText.bar(in: $0) == 7 }
        #expect(ScreenText.bar(in: screen) == 7, "F10: \(screen)")
        try wait.keys("q")
        #expect(wait.exitStatus() == 0 && wait.ttyRestored)
    }

    /// The `?` help names which F-key does what, and every key it lists.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theHelpNamesTheFunctionKeys() throws {
        let pane = try TmuxPane(etude: try Etude(), ["practice", Self.ode], width: 80, height: 24)
        _ = pane.waitFor { $0.contains("mode: watch") }
        try pane.keys("?")
        let screen = pane.waitFor { $0.contains("any key closes this help") }
        for text in ["go to bar N (F10)", "hand: both / right / left (F2)", "(F9)", "v", "view: falling notes / staff / both"] {
            #expect(screen.contains(text), "\(text): \(screen)")
        }
        try pane.keys("q", "q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)
    }

    /// A play-mode pass with the speed trainer: the panel says whether the tempo steps up and
    /// the accuracy it needs.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theSpeedTrainerPanelSaysWhatComesNext() throws {
        let pane = try TmuxPane(etude: try Etude(), ["practice", Self.ode, "--mode", "play", "--bars", "1-1", "--speed-trainer", "60:100:10",
                                                     "--repeat", "3"], width: 80, height: 24)
        let screen = pane.waitFor(30) { $0.contains("speed trainer:") }
        #expect(screen.contains("speed trainer: stays at 60 % (accuracy 0 %, needed 90 %)"), "\(screen)")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0 && pane.ttyRestored)
    }

    /// A score with repeats is counted as printed, as the practice header counts it, with the
    /// bars played beside; `etude score --bars` reads printed bars too.
    @Test func aScoreIsCountedInPrintedBarsEverywhere() throws {
        let etude = try Etude()
        let score = Repo.lesson("level4/minuet-in-g-score.musicxml")
        let info = try etude.run(["info", score])
        #expect(info.stdout.contains("Bars:      16 as printed (32 played, with the repeats)"), "\(info.stdout)")
        let printed = try etude.run(["score", score, "--bars", "9-9@2", "--width", "80"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let refused = try etude.run(["score", score, "--bars", "20"])
        #expect(refused.status != 0 && refused.stderr.contains("the score has no bar 20 (its bars are numbered 1–16)"), "\(refused.stderr)")
    }

    /// `etude resume --show` says the bar, as the lesson numbers it.
    @Test func resumeShowSaysTheBar() throws {
        let etude = try Etude()
        _ = try etude.run(["routine", "new", "r", "--entry", "lesson=\(Self.fiveFinger);bars=2-3;reps=1;pause=0"])
        let run = try etude.run(["routine", "run", "r", "--audio-driver", "no-such-driver"])
        try #require(run.status == 0, "\(run.stderr)")
        let shown = try etude.run(["resume", "--show"])
        #expect(shown.status == 0 && shown.stdout.contains("Position: bar "), "\(shown.stdout)\(shown.stderr)")
    }

    /// `--plan` then a run (same day, no seed): the run plays the plan's random picks.
    @Test func theRunAfterPlanPlaysWhatThePlanShowed() throws {
        let etude = try Etude()
        _ = try etude.run(["routine", "new", "rnd", "--entry", "random=level:2;reps=1;pause=0", "--entry", "random=level:2;reps=1;pause=0"])
        let plan = try etude.run(["routine", "run", "rnd", "--plan"])
        try #require(plan.status == 0, "\(plan.stdout)\(plan.stderr)")
        let again = try etude.run(["routine", "run", "rnd", "--plan"])
        #expect(plan.stdout == again.stdout, "the picks hold: \(plan.stdout)\n---\n\(again.stdout)")
    }
}
