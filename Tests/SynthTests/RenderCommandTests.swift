import Foundation
import MIDIFile
import Synth
import Testing

@Suite struct RenderCommandTests {
    @Test func renderWritesAValidWAVAndOneResultLineWhenPiped() throws {
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        try onsetSong.write(to: dir + "/song.mid")
        for (rate, format) in [(44_100, "s16"), (48_000, "float")] {
            let out = dir + "/song-\(rate)-\(format).wav"
            let r = try TestEnv.run(TestEnv.etude, ["render", dir + "/song.mid", "-o", out, "--rate", String(rate), "--format", format, "--tail", "0"])
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
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        try onsetSong.write(to: dir + "/song.mid")
        for name in ["a", "b"] {
            let r = try TestEnv.run(TestEnv.etude, ["render", dir + "/song.mid", "-o", dir + "/\(name).wav"])
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
    @Test func matchesFluidsynthFastRender() throws {
        guard let fluidsynth = TestEnv.which("fluidsynth") else {
            print("skipped: the fluidsynth CLI is not installed (apt-get install fluidsynth)")
            return
        }
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        let font = try TestEnv.soundFont()
        try onsetSong.write(to: dir + "/song.mid")
        let theirs = try TestEnv.run(fluidsynth, ["-ni", "-q", "-R", "0", "-C", "0", "-r", "44100", "-O", "float", "-T", "wav", "-F", dir + "/fs.wav", font, dir + "/song.mid"])
        #expect(theirs.status == 0, "\(theirs.stderr)")
        let ours = try TestEnv.run(TestEnv.etude, ["render", dir + "/song.mid", "-o", dir + "/etude.wav", "--soundfont", font,
                                                   "--format", "float", "--no-reverb", "--no-chorus", "--tail", "2"])
        #expect(ours.status == 0, "\(ours.stderr)")
        let a = try WAVData(path: dir + "/etude.wav"), b = try WAVData(path: dir + "/fs.wav")
        let oa = Signal.onsets(a.samples[0], threshold: 0), ob = Signal.onsets(b.samples[0], threshold: 0)
        print("onsets: etude \(oa)\n        fluidsynth -F \(ob)")
        #expect(oa.count == onsetTicks.count && ob.count == onsetTicks.count)
        guard let first = oa.first, let theirFirst = ob.first else { return }
        let lag = theirFirst - first
        print("frames: etude \(a.frameCount), fluidsynth -F \(b.frameCount) (start lag \(lag))")
        #expect(lag >= 0 && lag <= 64)
        #expect(abs(a.frameCount - (b.frameCount - lag)) < 64)
        for (x, y) in zip(oa, ob) { #expect(x <= y && y - x <= 192, "etude \(x) vs fluidsynth \(y)") }
    }

    @Test func missingSoundFontIsOneLineNamingThePathAndThePackage() throws {
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        try onsetSong.write(to: dir + "/song.mid")
        let r = try TestEnv.run(TestEnv.etude, ["render", dir + "/song.mid", "-o", dir + "/x.wav", "--soundfont", dir + "/missing.sf2"])
        #expect(r.status == 1)
        #expect(r.stderr == "etude: SoundFont \(dir)/missing.sf2 (--soundfont): no such file; install one with 'sudo apt-get install timgm6mb-soundfont' or pass --soundfont PATH\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.wav"))
    }

    @Test func corruptSoundFontIsOneLine() throws {
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        try onsetSong.write(to: dir + "/song.mid")
        try Data("this is not a soundfont".utf8).write(to: URL(fileURLWithPath: dir + "/bad.sf2"))
        let r = try TestEnv.run(TestEnv.etude, ["play", dir + "/song.mid", "--soundfont", dir + "/bad.sf2"])
        #expect(r.status == 1)
        #expect(r.stderr == "etude: SoundFont \(dir)/bad.sf2 (--soundfont): not a SoundFont (no RIFF sfbk header); install one with 'sudo apt-get install timgm6mb-soundfont' or pass --soundfont PATH\n")
        // A right header with a truncated body gets past the cheap check; FluidSynth refuses it.
        var truncated = Array("RIFF".utf8) + [0xFF, 0xFF, 0, 0] + Array("sfbk".utf8) + Array("LIST".utf8) + [0x10, 0, 0, 0]
        truncated += [UInt8](repeating: 0, count: 16)
        try Data(truncated).write(to: URL(fileURLWithPath: dir + "/trunc.sf2"))
        let t = try TestEnv.run(TestEnv.etude, ["render", dir + "/song.mid", "-o", dir + "/x.wav", "--soundfont", dir + "/trunc.sf2"])
        #expect(t.status == 1)
        #expect(t.stderr == "etude: \(dir)/trunc.sf2: not a usable SoundFont (FluidSynth could not load it); install one with 'sudo apt-get install timgm6mb-soundfont' or pass --soundfont PATH\n")
    }

    @Test func soundfontsListsTheSearchAndTheWinner() throws {
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        let font = try TestEnv.soundFont()
        var env = ProcessInfo.processInfo.environment
        env["ETUDE_SOUNDFONT"] = font
        let r = try TestEnv.run(TestEnv.etude, ["soundfonts"], env: env)
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("* \(font)  [$ETUDE_SOUNDFONT]\n"), "\(r.stdout)")
        #expect(r.stdout.hasSuffix("using \(font)\n"))
        env["ETUDE_SOUNDFONT"] = dir + "/nope.sf2"
        let bad = try TestEnv.run(TestEnv.etude, ["soundfonts"], env: env)
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("\(dir)/nope.sf2  [$ETUDE_SOUNDFONT] — no such file"))
    }
}
