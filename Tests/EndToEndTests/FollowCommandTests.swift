import Foundation
import Testing
import TestSupport

/// `--follow` as a learner runs it (issue 37 point 4): refused in one line where it means
/// nothing; on the practice screen the header says it, `F` turns it off and on, and a pass
/// played from a FIFO slower than the lesson is followed — every note a hit — with the tempo
/// the learner kept in its `--report` line.
@Suite(.serialized) struct FollowCommandTests {
    static var lesson: String { Repo.lesson("level1/c-major-five-finger-parallel.mid") }

    @Test func refusedInOneLineWhereItMeansNothing() throws {
        let etude = try Etude()
        let watch = try etude.run(["practice", Self.lesson, "--follow"])
        #expect(watch.status == 1)
        #expect(watch.stderr == "etude: --follow: Etude follows your tempo in play and memory mode; add --mode play (or memory)\n")
        let alone = try etude.run(["practice", Self.lesson, "--follow", "--mode", "play", "--hand", "both"])
        #expect(alone.status == 1)
        #expect(alone.stderr.hasPrefix("etude: --follow: Etude has no part to play with you here"), "\(alone.stderr)")
        let entry = try etude.run(["routine", "new", "r", "--entry", "lesson=\(Self.lesson);follow=on"])
        #expect(entry.status != 0)
        #expect(entry.stderr.contains("follow=on: Etude follows your tempo in play and memory mode"), "\(entry.stderr)")
    }

    /// From a microphone (a private PulseAudio server's null sink: its monitor is the
    /// microphone) the header says Etude follows by ear and the listener's delay it makes up: the
    /// default's 200 ms when the microphone was never set up.
    @Test(.enabled(if: Tools.pulseaudio.available, Tools.pulseaudio.reason), .enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func byEarTheHeaderSaysTheListenersDelayMadeUp() throws {
        let (started, why) = try PrivatePulseAudio.start(sinks: ["etude_mic"])
        let pulse = try #require(started, Comment(rawValue: why))
        defer { pulse.stop() }
        let pane = try TmuxPane(etude: try ListeningSetupTests.user(pulse), ["practice", Repo.lesson("level4/ode-to-joy.mid"), "--mode", "play",
                                                                            "--hand", "right", "--follow", "--input", "audio:etude_mic.monitor"],
                                width: 120, height: 30)
        let screen = pane.waitFor(30) { $0.contains("follow by ear +200 ms") }
        #expect(screen.split(separator: "\n").first?.contains("follow by ear +200 ms") == true, "\(screen)")
        try pane.keys("q")
        #expect(pane.exitStatus(within: 20) == 0, "\(pane.stderr)")
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func aSlowPassFromAFIFOIsFollowedAndItsTempoReported() throws {
        let etude = try Etude()
        let fifo = try etude.home.fifo("notes.fifo")
        let report = etude.home.file("passes.jsonl")
        let pane = try TmuxPane(etude: etude, ["practice", Self.lesson, "--hand", "right", "--bars", "1-1", "--repeat", "1", "--mode", "play",
                                               "--follow", "--echo", "on", "--input", fifo.path, "--report", report], width: 80, height: 24)
        func header() -> String { pane.screen().split(separator: "\n").first.map(String.init) ?? "" }
        #expect(eventually { header().contains("follow") }, "\(pane.screen())")
        // F turns it off and on again, saying so.
        try pane.keys("F")
        #expect(eventually { pane.screen().contains("keeps the lesson's tempo") && !header().contains("follow") }, "\(pane.screen())")
        try pane.keys("F")
        #expect(eventually { header().contains("follow") }, "\(pane.screen())")
        // After the count-in the music waits for the first note; the learner plays the bar at
        // their own, slower pace.
        sleep(3)
        for pitch: UInt8 in [60, 62, 64, 65] {
            fifo.send([0x90, pitch, 90])
            usleep(500_000)
            fifo.send([0x80, pitch, 0])
            usleep(400_000)
        }
        #expect(eventually(30) { etude.home.read("passes.jsonl").hasSuffix("\n") }, "\(pane.screen())")
        let line = etude.home.read("passes.jsonl").split(separator: "\n").first.map(String.init) ?? ""
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["hit"] as? Int == 4, "\(line)")
        #expect(json["missed"] as? Int == 0, "\(line)")
        let tempo = try #require(json["barTempo"] as? [[String: Any]], "\(line)")
        #expect(tempo.first?["bar"] as? Int == 1)
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        #expect(pane.ttyRestored)
    }
}
