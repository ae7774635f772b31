import Foundation
import Testing

/// `etude practice` on a real pseudo-terminal (tmux), silent (no audio device reachable):
/// keys act on what the screen shows, and the tty modes are exactly restored however it ends.
@Suite(.serialized) struct PracticeCommandTests {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var etude: String { repoRoot.appendingPathComponent(".build/debug/etude").path }
    static var ode: String { repoRoot.appendingPathComponent("Lessons/level4/ode-to-joy.mid").path }

    static func tmuxPath() -> String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A tmux server on its own socket, one 100×30 window running `command`.
    final class Pane {
        let socket = "etude-practice-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let dir: String

        init(dir: String, command: String) throws {
            self.dir = dir
            try run(["new-session", "-d", "-s", "t", "-x", "100", "-y", "30", command])
        }

        deinit { _ = try? run(["kill-server"]) }

        func keys(_ k: String...) throws { try run(["send-keys", "-t", "t"] + k) }
        func screen() -> String { (try? run(["capture-pane", "-p", "-t", "t"])) ?? "" }

        /// posix_spawn + waitpid: Foundation's Process would wait for the tmux server too.
        @discardableResult
        func run(_ args: [String]) throws -> String {
            let outPath = dir + "/tmux-out-\(UInt32.random(in: 0...UInt32.max))"
            defer { try? FileManager.default.removeItem(atPath: outPath) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let path = PracticeCommandTests.tmuxPath() ?? "/usr/bin/tmux"
            let argv: [UnsafeMutablePointer<CChar>?] = ([path, "-u", "-L", socket] + args).map { strdup($0) } + [nil]
            defer { for a in argv { free(a) } }
            // No sound server reachable: practice warns once and runs silently.
            let envStrings = ["LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=xterm-256color", "PATH=/usr/bin:/bin", "HOME=\(dir)",
                              "XDG_RUNTIME_DIR=\(dir)", "PULSE_SERVER=unix:\(dir)/no-such-socket",
                              "PIPEWIRE_REMOTE=\(dir)/no-such-pipewire", "ALSA_CONFIG_PATH=\(dir)/asound.conf",
                              "XDG_DATA_HOME=\(dir)/data"]
            let env: [UnsafeMutablePointer<CChar>?] = envStrings.map { strdup($0) } + [nil]
            defer { for e in env { free(e) } }
            var pid: pid_t = 0
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
            guard posix_spawn(&pid, path, &actions, &attributes, argv, env) == 0 else { throw CocoaError(.executableLoad) }
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        }
    }

    static func tempDir() -> String {
        let dir = NSTemporaryDirectory() + "etude-practice-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The shell line tmux runs: tty modes before and after, the exit status, the pid.
    static func script(_ dir: String, _ args: String) -> String {
        "stty -g > \(dir)/before; sh -c 'echo $$ > \(dir)/pid; exec \(etude) practice \(args) --db \(dir)/db.sqlite 2> \(dir)/stderr'; "
            + "echo $? > \(dir)/status; stty -g > \(dir)/after; sleep 60"
    }

    /// Polls (the deadline only stops a broken test hanging; nothing is timed).
    static func eventually(_ seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let end = Date(timeIntervalSinceNow: seconds)
        while Date() < end {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// The bar shown in the status line (`bar 3:2/16`).
    static func bar(in screen: String) -> Int? {
        guard let r = screen.range(of: #"bar (\d+):"#, options: .regularExpression) else { return nil }
        return Int(screen[r].dropFirst(4).dropLast())
    }

    /// Waits for the program to end, then returns (status, tty modes restored?).
    static func ended(_ dir: String) -> (String, Bool) {
        _ = eventually { read(dir + "/after").hasSuffix("\n") }
        let before = read(dir + "/before")
        return (read(dir + "/status"), !before.isEmpty && read(dir + "/after") == before)
    }

    @Test func barsAdvanceTempoAndLoopKeysShowAndQuitRestoresTheTerminal() throws {
        guard Self.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = Self.tempDir()
        let pane = try Pane(dir: dir, command: Self.script(dir, Self.ode))
        #expect(Self.eventually { pane.screen().contains("Ode to Joy") }, "\(pane.screen())")
        #expect(Self.eventually { (Self.bar(in: pane.screen()) ?? 0) >= 2 }, "the bar counter advances: \(pane.screen())")
        #expect(pane.screen().contains("(100%)"))
        try pane.keys("-")
        #expect(Self.eventually { pane.screen().contains("♩=95 (95%)") }, "\(pane.screen())")
        try pane.keys("Space")
        #expect(Self.eventually { pane.screen().contains("■ Ode to Joy") }, "\(pane.screen())")
        let here = try #require(Self.bar(in: pane.screen()))
        try pane.keys("[")
        #expect(Self.eventually { pane.screen().contains("press ] at its last bar") }, "\(pane.screen())")
        try pane.keys("Right")
        try pane.keys("Right")
        try pane.keys("]")
        #expect(Self.eventually { pane.screen().contains("loop \(here)–\(here + 2)") }, "\(pane.screen())")
        try pane.keys("q")
        let (status, restored) = Self.ended(dir)
        #expect(status == "0\n")
        #expect(restored, "stty -g differs after q")
        #expect(Self.read(dir + "/stderr").contains("no audio device"))
    }

    @Test(arguments: [("TERM", Int32(15)), ("INT", Int32(2)), ("HUP", Int32(1))])
    func signalsRestoreTheTerminal(name: String, number: Int32) throws {
        guard Self.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = Self.tempDir()
        let pane = try Pane(dir: dir, command: Self.script(dir, Self.ode))
        #expect(Self.eventually { (Self.bar(in: pane.screen()) ?? 0) >= 1 }, "\(pane.screen())")
        let pid = try #require(Int32(Self.read(dir + "/pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, number) == 0)
        let (status, restored) = Self.ended(dir)
        #expect(status == "\(128 + number)\n", "SIG\(name)")
        #expect(restored, "stty -g differs after SIG\(name)")
    }

    @Test func ctrlCQuitsWith130AndRestoresTheTerminal() throws {
        guard Self.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = Self.tempDir()
        let pane = try Pane(dir: dir, command: Self.script(dir, Self.ode))
        #expect(Self.eventually { (Self.bar(in: pane.screen()) ?? 0) >= 1 }, "\(pane.screen())")
        try pane.keys("C-c")
        let (status, restored) = Self.ended(dir)
        #expect(status == "130\n")
        #expect(restored)
    }

    @Test func aTooSmallTerminalSaysSoAndPracticeResumesWhenEnlarged() throws {
        guard Self.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = Self.tempDir()
        let pane = try Pane(dir: dir, command: Self.script(dir, Self.ode))
        #expect(Self.eventually { pane.screen().contains("Ode to Joy") }, "\(pane.screen())")
        try pane.run(["resize-window", "-t", "t", "-x", "50", "-y", "12"])
        #expect(Self.eventually { pane.screen().contains("Terminal too small: 50×12") }, "\(pane.screen())")
        try pane.run(["resize-window", "-t", "t", "-x", "100", "-y", "30"])
        #expect(Self.eventually { pane.screen().contains("Ode to Joy") && pane.screen().contains("bar ") }, "\(pane.screen())")
        try pane.keys("q")
        let (status, restored) = Self.ended(dir)
        #expect(status == "0\n")
        #expect(restored)
    }

    @Test func ctrlZPausesAndTheScreenComesBackAfterContinue() throws {
        guard Self.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = Self.tempDir()
        let pane = try Pane(dir: dir, command: Self.script(dir, Self.ode))
        #expect(Self.eventually { pane.screen().contains("▶ Ode to Joy") }, "\(pane.screen())")
        let pid = try #require(Int32(Self.read(dir + "/pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        try pane.keys("C-z")
        #expect(Self.eventually { !pane.screen().contains("Ode to Joy") }, "the terminal is handed back while stopped: \(pane.screen())")
        #expect(kill(pid, SIGCONT) == 0)
        #expect(Self.eventually { pane.screen().contains("■ Ode to Joy") }, "redrawn, paused: \(pane.screen())")
        try pane.keys("q")
        let (status, restored) = Self.ended(dir)
        #expect(status == "0\n")
        #expect(restored)
    }

    @Test func playOnATerminalUsesTheScreenAndEndsWithThePiece() throws {
        guard Self.tmuxPath() != nil else { print("skipped: tmux not installed (apt-get install tmux)"); return }
        let dir = Self.tempDir()
        // Four quarter notes at 120 BPM, then four more: 4 s.
        try "X:1\nT:Short Tune\nM:4/4\nL:1/4\nQ:1/4=120\nK:C\nCDEF|GABc|\n".write(toFile: dir + "/short.abc", atomically: true, encoding: .utf8)
        let script = "stty -g > \(dir)/before; \(Self.etude) play \(dir)/short.abc 2> \(dir)/stderr; echo $? > \(dir)/status; stty -g > \(dir)/after; sleep 60"
        let pane = try Pane(dir: dir, command: script)
        #expect(Self.eventually { pane.screen().contains("▶ Short Tune") }, "\(pane.screen())")
        let (status, restored) = Self.ended(dir)
        #expect(status == "0\n", "\(Self.read(dir + "/stderr"))")
        #expect(restored)
    }

    @Test func aBadPlanIsOneLineBeforeTheScreenOpens() throws {
        let dir = Self.tempDir()
        let r = try PracticeStoreTests.etude(["practice", Self.ode, "--bars", "40-44", "--db", dir + "/db.sqlite"], dir: dir)
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("etude: --bars 40-44: "), "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1)
        #expect(r.out.isEmpty)
        let names = try PracticeStoreTests.etude(["practice", Self.ode, "--note-names", "german"], dir: dir)
        #expect(names.status == 1)
        #expect(names.err == "etude: --note-names german: use scientific (middle C = C4) or yamaha (middle C = C3)\n")
        let notty = try PracticeStoreTests.etude(["practice", Self.ode, "--db", dir + "/db.sqlite"], dir: dir)
        #expect(notty.status == 1)
        #expect(notty.err.contains("the practice screen needs a terminal"), "\(notty.err)")
    }
}
