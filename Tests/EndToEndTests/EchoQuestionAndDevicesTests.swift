import Foundation
import Jack
import Testing
import TestSupport

/// Issue 38.5 as a user meets it: the echo question in tmux — asked once of a MIDI instrument
/// the learner names, naming it, answered by one key; never of a FIFO, a microphone or
/// `--input jack` alone — and `etude devices` listing what can be played on first, with and
/// without JACK sources, never Etude's own ports.
@Suite(.serialized, .enabled(if: Tools.tmux.available, Tools.tmux.reason))
struct EchoQuestionAndDevicesTests {
    static let lesson = Repo.lesson("level1/c-major-five-finger-parallel.mid")
    static let question = "is new here. Does it make its own sound?"

    @Test(.enabled(if: JackServer.available, JackServer.reason))
    func aNamedInstrumentIsAskedOnceByNameOnOneKey() throws {
        let server = try JackServer(tag: "ask")
        var etude = try Etude()
        etude.environment.merge(server.environment) { $1 }
        let piano = try #require(JackMeter(name: "upright", server: server.name))
        let first = try TmuxPane(etude: etude, ["practice", Self.lesson, "--mode", "wait", "--input", "jack:upright", "--jack-name", "etude-ask"],
                                 width: 100, height: 30)
        let asked = first.waitFor { $0.contains(Self.question) }
        #expect(asked.contains("JACK port \(piano.keyPort) \(Self.question)"), "named as the learner knows it: \(asked)\n\(first.stderr)")
        #expect(!asked.contains("midi_in"), "never Etude's own port: \(asked)")
        try first.type("y")  // one key, no Enter
        let screen = first.waitFor { $0.contains("mode: wait") }
        #expect(screen.contains("mode: wait") && screen.contains("echo off"), "the screen opens on the answer alone: \(screen)")
        try first.keys("q")
        #expect(first.exitStatus(within: 30) == 0, "\(first.stderr)")

        let second = try TmuxPane(etude: etude, ["practice", Self.lesson, "--mode", "wait", "--input", "jack:upright", "--jack-name", "etude-ask2"],
                                  width: 100, height: 30)
        let again = second.waitFor { $0.contains("mode: wait") }
        #expect(again.contains("echo off") && !again.contains(Self.question), "asked once, remembered: \(again)")
        try second.keys("q")
        #expect(second.exitStatus(within: 30) == 0)

        // `--input jack` alone is Etude's own midi_in: nobody to ask about.
        let own = try TmuxPane(etude: etude, ["practice", Self.lesson, "--mode", "wait", "--input", "jack", "--jack-name", "etude-ask3"],
                               width: 100, height: 30)
        let plain = own.waitFor { $0.contains("mode: wait") }
        #expect(plain.contains("mode: wait") && !plain.contains(Self.question), "\(plain)")
        try own.keys("q")
        #expect(own.exitStatus(within: 30) == 0)
    }

    @Test func aFIFOIsNeverAsked() throws {
        let etude = try Etude()
        let dir = try TempDir()
        let fifo = dir.file("notes.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let pane = try TmuxPane(etude: etude, ["practice", Self.lesson, "--mode", "wait", "--input", fifo], width: 100, height: 30)
        let screen = pane.waitFor { $0.contains("mode: wait") }
        #expect(screen.contains("mode: wait") && !screen.contains(Self.question), "\(screen)\n\(pane.stderr)")
        #expect(!pane.stderr.contains(Self.question))
        try pane.keys("q")
        #expect(pane.exitStatus(within: 30) == 0, "\(pane.stderr)")
    }

    @Test(.enabled(if: JackServer.available, JackServer.reason))
    func aMicrophoneIsNeverAsked() throws {
        let server = try JackServer(tag: "askmic", period: 256)
        var etude = try Etude()
        etude.environment.merge(server.environment) { $1 }
        let pane = try TmuxPane(etude: etude, ["practice", Self.lesson, "--mode", "wait", "--input", "audio:jack", "--jack-name", "etude-mic"],
                                width: 100, height: 30)
        let screen = pane.waitFor { $0.contains("mode: wait") || pane.ended }
        #expect(screen.contains("mode: wait") && !screen.contains(Self.question), "\(screen)\n\(pane.stderr)")
        try pane.keys("q")
        #expect(pane.exitStatus(within: 30) == 0, "\(pane.stderr)")
    }

    @Test func devicesWithoutJACKOffersTheComputerKeyboardFirstAndNoContradiction() throws {
        let etude = try Etude()
        let r = try etude.run(["devices"], extra: ["JACK_DEFAULT_SERVER": "etude-no-such-server-\(getpid())"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "You can play on (or store one with `etude setup`):", "\(r.stdout)")
        #expect(lines.contains { $0.hasPrefix("  --input keys") }, "\(r.stdout)")
        #expect(!r.stdout.contains("cannot be used here"), "\(r.stdout)")
    }

    @Test(.enabled(if: JackServer.available, JackServer.reason))
    func devicesWithJACKSourcesListsThemFirstAndNeverAnEtudesOwnPorts() throws {
        let server = try JackServer(tag: "devlist")
        let etude = try Etude()
        let keyboard = try #require(JackMeter(name: "grand", server: server.name))
        // Another Etude running on the same server: its midi_out is no instrument.
        let other = try etude.start(["record", "-o", etude.home.file("x.mid"), "--input", "jack", "--jack-name", "etude-neighbour"],
                                    extra: server.environment)
        defer { other.signal(SIGTERM); _ = other.wait(timeout: 20) }
        #expect(server.waitForPort("etude-neighbour:midi_out"), "\(other.stderr)")
        let r = try etude.run(["devices"], extra: server.environment)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "You can play on (or store one with `etude setup`):", "\(r.stdout)")
        let offered = try #require(lines.firstIndex { $0.hasPrefix("  --input jack:\(keyboard.keyPort)") }, "\(r.stdout)")
        let serverLine = try #require(lines.firstIndex { $0.hasPrefix("JACK server") }, "\(r.stdout)")
        #expect(offered < serverLine, "what can be used comes first: \(r.stdout)")
        #expect(!r.stdout.contains("etude-neighbour"), "another Etude's ports are never offered: \(r.stdout)")
        #expect(!r.stdout.contains("etude:midi_out\n") && !r.stdout.contains(":midi_in\n"), "\(r.stdout)")
        let json = try etude.run(["devices", "--json"], extra: server.environment)
        #expect(!json.stdout.contains("etude-neighbour"), "\(json.stdout)")
    }
}
