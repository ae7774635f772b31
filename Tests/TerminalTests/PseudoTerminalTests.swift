import Foundation
import Testing
import TestSupport
@testable import Terminal

/// Runs the `etude-tty-probe` program on a fresh pseudo-terminal and checks, from outside,
/// that raw mode is entered and the tty modes are restored on every way out.
final class ProbeRun {
    let tty: PseudoTerminal
    let process: Spawned
    var pid: pid_t { process.pid }

    init(arguments: [String] = []) throws {
        tty = try PseudoTerminal(columns: 80, rows: 24)
        let path = EtudeBinary.product("etude-tty-probe")
        guard FileManager.default.isExecutableFile(atPath: path) else { throw ProbeError("etude-tty-probe not built (\(path))") }
        process = try Spawned(path, arguments, environment: ["TERM": "xterm-256color", "PATH": "/usr/bin:/bin"], terminal: tty)
    }

    /// The slave's termios (what the probe sees).
    func modes() -> termios { tty.modes() }

    func send(_ text: String) { tty.send(text) }

    func drain() { tty.drain() }

    var output: [UInt8] {
        get { tty.output }
        set { tty.output = newValue }
    }

    var text: String { tty.text }

    var emulatedSize = TerminalSize(columns: 80, rows: 24)

    /// What the terminal shows after all output so far.
    var screen: String {
        var v = VirtualScreen(size: emulatedSize)
        v.feed(output)
        return v.text
    }

    /// Reads output until the emulated screen satisfies `condition` (20 s guard against a hang).
    func waitForScreen(_ condition: (String) -> Bool) -> Bool {
        tty.waitFor { _ in condition(self.screen) }
    }

    /// Reads output until it contains `marker` (a guard of 20 s against a hung probe, not a timing check).
    func waitFor(_ marker: String) -> Bool { tty.waitFor(marker) }

    /// The raw wait status of the probe's next change (its end, or with `untraced` a stop); nil
    /// when nothing happened within the guard (the probe is then killed).
    func waitStatus(untraced: Bool = false) -> Int32? {
        process.waitForChange(stops: untraced, timeout: 20, poll: tty.drain)
    }
}

struct ProbeError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func exitCode(_ status: Int32) -> Int32? { status & 0x7F == 0 ? (status >> 8) & 0xFF : nil }
func termSignal(_ status: Int32) -> Int32? {
    let s = status & 0x7F
    return (s != 0 && s != 0x7F) ? s : nil
}
func stopSignal(_ status: Int32) -> Int32? { status & 0xFF == 0x7F ? (status >> 8) & 0xFF : nil }

func sameModes(_ a: termios, _ b: termios) -> Bool {
    var a = a, b = b
    let ccA = withUnsafeBytes(of: &a.c_cc) { Array($0) }
    let ccB = withUnsafeBytes(of: &b.c_cc) { Array($0) }
    return a.c_iflag == b.c_iflag && a.c_oflag == b.c_oflag && a.c_cflag == b.c_cflag && a.c_lflag == b.c_lflag && ccA == ccB
}

func isRaw(_ t: termios) -> Bool {
    t.c_lflag & tcflag_t(ICANON) == 0 && t.c_lflag & tcflag_t(ECHO) == 0 && t.c_lflag & tcflag_t(ISIG) == 0
}

@Suite("pseudo-terminal: raw mode entered and restored", .serialized)
struct PseudoTerminalTests {
    /// Starts the probe, checks it is in raw mode with the alternate screen, returns the run
    /// and the modes from before.
    func start() throws -> (ProbeRun, termios) {
        let run = try ProbeRun()
        let before = run.modes()
        #expect(!isRaw(before), "a fresh pty starts cooked")
        #expect(run.waitFor("READY"), "probe output: \(run.text)")
        #expect(isRaw(run.modes()), "the probe put the terminal in raw mode")
        #expect(run.text.contains("\u{1B}[?1049h"), "alternate screen entered")
        #expect(run.text.contains("\u{1B}[?25l"), "cursor hidden")
        return (run, before)
    }

    func expectRestored(_ run: ProbeRun, _ before: termios) {
        #expect(sameModes(run.modes(), before), "tty modes restored exactly")
        #expect(run.text.contains("\u{1B}[?1049l"), "alternate screen left")
        #expect(run.text.contains("\u{1B}[?25h"), "cursor shown again")
    }

    @Test func normalExitRestoresModes() throws {
        let (run, before) = try start()
        run.send("x")
        #expect(run.waitFor("KEY x"), "keys arrive decoded")
        run.send("q")
        let status = try #require(run.waitStatus())
        #expect(exitCode(status) == 0)
        expectRestored(run, before)
    }

    @Test func errorThrownOutOfSessionRestoresModes() throws {
        let (run, before) = try start()
        run.send("t")
        let status = try #require(run.waitStatus())
        #expect(exitCode(status) == 3)
        expectRestored(run, before)
    }

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func signalRestoresModesAndReraises(_ sig: Int32) throws {
        let (run, before) = try start()
        kill(run.pid, sig)
        let status = try #require(run.waitStatus())
        #expect(termSignal(status) == sig, "the process dies of the same signal (status \(status))")
        expectRestored(run, before)
    }

    @Test func suspendRestoresAndResumeReenters() throws {
        let (run, before) = try start()
        kill(run.pid, SIGTSTP)
        let stopped = try #require(run.waitStatus(untraced: true))
        #expect(stopSignal(stopped) != nil, "the probe stopped (status \(stopped))")
        #expect(sameModes(run.modes(), before), "modes restored while suspended")
        kill(run.pid, SIGCONT)
        #expect(run.waitFor("RESUMED"), "the probe saw the resume: \(run.text)")
        #expect(isRaw(run.modes()), "raw mode re-entered after fg")
        run.send("q")
        let status = try #require(run.waitStatus())
        #expect(exitCode(status) == 0)
        expectRestored(run, before)
    }

    @Test func ctrlZByteSuspendsLikeSIGTSTP() throws {
        let (run, before) = try start()
        run.send("\u{1A}")
        let stopped = try #require(run.waitStatus(untraced: true))
        #expect(stopSignal(stopped) != nil)
        #expect(sameModes(run.modes(), before))
        kill(run.pid, SIGCONT)
        #expect(run.waitFor("RESUMED"))
        run.send("q")
        let status = try #require(run.waitStatus())
        #expect(exitCode(status) == 0)
    }

    /// The practice screen over a toy transport on a real pty: the bar counter advances, `-`
    /// lowers the BPM shown, `[`/`]` set the loop shown, `?` opens help, `q` exits 0 and the
    /// modes come back; SIGTERM while drawing restores them too.
    @Test func practiceScreenOnARealTerminal() throws {
        let run = try ProbeRun(arguments: ["screen"])
        let before = run.modes()
        #expect(run.waitForScreen { $0.contains("bar 1:") && $0.contains("♩=240 (100%)") }, "first frame: \(run.screen)")
        #expect(isRaw(run.modes()))
        #expect(run.waitForScreen { $0.contains("bar 2:") }, "the bar counter advances: \(run.screen)")
        run.send("-")
        #expect(run.waitForScreen { $0.contains("♩=228 (95%)") }, "- lowers the BPM shown: \(run.screen)")
        run.send("[")
        #expect(run.waitForScreen { $0.contains("loop ") && $0.contains("×0") }, "[ sets the loop start: \(run.screen)")
        run.send("]")
        #expect(run.waitForScreen { s in
            guard let r = s.range(of: "loop ") else { return false }
            let rest = s[r.upperBound...].prefix(7)
            return rest.contains("–")
        }, "] sets the loop end: \(run.screen)")
        run.send("?")
        #expect(run.waitForScreen { $0.contains("any key closes this help") })
        run.send(" ")
        #expect(run.waitForScreen { !$0.contains("any key closes this help") })
        run.send("q")
        let status = try #require(run.waitStatus())
        #expect(exitCode(status) == 0)
        #expect(sameModes(run.modes(), before))
        #expect(run.text.hasSuffix("\u{1B}[?1049l"), "the last thing written leaves the alternate screen")
    }

    /// The screen host catches SIGTERM, SIGINT and SIGHUP: the screen ends through its cleanup
    /// (the terminal restored, the alternate screen left) and the process exits 128 + the signal,
    /// as every Etude screen does.
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func practiceScreenSignalWhileDrawing(_ sig: Int32) throws {
        let run = try ProbeRun(arguments: ["screen"])
        let before = run.modes()
        #expect(run.waitForScreen { $0.contains("bar 2:") })
        kill(run.pid, sig)
        let status = try #require(run.waitStatus())
        #expect(exitCode(status) == 128 + sig, "ended through the host's cleanup with 128 + \(sig) (status \(status))")
        #expect(sameModes(run.modes(), before))
        #expect(run.text.hasSuffix("\u{1B}[?1049l"), "the last thing written leaves the alternate screen")
    }

    /// Ctrl-C typed on the screen ends it with 130.
    @Test func practiceScreenCtrlCExits130() throws {
        let run = try ProbeRun(arguments: ["screen"])
        let before = run.modes()
        #expect(run.waitForScreen { $0.contains("bar 1:") })
        run.send("\u{03}")
        let status = try #require(run.waitStatus())
        #expect(exitCode(status) == 130)
        #expect(sameModes(run.modes(), before))
    }

    /// SIGWINCH: the screen is redrawn at the new size.
    @Test func practiceScreenFollowsResize() throws {
        let run = try ProbeRun(arguments: ["screen"])
        #expect(run.waitForScreen { $0.contains("bar 1:") })
        run.tty.resize(columns: 100, rows: 30)
        run.output = []
        run.emulatedSize = TerminalSize(columns: 100, rows: 30)
        kill(run.pid, SIGWINCH)
        #expect(run.waitForScreen { s in
            let lines = s.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.count == 30 && lines[0].hasSuffix("%) ") && lines[29].contains("q quit")
        }, "redrawn at 100×30: \(run.screen)")
        run.send("q")
        let status = try #require(run.waitStatus())
        #expect(exitCode(status) == 0)
    }

    /// SIGWINCH to each size the screens are checked at, and below the minimum: the host
    /// redraws the whole frame at the new size (the status on the first row, the footer's keys
    /// on the last), or the "too small" message, and the screen comes back when it fits.
    @Test func theHostRedrawsAtEverySize() throws {
        let run = try ProbeRun(arguments: ["screen"])
        #expect(run.waitForScreen { $0.contains("bar 1:") })
        for size in [TerminalSize(columns: 60, rows: 20), TerminalSize(columns: 200, rows: 50), TerminalSize(columns: 50, rows: 12),
                     TerminalSize(columns: 80, rows: 24)] {
            run.tty.resize(columns: size.columns, rows: size.rows)
            run.output = []
            run.emulatedSize = size
            kill(run.pid, SIGWINCH)
            #expect(run.waitForScreen { s in
                let lines = s.split(separator: "\n", omittingEmptySubsequences: false)
                guard lines.count == size.rows else { return false }
                if size.columns < 60 { return s.contains("Terminal too small: 50×12") && s.contains("need at least 60×16") }
                return lines[0].contains("Probe étude") && lines[0].hasSuffix("%) ") && lines[size.rows - 1].contains("q quit")
            }, "redrawn at \(size): \(run.screen)")
        }
        run.send("q")
        let status = try #require(run.waitStatus())
        #expect(exitCode(status) == 0)
    }
}
