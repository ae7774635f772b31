import Foundation
import Testing
import TestSupport

/// Issue 38.2, the rest of "your instrument, once": `today --run`, a routine and the command
/// `etude next` prints play on the instrument `etude setup` chose (a FIFO here, as a keyboard
/// on a serial port), unless told `--input`; and every command that plays a lesson takes the
/// instrument options.
@Suite(.serialized)
struct InstrumentSetupMethodTests {
    /// An Etude with `fifo` (held open for writing, so opening it never blocks) as the instrument.
    static func setUp() throws -> (etude: Etude, fifo: String, fd: Int32) {
        let etude = try Etude()
        let fifo = etude.home.file("piano.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let fd = open(fifo, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        let r = try etude.run(["setup", "--input", fifo, "--echo", "off"])
        try #require(r.status == 0, "\(r.stderr)")
        return (etude, fifo, fd)
    }

    @Test func todayRunPlaysItsPartsOnTheInstrumentUnlessToldOtherwise() throws {
        let (etude, fifo, fd) = try Self.setUp()
        defer { close(fd) }
        let today = try etude.start(["today", "--run", "--minutes", "5", "--audio-driver", "no-such-driver"])
        #expect(eventually(60) { today.stdout.contains("Your turn: 1/2 C major five-finger position: hands separately in play mode on \(fifo)\n") },
                "\(today.stdout)\(today.stderr)")
        today.signal(SIGTERM)
        _ = today.wait(timeout: 30)

        // --input for this run only: the other instrument is played on, the setup is kept.
        let other = etude.home.file("other.fifo")
        try #require(mkfifo(other, 0o600) == 0)
        let otherFD = open(other, O_RDWR | O_CLOEXEC)
        defer { close(otherFD) }
        let once = try etude.start(["today", "--run", "--minutes", "5", "--input", other, "--audio-driver", "no-such-driver"])
        #expect(eventually(60) { once.stdout.contains(" in play mode on \(other)\n") }, "\(once.stdout)\(once.stderr)")
        once.signal(SIGTERM)
        _ = once.wait(timeout: 30)
        #expect(try etude.run(["setup", "--show"]).stdout.contains("Your instrument: --input \(fifo)"))
    }

    @Test func aRoutineIsPlayedAndJudgedOnTheInstrument() throws {
        let (etude, fifo, fd) = try Self.setUp()
        defer { close(fd) }
        let lesson = "C major five-finger position: parallel motion"
        let made = try etude.run(["routine", "new", "mine", "--entry", "lesson=\(lesson);hand=right;bars=1-1;mode=wait;reps=1"])
        try #require(made.status == 0, "\(made.stderr)")
        let run = try etude.start(["routine", "run", "mine", "--audio-driver", "no-such-driver"])
        #expect(eventually(30) { run.stdout.contains("Your turn: 1/1 \(lesson) in wait mode on \(fifo)\n") }, "\(run.stdout)\(run.stderr)")
        MIDIBytes.playFirstBar(fd)  // the notes come from the instrument set up, not from keys
        #expect(run.wait(timeout: 60) == 0, "\(run.stderr)")
        #expect(run.stdout.contains("  pass 1: score 100, accuracy 100%, hit 4 missed 0 wrong 0 extra 0"), "\(run.stdout)")
    }

    /// The command `etude next` prints runs on the instrument (the header's `echo off` is a MIDI
    /// input's; the computer keyboard's header has no echo).
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theCommandNextPrintsPlaysOnTheInstrument() throws {
        let (etude, _, fd) = try Self.setUp()
        defer { close(fd) }
        let next = try etude.run(["next"])
        let line = try #require(next.stdout.split(separator: "\n").first { $0.hasPrefix("Practise it: etude ") }, "\(next.stdout)")
        let words = Self.shellWords(String(line.dropFirst("Practise it: etude ".count)))
        #expect(words.first == "practice" && !words.contains("--input"), "\(words)")
        let pane = try TmuxPane(etude: etude, words)
        let screen = pane.waitFor { $0.contains("mode: ") || pane.ended }
        try pane.keys("q")
        #expect(screen.contains("mode: play") && screen.contains("echo off"), "next's command on the FIFO: \(screen)")
        #expect(pane.exitStatus(within: 30) == 0, "\(pane.stderr)")
    }

    /// Every command that plays a lesson on the learner's instrument takes all of its options.
    @Test func everyCommandThatPlaysTakesTheInstrumentOptions() throws {
        let etude = try Etude()
        let options = ["--input", "--echo", "--sound", "--midi-out", "--lights", "--gestures", "--guide"]
        for command in [["browse"], ["resume"], ["practice"], ["today"], ["routine", "run"], ["sight-read"]] {
            let help = try etude.run(["help"] + command)
            #expect(help.status == 0, "\(help.stderr)")
            for option in options {
                #expect(help.stdout.contains(option + " ") || help.stdout.contains(option + "\n") || help.stdout.contains(option + ","),
                        "etude \(command.joined(separator: " ")) has no \(option)")
            }
        }
    }

    /// Words of a command line as a shell splits them (double quotes only, as `next` prints).
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = [], word = "", quoted = false, started = false
        for c in line {
            if c == "\"" { quoted.toggle(); started = true }
            else if c == " " && !quoted { if started { words.append(word) }; word = ""; started = false }
            else { word.append(c); started = true }
        }
        if started { words.append(word) }
        return words
    }
}
