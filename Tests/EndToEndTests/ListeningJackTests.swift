import Foundation
import Jack
import Synth
import Testing
import TestSupport

/// `--input audio:jack`: the microphone on Etude's own `etude:mic` port of its one JACK client,
/// through a dummy JACK server; the learner is a test client playing a rendered performance of
/// another piano into that port.
@Suite(.serialized) struct ListeningJackTests {
    @Test(.enabled(if: JackServer.available, JackServer.reason), .enabled(if: Tools.tmux.available, Tools.tmux.reason),
          .enabled(if: Tools.otherPiano.available, Tools.otherPiano.reason), .enabled(if: Tools.sox.available, Tools.sox.reason))
    func aWaitModePassHeardOnEtudesMicPortCompletes() throws {
        let dir = try TempDir("etude-listen-jack")
        let wav = try #require(try ListeningEndToEndTests.performance(in: dir))
        let data = try WAVData(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: wav))))
        #expect(data.sampleRate == 48_000)
        // 256-frame periods (5 ms): this test is about hearing, not latency, and on a loaded
        // machine a 64-frame dummy server's late cycles drop pieces of the player's sound (a
        // ringing note cut and heard again as a new, wrong key).
        let server = try JackServer(tag: "mic", period: 256)
        server.use()
        var user = try Etude()
        for (k, v) in server.environment { user.environment[k] = v }
        // What the listener heard, each note with the keys expected then: shown when it fails.
        let heard = try dir.write("heard.log", "")
        user.environment["ETUDE_LISTEN_LOG"] = heard
        let report = dir.file("report.jsonl")
        let pane = try TmuxPane(etude: user, ["practice", Repo.lesson("level4/ode-to-joy.mid"), "--mode", "wait", "--hand", "right",
                                              "--other", "mute", "--bars", "1-4", "--input", "audio:jack", "--report", report],
                                width: 80, height: 24)
        _ = pane.waitFor(30) { $0.contains("mode: wait") }
        let player = try #require(JackPlayer(name: "learner", samples: data.samples[0]))
        #expect(eventually(10) { player.connect(to: "etude:mic") }, "no etude:mic port: \(pane.screen())")
        player.start()
        #expect(eventually(30) { player.done }, "the player did not finish")
        #expect(eventually(10) { !dir.read("report.jsonl").isEmpty }, "no pass finished: \(pane.screen())")
        try pane.keys("q")
        try pane.keys("q")
        #expect(pane.exitStatus(within: 20) == 0, "\(pane.stderr)")
        let line = try #require(dir.read("report.jsonl").split(separator: "\n").first.map(String.init))
        let pass = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(pass["hit"] as? Int == 15 && pass["missed"] as? Int == 0 && pass["wrong"] as? Int == 0, "\(line)\nheard:\n\(dir.read("heard.log"))")
    }

    @Test func withoutAJackServerAudioJackIsOneLine() throws {
        var user = try Etude()
        user.environment["JACK_DEFAULT_SERVER"] = "etude-no-such-server-\(getpid())"
        let r = try user.run(["practice", Repo.lesson("level4/ode-to-joy.mid"), "--mode", "wait", "--input", "audio:jack"])
        #expect(r.status != 0)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("cannot listen on JACK: no JACK server answers"), "\(r.stderr)")
    }
}
