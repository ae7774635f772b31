import Foundation
import Testing

/// `etude practice --mode …` on a real pseudo-terminal (tmux), silent: the learner plays a
/// Level 1 lesson from the computer keyboard or a FIFO and the results panel shows the pass.
/// Wait mode (and a wide window in play mode) keeps these independent of machine speed.
@Suite(.serialized) struct PracticeModesTerminalTests {
    typealias T = PracticeCommandTests
    static var lesson: String { T.repoRoot.appendingPathComponent("Lessons/level1/c-major-five-finger-parallel.mid").path }

    /// "hit N   missed M   wrong W   extra E" from the results panel.
    static func figures(_ screen: String) -> [String: Int]? {
        guard let r = screen.range(of: #"hit \d+ +missed \d+ +wrong \d+ +extra \d+"#, options: .regularExpression) else { return nil }
        let words = screen[r].split(separator: " ")
        var out: [String: Int] = [:]
        var i = 0
        while i + 1 < words.count {
            out[String(words[i])] = Int(words[i + 1])
            i += 2
        }
        return out
    }

    @Test func waitModeFromTheComputerKeyboardShowsAPerfectResultsPanel() throws {
        guard T.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = T.tempDir()
        let pane = try T.Pane(dir: dir, command: T.script(dir, "\(Self.lesson) --hand right --bars 1-1 --repeat 1 --mode wait --input keys"))
        #expect(T.eventually { pane.screen().contains("mode: wait") }, "\(pane.screen())")
        // Bar 1 of the right hand: C D E F = a s d f on the computer keyboard.
        for key in ["a", "s", "d", "f"] {
            try pane.keys(key)
            usleep(300_000)
        }
        #expect(T.eventually(30) { Self.figures(pane.screen()) != nil }, "\(pane.screen())")
        let f = Self.figures(pane.screen())
        #expect(f?["hit"] == 4, "\(pane.screen())")
        #expect(f?["missed"] == 0 && f?["wrong"] == 0)
        #expect(pane.screen().contains("accuracy 100"), "\(pane.screen())")
        try pane.keys("q")
        let (status, restored) = T.ended(dir)
        #expect(status == "0\n", "\(T.read(dir + "/stderr"))")
        #expect(restored)
    }

    @Test func playModeFromTheComputerKeyboardScoresThePass() throws {
        guard T.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = T.tempDir()
        // 72 BPM at 50 %: a quarter note every 1.67 s; the window is wide (±600 ms).
        let pane = try T.Pane(dir: dir, command: T.script(dir, "\(Self.lesson) --hand right --bars 1-1 --repeat 1 --tempo 50% --mode play --input keys --window 600"))
        #expect(T.eventually { pane.screen().contains("mode: play") }, "\(pane.screen())")
        for key in ["a", "s", "d", "f"] {
            try pane.keys(key)
            usleep(1_666_000)
        }
        #expect(T.eventually(30) { Self.figures(pane.screen()) != nil }, "\(pane.screen())")
        let f = try #require(Self.figures(pane.screen()))
        // Every expected note is accounted for, hit or missed, whatever the machine's load.
        #expect((f["hit"] ?? 0) + (f["missed"] ?? 0) == 4, "\(pane.screen())")
        #expect(pane.screen().contains("accuracy"))
        #expect(pane.screen().contains("score"))
        try pane.keys("q")
        let (status, restored) = T.ended(dir)
        #expect(status == "0\n")
        #expect(restored)
    }

    @Test func fifoInputWritesOneReportLinePerPassAndItsEndIsShown() throws {
        guard T.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = T.tempDir()
        let fifo = dir + "/notes.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Held open for writing (O_RDWR never blocks on a FIFO) before etude opens it.
        let fd = open(fifo, O_RDWR | O_CLOEXEC)  // not inherited by tmux, so closing it ends the input
        #expect(fd >= 0)
        let report = dir + "/passes.jsonl"
        let pane = try T.Pane(dir: dir, command: T.script(dir, "\(Self.lesson) --hand right --bars 1-1 --repeat 1 --mode wait --input \(fifo) --report \(report)"))
        #expect(T.eventually { pane.screen().contains("mode: wait") }, "\(pane.screen())")
        for pitch: UInt8 in [60, 62, 64, 65] {
            let bytes: [UInt8] = [0x90, pitch, 90]
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, 3) }
            usleep(300_000)
            let off: [UInt8] = [0x80, pitch, 0]
            _ = off.withUnsafeBytes { write(fd, $0.baseAddress, 3) }
        }
        #expect(T.eventually(30) { T.read(report).hasSuffix("\n") }, "\(pane.screen())")
        let lines = T.read(report).split(separator: "\n")
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
        #expect(T.eventually { Self.figures(pane.screen())?["hit"] == 4 }, "\(pane.screen())")
        // The writer closes the FIFO: a message, and the screen carries on.
        close(fd)
        #expect(T.eventually { pane.screen().lowercased().contains("closed") || pane.screen().lowercased().contains("ended") },
                "\(pane.screen())")
        #expect(pane.screen().contains("mode: wait"))
        try pane.keys("q")
        let (status, restored) = T.ended(dir)
        #expect(status == "0\n", "\(T.read(dir + "/stderr"))")
        #expect(restored)
    }

    @Test func badPlayingOptionsAreOneLineBeforeTheScreenOpens() throws {
        let dir = T.tempDir()
        let cases: [([String], String)] = [
            (["--mode", "fast"], "etude: --mode fast: use watch, wait, play or memory\n"),
            (["--window", "abc"], "etude: --window abc: give the timing window in milliseconds, 10–2000 (e.g. 150)\n"),
            (["--threshold", "120"], "etude: --threshold 120: give an accuracy percent 0–100 (e.g. 90)\n"),
        ]
        for (args, message) in cases {
            let r = try PracticeStoreTests.etude(["practice", Self.lesson] + args + ["--db", dir + "/db.sqlite"], dir: dir)
            #expect(r.status == 1)
            #expect(r.err == message)
            #expect(r.out.isEmpty)
        }
    }
}
