import Foundation
import Testing
import TestSupport
@testable import Terminal

/// Issue 16, point 8: an Etude killed with SIGKILL runs no cleanup and leaves the terminal raw
/// (no echo, no line editing). The next Etude recognises it and gives sane settings back: a
/// session restores sane settings, not the raw ones it found; a command with no session
/// repairs it at start when stdin and stdout are the terminal.
@Suite struct LeftoverRawModeTests {
    /// `stty raw -echo` on a fresh pseudo-terminal.
    static func rawTerminal() throws -> PseudoTerminal {
        let tty = try PseudoTerminal()
        var t = tty.modes()
        cfmakeraw(&t)
        t.c_lflag &= ~tcflag_t(ECHO)
        #expect(tcsetattr(tty.slave, TCSANOW, &t) == 0)
        return tty
    }

    static func isSane(_ t: termios) -> Bool {
        t.c_lflag & tcflag_t(ICANON) != 0 && t.c_lflag & tcflag_t(ECHO) != 0 && t.c_lflag & tcflag_t(ISIG) != 0
            && t.c_oflag & tcflag_t(OPOST) != 0 && t.c_iflag & tcflag_t(ICRNL) != 0
    }

    @Test func rawModeIsRecognisedAndSaneSettingsPutEverythingBack() throws {
        let fresh = try PseudoTerminal()
        #expect(!TerminalSession.looksLeftRaw(fresh.modes()), "a new terminal is not raw")
        let tty = try Self.rawTerminal()
        let raw = tty.modes()
        #expect(TerminalSession.looksLeftRaw(raw))
        let sane = TerminalSession.sane(raw)
        #expect(Self.isSane(sane))
        #expect(!TerminalSession.looksLeftRaw(sane))
        // Only the flags a raw program takes away are given back; the rest (speed, size) stays.
        var before = fresh.modes(), after = sane
        #expect(cfgetospeed(&after) == cfgetospeed(&before))
    }

    @Test func aCommandWithoutAScreenRepairsARawTerminalAtStart() throws {
        let tty = try Self.rawTerminal()
        #expect(TerminalSession.repairLeftoverRawMode(inputFD: tty.slave, outputFD: tty.slave))
        #expect(Self.isSane(tty.modes()))
        // A sane terminal is left alone.
        #expect(!TerminalSession.repairLeftoverRawMode(inputFD: tty.slave, outputFD: tty.slave))
    }

    /// `etude list | less`: stdout is a pipe, so the raw mode `less` may be setting up at the
    /// same moment is not Etude's to undo.
    @Test func aRawTerminalIsLeftAloneWhenOutputIsNotIt() throws {
        let tty = try Self.rawTerminal()
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(!TerminalSession.repairLeftoverRawMode(inputFD: tty.slave, outputFD: fds[1]))
        #expect(TerminalSession.looksLeftRaw(tty.modes()))
    }

    /// A full-screen session opened on a raw terminal restores sane settings when it closes.
    @Test func aSessionOpenedOnARawTerminalRestoresSaneSettings() throws {
        let tty = try Self.rawTerminal()
        let session = try TerminalSession(mode: .fullScreen, inputFD: tty.slave, outputFD: tty.slave, environment: ["TERM": "xterm"])
        #expect(session.repairedLeftoverRawMode)
        session.close()
        #expect(Self.isSane(tty.modes()))
    }
}
