import Clocks
import Foundation
import MIDIFile
import Synth
import Testing
import TestSupport

@Suite struct DispatcherTests {
    let schedule = MessageSchedule(messages: [
        TimedMessage(seconds: 0.00, message: .programChange(channel: 0, program: 5)),
        TimedMessage(seconds: 0.01, message: .noteOn(channel: 0, key: 60, velocity: 90)),
        TimedMessage(seconds: 0.03, message: .noteOff(channel: 0, key: 60, velocity: 0)),
        TimedMessage(seconds: 0.05, message: .controlChange(channel: 0, controller: 7, value: 100)),
        TimedMessage(seconds: 30.0, message: .noteOn(channel: 0, key: 62, velocity: 90)),
        TimedMessage(seconds: 30.1, message: .noteOff(channel: 0, key: 62, velocity: 0)),
    ], duration: 30.2)

    @Test func dispatchesInOrderAndNeverEarly() throws {
        let out = RecordingOutput()
        let d = EventDispatcher(source: ScheduleCursor(schedule), output: out)
        let started = MonotonicClock.seconds()
        d.start()
        #expect(eventually { out.messages.count >= 4 })
        d.stop()
        #expect(Array(out.messages.prefix(4)) == schedule.messages.prefix(4).map(\.message))
        for (i, r) in out.recorded.prefix(4).enumerated() {
            #expect(r.seconds - started >= schedule.messages[i].seconds - 1e-4, "message \(i) sent early")
        }
        #expect(out.recorded.last?.entry == .allNotesOff)
        #expect(out.messages.count == 4)  // the 30 s note never came
    }

    @Test func pauseSeekAndStopEachSilenceFirst() throws {
        let out = RecordingOutput()
        let d = EventDispatcher(source: ScheduleCursor(schedule), output: out)
        d.start()
        #expect(eventually { out.messages.count >= 4 })
        d.pause()
        #expect(d.isPaused)
        #expect(out.recorded.last?.entry == .allNotesOff)
        let frozen = d.position
        usleep(50_000)
        #expect(d.position == frozen)
        d.resume()
        d.seek(to: 29.95)
        // Seek: notes off, then controller/program state chased (no notes), then playback on.
        let afterSeek = out.recorded.suffix(3).map(\.entry)
        #expect(afterSeek == [.allNotesOff, .message(.programChange(channel: 0, program: 5)),
                              .message(.controlChange(channel: 0, controller: 7, value: 100))])
        #expect(d.waitUntilFinished(timeout: 10))
        #expect(out.messages.suffix(2) == [.noteOn(channel: 0, key: 62, velocity: 90), .noteOff(channel: 0, key: 62, velocity: 0)])
        #expect(d.position == 30.2)
        d.stop()
        #expect(out.recorded.last?.entry == .allNotesOff)
        d.stop()  // idempotent
    }

    @Test func seekIsClampedAndBPMFollowsTheTempoMap() throws {
        var song = TestSong(tempos: [(0, 500_000), (960, 1_000_000)], events: [], endTick: 1920)
        song.events = [(0, .noteOn(channel: 0, key: 60, velocity: 1)), (1900, .noteOff(channel: 0, key: 60, velocity: 0))]
        let out = RecordingOutput()
        let d = EventDispatcher(source: ScheduleCursor(MessageSchedule(file: song.file())), output: out)
        #expect(d.duration == 3.0)
        d.start()
        d.pause()
        d.seek(to: -5)
        #expect(d.position == 0)
        #expect(d.bpm == 120)
        d.seek(to: 2.5)
        #expect(d.bpm == 60)
        d.seek(to: 99)
        #expect(d.position == 3.0)
        d.stop()
    }

    /// Every channel message of the file reaches the output unchanged and in order: bank
    /// select, program, drums on channel 10, sustain, volume, expression, pitch bend, sysex.
    @Test func fileMessagesReachTheOutputAsWritten() throws {
        var song = TestSong(events: [], endTick: 480)
        let messages: [MIDIEvent.Kind] = [
            .controlChange(channel: 0, controller: 0, value: 1), .controlChange(channel: 0, controller: 32, value: 0),
            .programChange(channel: 0, program: 48), .controlChange(channel: 0, controller: 7, value: 90),
            .controlChange(channel: 0, controller: 11, value: 70), .controlChange(channel: 0, controller: 64, value: 127),
            .pitchBend(channel: 0, value: 10000), .noteOn(channel: 9, key: 36, velocity: 110),
            .sysex(data: [0x7E, 0x7F, 0x09, 0x01, 0xF7]), .noteOn(channel: 0, key: 64, velocity: 80),
            .noteOff(channel: 0, key: 64, velocity: 0), .controlChange(channel: 0, controller: 64, value: 0),
        ]
        song.events = messages.enumerated().map { ($0.offset * 10, $0.element) }
        let out = RecordingOutput()
        let d = EventDispatcher(source: ScheduleCursor(MessageSchedule(file: song.file())), output: out)
        d.start()
        #expect(d.waitUntilFinished(timeout: 10))
        d.stop()
        #expect(out.messages == messages)
    }
}

@Suite struct SoundFontLocatorTests {
    func makeFont(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let bytes = Array("RIFF".utf8) + [4, 0, 0, 0] + Array("sfbk".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func searchOrderIsOptionEnvironmentRepositoryUserSystem() throws {
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        for p in ["opt.sf2", "env.sf2", "repo/SoundFonts/b.sf3", "repo/SoundFonts/a.sf2", "data/etude/soundfonts/u.sf2",
                  "sys/default-GM.sf2", "sys/other.sf2", "share/sub/deep.sf2"] {
            try makeFont(dir + "/" + p)
        }
        func locator(_ explicit: String?, env: [String: String]) -> SoundFontLocator {
            SoundFontLocator(explicit: explicit, environment: env, repositoryRoots: [dir + "/repo"],
                             systemDefault: dir + "/sys/default-GM.sf2", systemDirectories: [dir + "/sys", dir + "/share"])
        }
        let full = locator(dir + "/opt.sf2", env: ["ETUDE_SOUNDFONT": dir + "/env.sf2", "XDG_DATA_HOME": dir + "/data"])
        #expect(full.candidates().map(\.path) == [
            "opt.sf2", "env.sf2", "repo/SoundFonts/a.sf2", "repo/SoundFonts/b.sf3", "data/etude/soundfonts/u.sf2",
            "sys/default-GM.sf2", "sys/other.sf2", "share/sub/deep.sf2",
        ].map { dir + "/" + $0 })
        #expect(try full.locate() == dir + "/opt.sf2")
        #expect(try locator(nil, env: ["ETUDE_SOUNDFONT": dir + "/env.sf2"]).locate() == dir + "/env.sf2")
        #expect(try locator(nil, env: [:]).locate() == dir + "/repo/SoundFonts/a.sf2")
    }

    @Test func corruptFontsInTheSearchAreSkippedAndNothingFoundIsOneLine() throws {
        let dir = TestEnv.tempDir()
        defer { TestEnv.remove(dir) }
        try FileManager.default.createDirectory(atPath: dir + "/sys", withIntermediateDirectories: true)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: dir + "/sys/broken.sf2"))
        let l = SoundFontLocator(explicit: nil, environment: ["HOME": dir], repositoryRoots: [dir],
                                 systemDefault: dir + "/sys/default-GM.sf2", systemDirectories: [dir + "/sys"])
        #expect(l.candidates().first { $0.path.hasSuffix("broken.sf2") }?.problem == "not a SoundFont (no RIFF sfbk header)")
        #expect(throws: SynthError("no SoundFont found (tried \(dir)/sys/default-GM.sf2, \(dir)/sys/broken.sf2, \(dir)/SoundFonts, \(dir)/.local/share/etude/soundfonts, \(dir)/sys); install one with 'sudo apt-get install timgm6mb-soundfont' or pass --soundfont PATH")) {
            try l.locate()
        }
    }
}

/// `--audio-buffer MS` as periods at the synth's rate.
@Suite struct AudioBufferTests {
    @Test func aBufferLengthBecomesPeriodsAtTheRate() {
        let o = FluidSynthLive.Options()
        #expect(o.bufferTargetMilliseconds == FluidSynthLive.Options.defaultBufferMilliseconds)
        let forty = o.fitting(bufferMilliseconds: 40, rate: 48_000)
        #expect(forty.periodSize == 640 && forty.periods == 3)
        #expect(forty.bufferMilliseconds(at: 48_000) == 40)
        #expect(forty.bufferTargetMilliseconds == nil)
        // At 44.1 kHz the period rounds to a multiple of 16 frames: 592 × 3 = 40.3 ms.
        #expect(o.fitting(bufferMilliseconds: 40, rate: 44_100).periodSize == 592)
        // Short and long ends stay within what FluidSynth takes; the period count is kept.
        #expect(o.fitting(bufferMilliseconds: 2, rate: 48_000).periodSize == 32)
        #expect(o.fitting(bufferMilliseconds: 0.1, rate: 48_000).periodSize == 16)
        #expect(o.fitting(bufferMilliseconds: 500, rate: 192_000).periodSize == 8192)
        var four = o
        four.periods = 4
        #expect(four.fitting(bufferMilliseconds: 20, rate: 48_000).periodSize == 240)
        #expect(four.fitting(bufferMilliseconds: 20, rate: 48_000).periods == 4)
    }

    @Test func aCheckWithoutAnyDriverSaysSoAndKeepsTheBuffer() {
        var o = FluidSynthLive.Options()
        o.drivers = ["no-such-driver"]
        o.sampleRate = 48_000
        let check = FluidSynthLive.check(options: o)
        #expect(check.driver == nil)
        #expect(check.line == "no audio device (tried no-such-driver): Etude plays silently")
        #expect(check.periodSize == 640 && check.periods == 3 && check.bufferMilliseconds == 40)
        var found = check
        found.driver = "pulseaudio"
        #expect(found.line == "pulseaudio, 640 × 3 frames at 48000 Hz = 40.0 ms buffer")
    }
}
