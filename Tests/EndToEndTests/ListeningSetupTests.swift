import Foundation
import MIDIFile
import Testing
import TestSupport

/// `etude calibrate --input audio:SOURCE` (issue #30's one-minute set-up) and the microphone's
/// honest limits in the header, live through a private PulseAudio server: a null sink is the
/// room, its monitor the microphone, `paplay` the learner.
@Suite(.serialized) struct ListeningSetupTests {
    /// The user's environment pointed at the private server.
    static func user(_ pulse: PrivatePulseAudio) throws -> Etude {
        var user = try Etude()
        for key in ["XDG_RUNTIME_DIR", "PULSE_SERVER", "PIPEWIRE_REMOTE"] { user.environment[key] = pulse.environment[key] }
        if pulse.environment["PULSE_SERVER"] == nil { user.environment.removeValue(forKey: "PULSE_SERVER") }
        return user
    }

    /// A calibration as the learner plays it on "another piano" (FluidR3) in a room (reverb, pink
    /// noise throughout): five seconds of the room, then C2, C3, C4, C5, C6 two seconds apart.
    static func calibrationPerformance(in dir: TempDir) throws -> String? {
        // 120 BPM, 480 a beat: 960 ticks a second.
        let keys = [36, 48, 60, 72, 84].enumerated().map { i, key in OtherPiano.Note(key: UInt8(key), tick: 960 * (5 + 2 * i), length: 1_400, velocity: 90) }
        return try OtherPiano.recording(keys, endTick: 960 * 16, in: dir, name: "setup", noise: (volume: 0.0015, seconds: 16))
    }

    /// The whole set-up as a user runs it: the room, the five keys, the profile stored for the
    /// source, listed by `calibrate --show`, and practice with that source listening with it (and
    /// still passing the wait-mode lesson heard through the microphone).
    @Test(.enabled(if: Tools.pulseaudio.available, Tools.pulseaudio.reason), .enabled(if: Tools.tmux.available, Tools.tmux.reason),
          .enabled(if: Tools.otherPiano.available, Tools.otherPiano.reason), .enabled(if: Tools.sox.available, Tools.sox.reason))
    func theSetUpIsMeasuredStoredAndListenedWith() throws {
        let paplay = try #require(Tools.which("paplay"))
        let dir = try TempDir("etude-listen-setup")
        let setupWAV = try #require(try Self.calibrationPerformance(in: dir))
        let (started, why) = try PrivatePulseAudio.start(sinks: ["etude_out", "etude_mic"])
        let pulse = try #require(started, Comment(rawValue: why))
        defer { pulse.stop() }
        let user = try Self.user(pulse)

        let calibrating = try user.start(["calibrate", "--input", "audio:etude_mic.monitor"])
        #expect(eventually(20) { calibrating.stdout.contains("first stay quiet") }, "\(calibrating.stdout) \(calibrating.stderr)")
        let play = try ProcessRunner.run(paplay, ["--device=etude_mic", setupWAV], environment: pulse.environment, timeout: 120)
        #expect(play.status == 0, "\(play.stderr)")
        let status = calibrating.wait(timeout: 30)
        let out = calibrating.stdout
        print(out)
        #expect(status == 0, "\(out) \(calibrating.stderr)")
        for key in ["C2", "C3", "C4", "C5", "C6"] { #expect(out.contains("play \(key)\n") && out.contains("heard \(key) at "), "\(key): \(out)") }
        #expect(out.contains("stored for microphone etude_mic.monitor: room "), "\(out)")
        // The room's noise bin by bin too (issue 41), which practice below listens with.
        #expect(out.contains(" dBFS bin by bin, piano "), "\(out)")

        // Stored per source: --show lists it with its figures.
        let shown = try user.run(["calibrate", "--show"])
        #expect(shown.status == 0)
        let line = try #require(shown.stdout.split(separator: "\n").first { $0.hasPrefix("microphone etude_mic.monitor") }.map(String.init), "\(shown.stdout)")
        #expect(line.contains(" dBFS bin by bin, piano "), "\(line)")
        let numbers = line.split(whereSeparator: { !"-0123456789".contains($0) }).compactMap { Int($0) }
        // room dBFS, piano dBFS, keys, latency ms (then the date's digits).
        #expect(numbers.count >= 4, "\(line)")
        if numbers.count >= 4 {
            let (room, piano, keys, latency) = (numbers[0], numbers[1], numbers[2], numbers[3])
            #expect(room < -45 && room > -90, "\(line)")
            #expect(piano > room + 20, "\(line)")
            #expect(keys == 5, "\(line)")
            #expect(latency >= 150 && latency <= 600, "\(line)")
        }

        // Practice with that source listens with it, and the lesson still passes through the microphone.
        let wav = try #require(try ListeningEndToEndTests.performance(in: dir))
        let report = dir.file("report.jsonl")
        let pane = try TmuxPane(etude: user, ["practice", Repo.lesson("level4/ode-to-joy.mid"), "--mode", "wait", "--hand", "right",
                                              "--other", "mute", "--bars", "1-4", "--input", "audio:etude_mic.monitor", "--report", report],
                                width: 80, height: 24)
        let screen = pane.waitFor(30) { $0.contains("listening with its set-up") }
        // At 80 columns the status line keeps the words and drops the figures in brackets (the rule
        // every line meeting an edge is shortened by).
        #expect(screen.contains("microphone: listening with its set-up"), "\(screen)")
        usleep(500_000)
        let pass = try ProcessRunner.run(paplay, ["--device=etude_mic", wav], environment: pulse.environment, timeout: 120)
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(eventually(20) { !dir.read("report.jsonl").isEmpty }, "no pass finished: \(pane.screen())")
        try pane.keys("q")
        try pane.keys("q")
        #expect(pane.exitStatus(within: 20) == 0, "\(pane.stderr)")
        let first = try #require(dir.read("report.jsonl").split(separator: "\n").first.map(String.init))
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(figures["hit"] as? Int == 15 && figures["wrong"] as? Int == 0, "\(first)")

        // And it can be forgotten like an offset.
        let reset = try user.run(["calibrate", "--reset", "audio:etude_mic.monitor"])
        #expect(reset.stdout == "cleared the set-up of microphone etude_mic.monitor\n", "\(reset.stdout)\(reset.stderr)")
        #expect(try user.run(["calibrate", "--show"]).stdout.hasPrefix("No input calibrated yet"))
    }

    /// Without a set-up, practice names the command that makes one.
    @Test(.enabled(if: Tools.pulseaudio.available, Tools.pulseaudio.reason), .enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func anUncalibratedMicrophoneSuggestsTheSetUp() throws {
        let (started, why) = try PrivatePulseAudio.start(sinks: ["etude_out", "etude_mic"])
        let pulse = try #require(started, Comment(rawValue: why))
        defer { pulse.stop() }
        let pane = try TmuxPane(etude: try Self.user(pulse), ["practice", Repo.lesson("level4/ode-to-joy.mid"), "--mode", "wait",
                                                                "--input", "audio:etude_mic.monitor"], width: 80, height: 24)
        let screen = pane.waitFor(30) { $0.contains("microphone not set up") }
        #expect(screen.contains("microphone not set up"), "\(screen)")
        try pane.keys("q")
        #expect(pane.exitStatus(within: 20) == 0, "\(pane.stderr)")
    }

    /// A microphone that hears the piano far too quietly, or clipped, is said in the header
    /// (the first line, at 80×24) rather than scored as misses.
    @Test(.enabled(if: Tools.pulseaudio.available, Tools.pulseaudio.reason), .enabled(if: Tools.tmux.available, Tools.tmux.reason),
          .enabled(if: Tools.otherPiano.available, Tools.otherPiano.reason), .enabled(if: Tools.sox.available, Tools.sox.reason),
          arguments: [("0.005", "mic too quiet"), ("200", "mic clipped")])
    func aSignalTooQuietOrClippedIsSaidInTheHeader(volume: String, words: String) throws {
        let paplay = try #require(Tools.which("paplay"))
        let sox = try #require(Tools.sox.path)
        let dir = try TempDir("etude-listen-header")
        let wav = try #require(try ListeningEndToEndTests.performance(in: dir))
        let changed = dir.file("changed.wav")
        #expect(try ProcessRunner.run(sox, ["-R", wav, changed, "vol", volume], timeout: 60).status == 0)
        let (started, why) = try PrivatePulseAudio.start(sinks: ["etude_out", "etude_mic"])
        let pulse = try #require(started, Comment(rawValue: why))
        defer { pulse.stop() }
        let pane = try TmuxPane(etude: try Self.user(pulse), ["practice", Repo.lesson("level4/ode-to-joy.mid"), "--mode", "wait", "--hand", "right",
                                                                "--other", "mute", "--input", "audio:etude_mic.monitor"], width: 80, height: 24)
        _ = pane.waitFor(30) { $0.contains("mode: wait") }
        let player = try Spawned(paplay, ["--device=etude_mic", changed], environment: pulse.environment)
        let screen = pane.waitFor(20) { ($0.split(separator: "\n").first ?? "").contains(words) }
        #expect((screen.split(separator: "\n").first ?? "").contains(words), "\(screen) \(player.stderr)")
        _ = player.wait(timeout: 60)
        try pane.keys("q")
        try pane.keys("q")
        #expect(pane.exitStatus(within: 20) == 0, "\(pane.stderr)")
    }
}

/// The speakers case (issue #30, point 4): Etude's other hand sounds into the same room the
/// microphone hears (one PulseAudio sink for both), while the learner plays the right hand. Before
/// the own-attack rule one octave of Etude's bass in fifteen was taken for the learner's key (and
/// the next key then judged wrong); now none is.
@Suite(.serialized) struct ListeningSpeakersTests {
    @Test(.enabled(if: Tools.pulseaudio.available, Tools.pulseaudio.reason), .enabled(if: Tools.tmux.available, Tools.tmux.reason),
          .enabled(if: Tools.otherPiano.available, Tools.otherPiano.reason), .enabled(if: Tools.sox.available, Tools.sox.reason))
    func etudesOtherHandFromSpeakersInTheSameRoom() throws {
        let paplay = try #require(Tools.which("paplay"))
        let dir = try TempDir("etude-listen-speakers")
        let wav = try #require(try ListeningEndToEndTests.performance(in: dir))
        // The first sink is the default one, where Etude plays: the same sink the microphone hears.
        let (started, why) = try PrivatePulseAudio.start(sinks: ["etude_room"])
        let pulse = try #require(started, Comment(rawValue: why))
        defer { pulse.stop() }
        var user = try ListeningSetupTests.user(pulse)
        user.environment["ETUDE_LISTEN_LOG"] = try dir.write("heard.log", "")
        let report = dir.file("report.jsonl")
        let pane = try TmuxPane(etude: user, ["practice", Repo.lesson("level4/ode-to-joy.mid"), "--mode", "wait", "--hand", "right",
                                              "--other", "play", "--bars", "1-4", "--input", "audio:etude_room.monitor", "--report", report],
                                width: 80, height: 24)
        _ = pane.waitFor(30) { $0.contains("mode: wait") }
        usleep(1_000_000)
        let play = try ProcessRunner.run(paplay, ["--device=etude_room", wav], environment: pulse.environment, timeout: 120)
        #expect(play.status == 0, "\(play.stderr)")
        #expect(eventually(20) { !dir.read("report.jsonl").isEmpty }, "no pass finished: \(pane.screen())")
        try pane.keys("q")
        try pane.keys("q")
        #expect(pane.exitStatus(within: 20) == 0, "\(pane.stderr)")
        let line = try #require(dir.read("report.jsonl").split(separator: "\n").first.map(String.init))
        let pass = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        print("speakers: \(line)\n\(dir.read("heard.log"))")
        #expect(pass["hit"] as? Int == 15 && pass["missed"] as? Int == 0, "\(line)")
        #expect(pass["wrong"] as? Int == 0, "\(line)")
    }
}
