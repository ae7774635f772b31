import Foundation
import Testing
import TestSupport

/// Esc timeout, paste, Ctrl-C, Ctrl-Z, SIGWINCH and SIGTERM behave the same on every screen —
/// the practice screen, the browser, calibration and a one-line player — since all of them
/// read keys through the one terminal loop. Each screen in tmux at 80×24, silent.
@Suite(.serialized) struct TerminalKeysOnEveryScreenTests {
    struct Screen: CustomTestStringConvertible, Sendable {
        let name: String
        /// `etude` arguments (`LESSON` stands for a lesson file made in the user's home).
        let arguments: [String]
        /// Shown once the screen is up, and again once it is back after `fg`.
        let ready: String
        /// What a paste of `q` shows (it is text, never the q key).
        let pasted: String?
        /// Esc presses that leave (the browser's first one clears the pasted search).
        let escapes: Int
        /// What shows after `fg` when the screen paused its music for the suspend.
        var paused: String? = nil
        var testDescription: String { name }
    }

    static let screens: [Screen] = [
        Screen(name: "practice", arguments: ["practice", "LESSON"], ready: "Long Tune", pasted: nil, escapes: 1,
               paused: "■ silent (no audio) · Long Tune"),
        Screen(name: "browser", arguments: [], ready: "Etude — lessons", pasted: "Search: q", escapes: 2),
        // 64 beats: longer than the test, so it never reaches its (refused, tapless) result.
        Screen(name: "calibration", arguments: ["calibrate", "--beats", "64"], ready: "any key but q taps the beat", pasted: nil, escapes: 1),
        Screen(name: "one-line player", arguments: ["play", "LESSON", "--no-screen"], ready: "silent (no audio) · ", pasted: nil,
               escapes: 1, paused: "paused"),
    ]

    /// Twenty bars at ♩=60: longer than any test here.
    static func pane(_ screen: Screen) throws -> (TmuxPane, Etude) {
        let etude = try Etude()
        let tune = try etude.home.write("long.abc", "X:1\nT:Long Tune\nM:4/4\nL:1/4\nQ:1/4=60\nK:C\n"
                                        + String(repeating: "CDEF|GABc|", count: 10) + "\n")
        let args = screen.arguments.map { $0 == "LESSON" ? tune : $0 }
        return (try TmuxPane(etude: etude, args, width: 80, height: 24), etude)
    }

    /// The process state letter from /proc (`T` when stopped).
    static func state(_ pid: pid_t) -> String {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return "" }
        return String(stat[stat.index(close, offsetBy: 2)...].prefix(1))
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason), arguments: screens)
    func pasteResizeCtrlZAndEscAfterItsTimeout(screen: Screen) throws {
        let (pane, _) = try Self.pane(screen)
        var shown = pane.waitFor { $0.contains(screen.ready) }
        try #require(shown.contains(screen.ready), "\(shown)")
        let pid = try #require(pane.pid)

        // A paste is text: a pasted q never quits.
        _ = try pane.tmux(["set-buffer", "q"])
        _ = try pane.tmux(["paste-buffer", "-p", "-t", "t"])
        if let pasted = screen.pasted {
            shown = pane.waitFor { $0.contains(pasted) }
            #expect(shown.contains(pasted), "\(shown)")
        } else {
            usleep(300_000)
        }
        #expect(!pane.ended, "a pasted q did not quit: \(pane.screen())")

        // SIGWINCH: still there, drawn for the new size.
        try pane.resize(width: 90, height: 26)
        usleep(300_000)
        try pane.resize(width: 80, height: 24)
        shown = pane.waitFor { $0.contains(screen.ready) }
        #expect(shown.contains(screen.ready) && !pane.ended, "\(shown)")

        // Ctrl-Z stops like a job; after SIGCONT the screen is back.
        try pane.keys("C-z")
        #expect(eventually(10) { Self.state(pid) == "T" }, "stopped after Ctrl-Z")
        #expect(kill(pid, SIGCONT) == 0)
        shown = pane.waitFor { $0.contains(screen.ready) }
        #expect(shown.contains(screen.ready) && !pane.ended, "back after fg: \(shown)")
        if let paused = screen.paused {
            shown = pane.waitFor { $0.contains(paused) }
            #expect(shown.contains(paused), "the music paused while away: \(shown)")
        }

        // A lone Esc is the Esc key once its timeout passed: it leaves.
        for _ in 0..<screen.escapes {
            try pane.keys("Escape")
            usleep(200_000)
        }
        #expect(pane.exitStatus() == 0, "\(pane.stderr)\n\(pane.screen())")
        #expect(pane.ttyRestored, "stty -g differs after Esc")
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason), arguments: screens)
    func ctrlCEndsWith130AndRestoresTheTerminal(screen: Screen) throws {
        let (pane, _) = try Self.pane(screen)
        let shown = pane.waitFor { $0.contains(screen.ready) }
        try #require(shown.contains(screen.ready), "\(shown)")
        try pane.keys("C-c")
        #expect(pane.exitStatus() == 130, "\(pane.stderr)")
        #expect(pane.ttyRestored)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason), arguments: screens)
    func sigtermEndsWith143AndRestoresTheTerminal(screen: Screen) throws {
        let (pane, _) = try Self.pane(screen)
        let shown = pane.waitFor { $0.contains(screen.ready) }
        try #require(shown.contains(screen.ready), "\(shown)")
        let pid = try #require(pane.pid)
        #expect(kill(pid, SIGTERM) == 0)
        #expect(pane.exitStatus() == 128 + SIGTERM, "\(pane.stderr)")
        #expect(pane.ttyRestored)
    }
}
