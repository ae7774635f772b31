import Foundation
import Testing

/// The history hooks through the CLI: passes recorded, resume state saved and replayed, a loop
/// saved from the practice screen (`s`) and recalled by `etude loop --saved`.
@Suite(.serialized) struct PracticeStoreTests {
    typealias T = PracticeCommandTests

    /// Runs etude to completion, silent (no audio device), stdin from /dev/null.
    static func etude(_ args: [String], dir: String) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: T.etude)
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = dir
        env["PULSE_SERVER"] = "unix:\(dir)/no-such-socket"
        env["PIPEWIRE_REMOTE"] = "\(dir)/no-such-pipewire"
        env["ALSA_CONFIG_PATH"] = dir + "/asound.conf"
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    @Test func loopPlaysEveryPassAndRecordsThemAndTheResumeState() throws {
        let dir = T.tempDir()
        let db = dir + "/db.sqlite"
        let r = try Self.etude(["loop", T.ode, "2-3", "--tempo", "400%", "--repeat", "2", "--hand", "right", "--db", db], dir: dir)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "pass 1: bars 2-3 at 400%, 1.2 s\npass 2: bars 2-3 at 400%, 1.2 s\n")
        #expect(r.err.contains("no audio device"))
        let stats = try Self.etude(["stats", T.ode, "--json", "--db", db], dir: dir)
        #expect(stats.out.contains("\"passes\":2,\"scoredPasses\":0"), "\(stats.out)")
        let resume = try Self.etude(["resume", "--json", "--db", db], dir: dir)
        #expect(resume.out.contains("\"hand\":\"right\""), "\(resume.out)")
        #expect(resume.out.contains("\"tempoPercent\":400"))
        #expect(resume.out.contains("\"loop\":{\"firstBar\":2,\"lastBar\":3"))
        #expect(resume.out.contains("\"mode\":\"watch\""))
    }

    @Test func sSavesTheLoopThatLoopSavedRecallsAndResumeReopensThePracticeState() throws {
        guard T.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = T.tempDir()
        let db = dir + "/db.sqlite"
        var pane: T.Pane? = try T.Pane(dir: dir, command: T.script(dir, "\(T.ode) --bars 2-3 --tempo 70% --hand right"))
        #expect(T.eventually { pane?.screen().contains("loop 2–3") ?? false }, "\(pane?.screen() ?? "")")
        try pane?.keys("s")
        #expect(T.eventually { pane?.screen().contains("saved loop \"bars 2-3 at 70%, right hand\"") ?? false }, "\(pane?.screen() ?? "")")
        try pane?.keys("q")
        #expect(T.ended(dir) == ("0\n", true))
        pane = nil

        let listed = try Self.etude(["loops", "list", T.ode, "--db", db], dir: dir)
        #expect(listed.out.contains("bars 2-3 at 70%, right hand"), "\(listed.out)\(listed.err)")
        let recalled = try Self.etude(["loop", T.ode, "--saved", "bars 2-3 at 70%, right hand", "--dry-run", "--db", db], dir: dir)
        #expect(recalled.status == 0, "\(recalled.err)")
        #expect(recalled.out.contains("bars 2–3, right hand"), "\(recalled.out)")
        #expect(recalled.out.contains("pass 1: 70%"), "\(recalled.out)")
        let missing = try Self.etude(["loop", T.ode, "--saved", "nope", "--dry-run", "--db", db], dir: dir)
        #expect(missing.status == 1)
        #expect(missing.err.hasPrefix("etude: --saved nope: no saved loop of that name for this lesson (saved: \"bars 2-3 at 70%, right hand\")"))

        // resume --play opens the practice screen with the saved hand, tempo and loop.
        let dir2 = T.tempDir()
        let script = "stty -g > \(dir2)/before; \(T.etude) resume --play --db \(db) 2> \(dir2)/stderr; echo $? > \(dir2)/status; stty -g > \(dir2)/after; sleep 60"
        let resumed = try T.Pane(dir: dir2, command: script)
        #expect(T.eventually { resumed.screen().contains("(70%)") && resumed.screen().contains("hand: right") && resumed.screen().contains("loop 2–3") },
                "\(resumed.screen())")
        try resumed.keys("q")
        #expect(T.ended(dir2) == ("0\n", true))
    }

    @Test func shiftLOnThePracticeScreenRecallsASavedLoopAndResumeNamesIt() throws {
        guard T.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = T.tempDir()
        let db = dir + "/db.sqlite"
        let saved = try Self.etude(["loops", "save", T.ode, "hard bit", "--bars", "3-4", "--hand", "left", "--tempo", "60%",
                                    "--other-hand", "mute", "--db", db], dir: dir)
        #expect(saved.status == 0, "\(saved.err)")
        let pane = try T.Pane(dir: dir, command: T.script(dir, T.ode))
        #expect(T.eventually { pane.screen().contains("hand: both") }, "\(pane.screen())")
        try pane.keys("L")
        #expect(T.eventually {
            let s = pane.screen()
            return s.contains("loop 3–4") && s.contains("hand: left") && s.contains("(60%)")
        }, "\(pane.screen())")
        try pane.keys("q")
        #expect(T.ended(dir) == ("0\n", true))
        let resume = try Self.etude(["resume", "--json", "--db", db], dir: dir)
        #expect(resume.out.contains("\"hand\":\"left\"") && resume.out.contains("\"tempoPercent\":60"), "\(resume.out)")
        #expect(resume.out.contains("\"loop\":{\"firstBar\":3,\"lastBar\":4,\"name\":\"hard bit\"}"), "\(resume.out)")
    }

    @Test func practiceLeftMidPassStillCountsItsTime() throws {
        guard T.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = T.tempDir()
        let pane = try T.Pane(dir: dir, command: T.script(dir, T.ode))
        #expect(T.eventually { pane.screen().contains("bar 3:") }, "\(pane.screen())")   // 4+ s into the piece
        try pane.keys("q")
        #expect(T.ended(dir) == ("0\n", true))
        let stats = try Self.etude(["stats", T.ode, "--json", "--db", dir + "/db.sqlite"], dir: dir)
        #expect(stats.out.contains("\"passes\":0,\"scoredPasses\":0"), "\(stats.out)")
        let total = stats.out.range(of: #""totalSeconds":([0-9.]+)"#, options: .regularExpression)
            .flatMap { Double(stats.out[$0].dropFirst(15)) }
        #expect((total ?? 0) >= 3, "\(stats.out)")
    }

    @Test func practicePassesGoToTheHistory() throws {
        guard T.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = T.tempDir()
        let pane = try T.Pane(dir: dir, command: T.script(dir, "\(T.ode) --bars 1-1 --tempo 400%"))
        #expect(T.eventually { pane.screen().contains("loop 1–1 ×2") }, "\(pane.screen())")
        try pane.keys("q")
        #expect(T.ended(dir) == ("0\n", true))
        let stats = try Self.etude(["stats", T.ode, "--json", "--db", dir + "/db.sqlite"], dir: dir)
        let passes = stats.out.range(of: #""passes":(\d+)"#, options: .regularExpression).flatMap { Int(stats.out[$0].dropFirst(9)) }
        #expect((passes ?? 0) >= 2, "\(stats.out)")
    }
}
