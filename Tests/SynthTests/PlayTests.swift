import Clocks
import Foundation
import MIDIFile
import Synth
import Testing

/// One organ chord held for exactly one second, then one more second of nothing.
let liveSong: TestSong = {
    var song = TestSong(events: [], endTick: 1920)  // 2 s at 120 BPM
    song.events = [
        (0, .programChange(channel: 0, program: 16)),  // drawbar organ: no decay, short release
        (0, .noteOn(channel: 0, key: 60, velocity: 110)), (0, .noteOn(channel: 0, key: 67, velocity: 110)),
        (960, .noteOff(channel: 0, key: 60, velocity: 0)), (960, .noteOff(channel: 0, key: 67, velocity: 0)),
    ]
    return song
}()

/// Environment in which no audio driver can open: no PulseAudio/PipeWire server reachable
/// and an ALSA configuration that defines no device.
func noDeviceEnvironment(_ dir: String) throws -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    try Data().write(to: URL(fileURLWithPath: dir + "/asound.conf"))
    env["XDG_RUNTIME_DIR"] = dir
    env["PULSE_SERVER"] = "unix:\(dir)/no-such-socket"
    env["PIPEWIRE_REMOTE"] = "\(dir)/no-such-pipewire"
    env["ALSA_CONFIG_PATH"] = dir + "/asound.conf"
    return env
}

@Suite(.serialized) struct PlayTests {
    @Test func withoutAnyAudioDeviceItWarnsOnceAndFinishesTheFile() throws {
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        try liveSong.write(to: dir + "/song.mid")
        let started = MonotonicClock.seconds()
        let r = try TestEnv.run(TestEnv.etude, ["play", dir + "/song.mid"], env: noDeviceEnvironment(dir))
        let took = MonotonicClock.seconds() - started
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "etude: no audio device (tried pipewire, pulseaudio, alsa): continuing silently; use 'etude render' to hear it as a WAV\n")
        #expect(took >= 2.0, "returned before the file's 2 s were over")
        let forced = try TestEnv.run(TestEnv.etude, ["play", dir + "/song.mid", "--audio-driver", "alsa"], env: noDeviceEnvironment(dir))
        #expect(forced.status == 0)
        #expect(forced.stderr == "etude: no audio device (tried alsa): continuing silently; use 'etude render' to hear it as a WAV\n")
    }

    @Test func verboseShowsFluidSynthsOwnLog() throws {
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        try liveSong.write(to: dir + "/song.mid")
        let r = try TestEnv.run(TestEnv.etude, ["play", dir + "/song.mid", "--verbose", "--audio-driver", "pipewire"], env: noDeviceEnvironment(dir))
        #expect(r.status == 0)
        #expect(r.stderr.contains("fluidsynth "))
        #expect(r.stderr.contains("etude: no audio device (tried pipewire)"))
    }

    @Test func sigtermStopsPlaybackCleanly() throws {
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        var song = liveSong
        song.endTick = 48_000  // 50 s
        try song.write(to: dir + "/long.mid")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestEnv.etude)
        p.arguments = ["play", dir + "/long.mid"]
        p.environment = try noDeviceEnvironment(dir)
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let err = Pipe()
        p.standardError = err
        try p.run()
        #expect(eventually(20) { FileManager.default.fileExists(atPath: "/proc/\(p.processIdentifier)") && ((try? String(contentsOfFile: "/proc/\(p.processIdentifier)/status", encoding: .utf8))?.contains("Threads:\t1\n") == false) })
        usleep(500_000)
        p.terminate()
        p.waitUntilExit()
        #expect(p.terminationStatus == 128 + SIGTERM)
        _ = err.fileHandleForReading.readDataToEndOfFile()
    }

    /// For real: a private PulseAudio server with a null sink, its monitor recorded with
    /// parecord while `etude play` runs; the recording must hold about one second of sound.
    @Test func playsThroughPulseAudioForReal() throws {
        guard let pulseaudio = TestEnv.which("pulseaudio"), let parecord = TestEnv.which("parecord") else {
            print("skipped: pulseaudio/parecord not installed (apt-get install pulseaudio pulseaudio-utils)")
            return
        }
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        try liveSong.write(to: dir + "/song.mid")
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = dir
        env["HOME"] = dir
        env.removeValue(forKey: "PULSE_SERVER")
        let daemon = try Spawned(pulseaudio, ["-D", "-n", "--exit-idle-time=-1", "--use-pid-file=yes", "--disable-shm=yes",
                                              "--load=module-null-sink sink_name=etude_test",
                                              "--load=module-native-protocol-unix"], env: env, dir: dir, name: "pulseaudio")
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        let pidText = (try? String(contentsOfFile: dir + "/pulse/pid", encoding: .utf8)) ?? ""
        guard let pid = Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            Issue.record("pulseaudio did not start: \(daemon.stderr)")
            return
        }
        defer {
            kill(pid, SIGTERM)
            _ = eventually(5) { kill(pid, 0) != 0 }
        }

        let rec = try Spawned(parecord, ["-d", "etude_test.monitor", "--raw", "--rate=48000", "--channels=1", "--format=s16le", "--latency-msec=20"],
                              env: env, dir: dir, name: "parecord", stdoutPath: dir + "/rec.raw")
        usleep(500_000)
        // A roomier buffer than the 8 ms default: this checks that sound arrives whole, and the
        // test machine may be busy (latency is measured by the benchmark instead).
        let play = try Spawned(TestEnv.etude, ["play", dir + "/song.mid", "--verbose", "--period-size", "512", "--periods", "4"],
                               env: env, dir: dir, name: "play")
        let playStatus = play.wait()
        usleep(300_000)
        rec.signal(SIGINT)
        rec.wait()
        #expect(playStatus == 0, "\(play.stderr)")
        #expect(play.stderr.contains("audio: pulseaudio"), "\(play.stderr)")
        #expect(!play.stderr.contains("no audio device"))
        // The synth runs at the server's own rate (no resampling), as `pactl info` reports it.
        if let pactl = TestEnv.which("pactl") {
            let info = try Spawned(pactl, ["info"], env: env, dir: dir, name: "pactl")
            info.wait()
            let spec = info.stdout.split(separator: "\n").first { $0.hasPrefix("Default Sample Specification:") }
            let rate = spec?.split(separator: " ").last.map { String($0.dropLast(2)) }
            #expect(rate != nil && play.stderr.contains("frames at \(rate ?? "?") Hz"), "\(spec ?? "no spec") vs \(play.stderr)")
        }

        let raw = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: dir + "/rec.raw"))) ?? Data())
        let left: [Float] = stride(from: 0, to: raw.count - 1, by: 2).map {
            Float(Int16(bitPattern: UInt16(raw[$0]) | UInt16(raw[$0 + 1]) << 8)) / 32768
        }
        let loud = left.indices.filter { abs(left[$0]) > 0.01 }
        guard let first = loud.first, let last = loud.last else {
            Issue.record("no sound arrived at the null sink (\(left.count) frames recorded)")
            return
        }
        let seconds = Double(last - first) / 48_000
        print("live: sound for \(seconds) s of \(Double(left.count) / 48_000) s recorded (expected 1 s chord + release/reverb)")
        #expect(seconds > 0.9 && seconds < 1.8)
        // Continuous: no silent gap longer than 20 ms inside the held chord (underruns would show).
        var longestGap = 0, gap = 0
        for i in first...min(last, first + 45_600) {
            if abs(left[i]) > 1e-4 { gap = 0 } else { gap += 1; longestGap = max(longestGap, gap) }
        }
        #expect(longestGap < 960, "gap of \(longestGap) frames in the chord")
    }
}
