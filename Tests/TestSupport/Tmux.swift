import Foundation

/// One program in a real terminal emulator: a tmux server on its own socket with one window of
/// the given size. The shell around the program records the tty settings before and after and
/// the exit status, so a test can assert that whatever happened, the terminal came back as it was.
///
/// Use with `.enabled(if: Tools.tmux.available, Tools.tmux.reason)`.
public final class TmuxPane: @unchecked Sendable {
    public let dir: TempDir
    public let socket: String
    public let width: Int
    public let height: Int
    private var started = false
    /// The user whose home and database the program uses: kept as long as the pane.
    private var user: Etude?

    /// Runs `etude arguments…` (the built binary) in a pane with `etude`'s silent environment.
    public convenience init(etude: Etude, _ arguments: [String], width: Int = 100, height: Int = 30,
                            stdinFrom: String? = nil, directory: String? = nil) throws {
        let quoted = ([EtudeBinary.path] + arguments).map(TmuxPane.quote).joined(separator: " ")
        try self.init(command: quoted + (stdinFrom.map { " < " + TmuxPane.quote($0) } ?? ""), environment: etude.environment,
                      width: width, height: height, directory: directory)
        user = etude
    }

    /// Runs a shell command line in the pane.
    public init(command: String, environment: [String: String], width: Int = 100, height: Int = 30,
                directory: String? = nil) throws {
        dir = try TempDir("etude-tmux")
        socket = "etude-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.width = width
        self.height = height
        var lines = ["stty -g > \(TmuxPane.quote(dir.file("before")))"]
        for (k, v) in environment.sorted(by: { $0.key < $1.key }) { lines.append("export \(k)=\(TmuxPane.quote(v))") }
        if let directory { lines.append("cd \(TmuxPane.quote(directory))") }
        lines.append("sh -c 'echo $$ > \(dir.file("pid")); exec \"$0\" \"$@\"' \(command) 2> \(TmuxPane.quote(dir.file("stderr")))")
        lines.append("status=$?")
        lines.append("stty -g > \(TmuxPane.quote(dir.file("after")))")
        lines.append("echo $status > \(TmuxPane.quote(dir.file("status")))")
        lines.append("echo \"EXIT=$status\"")
        lines.append("sleep 120")
        let script = try dir.write("run.sh", lines.joined(separator: "\n") + "\n")
        try tmux(["new-session", "-d", "-s", "t", "-x", "\(width)", "-y", "\(height)", "sh \(TmuxPane.quote(script))"])
        started = true
    }

    deinit { if started { _ = try? tmux(["kill-server"]) } }

    /// Sends keys by tmux name (`Enter`, `Escape`, `C-c`, `Left`, `F5`) or literal characters.
    public func keys(_ keys: String...) throws { try tmux(["send-keys", "-t", "t"] + keys) }

    /// Types text literally.
    public func type(_ text: String) throws { try tmux(["send-keys", "-t", "t", "-l", text]) }

    /// The screen as text (no colours).
    public func screen() -> String { (try? tmux(["capture-pane", "-p", "-t", "t"])) ?? "" }

    /// The screen as text with wrapped lines joined (a long output line reads as one).
    public func joinedScreen() -> String { (try? tmux(["capture-pane", "-p", "-J", "-t", "t"])) ?? "" }

    /// The screen with its escape sequences (colours, attributes), as `capture-pane -e` gives it.
    public func screenWithStyles() -> String { (try? tmux(["capture-pane", "-p", "-e", "-N", "-t", "t"])) ?? "" }

    /// Polls the screen until `condition` holds; returns the last screen either way.
    @discardableResult
    public func waitFor(_ seconds: Double = 20, _ condition: (String) -> Bool) -> String {
        var last = ""
        _ = eventually(seconds, poll: 40_000) { last = screen(); return condition(last) }
        return last
    }

    /// Resizes the window (the program gets SIGWINCH).
    public func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", "t", "-x", "\(width)", "-y", "\(height)"])
    }

    /// The program's pid (for signals), once it started.
    public var pid: pid_t? { Int32(dir.read("pid").trimmingCharacters(in: .whitespacesAndNewlines)) }

    /// True once the program ended and the shell recorded the tty settings.
    public var ended: Bool { dir.read("status").hasSuffix("\n") }

    /// Waits for the program to end; its exit status (nil if it did not end in time).
    public func exitStatus(within seconds: Double = 20) -> Int32? {
        guard eventually(seconds, { ended }) else { return nil }
        return Int32(dir.read("status").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The tty settings after the program are those before it (call after it ended).
    public var ttyRestored: Bool {
        let before = dir.read("before")
        return !before.isEmpty && dir.read("after") == before
    }

    /// What the program wrote to stderr.
    public var stderr: String { dir.read("stderr") }

    /// Runs the tmux client and waits for it alone (the server it starts keeps running).
    @discardableResult
    public func tmux(_ args: [String]) throws -> String {
        guard let path = Tools.tmux.path else { throw SpawnError(message: "tmux is not installed") }
        let r = try ProcessRunner.run(path, ["-u", "-L", socket] + args,
                                      environment: ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "xterm-256color",
                                                    "PATH": "/usr/bin:/bin", "HOME": dir.path, "TMUX_TMPDIR": NSTemporaryDirectory()],
                                      timeout: 30)
        return r.stdout
    }

    /// Single-quotes a word for sh.
    public static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
