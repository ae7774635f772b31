import Foundation
import Store
import Testing
import TestSupport

/// `etude` with no arguments in a real terminal emulator (tmux): the browser lists the
/// built-in lessons, typing filters them, Enter opens the selected lesson on the practice
/// screen and q there comes back, routines run from it, and the terminal is restored afterwards.
@Suite("Browser in a pseudo-terminal (tmux)")
struct BrowserTests {
    static func header(_ screen: String) -> String {
        var line = String(screen.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        while line.last == " " { line.removeLast() }
        return line
    }

    /// `etude` (no arguments) in a pane, with its own database and the built-in lessons.
    static func browser(_ etude: Etude, width: Int = 120) throws -> TmuxPane {
        try TmuxPane(etude: etude, [], width: width, height: 30)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func typeToSearchThenEnterOpensTheLessonAndRestoresTheTerminal() throws {
        let pane = try Self.browser(try Etude(), width: 200)
        var screen = pane.waitFor { $0.contains("Etude — lessons") && $0.contains("Minuet in G minor") }
        try #require(screen.contains("Etude — lessons"), "the browser opened: \(screen)")
        #expect(screen.contains("C major five-finger position"), "the built-in lessons are listed")

        try pane.type("minuet in g maj")
        // Two match: the minuet as a lesson and as a score.
        screen = pane.waitFor { $0.contains("Search: minuet in g maj") && Self.header($0).hasSuffix(" 2 lessons") }
        #expect(screen.contains("Search: minuet in g maj"))
        #expect(screen.contains("Minuet in G major, BWV Anh. 114 (first half)") && screen.contains("Score: Minuet in G major, BWV Anh. 114"),
                "the matches are listed: \(screen)")
        #expect(!screen.contains("Minuet in G minor") && !screen.contains("C major five-finger"), "the list is filtered: \(screen)")
        #expect(Self.header(screen).hasSuffix(" 2 lessons"), "the header counts two lessons")

        try pane.keys("Enter")  // the lesson (the score, "Score: Minuet…", sorts after it)
        // Enter asks how to practise it: watch, with both hands, the first time.
        screen = pane.waitFor { $0.contains("Practise Minuet in G major") }
        #expect(screen.contains("mode  [watch]") && screen.contains("hand  [both]"), "the choice opened: \(screen)")
        try pane.keys("Enter")
        // The practice screen opens on the lesson; q there comes back to the browser as it was.
        screen = pane.waitFor { $0.contains("Minuet in G major") && !$0.contains("Search: ") && $0.contains("bar ") }
        #expect(screen.contains("bar ") && !screen.contains("Search: "), "the practice screen opened: \(screen)")
        #expect(screen.contains("mode: watch"), "\(screen)")
        try pane.keys("q")
        screen = pane.waitFor { $0.contains("Search: minuet in g maj") && Self.header($0).hasSuffix(" 2 lessons") }
        #expect(screen.contains("Search: minuet in g maj") && screen.contains("Minuet in G major, BWV Anh. 114"),
                "back in the browser with the same search: \(screen)")
        #expect(!pane.ended, "etude is still running")

        try pane.keys("C-q")
        screen = pane.waitFor { $0.contains("EXIT=") }
        #expect(screen.contains("EXIT=0"), "etude ended: \(screen)")
        #expect(!screen.contains("Search: "), "the browser's screen is gone (alternate screen left)")
        #expect(pane.exitStatus() != nil && pane.ttyRestored, "terminal settings restored")
    }

    /// At 80×24 with no audio device: the header says the lessons will be silent, the footer
    /// keeps `? help` and `Esc quit`, and the titles that differ only at their end stay apart.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func at80x24TheBrowserSaysSilentKeepsQuitAndTellsTitlesApart() throws {
        let pane = try TmuxPane(etude: try Etude(), [], width: 80, height: 24)
        let screen = pane.waitFor { $0.contains("Etude — lessons") && $0.contains("five-finger") }
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Self.header(screen).hasPrefix(" Etude — lessons  silent (no audio)"), "\(screen)")
        let footer = lines.count >= 24 ? lines[23] : ""
        #expect(footer.contains("? help") && footer.contains("Esc quit"), "\(screen)")
        let family = lines.filter { $0.contains("A minor five-finger") }
        #expect(family.count == 3 && family.contains { $0.contains("contrary motion") } && family.contains { $0.contains("hands separately") }
                && family.contains { $0.contains("parallel motion") }, "\(screen)")
        try pane.keys("Escape")
        #expect(pane.waitFor { $0.contains("EXIT=") }.contains("EXIT=0"))
        #expect(pane.ttyRestored)
    }

    /// Ctrl-R lists the routines; Enter runs one (its lines stay until a key), then the browser
    /// comes back; Ctrl-Q leaves with the terminal as it was.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func aRoutineRunsFromTheBrowserAndTheBrowserComesBack() throws {
        let etude = try Etude()
        let made = try etude.run(["routine", "new", "quick", "--entry", "lesson=Ode to Joy;minutes=0.05"])
        try #require(made.status == 0, "\(made.stderr)")
        let pane = try Self.browser(etude)
        var screen = pane.waitFor { $0.contains("Etude — lessons") }
        try #require(screen.contains("Etude — lessons"), "\(screen)")
        try pane.keys("C-r")
        screen = pane.waitFor { $0.contains("Routines") && $0.contains("quick") }
        #expect(screen.contains("1 entry: Ode to Joy") && screen.contains("Enter runs it"), "\(screen)")
        try pane.keys("Enter")
        screen = pane.waitFor(30) { $0.contains("Press any key to go back to the lessons.") }
        #expect(screen.contains("Played 1/1 Ode to Joy"), "the routine's lines are shown: \(screen)")
        try pane.keys("x")
        screen = pane.waitFor { $0.contains("Etude — lessons") }
        #expect(screen.contains("Etude — lessons") && screen.contains("Search: "), "back in the browser: \(screen)")
        try pane.keys("C-q")
        screen = pane.waitFor { $0.contains("EXIT=") }
        #expect(screen.contains("EXIT=0"), "\(screen)")
        #expect(pane.exitStatus() != nil && pane.ttyRestored, "terminal settings restored")
        #expect(try Store.open(path: etude.database).passes().map(\.mode) == [.watch], "the routine's entry is in the history")
    }

    /// The resume line goes on where the learner stopped: the bar inside the loop, with the
    /// hand and tempo (as `etude resume`), not the loop's first bar.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theResumeLineOpensPracticeAtTheBarLeft() throws {
        let etude = try Etude()
        _ = try etude.run(["list"])   // catalogues the built-in lessons
        do {
            let store = try Store.open(path: etude.database)
            let ode = try store.resolveLesson("Ode to Joy")
            // Ode to Joy: ♩=100 in 4/4, 2.4 s a bar: 8.0 s is in bar 4.
            try store.saveResume(ResumeState(lessonID: ode.lesson.id, path: ode.path ?? "", positionSeconds: 8.0, hand: .right,
                                             tempoPercent: 50, mode: .watch, loopFirstBar: 3, loopLastBar: 5, loopName: "middle",
                                             otherHand: .quietDefault, metronome: true))
        }
        let pane = try Self.browser(etude)
        var screen = pane.waitFor { $0.contains("↻ Resume: Ode to Joy") }
        try #require(screen.contains("↻ Resume: Ode to Joy bar 4, right hand (other quiet), 50%, loop 3-5, metronome"), "\(screen)")
        // A level filter keeps it (Ode to Joy is level 4; the line is where the learner left off, whatever the list).
        try pane.keys("C-l")
        screen = pane.waitFor { Self.header($0).contains("level 1") }
        #expect(screen.contains("↻ Resume: Ode to Joy"), "\(screen)")
        try pane.keys("Home", "Enter")
        // The first frame of practice (at 50 % a bar lasts 4.8 s: bar 3 would still show).
        screen = pane.waitFor { $0.contains(" bar ") && !$0.contains("Search: ") }
        #expect(screen.contains("bar 4:") && screen.contains("(50%)") && screen.contains("hand: right") && screen.contains("loop 3–5"),
                "practice at the bar left, with the hand, tempo and loop: \(screen)")
        #expect(screen.contains("other: quiet") && screen.contains("metronome on"), "the other hand and the metronome as left: \(screen)")
        try pane.keys("q")
        _ = pane.waitFor { $0.contains("Etude — lessons") }
        try pane.keys("C-q")
        screen = pane.waitFor { $0.contains("EXIT=") }
        #expect(screen.contains("EXIT=0"), "\(screen)")
    }

    /// From the browser a learner plays along: Enter, → → for play mode, ↓ for the right hand,
    /// Enter; the pass begins with its count-in; the choice is remembered for the lesson.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func playAlongFromTheBrowserWithTheChoiceRemembered() throws {
        let etude = try Etude()
        let pane = try Self.browser(etude)
        var screen = pane.waitFor { $0.contains("Etude — lessons") }
        try pane.type("ode to joy")
        screen = pane.waitFor { Self.header($0).hasSuffix(" 1 lesson") }
        try pane.keys("Enter")
        screen = pane.waitFor { $0.contains("Practise Ode to Joy") }
        try pane.keys("Right", "Right", "Down")
        screen = pane.waitFor { $0.contains("mode   watch   wait  [play]") && $0.contains("hand   both  [right]") }
        #expect(screen.contains("real time, scored"), "\(screen)")
        try pane.keys("Enter")
        // The count-in: a bar of clicks (2.4 s at ♩=100) before bar 1 sounds, shown on the header.
        screen = pane.waitFor { $0.contains("mode: play") && $0.contains("hand: right") && $0.contains("count-in ") }
        #expect(screen.contains("mode: play") && screen.contains("hand: right"), "practice opened in play mode: \(screen)")
        #expect(screen.contains("count-in ") && screen.contains("→ bar 1/"), "\(screen)")
        #expect(screen.contains("notes: a w s e d f t g y h u j k"), "the footer shows which letters are notes: \(screen)")
        try pane.keys("F2")   // the hand switch while h is a note
        screen = pane.waitFor { $0.contains("hand: left") }
        #expect(screen.contains("hand: left"), "\(screen)")
        try pane.keys("q")
        screen = pane.waitFor { $0.contains("Etude — lessons") }
        try pane.keys("Enter")
        screen = pane.waitFor { $0.contains("Practise Ode to Joy") }
        #expect(screen.contains("[play]") && screen.contains("[right]"), "the choice is remembered: \(screen)")
        try pane.keys("Escape")
        screen = pane.waitFor { !$0.contains("Practise Ode to Joy") }
        #expect(!screen.contains("Practise Ode to Joy"), "Esc closes the choice: \(screen)")
        try pane.keys("C-q")
        screen = pane.waitFor { $0.contains("EXIT=") }
        #expect(screen.contains("EXIT=0") && pane.ttyRestored, "\(screen)")
    }

    @Test func withoutATerminalItPrintsTheHelp() throws {
        let r = try Etude().run([], extra: ["ETUDE_DB": "/nonexistent/x.sqlite"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("USAGE: etude") && r.stdout.contains("browse"))
    }
}
