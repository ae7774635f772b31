import Foundation
import Store
import Testing
import TestSupport

/// Issue 38.2: the instrument chosen once with `etude setup` is what practice, the browser,
/// `resume` and `sight-read` play on (a MIDI input's header says `echo on|off`; the computer
/// keyboard's says neither); each still takes `--input`; `resume` comes back to the input it was
/// left on; without a setup the computer keyboard is kept.
@Suite(.serialized, .enabled(if: Tools.tmux.available, Tools.tmux.reason))
struct InstrumentSetupTests {
    static let lesson = Repo.lesson("level1/c-major-five-finger-parallel.mid")

    /// An Etude with a FIFO set up as the instrument (echo off).
    static func setUp() throws -> (Etude, TempDir, String) {
        let etude = try Etude()
        let dir = try TempDir()
        let fifo = dir.file("piano.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let r = try etude.run(["setup", "--input", fifo, "--echo", "off"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Your instrument: --input \(fifo)"), "\(r.stdout)")
        return (etude, dir, fifo)
    }

    /// Waits for the practice screen in `pane`, then quits it.
    static func screen(_ pane: TmuxPane, quit: String = "q") throws -> String {
        let screen = pane.waitFor { $0.contains("mode: ") || pane.ended }
        try pane.keys(quit)
        return screen
    }

    @Test func setupIsStoredShownAndForgotten() throws {
        let (etude, dir, fifo) = try Self.setUp()
        defer { withExtendedLifetime(dir) {} }  // the FIFO stays while the test runs
        _ = try etude.run(["setup", "--lights", "16"])
        let shown = try etude.run(["setup", "--show"])
        #expect(shown.stdout.contains("Your instrument: --input \(fifo)") && shown.stdout.contains("echo:      off"), "\(shown.stdout)")
        #expect(shown.stdout.contains("lights:    channel 16"), "\(shown.stdout)")
        let stored = try #require(try Store.open(path: etude.database).instrumentSetup())
        #expect(stored.input == fifo && stored.lights == 16)
        // Options not given keep what was set up.
        _ = try etude.run(["setup", "--gestures", "on"])
        let kept = try #require(try Store.open(path: etude.database).instrumentSetup())
        #expect(kept.input == fifo && kept.lights == 16 && kept.gestures == "on")
        let gone = try etude.run(["setup", "--forget"])
        #expect(gone.stdout.hasPrefix("No instrument set up: Etude plays along with the computer keyboard"), "\(gone.stdout)")
        #expect(try Store.open(path: etude.database).instrumentSetup() == nil)
        let bad = try etude.run(["setup", "--input", "/nonexistent/piano"])
        #expect(bad.status == 1 && bad.stderr.hasPrefix("etude: cannot read MIDI input /nonexistent/piano"), "\(bad.stderr)")
    }

    @Test func practiceAndSightReadPlayOnTheInstrumentUnlessToldOtherwise() throws {
        let (etude, dir, _) = try Self.setUp()
        defer { withExtendedLifetime(dir) {} }
        let practice = try Self.screen(try TmuxPane(etude: etude, ["practice", Self.lesson, "--mode", "wait"]))
        #expect(practice.contains("echo off"), "practice on the FIFO: \(practice)")
        let keys = try Self.screen(try TmuxPane(etude: etude, ["practice", Self.lesson, "--mode", "wait", "--input", "keys"]))
        #expect(keys.contains("mode: wait") && !keys.contains("echo "), "--input keys for one session: \(keys)")
        let sight = try Self.screen(try TmuxPane(etude: etude, ["sight-read", "--level", "1", "--seed", "3"]))
        #expect(sight.contains("echo off"), "sight-read on the FIFO: \(sight)")
    }

    @Test func resumeComesBackToTheInputItWasLeftOn() throws {
        let (etude, dir, fifo) = try Self.setUp()
        // Played on the computer keyboard for once: resume comes back to it, not to the setup.
        let pane = try TmuxPane(etude: etude, ["practice", Self.lesson, "--mode", "wait", "--input", "keys"])
        _ = try Self.screen(pane)
        #expect(pane.exitStatus(within: 30) == 0, "\(pane.stderr)")
        let show = try etude.run(["resume", "--show"])
        #expect(show.stdout.contains("Input:    keys"), "\(show.stdout)")
        let resumed = try Self.screen(try TmuxPane(etude: etude, ["resume"]))
        #expect(resumed.contains("mode: wait") && !resumed.contains("echo "), "resumed on the keys: \(resumed)")
        // Played on the instrument: resume comes back to it.
        let again = try TmuxPane(etude: etude, ["practice", Self.lesson, "--mode", "wait"])
        _ = try Self.screen(again)
        #expect(again.exitStatus(within: 30) == 0)
        #expect(try etude.run(["resume", "--show"]).stdout.contains("Input:    \(fifo)"))
        let onIt = try Self.screen(try TmuxPane(etude: etude, ["resume"]))
        #expect(onIt.contains("echo off"), "resumed on the FIFO: \(onIt)")
        withExtendedLifetime(dir) {}
    }

    @Test func theBrowserPlaysOnTheInstrument() throws {
        let (etude, dir, _) = try Self.setUp()
        defer { withExtendedLifetime(dir) {} }
        let pane = try TmuxPane(etude: etude, ["browse"], width: 120, height: 30)
        var screen = pane.waitFor { $0.contains("Etude — lessons") }
        try pane.type("five-finger position: parallel")
        screen = pane.waitFor { $0.contains("Search: five-finger position: parallel") }
        try pane.keys("Enter")
        screen = pane.waitFor { $0.contains("mode  [") }
        try pane.keys("Right")  // wait mode
        try pane.keys("Enter")
        screen = pane.waitFor { $0.contains("mode: wait") }
        #expect(screen.contains("echo off"), "the browser's practice on the FIFO: \(screen)")
        try pane.keys("q")
        _ = pane.waitFor { $0.contains("Etude — lessons") }
        try pane.keys("C-q")
        #expect(pane.exitStatus(within: 30) == 0, "\(pane.stderr)")
    }

    @Test func withoutASetupTheComputerKeyboardIsKept() throws {
        let etude = try Etude()
        let screen = try Self.screen(try TmuxPane(etude: etude, ["practice", Self.lesson, "--mode", "wait"]))
        #expect(screen.contains("mode: wait") && !screen.contains("echo "), "\(screen)")
        let shown = try etude.run(["setup", "--show"])
        #expect(shown.stdout.hasPrefix("No instrument set up"), "\(shown.stdout)")
    }
}
