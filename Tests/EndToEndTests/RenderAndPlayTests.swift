import Foundation
import MIDIFile
import Synth
import Testing
import TestSupport

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

/// The SoundFont every test renders with (the same one the CLI would pick).
func soundFont() throws -> String {
    try SoundFontLocator(explicit: nil, repositoryRoots: [Repo.root.path]).locate()
}

/// `etude play` with no audio device reachable, and for real through a private PulseAudio server.
@Suite(.serialized) struct PlayTests {
    @Test func withoutAnyAudioDeviceItWarnsOnceAndFinishesTheFile() throws {
        let etude = try Etude()
        let song = etude.home.file("song.mid")
        try liveSong.write(to: song)
        let started = ProcessInfo.processInfo.systemUptime
        let r = try etude.run(["play", song])
        let took = ProcessInfo.processInfo.systemUptime - started
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "etude: no audio device (tried jack, pipewire, pulseaudio, alsa): continuing silently; use 'etude render' to hear it as a WAV\n")
        #expect(took >= 2.0, "returned before the file's 2 s were over")
        let forced = try etude.run(["play", song, "--audio-driver", "alsa"])
        #expect(forced.status == 0)
        #expect(forced.stderr == "etude: no audio device (tried alsa): continuing silently; use 'etude render' to hear it as a WAV\n")
    }

    @Test func verboseShowsFluidSynthsOwnLog() throws {
        let etude = try Etude()
        let song = etude.home.file("song.mid")
        try liveSong.write(to: song)
        let r = try etude.run(["play", song, "--verbose", "--audio-driver", "pipewire"])
        #expect(r.status == 0)
        #expect(r.stderr.contains("fluidsynth "))
        #expect(r.stderr.contains("etude: no audio device (tried pipewire)"))
    }

    @Test func sigtermStopsPlaybackCleanly() throws {
        let etude = try Etude()
        var song = liveSong
        song.endTick = 48_000  // 50 s
        let long = etude.home.file("long.mid")
        try song.write(to: long)
        let p = try etude.start(["play", long])
        #expect(eventually(20) { FileManager.default.fileExists(atPath: "/proc/\(p.pid)") && ((try? String(contentsOfFile: "/proc/\(p.pid)/status", encoding: .utf8))?.contains("Threads:\t1\n") == false) })
        usleep(500_000)
        p.signal(SIGTERM)
        // etude catches the signal, stops the sound and exits with 128 + 15 itself.
        let raw = try #require(p.waitForChange(timeout: 60))
        #expect(raw & 0x7F == 0 && (raw >> 8) & 0xFF == 128 + SIGTERM, "raw wait status \(raw)")
    }

    /// For real: a private PulseAudio server with a null sink, its monitor recorded with
    /// parecord while `etude play` runs; the recording must hold about one second of sound.
    @Test(.enabled(if: Tools.pulseaudio.available, Tools.pulseaudio.reason))
    func playsThroughPulseAudioForReal() throws {
        let parecord = try #require(Tools.which("parecord"))
        let tmp = try TempDir("etude-live")
        let dir = tmp.path
        try liveSong.write(to: dir + "/song.mid")
        let (started, why) = try PrivatePulseAudio.start(sinks: ["etude_test"])
        guard let pulse = started else {
            Issue.record(Comment(rawValue: why))
            return
        }
        defer { pulse.stop() }
        let env = pulse.environment

        let rec = try Spawned(parecord, ["-d", "etude_test.monitor", "--raw", "--rate=48000", "--channels=1", "--format=s16le", "--latency-msec=20"],
                              environment: env)
        usleep(500_000)
        // The default buffer (40 ms): the sound must arrive whole however busy the test machine is.
        let play = try Spawned(EtudeBinary.path, ["play", dir + "/song.mid", "--verbose"], environment: env)
        let playStatus = play.wait(timeout: 60)
        usleep(300_000)
        rec.signal(SIGINT)
        rec.wait(timeout: 30)
        #expect(playStatus == 0, "\(play.stderr)")
        #expect(play.stderr.contains("audio: pulseaudio"), "\(play.stderr)")
        #expect(!play.stderr.contains("no audio device"))
        // The synth runs at the server's own rate (no resampling), as `pactl info` reports it.
        if let pactl = Tools.which("pactl") {
            let info = try ProcessRunner.run(pactl, ["info"], environment: env, timeout: 30)
            let spec = info.stdout.split(separator: "\n").first { $0.hasPrefix("Default Sample Specification:") }
            let rate = spec?.split(separator: " ").last.map { String($0.dropLast(2)) }
            #expect(rate != nil && play.stderr.contains("frames at \(rate ?? "?") Hz"), "\(spec ?? "no spec") vs \(play.stderr)")
        }
        // Three periods of about 40 ms in all at that rate (whole multiples of 16 frames).
        let buffer = play.stderr.range(of: #"\d+ × 3 frames at \d+ Hz \((\d+\.\d) ms buffer"#, options: .regularExpression)
            .flatMap { Double(play.stderr[$0].split(separator: "(").last?.split(separator: " ").first ?? "") }
        #expect(buffer.map { abs($0 - 40) < 1 } == true, "\(play.stderr)")

        let raw = rec.stdoutBytes
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

/// `etude play` on a real pseudo-terminal (tmux): keys act, the status line shows it, and the
/// terminal settings are exactly restored afterwards (q and Ctrl-C).
@Suite(.serialized) struct PlayKeysTests {
    /// `etude play` of a 60 s song in a 100×6 pane.
    static func playing(_ etude: Etude) throws -> TmuxPane {
        var song = liveSong
        song.endTick = 57_600  // 60 s
        let long = etude.home.file("long.mid")
        try song.write(to: long)
        return try TmuxPane(etude: etude, ["play", long, "--no-screen"], width: 100, height: 6)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func spaceArrowsAndQuitRestoreTheTerminal() throws {
        let t = try Self.playing(try Etude())
        // No audio device in the test's environment: the status line says so.
        #expect(eventually { t.screen().contains("silent (no audio) · 0:0") && t.screen().contains("/ 1:00  ♩=120  playing") }, "\(t.screen())")
        try t.keys("Space")
        #expect(eventually { t.screen().contains("paused") })
        try t.keys("Right")
        try t.keys("Right")
        #expect(eventually { t.screen().contains("0:10 / 1:00") }, "\(t.screen())")
        try t.keys("Left")
        #expect(eventually { t.screen().contains("0:05 / 1:00") }, "\(t.screen())")
        try t.keys("q")
        #expect(t.exitStatus() != nil)
        #expect(t.exitStatus() == 0, "\(t.stderr)")
        #expect(t.ttyRestored)
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func ctrlCStopsWith130AndRestoresTheTerminal() throws {
        let t = try Self.playing(try Etude())
        #expect(eventually { t.screen().contains("playing") })
        try t.keys("C-c")
        #expect(t.exitStatus() != nil)
        #expect(t.exitStatus() == 130, "\(t.stderr)")
        #expect(t.ttyRestored)
    }
}

/// `etude render`, and SoundFont errors as one line.
@Suite struct RenderCommandTests {
    @Test func renderWritesAValidWAVAndOneResultLineWhenPiped() throws {
        let etude = try Etude()
        let song = etude.home.file("song.mid")
        try TestSong.onsets.write(to: song)
        for (rate, format) in [(44_100, "s16"), (48_000, "float")] {
            let out = etude.home.file("song-\(rate)-\(format).wav")
            let r = try etude.run(["render", song, "-o", out, "--rate", String(rate), "--format", format, "--tail", "0"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.isEmpty)
            let lines = r.stdout.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("wrote \(out): 18.400 s"), "\(r.stdout)")
            let wav = try WAVData(path: out)
            #expect(wav.sampleRate == rate && wav.channels == 2)
            #expect(wav.isFloat == (format == "float") && wav.bitsPerSample == (format == "float" ? 32 : 16))
            #expect(wav.frameCount == Int((18.4 * Double(rate)).rounded()))
            #expect(Signal.peak(wav.samples[0][...]) > 0.01)
        }
    }

    @Test func sameRenderTwiceIsBitIdentical() throws {
        let etude = try Etude()
        let dir = etude.home.path
        try TestSong.onsets.write(to: dir + "/song.mid")
        for name in ["a", "b"] {
            let r = try etude.run(["render", dir + "/song.mid", "-o", dir + "/\(name).wav"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let a = FileManager.default.contents(atPath: dir + "/a.wav")
        let b = FileManager.default.contents(atPath: dir + "/b.wav")
        #expect(a != nil && a == b)
    }

    /// The same file and SoundFont through `fluidsynth -F`. Its player keeps going for 2 s
    /// after the last voice ends (FLUID_PLAYER_STOP_GRACE_MS) and applies every event at least
    /// one block later than asked (millisecond ticks, callback before the block); so Etude
    /// renders with `--tail 2` and the comparison removes FluidSynth's start lag, measured on
    /// the first onset. Then: same length within one block, and Etude's onsets never later.
    @Test(.enabled(if: Tools.fluidsynth.available, Tools.fluidsynth.reason))
    func matchesFluidsynthFastRender() throws {
        let fluidsynth = try #require(Tools.fluidsynth.path)
        let etude = try Etude()
        let dir = etude.home.path
        let font = try soundFont()
        try TestSong.onsets.write(to: dir + "/song.mid")
        let theirs = try ProcessRunner.run(fluidsynth, ["-ni", "-q", "-R", "0", "-C", "0", "-r", "44100", "-O", "float", "-T", "wav", "-F", dir + "/fs.wav", font, dir + "/song.mid"])
        #expect(theirs.status == 0, "\(theirs.stderr)")
        let ours = try etude.run(["render", dir + "/song.mid", "-o", dir + "/etude.wav", "--soundfont", font,
                                  "--format", "float", "--no-reverb", "--no-chorus", "--tail", "2"])
        #expect(ours.status == 0, "\(ours.stderr)")
        let a = try WAVData(path: dir + "/etude.wav"), b = try WAVData(path: dir + "/fs.wav")
        let oa = Signal.onsets(a.samples[0], threshold: 0), ob = Signal.onsets(b.samples[0], threshold: 0)
        print("onsets: etude \(oa)\n        fluidsynth -F \(ob)")
        #expect(oa.count == TestSong.onsetTicks.count && ob.count == TestSong.onsetTicks.count)
        guard let first = oa.first, let theirFirst = ob.first else { return }
        let lag = theirFirst - first
        print("frames: etude \(a.frameCount), fluidsynth -F \(b.frameCount) (start lag \(lag))")
        #expect(lag >= 0 && lag <= 64)
        #expect(abs(a.frameCount - (b.frameCount - lag)) < 64)
        for (x, y) in zip(oa, ob) { #expect(x <= y && y - x <= 192, "etude \(x) vs fluidsynth \(y)") }
    }

    @Test func missingSoundFontIsOneLineNamingThePathAndThePackage() throws {
        let etude = try Etude()
        let dir = etude.home.path
        try TestSong.onsets.write(to: dir + "/song.mid")
        let r = try etude.run(["render", dir + "/song.mid", "-o", dir + "/x.wav", "--soundfont", dir + "/missing.sf2"])
        #expect(r.status == 1)
        #expect(r.stderr == "etude: SoundFont \(dir)/missing.sf2 (--soundfont): no such file; install one with 'sudo apt-get install timgm6mb-soundfont' or pass --soundfont PATH\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.wav"))
    }

    @Test func corruptSoundFontIsOneLine() throws {
        let etude = try Etude()
        let dir = etude.home.path
        try TestSong.onsets.write(to: dir + "/song.mid")
        try Data("this is not a soundfont".utf8).write(to: URL(fileURLWithPath: dir + "/bad.sf2"))
        let r = try etude.run(["play", dir + "/song.mid", "--soundfont", dir + "/bad.sf2"])
        #expect(r.status == 1)
        #expect(r.stderr == "etude: SoundFont \(dir)/bad.sf2 (--soundfont): not a SoundFont (no RIFF sfbk header); install one with 'sudo apt-get install timgm6mb-soundfont' or pass --soundfont PATH\n")
        // A right header with a truncated body gets past the cheap check; FluidSynth refuses it.
        var truncated = Array("RIFF".utf8) + [0xFF, 0xFF, 0, 0] + Array("sfbk".utf8) + Array("LIST".utf8) + [0x10, 0, 0, 0]
        truncated += [UInt8](repeating: 0, count: 16)
        try Data(truncated).write(to: URL(fileURLWithPath: dir + "/trunc.sf2"))
        let t = try etude.run(["render", dir + "/song.mid", "-o", dir + "/x.wav", "--soundfont", dir + "/trunc.sf2"])
        #expect(t.status == 1)
        #expect(t.stderr == "etude: \(dir)/trunc.sf2: not a usable SoundFont (FluidSynth could not load it); install one with 'sudo apt-get install timgm6mb-soundfont' or pass --soundfont PATH\n")
    }

    @Test func soundfontsListsTheSearchAndTheWinner() throws {
        let etude = try Etude()
        let font = try soundFont()
        let r = try etude.run(["soundfonts"], extra: ["ETUDE_SOUNDFONT": font])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("* \(font)  [$ETUDE_SOUNDFONT]\n"), "\(r.stdout)")
        #expect(r.stdout.hasSuffix("using \(font)\n"))
        let bad = try etude.run(["soundfonts"], extra: ["ETUDE_SOUNDFONT": etude.home.file("nope.sf2")])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("\(etude.home.file("nope.sf2"))  [$ETUDE_SOUNDFONT] — no such file"))
    }
}
