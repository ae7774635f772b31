import Foundation
import Store
import Testing

/// `etude routine run` with entries to play (wait / play mode) on a real pseudo-terminal
/// (tmux), silent, the learner on the computer keyboard: the full practice screen per entry,
/// judged passes in the history, → and q, the terminal restored.
@Suite(.serialized) struct RoutinePracticeTerminalTests {
    typealias T = PracticeCommandTests
    static let lesson = "C major five-finger position: parallel motion"

    /// The pane's text with wrapped lines joined.
    static func joined(_ pane: T.Pane) -> String { (try? pane.run(["capture-pane", "-p", "-J", "-t", "t"])) ?? "" }

    /// Bar 1 of the right hand: C D E F = a s d f.
    static func playFirstBar(_ pane: T.Pane) throws {
        for key in ["a", "s", "d", "f"] {
            try pane.keys(key)
            usleep(300_000)
        }
    }

    @Test func waitEntriesArePlayedOnThePracticeScreenJudgedAndStored() throws {
        guard T.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = T.tempDir()
        let db = dir + "/db.sqlite"
        let made = try PracticeStoreTests.etude(["routine", "new", "daily",
            "--entry", "lesson=\(Self.lesson);hand=right;bars=1-1;mode=wait;reps=2",
            "--entry", "lesson=\(Self.lesson);hand=right;bars=1-1;mode=wait;minutes=0.05;pause=1",
            "--entry", "lesson=\(Self.lesson);hand=right;bars=1-1;mode=play;reps=3",
            "--entry", "lesson=\(Self.lesson);bars=1-1;pause=5",
            "--db", db], dir: dir)
        try #require(made.status == 0, "\(made.err)")
        let script = "stty -g > \(dir)/before; \(T.etude) routine run daily --db \(db) --audio-driver none 2> \(dir)/stderr; "
            + "echo $? > \(dir)/status; stty -g > \(dir)/after; sleep 60"
        let pane = try T.Pane(dir: dir, command: script)

        // 1: wait mode, two repetitions, each a judged pass.
        #expect(T.eventually { pane.screen().contains("1/4 0:0") && pane.screen().contains("mode: wait") }, "\(pane.screen())")
        #expect(pane.screen().contains("pass 1/2 · C major five-finger"), "\(pane.screen())")
        try Self.playFirstBar(pane)
        #expect(T.eventually(30) { pane.screen().contains("Pass 1 at 100%") }, "\(pane.screen())")
        #expect(PracticeModesTerminalTests.figures(pane.screen())?["hit"] == 4, "\(pane.screen())")
        try Self.playFirstBar(pane)
        #expect(T.eventually(30) { pane.screen().contains("Pass 2 at 100%") }, "\(pane.screen())")
        // 2: wait mode with a time limit; the learner plays nothing, the limit still ends it.
        #expect(T.eventually(30) { pane.screen().contains("2/4 0:0") }, "\(pane.screen())")
        // 3: play mode; → skips it.
        #expect(T.eventually(30) { pane.screen().contains("3/4 0:0") && pane.screen().contains("mode: play") }, "\(pane.screen())")
        try pane.keys("Right")
        // 4: a watch entry; q in its countdown ends the routine.
        #expect(T.eventually(30) { pane.screen().contains("Next: 4/4") }, "\(pane.screen())")
        try pane.keys("q")
        let (status, restored) = T.ended(dir)
        #expect(status == "0\n", "\(T.read(dir + "/stderr"))")
        #expect(restored)

        let out = Self.joined(pane)
        let lines = out.split(separator: "\n").map(String.init)
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

        let store = try Store.open(path: db)
        let stored = try store.passes()
        // The two judged passes of entry 1; entry 2, cut by its limit while waiting, keeps its
        // time as an unfinished pass (no figures); entry 3, skipped at once, leaves nothing.
        let passes = stored.filter(\.complete)
        #expect(passes.map(\.mode) == ["wait", "wait"], "\(stored)")
        #expect(passes.allSatisfy { $0.hit == 4 && $0.missed == 0 && $0.wrong == 0 && $0.score == 100 && $0.hand == "right" })
        #expect(passes.allSatisfy { $0.firstBar == 1 && $0.lastBar == 1 && $0.tempoPercent == 100 })
        let unfinished = stored.filter { !$0.complete }
        #expect(unfinished.count == 1 && unfinished.first?.mode == "wait" && unfinished.first?.score == nil
                && unfinished.first?.hit == nil && (unfinished.first?.durationSeconds ?? 0) >= 1, "\(stored)")
    }

    /// SIGTERM while an entry is on the practice screen: the routine ends with 128+15, the
    /// history keeps what was finished, and the terminal is exactly restored.
    @Test func aSignalOnThePracticeScreenEndsTheRoutineAndRestoresTheTerminal() throws {
        guard T.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = T.tempDir()
        let db = dir + "/db.sqlite"
        let made = try PracticeStoreTests.etude(["routine", "new", "s",
            "--entry", "lesson=\(Self.lesson);hand=right;bars=1-1;mode=wait;reps=5",
            "--entry", "lesson=\(Self.lesson);bars=1-1",
            "--db", db], dir: dir)
        try #require(made.status == 0, "\(made.err)")
        let script = "stty -g > \(dir)/before; sh -c 'echo $$ > \(dir)/pid; exec \(T.etude) routine run s --db \(db) --audio-driver none 2> \(dir)/stderr'; "
            + "echo $? > \(dir)/status; stty -g > \(dir)/after; sleep 60"
        let pane = try T.Pane(dir: dir, command: script)
        #expect(T.eventually { pane.screen().contains("1/2 0:0") && pane.screen().contains("mode: wait") }, "\(pane.screen())")
        try Self.playFirstBar(pane)
        #expect(T.eventually(30) { pane.screen().contains("Pass 1 at 100%") }, "\(pane.screen())")
        let pid = try #require(Int32(T.read(dir + "/pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, SIGTERM)
        let (status, restored) = T.ended(dir)
        #expect(status == "143\n", "\(T.read(dir + "/stderr"))")
        #expect(restored)
        let out = Self.joined(pane)
        #expect(out.contains("Played 1/2 \(Self.lesson) (wait): "), "\(out)")
        #expect(out.contains("1 judged pass, score 100 (best 100), cut short"), "\(out)")
        #expect(out.contains("Routine ended early."))
        #expect(!out.contains("Played 2/2"))
        let stored = try Store.open(path: db).passes()
        let passes = stored.filter(\.complete)
        #expect(passes.map(\.mode) == ["wait"], "\(stored)")
        #expect(passes.first?.score == 100)
        // Pass 2 was under way: at most its time is kept, never a score.
        #expect(stored.filter { !$0.complete }.allSatisfy { $0.score == nil && $0.hit == nil }, "\(stored)")
    }
}
