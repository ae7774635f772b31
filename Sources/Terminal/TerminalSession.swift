#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure to take over the terminal, worded for the user.
public struct TerminalError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

// MARK: - State shared with signal handlers
//
// Signal handlers cannot capture context, so the one active session keeps what they need here:
// the tty file descriptors, the original and raw termios, and a wake pipe. Handlers only call
// async-signal-safe functions (tcsetattr, write, signal, raise, kill).

struct SignalShared {
    var active: Int32 = 0
    var suspended: Int32 = 0
    /// 1 in line mode: no alternate screen to enter or leave.
    var lineMode: Int32 = 0
    /// 1 in line mode on a terminal: bracketed paste is on (a paste is text, never keys).
    var linePaste: Int32 = 0
    var ttyFD: Int32 = -1
    var outFD: Int32 = -1
    var wakeWriteFD: Int32 = -1
    var original = termios()
    var raw = termios()
}

nonisolated(unsafe) var signalShared = SignalShared()
nonisolated(unsafe) let leaveBytes: UnsafeMutableBufferPointer<UInt8> = {
    let b = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: TerminalSequences.leave.count)
    _ = b.initialize(from: TerminalSequences.leave)
    return b
}()
nonisolated(unsafe) let linePasteOn: UnsafeMutableBufferPointer<UInt8> = {
    let b = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: TerminalSequences.pasteOn.count)
    _ = b.initialize(from: TerminalSequences.pasteOn)
    return b
}()
nonisolated(unsafe) let linePasteOff: UnsafeMutableBufferPointer<UInt8> = {
    let b = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: TerminalSequences.pasteOff.count)
    _ = b.initialize(from: TerminalSequences.pasteOff)
    return b
}()
nonisolated(unsafe) let enterBytes: UnsafeMutableBufferPointer<UInt8> = {
    let b = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: TerminalSequences.enter.count)
    _ = b.initialize(from: TerminalSequences.enter)
    return b
}()
nonisolated(unsafe) var atexitRegistered = false

/// Signals that end the process: restore the terminal, then die of the same signal (every
/// signal whose default action ends it, SIGUSR1 and SIGALRM included, but SIGKILL and SIGPIPE
/// and SIGXFSZ, which Etude ignores and handles as write errors).
let terminatingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP,
                                   SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGSYS]

private func writeAll(_ fd: Int32, _ base: UnsafeRawPointer?, _ count: Int) {
    guard let base else { return }
    var done = 0
    var spins = 0
    while done < count {
        let n = write(fd, base + done, count - done)
        if n > 0 {
            done += n
        } else if n < 0 && (errno == EINTR || errno == EAGAIN) {
            spins += 1
            if spins > 10_000 { return }
        } else {
            return
        }
    }
}

// Free functions so the session's own `close()`/`write(_:)` methods do not shadow the C calls.
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }
private func writeDescriptor(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }

/// Puts the terminal back as it was (async-signal-safe).
func restoreTerminalFromAnyContext() {
    guard signalShared.active != 0, signalShared.suspended == 0 else { return }
    if signalShared.lineMode == 0 {
        writeAll(signalShared.outFD, UnsafeRawPointer(leaveBytes.baseAddress), leaveBytes.count)
    } else if signalShared.linePaste != 0 {
        writeAll(signalShared.outFD, UnsafeRawPointer(linePasteOff.baseAddress), linePasteOff.count)
    }
    _ = tcsetattr(signalShared.ttyFD, TCSANOW, &signalShared.original)
}

private let onTerminatingSignal: @convention(c) (Int32) -> Void = { sig in
    restoreTerminalFromAnyContext()
    signalShared.active = 0
    _ = signal(sig, SIG_DFL)
    _ = raise(sig)  // delivered when this handler returns: the process ends as it would have
}

private let onStop: @convention(c) (Int32) -> Void = { _ in
    restoreTerminalFromAnyContext()
    if signalShared.active != 0 { signalShared.suspended = 1 }
    _ = kill(getpid(), SIGSTOP)
}

private let onContinue: @convention(c) (Int32) -> Void = { _ in
    if signalShared.active != 0 && signalShared.suspended != 0 {
        _ = tcsetattr(signalShared.ttyFD, TCSANOW, &signalShared.raw)
        if signalShared.lineMode == 0 {
            writeAll(signalShared.outFD, UnsafeRawPointer(enterBytes.baseAddress), enterBytes.count)
        } else if signalShared.linePaste != 0 {
            writeAll(signalShared.outFD, UnsafeRawPointer(linePasteOn.baseAddress), linePasteOn.count)
        }
        signalShared.suspended = 0
    }
    var c: UInt8 = 0x43  // "C"
    _ = write(signalShared.wakeWriteFD, &c, 1)
}

private let onResize: @convention(c) (Int32) -> Void = { _ in
    var c: UInt8 = 0x57  // "W"
    _ = write(signalShared.wakeWriteFD, &c, 1)
}

private let onExit: @convention(c) () -> Void = {
    restoreTerminalFromAnyContext()
    signalShared.active = 0
}

/// The real terminal, the one input path for every screen and one-line command: raw input
/// (keys decoded by `KeyDecoder`), and for the full screen the alternate screen, hidden cursor
/// and bracketed paste; restored on `close()`, on `exit()`, on SIGINT/SIGTERM/SIGHUP/SIGQUIT and
/// crashes (then re-raised), and around Ctrl-Z (SIGTSTP restores and stops; SIGCONT re-enters and
/// reports `.resumed`). With a `SignalWatch`, SIGINT/SIGTERM/SIGHUP are the watch's instead:
/// the session reports `.signalled` and the program ends through its own cleanup.
///
/// A terminal left raw by an Etude that was killed (SIGKILL runs no cleanup) is recognised when
/// a session opens — no echo, no line editing — and sane settings are what it restores.
///
/// Only one session can be open at a time (signal handlers are process-wide).
public final class TerminalSession: TerminalDevice, @unchecked Sendable {
    /// How much of the terminal the session takes.
    public enum Mode: Sendable {
        /// Raw keys, the alternate screen, no cursor: the practice screen and the browser.
        case fullScreen
        /// Raw keys only (no echo, no line editing, Ctrl-C as a key); output as usual, so a
        /// one-line status can be redrawn with `\r` and lines printed below it.
        case line
    }

    public let inputFD: Int32
    public let outputFD: Int32
    public let mode: Mode
    /// True when the terminal was found raw at open (left so by a killed program) and sane
    /// settings will be restored instead of those.
    public let repairedLeftoverRawMode: Bool
    /// Detected from the environment at open.
    public let colorDepth: ColorDepth
    private let wakeReadFD: Int32
    private let wakeWriteFD: Int32
    private var pendingEvents: TerminalEvents = []
    private var previousActions: [Int32: sigaction] = [:]
    private var closed = false
    private var wakerToken: Int?

    /// Takes over the terminal. Throws a user-worded error when input or output is not a terminal.
    public init(mode: Mode = .fullScreen, signals: SignalWatch? = nil, inputFD: Int32 = STDIN_FILENO,
                outputFD: Int32 = STDOUT_FILENO,
                environment: [String: String] = TerminalSession.processEnvironment()) throws(TerminalError) {
        guard isatty(inputFD) == 1, mode == .line || isatty(outputFD) == 1 else {
            throw TerminalError("the practice screen needs a terminal (input and output are not a tty); run it in a terminal window, or use --no-screen")
        }
        guard signalShared.active == 0 else {
            throw TerminalError("a terminal session is already open in this process")
        }
        var found = termios()
        guard tcgetattr(inputFD, &found) == 0 else {
            throw TerminalError("cannot read the terminal settings (tcgetattr failed); run it in a terminal window, or use --no-screen")
        }
        let leftRaw = TerminalSession.looksLeftRaw(found)
        let original = leftRaw ? TerminalSession.sane(found) : found
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw TerminalError("cannot create a wake-up pipe; too many open files?") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.mode = mode
        self.repairedLeftoverRawMode = leftRaw
        self.watch = signals
        self.wakeReadFD = fds[0]
        self.wakeWriteFD = fds[1]
        self.colorDepth = ColorDepth.detect(environment: environment)

        var raw = original
        switch mode {
        case .fullScreen:
            cfmakeraw(&raw)
            // Keep output post-processing off too (cfmakeraw does): the frame writer sends exact moves.
        case .line:
            // Keys one by one, unechoed, Ctrl-C as a byte; output still turns \n into \r\n.
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
            raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        }
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // Touch the lazily initialised globals before any handler may need them.
        _ = leaveBytes.count
        _ = enterBytes.count
        _ = linePasteOn.count
        _ = linePasteOff.count
        signalShared.ttyFD = inputFD
        signalShared.outFD = outputFD
        signalShared.wakeWriteFD = fds[1]
        signalShared.original = original
        signalShared.raw = raw
        signalShared.suspended = 0
        signalShared.lineMode = mode == .line ? 1 : 0
        signalShared.linePaste = mode == .line && isatty(outputFD) == 1 ? 1 : 0
        signalShared.active = 1
        if !atexitRegistered {
            atexitRegistered = true
            atexit(onExit)
        }
        for sig in terminatingSignals where signals == nil || !SignalWatch.signals.contains(sig) {
            install(sig, onTerminatingSignal)
        }
        if let signals {
            let wakeFD = fds[1]
            wakerToken = signals.onSignal {
                var c: UInt8 = 0x53  // "S"
                _ = writeDescriptor(wakeFD, &c, 1)
            }
        }
        install(SIGTSTP, onStop)
        install(SIGCONT, onContinue)
        install(SIGWINCH, onResize)
        // A parent may have left these blocked; the restore-and-reraise path needs them delivered.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for sig in terminatingSignals + [SIGTSTP, SIGCONT, SIGWINCH] { sigaddset(&unblock, sig) }
        _ = pthread_sigmask(SIG_UNBLOCK, &unblock, nil)

        guard tcsetattr(inputFD, TCSAFLUSH, &signalShared.raw) == 0 else {
            close()
            throw TerminalError("cannot switch the terminal to raw mode (tcsetattr failed); use --no-screen")
        }
        if mode == .fullScreen { write(TerminalSequences.enter) }
        if signalShared.linePaste != 0 { write(TerminalSequences.pasteOn) }
    }

    /// At start, for commands that never open a session (`etude list`): a terminal on stdin
    /// and stdout left raw by a killed Etude gets sane settings back, so the output does not
    /// staircase and the shell after it echoes. Only when both are the terminal: `etude list |
    /// less` must not undo the raw mode `less` is setting up at the same moment. Returns true
    /// when it repaired the terminal.
    @discardableResult
    public static func repairLeftoverRawMode(inputFD: Int32 = STDIN_FILENO, outputFD: Int32 = STDOUT_FILENO) -> Bool {
        guard isatty(inputFD) == 1, isatty(outputFD) == 1 else { return false }
        var found = termios()
        guard tcgetattr(inputFD, &found) == 0, looksLeftRaw(found) else { return false }
        var fixed = sane(found)
        return tcsetattr(inputFD, TCSADRAIN, &fixed) == 0
    }

    /// No echo and no line editing at once: what a raw-mode program leaves when it is killed
    /// before it can restore the terminal (a shell never runs commands like that).
    static func looksLeftRaw(_ t: termios) -> Bool {
        t.c_lflag & tcflag_t(ICANON) == 0 && t.c_lflag & tcflag_t(ECHO) == 0
    }

    /// Sane settings (as `stty sane` gives) on top of what was found: line editing, echo,
    /// signals, CR→NL on input, NL→CRNL on output.
    static func sane(_ found: termios) -> termios {
        var t = found
        t.c_lflag |= tcflag_t(ICANON | ECHO | ECHOE | ECHOK | ISIG | IEXTEN)
        t.c_iflag |= tcflag_t(ICRNL | IXON | BRKINT | IMAXBEL)
        t.c_iflag &= ~tcflag_t(INLCR | IGNCR)
        t.c_oflag |= tcflag_t(OPOST | ONLCR)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        return t
    }

    deinit { close() }

    /// The process environment as a dictionary (for colour detection).
    public static func processEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") {
                env[String(s[..<eq])] = String(s[s.index(after: eq)...])
            }
            p += 1
        }
        return env
    }

    /// Opens a session, runs `body`, and restores the terminal however `body` ends.
    public static func run<T>(mode: Mode = .fullScreen, signals: SignalWatch? = nil,
                              _ body: (TerminalSession) throws -> T) throws -> T {
        let session = try TerminalSession(mode: mode, signals: signals)
        defer { session.close() }
        return try body(session)
    }

    /// The watch this session leaves SIGINT/SIGTERM/SIGHUP to, if any.
    public let watch: SignalWatch?

    private func install(_ sig: Int32, _ handler: @convention(c) (Int32) -> Void) {
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var old = sigaction()
        if sigaction(sig, &action, &old) == 0 { previousActions[sig] = old }
    }

    /// Restores the terminal and the previous signal handlers. Safe to call more than once.
    public func close() {
        guard !closed else { return }
        closed = true
        if signalShared.active != 0 {
            restoreTerminalFromAnyContext()
            signalShared.active = 0
            signalShared.suspended = 0
        }
        for (sig, var old) in previousActions { _ = sigaction(sig, &old, nil) }
        previousActions.removeAll()
        if let watch, let wakerToken { watch.removeWaker(wakerToken) }
        signalShared.wakeWriteFD = -1
        closeDescriptor(wakeReadFD)
        closeDescriptor(wakeWriteFD)
    }

    /// Ctrl-Z arrives as a byte in raw mode: call this to restore the terminal and stop like a
    /// normal job; after `fg` the session re-enters and `takeEvents()` reports `.resumed`.
    public func suspend() {
        _ = kill(getpid(), SIGTSTP)
    }

    public func size() -> TerminalSize {
        TerminalSize.of(outputFD) ?? TerminalSize(columns: 80, rows: 24)
    }

    public func write(_ bytes: [UInt8]) {
        guard !closed, !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { buf in
            var done = 0
            while done < buf.count {
                guard let base = buf.baseAddress else { return }
                let n = writeDescriptor(outputFD, base + done, buf.count - done)
                if n > 0 {
                    done += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else if n < 0 && errno == EAGAIN {
                    var p = pollfd(fd: outputFD, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 100)
                } else {
                    return
                }
            }
        }
    }

    public func readInput(timeoutMilliseconds: Int32) -> [UInt8] {
        guard !closed else { return [] }
        var fds = [
            pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0),
        ]
        let r = poll(&fds, 2, timeoutMilliseconds)
        if r <= 0 { return [] }
        if fds[1].revents & Int16(POLLIN) != 0 { drainWake() }
        if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = buf.withUnsafeMutableBytes { read(inputFD, $0.baseAddress, $0.count) }
            if n > 0 { return Array(buf[0..<n]) }
            if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) { pendingEvents.insert(.inputClosed) }
        }
        return []
    }

    private func drainWake() {
        var buf = [UInt8](repeating: 0, count: 64)
        while true {
            let n = buf.withUnsafeMutableBytes { read(wakeReadFD, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            for b in buf[0..<n] {
                if b == 0x57 { pendingEvents.insert(.resized) }
                if b == 0x43 { pendingEvents.insert(.resumed) }
                if b == 0x53 { pendingEvents.insert(.signalled) }
            }
        }
    }

    public func takeEvents() -> TerminalEvents {
        let e = pendingEvents
        pendingEvents = []
        return e
    }
}

extension TerminalSize {
    /// The size of the terminal on `fd`, nil when it is not one (or says 0×0). Clamped: a
    /// bogus size must not allocate a gigantic frame.
    public static func of(_ fd: Int32) -> TerminalSize? {
        var ws = winsize()
        guard isatty(fd) == 1, ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return nil }
        return TerminalSize(columns: min(Int(ws.ws_col), 1000), rows: min(Int(ws.ws_row), 500))
    }
}
