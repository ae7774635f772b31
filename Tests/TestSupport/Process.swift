import Foundation

/// Where the repository and the built `etude` are, for every test target.
public enum Repo {
    /// The checkout (two folders above this file).
    public static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let lessons = root.appendingPathComponent("Lessons")

    /// `$ETUDE_CORPUS` when set (make test sets it), else `../shared/corpus/jazz-soft`.
    public static let jazzSoft: URL = ProcessInfo.processInfo.environment["ETUDE_CORPUS"].map { URL(fileURLWithPath: $0) }
        ?? root.deletingLastPathComponent().appendingPathComponent("shared/corpus/jazz-soft")

    /// A built-in lesson by its path under Lessons/.
    public static func lesson(_ relative: String) -> String { lessons.appendingPathComponent(relative).path }
}

/// The `etude` built beside this test bundle: `swift build --build-tests` puts both products in
/// one folder, whichever configuration or scratch path built them. `$ETUDE_BINARY` overrides.
public enum EtudeBinary {
    public static let path: String = {
        if let p = ProcessInfo.processInfo.environment["ETUDE_BINARY"], !p.isEmpty { return p }
        return product("etude")
    }()

    /// Any product of this package (`etude-tty-probe`…) built beside the test bundle; the path
    /// under `.build/debug` when none is found, so the error names where it was looked for.
    public static func product(_ name: String) -> String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // swift-testing's runner is …/debug/EtudePackageTests.xctest: the products sit beside it.
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return Repo.root.appendingPathComponent(".build/debug/\(name)").path
    }

    /// Whether the binary is there (a test target built without `etude` says so instead of failing obscurely).
    public static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: path) }
}

/// What a finished process left: its status (128 + signal when killed) and its output.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var stdoutBytes: [UInt8]
    public var stderrBytes: [UInt8]

    /// stdout and stderr together, for messages in failed expectations.
    public var output: String { stdout + stderr }
}

/// The one way tests start programs: posix_spawn with a clean signal mask and default signal
/// handlers (Foundation's Process blocks signals in its children), output to files (no pipe can
/// fill and deadlock), descriptors above 2 closed (a tmux server or daemon never holds a test's
/// pipes open), an optional deadline after which the child is killed.
public final class Spawned: @unchecked Sendable {
    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    private let scratch: String
    private var exitStatus: Int32?

    /// - Parameters:
    ///   - stdin: a file to read as standard input (default /dev/null).
    ///   - environment: the whole environment (default: this process's plus `extra`).
    ///   - terminal: a pseudo-terminal for standard input, output and error instead (a program
    ///     that needs a tty, seen from outside through its master side).
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                extra: [String: String] = [:], stdin: String = "/dev/null", directory: String? = nil,
                terminal: PseudoTerminal? = nil) throws {
        scratch = NSTemporaryDirectory() + "etude-spawn-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        stdoutPath = scratch + "/stdout"
        stderrPath = scratch + "/stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminal {
            for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_adddup2(&actions, terminal.slave, fd) }
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        if let directory, let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") {
            _ = directory.withCString { unsafeBitCast(sym, to: AddChdir.self)(&actions, $0) }
        }
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(sym, to: CloseFrom.self)(&actions, 3)
        } else if let terminal {
            posix_spawn_file_actions_addclose(&actions, terminal.master)
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        // Every signal back to its default action (the test runner may ignore some: SIGPIPE, SIGTSTP…).
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var env = environment ?? ProcessInfo.processInfo.environment
        for (k, v) in extra { env[k] = v }
        let path = executable.contains("/") ? executable : (Tools.which(executable) ?? executable)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attr, argv, envp)
        guard rc == 0 else { throw SpawnError(message: "could not start \(path): \(String(cString: strerror(rc)))") }
        pid = child
    }

    deinit {
        if exitStatus == nil { kill(pid, SIGKILL); _ = wait() }
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// The status a test sees: the exit code, or 128 + the signal that killed the child.
    private static func status(_ raw: Int32) -> Int32 { raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F) }

    /// Waits for the exit; the status, or 128 + signal. With `timeout`, kills the child when it
    /// runs longer (a guard against a hung test, not a timing check) and returns 128 + SIGKILL.
    @discardableResult
    public func wait(timeout: Double? = nil) -> Int32 {
        if let s = exitStatus { return s }
        var status: Int32 = 0
        if let timeout {
            let end = Date(timeIntervalSinceNow: timeout)
            while waitpid(pid, &status, WNOHANG) == 0 {
                if Date() > end { kill(pid, SIGKILL); while waitpid(pid, &status, 0) < 0 && errno == EINTR {}; break }
                usleep(5_000)
            }
        } else {
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        let s = Spawned.status(status)
        exitStatus = s
        return s
    }

    /// Waits for the child's next change of state and returns waitpid's raw status (for
    /// WIFSTOPPED, WTERMSIG…): its end, or with `stops` also a stop (SIGTSTP). `poll` runs
    /// while waiting (to drain a terminal). nil when nothing changed within `timeout`: the
    /// child is then killed (a guard against a hung test, not a timing check).
    public func waitForChange(stops: Bool = false, timeout: Double = 20, poll: () -> Void = {}) -> Int32? {
        var status: Int32 = 0
        let end = Date(timeIntervalSinceNow: timeout)
        while Date() < end {
            let r = waitpid(pid, &status, WNOHANG | (stops ? WUNTRACED : 0))
            if r == pid {
                if status & 0xFF != 0x7F { exitStatus = Spawned.status(status) }
                poll()
                return status
            }
            poll()
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exitStatus = Spawned.status(status)
        return nil
    }

    /// True while the child runs.
    public var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid { exitStatus = Spawned.status(status); return false }
        return r == 0
    }

    public func signal(_ sig: Int32) { kill(pid, sig) }

    public var stdoutBytes: [UInt8] { (FileManager.default.contents(atPath: stdoutPath)).map { [UInt8]($0) } ?? [] }
    public var stderrBytes: [UInt8] { (FileManager.default.contents(atPath: stderrPath)).map { [UInt8]($0) } ?? [] }
    public var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    public var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }

    /// The result once the child ended.
    public func result(timeout: Double? = nil) -> ProcessResult {
        let status = wait(timeout: timeout)
        let o = stdoutBytes, e = stderrBytes
        return ProcessResult(status: status, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self),
                             stdoutBytes: o, stderrBytes: e)
    }
}

/// A pseudo-terminal a program runs on (pass it to `Spawned` or `Etude.start`): the test reads
/// what the program draws and types into it from the master side, and reads the tty modes the
/// program sees on the slave side. For a real terminal emulator, use `TmuxPane`.
public final class PseudoTerminal: @unchecked Sendable {
    public let master: Int32
    public let slave: Int32
    /// Everything the program wrote so far (read by `drain`).
    public var output: [UInt8] = []

    public init(columns: Int = 80, rows: Int = 24) throws {
        var m: Int32 = -1, s: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&m, &s, nil, nil, &size) == 0 else { throw SpawnError(message: "cannot open a pseudo-terminal") }
        master = m
        slave = s
        _ = fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(master)
        close(slave)
    }

    /// The tty modes the program sees.
    public func modes() -> termios {
        var t = termios()
        _ = tcgetattr(slave, &t)
        return t
    }

    /// Types text (bytes as a terminal sends them).
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads whatever the program wrote since the last call into `output`.
    public func drain() {
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buf.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            output += buf[0..<n]
        }
    }

    public var text: String { String(decoding: output, as: UTF8.self) }

    /// Reads output until `condition` holds on it (a guard against a hung program, not a timing check).
    @discardableResult
    public func waitFor(_ seconds: Double = 20, _ condition: (PseudoTerminal) -> Bool) -> Bool {
        eventually(seconds, poll: 10_000) { drain(); return condition(self) }
    }

    /// Reads output until it contains `marker`.
    @discardableResult
    public func waitFor(_ marker: String, _ seconds: Double = 20) -> Bool { waitFor(seconds) { $0.text.contains(marker) } }

    /// Changes the size the program sees (send it SIGWINCH to tell it).
    public func resize(columns: Int, rows: Int) {
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
    }
}

public struct SpawnError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Runs a program to its end.
public enum ProcessRunner {
    /// - Parameter timeout: seconds before the program is killed (a hung test ends; nothing is timed).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           extra: [String: String] = [:], stdin: String = "/dev/null", directory: String? = nil,
                           timeout: Double = 300) throws -> ProcessResult {
        try Spawned(executable, arguments, environment: environment, extra: extra, stdin: stdin, directory: directory)
            .result(timeout: timeout)
    }

    /// Runs `sh -c script`.
    public static func shell(_ script: String, extra: [String: String] = [:], directory: String? = nil,
                             timeout: Double = 300) throws -> ProcessResult {
        try run("/bin/sh", ["-c", script], extra: extra, directory: directory, timeout: timeout)
    }
}

/// `etude` as a user runs it: the built binary, its own database and data folders, no sound
/// server (practice warns once and plays silently), the repository's lessons unless told otherwise.
public struct Etude: Sendable {
    public let home: TempDir
    public var environment: [String: String]

    /// - Parameters:
    ///   - lessons: the built-in lessons folder (nil: none, so the catalogue holds only what a test adds).
    public init(lessons: String? = Repo.lessons.path) throws {
        home = try TempDir("etude-home")
        environment = Etude.silentEnvironment(home: home.path)
        try home.write("asound.conf", "")   // an ALSA configuration that defines no device
        environment["ETUDE_DB"] = home.file("etude.sqlite")
        environment["ETUDE_LESSONS"] = lessons ?? home.file("no-builtin-lessons")
    }

    /// A user's environment with no audio device and no sound server reachable, in `home` (whose
    /// empty `asound.conf`, which `init` writes, defines no ALSA device).
    public static func silentEnvironment(home: String) -> [String: String] {
        var env = ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home,
                   "XDG_RUNTIME_DIR": home, "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config",
                   "PULSE_SERVER": "unix:\(home)/no-such-socket", "PIPEWIRE_REMOTE": "\(home)/no-such-pipewire",
                   "ALSA_CONFIG_PATH": "\(home)/asound.conf", "TERM": "xterm-256color"]
        if let tmp = ProcessInfo.processInfo.environment["TMPDIR"] { env["TMPDIR"] = tmp }
        return env
    }

    public var database: String { environment["ETUDE_DB"] ?? "" }

    /// Runs `etude args…` to its end.
    public func run(_ arguments: [String], stdin: String = "/dev/null", extra: [String: String] = [:],
                    directory: String? = nil, timeout: Double = 300) throws -> ProcessResult {
        var env = environment
        for (k, v) in extra { env[k] = v }
        return try ProcessRunner.run(EtudeBinary.path, arguments, environment: env, stdin: stdin, directory: directory, timeout: timeout)
    }

    public func run(_ arguments: String..., stdin: String = "/dev/null") throws -> ProcessResult {
        try run(arguments, stdin: stdin)
    }

    /// Starts `etude args…` and returns at once.
    public func start(_ arguments: [String], stdin: String = "/dev/null", extra: [String: String] = [:],
                      terminal: PseudoTerminal? = nil) throws -> Spawned {
        var env = environment
        for (k, v) in extra { env[k] = v }
        return try Spawned(EtudeBinary.path, arguments, environment: env, stdin: stdin, terminal: terminal)
    }
}

/// A fresh temporary folder, removed when the last reference goes.
public final class TempDir: @unchecked Sendable {
    public let path: String

    public init(_ prefix: String = "etude-test") throws {
        path = NSTemporaryDirectory() + "\(prefix)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Writes bytes or text to a file in the folder and returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let p = file(name)
        try FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }

    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

    public func read(_ name: String) -> String { (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? "" }

    /// A FIFO in the folder for `--input`, made and held open for writing (see `InputFIFO`).
    public func fifo(_ name: String) throws -> InputFIFO { try InputFIFO(file(name)) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A FIFO a test plays MIDI bytes into as etude's `--input`: held open for writing from the start
/// (O_RDWR never blocks on a FIFO, so etude can open it whenever it likes; close-on-exec, so no
/// child keeps it open), closed when the value goes or by `close()` (etude's input then ends).
public final class InputFIFO: @unchecked Sendable {
    public let path: String
    /// The write end (for `write`, or a helper that takes a descriptor).
    public private(set) var fd: Int32

    public init(_ path: String) throws {
        guard mkfifo(path, 0o600) == 0 else { throw SpawnError(message: "mkfifo \(path): \(String(cString: strerror(errno)))") }
        fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw SpawnError(message: "open \(path): \(String(cString: strerror(errno)))") }
        self.path = path
    }

    /// Writes one MIDI message (or any bytes).
    public func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    public func close() {
        if fd >= 0 { _ = Foundation.close(fd) }
        fd = -1
    }

    deinit { close() }
}

/// Polls until `condition` holds: a guard against a hung process, not a timing check.
@discardableResult
public func eventually(_ seconds: Double = 20, poll: UInt32 = 20_000, _ condition: () throws -> Bool) rethrows -> Bool {
    let end = Date(timeIntervalSinceNow: seconds)
    while Date() < end {
        if try condition() { return true }
        usleep(poll)
    }
    return try condition()
}
