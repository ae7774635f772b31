import Foundation
import Store
import Testing

/// `etude` with no arguments in a real terminal emulator (tmux): the browser lists the
/// built-in lessons, typing filters them, Enter opens the selected lesson on the practice
/// screen and q there comes back, routines run from it, and the terminal is restored afterwards.
@Suite("Browser in a pseudo-terminal (tmux)")
struct BrowserProcessTests {
    static func tmuxPath() -> String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs the tmux client and waits for it only (posix_spawn + waitpid: Foundation's Process
    /// would also wait for the tmux server, which inherits its descriptors).
    @discardableResult
    static func tmux(_ socket: String, _ args: [String]) throws -> String {
        let outPath = NSTemporaryDirectory() + "etude-browser-tmux-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Other tests' pipes must not leak into the tmux server (it would hold them open and
        // their readers would wait for it).
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(sym, to: CloseFrom.self)(&actions, 3)
        }
        let path = tmuxPath() ?? "/usr/bin/tmux"
        let argv: [UnsafeMutablePointer<CChar>?] = ([path, "-u", "-L", socket] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        let envStrings = ["LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=xterm-256color", "PATH=/usr/bin:/bin", "HOME=\(NSTemporaryDirectory())"]
        let env: [UnsafeMutablePointer<CChar>?] = envStrings.map { strdup($0) } + [nil]
        defer { for e in env { free(e) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, path, &actions, nil, argv, env) == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    }

    static func header(_ screen: String) -> String {
        var line = String(screen.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        while line.last == " " { line.removeLast() }
        return line
    }

    /// Polls the pane until `condition` holds (a guard against a hung process, not a timing check).
    static func waitFor(_ socket: String, tries: Int = 300, _ condition: (String) -> Bool) throws -> String {
        var screen = ""
        for _ in 0..<tries {
            screen = try tmux(socket, ["capture-pane", "-p", "-t", "t"])
            if condition(screen) { return screen }
            usleep(50_000)
        }
        return screen
    }

    /// One `etude` (no arguments) in a tmux pane with its own database and the built-in
    /// lessons; the shell records the tty settings before and after, and how etude exited.
    /// nil (with a printed reason) when tmux is missing.
    final class BrowserPane {
        let dir: TempDir
        let db: String
        let env: [String: String]
        let socket: String
        private var started = false

        init?(_ name: String, width: Int = 120, prepare: (BrowserPane) throws -> Void = { _ in }) throws {
            guard BrowserProcessTests.tmuxPath() != nil else {
                print("skipping: tmux is not installed (apt-get install tmux)")
                return nil
            }
            guard FileManager.default.isExecutableFile(atPath: Repo.etude) else {
                Issue.record("build etude first (make test runs swift build)")
                return nil
            }
            dir = try TempDir()
            db = dir.file("etude.sqlite")
            let lessons = Repo.root.appendingPathComponent("Lessons").path
            env = ["ETUDE_DB": db, "ETUDE_LESSONS": lessons]
            socket = "etude-browser-\(name)-\(getpid())"
            try prepare(self)
            let script = dir.file("run.sh")
            try """
            stty -g > '\(dir.file("before"))'
            ETUDE_DB='\(db)' ETUDE_LESSONS='\(lessons)' '\(Repo.etude)'
            status=$?
            stty -g > '\(dir.file("after"))'
            touch '\(dir.file("done"))'
            echo "EXIT=$status"
            sleep 60
            """.write(toFile: script, atomically: true, encoding: .utf8)
            try BrowserProcessTests.tmux(socket, ["new-session", "-d", "-s", "t", "-x", "\(width)", "-y", "30", "sh '\(script)'"])
            started = true
        }

        deinit { if started { _ = try? BrowserProcessTests.tmux(socket, ["kill-server"]) } }

        func keys(_ keys: String...) throws { try BrowserProcessTests.tmux(socket, ["send-keys", "-t", "t"] + keys) }
        func type(_ text: String) throws { try BrowserProcessTests.tmux(socket, ["send-keys", "-t", "t", "-l", text]) }
        func waitFor(tries: Int = 300, _ condition: (String) -> Bool) throws -> String {
            try BrowserProcessTests.waitFor(socket, tries: tries, condition)
        }
        var ended: Bool { FileManager.default.fileExists(atPath: dir.file("done")) }
        /// The terminal settings after etude are those before it (read once the shell wrote them,
        /// which is before it prints EXIT=).
        func ttyRestored() throws -> Bool {
            for _ in 0..<100 where !ended { usleep(50_000) }
            return try String(contentsOfFile: dir.file("before"), encoding: .utf8) == String(contentsOfFile: dir.file("after"), encoding: .utf8)
        }
    }

    @Test func typeToSearchThenEnterOpensTheLessonAndRestoresTheTerminal() throws {
        guard let pane = try BrowserPane("search", width: 200) else { return }
        var screen = try pane.waitFor { $0.contains("Etude — lessons") && $0.contains("Minuet in G minor") }
        try #require(screen.contains("Etude — lessons"), "the browser opened: \(screen)")
        #expect(screen.contains("C major five-finger position"), "the built-in lessons are listed")

        try pane.type("minuet in g maj")
        screen = try pane.waitFor { $0.contains("Search: minuet in g maj") && Self.header($0).hasSuffix(" 1 lesson") }
        #expect(screen.contains("Search: minuet in g maj"))
        #expect(screen.contains("Minuet in G major, BWV Anh. 114"), "the match is listed: \(screen)")
        #expect(!screen.contains("Minuet in G minor") && !screen.contains("C major five-finger"), "the list is filtered: \(screen)")
        #expect(Self.header(screen).hasSuffix(" 1 lesson"), "the header counts one lesson")

        try pane.keys("Enter")
        // The practice screen opens on the lesson; q there comes back to the browser as it was.
        screen = try pane.waitFor { $0.contains("Minuet in G major") && !$0.contains("Search: ") && $0.contains("bar ") }
        #expect(screen.contains("bar ") && !screen.contains("Search: "), "the practice screen opened: \(screen)")
        try pane.keys("q")
        screen = try pane.waitFor { $0.contains("Search: minuet in g maj") && Self.header($0).hasSuffix(" 1 lesson") }
        #expect(screen.contains("Search: minuet in g maj") && screen.contains("Minuet in G major, BWV Anh. 114"),
                "back in the browser with the same search: \(screen)")
        #expect(!pane.ended, "etude is still running")

        try pane.keys("C-q")
        screen = try pane.waitFor { $0.contains("EXIT=") }
        #expect(screen.contains("EXIT=0"), "etude ended: \(screen)")
        #expect(!screen.contains("Search: "), "the browser's screen is gone (alternate screen left)")
        #expect(try pane.ttyRestored(), "terminal settings restored")
    }

    /// Ctrl-R lists the routines; Enter runs one (its lines stay until a key), then the browser
    /// comes back; Ctrl-Q leaves with the terminal as it was.
    @Test func aRoutineRunsFromTheBrowserAndTheBrowserComesBack() throws {
        guard let pane = try BrowserPane("routine", prepare: { p in
            let made = try Repo.run(["routine", "new", "quick", "--entry", "lesson=Ode to Joy;minutes=0.05"], environment: p.env)
            try #require(made.0 == 0, "\(made.2)")
        }) else { return }
        var screen = try pane.waitFor { $0.contains("Etude — lessons") }
        try #require(screen.contains("Etude — lessons"), "\(screen)")
        try pane.keys("C-r")
        screen = try pane.waitFor { $0.contains("Routines") && $0.contains("quick") }
        #expect(screen.contains("1 entry: Ode to Joy") && screen.contains("Enter runs it"), "\(screen)")
        try pane.keys("Enter")
        screen = try pane.waitFor(tries: 600) { $0.contains("Press any key to go back to the lessons.") }
        #expect(screen.contains("Played 1/1 Ode to Joy"), "the routine's lines are shown: \(screen)")
        try pane.keys("x")
        screen = try pane.waitFor { $0.contains("Etude — lessons") }
        #expect(screen.contains("Etude — lessons") && screen.contains("Search: "), "back in the browser: \(screen)")
        try pane.keys("C-q")
        screen = try pane.waitFor { $0.contains("EXIT=") }
        #expect(screen.contains("EXIT=0"), "\(screen)")
        #expect(try pane.ttyRestored(), "terminal settings restored")
        #expect(try Store.open(path: pane.db).passes().map(\.mode) == ["watch"], "the routine's entry is in the history")
    }

    /// The resume line goes on where the learner stopped: the bar inside the loop, with the
    /// hand and tempo (as `etude resume`), not the loop's first bar.
    @Test func theResumeLineOpensPracticeAtTheBarLeft() throws {
        guard let pane = try BrowserPane("resume", prepare: { p in
            _ = try Repo.run(["list"], environment: p.env)   // catalogues the built-in lessons
            let store = try Store.open(path: p.db)
            let ode = try store.resolveLesson("Ode to Joy")
            // Ode to Joy: ♩=100 in 4/4, 2.4 s a bar: 8.0 s is in bar 4.
            try store.saveResume(ResumeState(lessonID: ode.lesson.id, path: ode.path ?? "", positionSeconds: 8.0, hand: "right",
                                             tempoPercent: 50, mode: "watch", loopFirstBar: 3, loopLastBar: 5, loopName: "middle"))
        }) else { return }
        var screen = try pane.waitFor { $0.contains("↻ Resume: Ode to Joy") }
        try #require(screen.contains("↻ Resume: Ode to Joy bar 4, right hand, 50%, loop 3-5"), "\(screen)")
        try pane.keys("Enter")
        // The first frame of practice (at 50 % a bar lasts 4.8 s: bar 3 would still show).
        screen = try pane.waitFor { $0.contains(" bar ") && !$0.contains("Search: ") }
        #expect(screen.contains("bar 4:") && screen.contains("(50%)") && screen.contains("hand: right") && screen.contains("loop 3–5"),
                "practice at the bar left, with the hand, tempo and loop: \(screen)")
        try pane.keys("q")
        _ = try pane.waitFor { $0.contains("Etude — lessons") }
        try pane.keys("C-q")
        screen = try pane.waitFor { $0.contains("EXIT=") }
        #expect(screen.contains("EXIT=0"), "\(screen)")
    }

    @Test func withoutATerminalItPrintsTheHelp() throws {
        guard FileManager.default.isExecutableFile(atPath: Repo.etude) else { return }
        let (status, out, _) = try RoutineRunProcessTests.etude([], env: ["ETUDE_DB": "/nonexistent/x.sqlite"])
        #expect(status == 0)
        #expect(out.contains("USAGE: etude") && out.contains("browse"))
    }
}
