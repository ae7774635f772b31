import Foundation
import Store
import Testing
import TestSupport

/// `etude routine run` end to end: the built-in lessons, no audio device, stdin not a terminal.
@Suite("routine run (process)")
struct RoutineRunTests {
    @Test func playsBothEntriesWithCountdownsFadeAndHistory() throws {
        let etude = try Etude()
        var r = try etude.run(["routine", "new", "short",
            "--entry", "lesson=C major five-finger position: parallel motion;bars=1-1;reps=1;pause=2",
            "--entry", "lesson=Minuet in G major;tempo=90;minutes=0.06;pause=1"])
        try #require(r.status == 0, "\(r.stderr)")
        r = try etude.run(["routine", "run", "short", "--audio-driver", "no-such-driver"])
        let out = r.stdout
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("no audio device (tried no-such-driver): continuing silently"))
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Next: 1/2 C major five-finger position: parallel motion in 2 s") }, "\(out)")
        #expect(lines.contains { $0.hasPrefix("Next: 1/2 C major five-finger position: parallel motion in 1 s") })
        #expect(lines.contains { $0.hasPrefix("Next: 2/2 Minuet in G major, BWV Anh. 114 (first half) in 1 s") })
        let first = try #require(lines.first { $0.hasPrefix("Played 1/2 C major five-finger position") })
        #expect(first.contains("1 pass") && !first.contains("faded"))
        let second = try #require(lines.first { $0.hasPrefix("Played 2/2 Minuet in G major") })
        #expect(second.contains("faded out"), "the time limit cut the minuet: \(second)")
        #expect(out.contains("Routine short done."))

        let store = try Store.open(path: etude.database)
        let passes = try store.passes()
        #expect(passes.count == 2)
        #expect(passes.allSatisfy { $0.mode.rawValue == "watch" })
        #expect(passes.map(\.tempoPercent) == [100, 90])
        #expect(passes.first?.firstBar == 1 && passes.first?.lastBar == 1)
        #expect((passes.last?.durationSeconds ?? 0) >= 3.0, "the minuet played to its limit")
    }

    @Test func planOnlyPrintsTheSchedule() throws {
        let etude = try Etude()
        _ = try etude.run(["routine", "new", "p", "--entry", "lesson=Minuet in G major;minutes=5"])
        let r = try etude.run(["routine", "run", "p", "--plan"])
        #expect(r.status == 0 && r.stdout.contains("1. [0:00] Minuet in G major") && !r.stdout.contains("Played"))
        let store = try Store.open(path: etude.database)
        #expect(try store.passes().isEmpty)
    }

    /// Without a terminal, a wait-mode entry is played on a MIDI input (a FIFO here): each
    /// repetition is a judged pass, printed and stored with mode "wait" and its figures; a
    /// play-mode entry the learner leaves alone is judged too (every note missed).
    @Test func waitAndPlayEntriesAreJudgedFromAFIFOAndStoredWithTheirScores() throws {
        let etude = try Etude()
        let lesson = "C major five-finger position: parallel motion"
        let made = try etude.run(["routine", "new", "played",
            "--entry", "lesson=\(lesson);hand=right;bars=1-1;mode=wait;reps=2",
            "--entry", "lesson=\(lesson);hand=right;bars=1-1;tempo=200;mode=play;reps=1"])
        try #require(made.status == 0, "\(made.stderr)")
        let fifo = etude.home.file("notes.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        // Held open for writing (O_RDWR never blocks on a FIFO) before etude opens it.
        let fd = open(fifo, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let run = try etude.start(["routine", "run", "played", "--input", fifo, "--audio-driver", "no-such-driver"])
        // Notes played before the entry starts go nowhere: wait for its turn.
        #expect(eventually(30) { run.stdout.contains("Your turn: 1/2 \(lesson) in wait mode on ") }, "\(run.stdout)\(run.stderr)")
        MIDIBytes.playFirstBar(fd)
        #expect(eventually(30) { run.stdout.contains("  pass 1: ") }, "\(run.stdout)\(run.stderr)")
        MIDIBytes.playFirstBar(fd)
        let status2 = run.wait(timeout: 60)
        let out = run.stdout
        #expect(status2 == 0, "\(run.stderr)")
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "  pass 1: score 100, accuracy 100%, hit 4 missed 0 wrong 0 extra 0" }.count == 1, "\(out)")
        #expect(lines.contains("  pass 2: score 100, accuracy 100%, hit 4 missed 0 wrong 0 extra 0"), "\(out)")
        let first = try #require(lines.first { $0.hasPrefix("Played 1/2 \(lesson) (wait): ") }, "\(out)")
        #expect(first.hasSuffix(", 2 judged passes, scores 100 100 (best 100)"), "\(first)")
        #expect(lines.contains("  pass 1: score 0, accuracy 0%, hit 0 missed 4 wrong 0 extra 0"), "\(out)")
        let second = try #require(lines.first { $0.hasPrefix("Played 2/2 \(lesson) (play): ") }, "\(out)")
        #expect(second.hasSuffix(", 1 judged pass, score 0 (best 0)"), "\(second)")
        #expect(out.contains("Routine played done."))

        let store = try Store.open(path: etude.database)
        let passes = try store.passes()
        #expect(passes.map(\.mode.rawValue) == ["wait", "wait", "play"])
        // The play pass in which nothing was played is a pass (stats count it), not a score of 0.
        #expect(passes.map(\.hit) == [4, 4, nil])
        #expect(passes.map(\.missed) == [0, 0, nil])
        #expect(passes.map(\.score) == [100, 100, nil])
        #expect(passes.map(\.complete) == [true, true, true])
        #expect(passes.allSatisfy { $0.hand == .right && $0.firstBar == 1 && $0.lastBar == 1 })
        #expect(passes.map(\.tempoPercent) == [100, 100, 200])
        let stats = try etude.run(["stats", "--json"]).stdout
        #expect(stats.contains("\"passes\":3,\"scoredPasses\":2"), "\(stats)")
        // `etude resume` goes on from the last entry played, in its mode, hand, tempo and bars.
        let resumed = try etude.run(["resume", "--json"])
        let resume = try #require(try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as? [String: Any], "\(resumed.stdout)\(resumed.stderr)")
        #expect(resume["title"] as? String == lesson && resume["mode"] as? String == "play" && resume["hand"] as? String == "right"
                && resume["tempoPercent"] as? Int == 200, "\(resume)")
        #expect((resume["loop"] as? [String: Any])?["firstBar"] as? Int == 1 && (resume["loop"] as? [String: Any])?["lastBar"] as? Int == 1, "\(resume)")
    }

    /// The computer keyboard cannot be played without a terminal: such entries are skipped
    /// with a line saying what to do, and the rest of the routine plays.
    @Test func aPlayedEntryWithoutATerminalOrMIDIInputIsSkippedWithTheFix() throws {
        let etude = try Etude()
        let lesson = "C major five-finger position: parallel motion"
        _ = try etude.run(["routine", "new", "k", "--entry", "lesson=\(lesson);bars=1-1;mode=wait",
                           "--entry", "lesson=\(lesson);bars=1-1;tempo=200"])
        let r = try etude.run(["routine", "run", "k", "--audio-driver", "no-such-driver"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Skipping \(lesson): wait mode needs you to play; run the routine in a terminal, or give --input midi or a FIFO"), "\(r.stdout)")
        #expect(r.stdout.contains("Played 2/2 \(lesson): "))
        let store = try Store.open(path: etude.database)
        #expect(try store.passes().map(\.mode.rawValue) == ["watch"])
        // Bad playing options are one line before anything plays.
        let bad = try etude.run(["routine", "run", "k", "--window", "5"])
        #expect(bad.status == 1 && bad.stderr == "etude: --window 5: give the timing window in milliseconds, 10–2000 (e.g. 150)\n", "\(bad.stderr)")
        let mode = try etude.run(["routine", "new", "m", "--entry", "lesson=\(lesson);mode=fast"])
        #expect(mode.status == 1 && mode.stderr.contains("mode=fast: use watch, wait, play or memory"), "\(mode.stderr)")
    }

    /// "N repetitions" of bars are planned as those bars at the entry's tempo, not the lesson.
    @Test func planTimesRepetitionsOfBarsAtTheEntrysTempo() throws {
        let etude = try Etude()
        // 72 BPM in 4/4: a bar is 3.33 s; at 50 % 6.67 s; three of them 20 s. The whole lesson is 33 s.
        _ = try etude.run(["routine", "new", "b", "--entry", "lesson=C major five-finger position: parallel motion;bars=2-2;tempo=50;reps=3;pause=5",
                           "--entry", "lesson=C major five-finger position: parallel motion;reps=1"])
        let r = try etude.run(["routine", "run", "b", "--plan"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("b: 2 steps, about 0:58\n"), "5 + 20 + 33 s: \(r.stdout)")
        #expect(r.stdout.contains("2. [0:25] C major five-finger position"), "\(r.stdout)")
    }
}

/// `etude routine run` with entries to play (wait / play mode) on a real pseudo-terminal
/// (tmux), silent, the learner on the computer keyboard: the full practice screen per entry,
/// judged passes in the history, → and q, the terminal restored.
@Suite(.serialized) struct RoutineRunOnATerminalTests {
    static let lesson = "C major five-finger position: parallel motion"

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func waitEntriesArePlayedOnThePracticeScreenJudgedAndStored() throws {
        let etude = try Etude()
        let made = try etude.run(["routine", "new", "daily",
            "--entry", "lesson=\(Self.lesson);hand=right;bars=1-1;mode=wait;reps=2",
            "--entry", "lesson=\(Self.lesson);hand=right;bars=1-1;mode=wait;minutes=0.05;pause=1",
            "--entry", "lesson=\(Self.lesson);hand=right;bars=1-1;mode=play;reps=3",
            "--entry", "lesson=\(Self.lesson);bars=1-1;pause=5"])
        try #require(made.status == 0, "\(made.stderr)")
        let pane = try TmuxPane(etude: etude, ["routine", "run", "daily", "--audio-driver", "none"])

        // 1: wait mode, two repetitions, each a judged pass.
        #expect(eventually { pane.screen().contains("1/4 0:0") && pane.screen().contains("mode: wait") }, "\(pane.screen())")
        #expect(pane.screen().contains("pass 1/2, C major five-finger"), "\(pane.screen())")
        try MIDIBytes.playFirstBar(pane)
        #expect(eventually(30) { pane.screen().contains("Pass 1 at 100%") }, "\(pane.screen())")
        #expect(ScreenText.figures(pane.screen())?["hit"] == 4, "\(pane.screen())")
        try MIDIBytes.playFirstBar(pane)
        #expect(eventually(30) { pane.screen().contains("Pass 2 at 100%") }, "\(pane.screen())")
        // 2: wait mode with a time limit; the learner plays nothing, the limit still ends it.
        #expect(eventually(30) { pane.screen().contains("2/4 0:0") }, "\(pane.screen())")
        // 3: play mode; → skips it.
        #expect(eventually(30) { pane.screen().contains("3/4 0:0") && pane.screen().contains("mode: play") }, "\(pane.screen())")
        try pane.keys("Right")
        // 4: a watch entry; q in its countdown ends the routine.
        #expect(eventually(30) { pane.screen().contains("Next: 4/4") }, "\(pane.screen())")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        #expect(pane.ttyRestored)

        let out = pane.joinedScreen()
        let lines = ScreenText.unwrapped(out)  // summaries wrap between words at the pane's width
        #expect(lines.contains("  pass 1: score 100, accuracy 100%, hit 4 missed 0 wrong 0 extra 0"), "\(out)")
        #expect(lines.contains("  pass 2: score 100, accuracy 100%, hit 4 missed 0 wrong 0 extra 0"), "\(out)")
        let first = try #require(lines.first { $0.hasPrefix("Played 1/4 \(Self.lesson) (wait): ") }, "\(out)")
        #expect(first.hasSuffix(", 2 judged passes, scores 100 100 (best 100)"), "\(first)")
        let second = try #require(lines.first { $0.hasPrefix("Played 2/4 \(Self.lesson) (wait): ") }, "\(out)")
        #expect(second.hasSuffix(", 0 judged passes, faded out"), "\(second)")
        let third = try #require(lines.first { $0.hasPrefix("Played 3/4 \(Self.lesson) (play): ") }, "\(out)")
        #expect(third.hasSuffix(", cut short"), "\(third)")
        #expect(!out.contains("Played 4/4"))
        #expect(out.contains("Routine ended early."))

        let store = try Store.open(path: etude.database)
        let stored = try store.passes()
        // The two judged passes of entry 1; entry 2, cut by its limit while waiting, keeps its
        // time as an unfinished pass (no figures); entry 3, skipped at once, leaves nothing.
        let passes = stored.filter(\.complete)
        #expect(passes.map(\.mode.rawValue) == ["wait", "wait"], "\(stored)")
        #expect(passes.allSatisfy { $0.hit == 4 && $0.missed == 0 && $0.wrong == 0 && $0.score == 100 && $0.hand == .right })
        #expect(passes.allSatisfy { $0.firstBar == 1 && $0.lastBar == 1 && $0.tempoPercent == 100 })
        let unfinished = stored.filter { !$0.complete }
        #expect(unfinished.count == 1 && unfinished.first?.mode.rawValue == "wait" && unfinished.first?.score == nil
                && unfinished.first?.hit == nil && (unfinished.first?.durationSeconds ?? 0) >= 1, "\(stored)")
    }

    /// SIGTERM while an entry is on the practice screen: the routine ends with 128+15, the
    /// history keeps what was finished, and the terminal is exactly restored.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func aSignalOnThePracticeScreenEndsTheRoutineAndRestoresTheTerminal() throws {
        let etude = try Etude()
        let made = try etude.run(["routine", "new", "s",
            "--entry", "lesson=\(Self.lesson);hand=right;bars=1-1;mode=wait;reps=5",
            "--entry", "lesson=\(Self.lesson);bars=1-1"])
        try #require(made.status == 0, "\(made.stderr)")
        let pane = try TmuxPane(etude: etude, ["routine", "run", "s", "--audio-driver", "none"])
        #expect(eventually { pane.screen().contains("1/2 0:0") && pane.screen().contains("mode: wait") }, "\(pane.screen())")
        try MIDIBytes.playFirstBar(pane)
        #expect(eventually(30) { pane.screen().contains("Pass 1 at 100%") }, "\(pane.screen())")
        let pid = try #require(pane.pid)
        kill(pid, SIGTERM)
        #expect(pane.exitStatus() == 143, "\(pane.stderr)")
        #expect(pane.ttyRestored)
        let out = ScreenText.unwrapped(pane.joinedScreen()).joined(separator: "\n")  // summaries wrap between words
        #expect(out.contains("Played 1/2 \(Self.lesson) (wait): "), "\(out)")
        #expect(out.contains("1 judged pass, score 100 (best 100), cut short"), "\(out)")
        #expect(out.contains("Routine ended early."))
        #expect(!out.contains("Played 2/2"))
        let stored = try Store.open(path: etude.database).passes()
        let passes = stored.filter(\.complete)
        #expect(passes.map(\.mode.rawValue) == ["wait"], "\(stored)")
        #expect(passes.first?.score == 100)
        // Pass 2 was under way: at most its time is kept, never a score.
        #expect(stored.filter { !$0.complete }.allSatisfy { $0.score == nil && $0.hit == nil }, "\(stored)")
    }
}
