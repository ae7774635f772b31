import Foundation
import MIDIFile
import Synth
import Testing

/// `etude play` on a real pseudo-terminal (tmux): keys act, the status line shows it, and the
/// terminal settings are exactly restored afterwards (q and Ctrl-C).
@Suite(.serialized) struct PlayKeysTests {
    final class Tmux {
        let tmux: String
        let socket = "etude-synth-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let dir: String
        /// tmux runs with a clean signal mask (see `Spawned`), or its server misbehaves.
        init(_ tmux: String, dir: String, command: String) throws {
            self.tmux = tmux
            self.dir = dir
            try tmuxRun(["new-session", "-d", "-s", "t", "-x", "100", "-y", "6", command])
        }
        @discardableResult
        func tmuxRun(_ args: [String]) throws -> String {
            var env = ProcessInfo.processInfo.environment
            env.removeValue(forKey: "TMUX")
            let p = try Spawned(tmux, ["-L", socket] + args, env: env, dir: dir, name: "tmux")
            p.wait()
            return p.stdout
        }
        func keys(_ k: String...) throws { try tmuxRun(["send-keys", "-t", "t"] + k) }
        func screen() throws -> String { try tmuxRun(["capture-pane", "-p", "-t", "t"]) }
        deinit { _ = try? tmuxRun(["kill-server"]) }
    }

    func script(_ dir: String, song: String) throws -> String {
        let env = try noDeviceEnvironment(dir).filter { ["PULSE_SERVER", "PIPEWIRE_REMOTE", "ALSA_CONFIG_PATH", "XDG_RUNTIME_DIR"].contains($0.key) }
        let exports = env.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        return "\(exports); stty -g > \(dir)/before; \(TestEnv.etude) play \(song) --no-screen; echo $? > \(dir)/status; stty -g > \(dir)/after; sleep 30"
    }

    func waitFor(_ t: Tmux, _ text: String) -> Bool {
        eventually(20) { ((try? t.screen()) ?? "").contains(text) }
    }

    @Test func spaceArrowsAndQuitRestoreTheTerminal() throws {
        guard let tmux = TestEnv.which("tmux") else {
            print("skipped: tmux not installed (apt-get install tmux)")
            return
        }
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        var song = liveSong
        song.endTick = 57_600  // 60 s
        try song.write(to: dir + "/long.mid")
        let t = try Tmux(tmux, dir: dir, command: script(dir, song: dir + "/long.mid"))
        #expect(waitFor(t, "/ 1:00  ♩=120  playing"))
        try t.keys("Space")
        #expect(waitFor(t, "paused"))
        try t.keys("Right")
        try t.keys("Right")
        #expect(waitFor(t, "0:10 / 1:00"), "\((try? t.screen()) ?? "")")
        try t.keys("Left")
        #expect(waitFor(t, "0:05 / 1:00"), "\((try? t.screen()) ?? "")")
        try t.keys("q")
        #expect(eventually(20) { ((try? String(contentsOfFile: dir + "/after", encoding: .utf8)) ?? "").hasSuffix("\n") })
        #expect((try? String(contentsOfFile: dir + "/status", encoding: .utf8)) == "0\n")
        let before = try String(contentsOfFile: dir + "/before", encoding: .utf8)
        #expect(try String(contentsOfFile: dir + "/after", encoding: .utf8) == before)
    }

    @Test func ctrlCStopsWith130AndRestoresTheTerminal() throws {
        guard let tmux = TestEnv.which("tmux") else {
            print("skipped: tmux not installed (apt-get install tmux)")
            return
        }
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        var song = liveSong
        song.endTick = 57_600
        try song.write(to: dir + "/long.mid")
        let t = try Tmux(tmux, dir: dir, command: script(dir, song: dir + "/long.mid"))
        #expect(waitFor(t, "playing"))
        try t.keys("C-c")
        #expect(eventually(20) { ((try? String(contentsOfFile: dir + "/after", encoding: .utf8)) ?? "").hasSuffix("\n") })
        #expect((try? String(contentsOfFile: dir + "/status", encoding: .utf8)) == "130\n")
        let before = try String(contentsOfFile: dir + "/before", encoding: .utf8)
        #expect(try String(contentsOfFile: dir + "/after", encoding: .utf8) == before)
    }
}
