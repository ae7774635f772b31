import Foundation
import MIDIFile
import Synth
import Testing
import TestSupport

/// A lesson and a performance of it by "another piano" (FluidR3, a SoundFont Etude does not
/// play with) with a tempo curve of ±25 % and a ritardando, through a room (sox reverb) and
/// pink noise, a second of silence first; encoded to FLAC and MP3. The bar starts in the
/// recording are known from the performance's own tempo map.
struct RecordedLesson {
    let lesson: String
    let wav: String
    let truth: [Double]

    static let beatsPerBar = 4
    static let lead = 1.0

    /// A little piece, a chord change a bar and a melody note a beat: `bars` bars of 4/4 at 120 BPM.
    static func song(bars: Int, order: [Int]? = nil) -> TestSong {
        let progression: [[UInt8]] = [[48, 60, 64, 67], [53, 57, 60, 65], [55, 59, 62, 67], [45, 57, 60, 64],
                                      [50, 57, 62, 65], [43, 55, 59, 62], [52, 55, 59, 64], [41, 57, 60, 65]]
        let melody: [[UInt8]] = [[72, 74, 76, 72], [77, 76, 74, 72], [74, 71, 67, 71], [76, 72, 69, 72],
                                 [74, 77, 81, 77], [79, 74, 71, 74], [76, 79, 83, 79], [77, 72, 69, 65]]
        let played = order ?? Array(0..<bars)
        var events: [(Int, MIDIEvent.Kind)] = [(0, .programChange(channel: 0, program: 0))]
        for (k, b) in played.enumerated() {
            let bar = k * 1920
            let chord = progression[b % progression.count]
            for key in chord { events += [(bar, .noteOn(channel: 0, key: key, velocity: 70)), (bar + 1800, .noteOff(channel: 0, key: key, velocity: 0))] }
            for (beat, key) in melody[(b * 3) % melody.count].enumerated() {
                events += [(bar + beat * 480, .noteOn(channel: 0, key: key, velocity: 90)), (bar + beat * 480 + 450, .noteOff(channel: 0, key: key, velocity: 0))]
            }
        }
        return TestSong(events: events, endTick: played.count * 1920)
    }

    /// The same notes with a tempo for each beat: ±25 % around 120 BPM, slowing to 60 % over the last two bars.
    static func curved(_ song: TestSong) -> TestSong {
        var out = song
        let beats = song.endTick / 480
        out.tempos = (0..<beats).map { k in
            var factor = 1 + 0.25 * sin(Double(k) / 5)
            let left = beats - k
            if left <= 8 { factor *= 0.6 + 0.4 * Double(left) / 8 }
            return (k * 480, Int(500_000 / factor))
        }
        return out
    }

    /// Writes the lesson (.mid, optionally with printed bar numbers) and renders the performance to `name`.wav; nil when a tool is missing.
    static func make(in dir: TempDir, name: String, bars: Int, printed: [Int]? = nil, performedOrder: [Int]? = nil) throws -> RecordedLesson? {
        guard let fluidsynth = Tools.fluidsynth.path, let sox = Tools.sox.path, let piano = Tools.otherPiano.path else { return nil }
        let lessonSong = song(bars: printed?.count ?? bars, order: printed.map { $0.map { $0 - 1 } })
        var lessonFile = lessonSong.file()
        if let printed {
            lessonFile.tracks[0].events.insert(contentsOf: printed.enumerated().map { Annotation.bar($0.element).event(tick: $0.offset * 1920) }, at: 0)
            lessonFile.tracks[0].events.sort { $0.tick < $1.tick }
        }
        let lesson = try dir.write("\(name)-lesson.mid", MIDIWriter.write(lessonFile))
        let performance = curved(song(bars: bars, order: performedOrder))
        let mid = dir.file("\(name)-performance.mid")
        try performance.write(to: mid)
        let truth = (0..<(performance.endTick / 1920)).map { lead + performance.seconds(atTick: $0 * 1920) }
        let dry = dir.file("\(name)-dry.wav"), wet = dir.file("\(name)-wet.wav"), hiss = dir.file("\(name)-hiss.wav"), out = dir.file("\(name).wav")
        let seconds = Int(lead + performance.seconds(atTick: performance.endTick) + 3)
        guard try ProcessRunner.run(fluidsynth, ["-ni", "-q", "-r", "44100", "-T", "wav", "-F", dry, piano, mid], timeout: 120).status == 0,
              try ProcessRunner.run(sox, ["-R", dry, "-c", "2", wet, "reverb", "40", "50", "60", "pad", String(lead)], timeout: 60).status == 0,
              try ProcessRunner.run(sox, ["-R", "-n", "-r", "44100", "-c", "2", hiss, "synth", String(seconds), "pinknoise", "vol", "0.01"], timeout: 60).status == 0,
              try ProcessRunner.run(sox, ["-R", "-m", wet, hiss, out, "trim", "0", String(seconds)], timeout: 60).status == 0 else { return nil }
        return RecordedLesson(lesson: lesson, wav: out, truth: truth)
    }

    /// The bars `etude align --json` printed.
    static func bars(_ json: String) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return try #require(object["bars"] as? [[String: Any]])
    }
}

private let renderTools = Tools.fluidsynth.available && Tools.sox.available && Tools.otherPiano.available
private let lame = Tools.which("lame")

@Suite("etude align and render --recording: a real performance's bars found, stretched, looped", .serialized,
       .enabled(if: EtudeBinary.isBuilt, "the etude binary is not built"),
       .enabled(if: renderTools, "fluidsynth, sox or FluidR3_GM.sf2 is missing (apt-get install fluidsynth sox fluid-soundfont-gm)"))
struct RecordingCommandTests {
    @Test("a FLAC and an MP3 of another piano with a tempo curve: every bar found near its known start")
    func alignsFlacAndMP3() throws {
        let etude = try Etude()
        let made = try #require(try RecordedLesson.make(in: etude.home, name: "curve", bars: 12))
        let flac = etude.home.file("curve.flac")
        #expect(try ProcessRunner.run(Tools.sox.path!, [made.wav, flac], timeout: 60).status == 0)
        var files = [flac]
        if let lame {
            let mp3 = etude.home.file("curve.mp3")
            #expect(try ProcessRunner.run(lame, ["--quiet", "-b", "128", made.wav, mp3], timeout: 60).status == 0)
            files.append(mp3)
        }
        for file in files {
            let r = try etude.run(["align", made.lesson, file, "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let bars = try RecordedLesson.bars(r.stdout)
            #expect(bars.map { $0["bar"] as? String } == (1...12).map { String($0) })
            let errors = zip(bars, made.truth).map { abs(($0.0["start"] as? Double ?? -9) - $0.1) }.sorted()
            #expect(errors[errors.count / 2] < 0.05, "\(file): bar errors \(errors)")
            #expect(errors.last! < 0.15, "\(file): bar errors \(errors)")
            #expect(bars.allSatisfy { ($0["confidence"] as? Double ?? 0) > 0.4 }, "\(r.stdout)")
            #expect(!r.stderr.contains("unsure"))
        }
    }

    @Test("the alignment is stored by the recording's content: found again after the file is renamed")
    func storedAfterRename() throws {
        let etude = try Etude()
        let made = try #require(try RecordedLesson.make(in: etude.home, name: "kept", bars: 6))
        let first = try etude.run(["align", made.lesson, made.wav, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("\"stored\":false"))
        let moved = etude.home.file("renamed take.wav")
        try FileManager.default.moveItem(atPath: made.wav, toPath: moved)
        let again = try etude.run(["align", made.lesson, moved, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("\"stored\":true"))
        #expect(try RecordedLesson.bars(again.stdout).map { $0["start"] as? Double } == (try RecordedLesson.bars(first.stdout)).map { $0["start"] as? Double })
        let text = try etude.run(["align", made.lesson, moved])
        #expect(text.status == 0)
        #expect(text.stdout.contains("(stored alignment)"))
        #expect(text.stdout.contains("bar      start  confidence"))
    }

    @Test("a recording that skips the score's repeat: its bars in the order it plays them")
    func skippedRepeat() throws {
        let etude = try Etude()
        // The score: |: 1 2 3 :| 4 5 6 (bars 1-3 twice); the performance plays 1 2 3 4 5 6.
        let made = try #require(try RecordedLesson.make(in: etude.home, name: "repeat", bars: 6, printed: [1, 2, 3, 1, 2, 3, 4, 5, 6],
                                                        performedOrder: [0, 1, 2, 3, 4, 5]))
        let r = try etude.run(["align", made.lesson, made.wav, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"repeatsPlayed\":false"))
        let bars = try RecordedLesson.bars(r.stdout)
        #expect(bars.map { $0["bar"] as? String } == ["1", "2", "3", "4", "5", "6"])
        let errors = zip(bars, made.truth).map { abs(($0.0["start"] as? Double ?? -9) - $0.1) }
        #expect(errors.allSatisfy { $0 < 0.15 }, "\(errors)")
    }

    @Test("--tap: beats tapped on a MIDI FIFO while the recording plays are the alignment, kept in the library")
    func tapsFromAFifo() throws {
        let etude = try Etude()
        let made = try #require(try RecordedLesson.make(in: etude.home, name: "tapped", bars: 2))
        let fifo = etude.home.file("taps.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Two bars of 4/4: eight taps, 0.4 s apart (any key; velocity-0 note-ons and offs are no taps).
        let r = try MIDIBytes.run(etude, ["align", made.lesson, made.wav, "--tap", "--input", fifo, "--json"], fifo: fifo) { fd in
            usleep(300_000)
            for k in 0..<8 {
                MIDIBytes.send(fd, [0x90, UInt8(60 + k), 90])
                usleep(50_000)
                MIDIBytes.send(fd, [0x90, UInt8(60 + k), 0])
                usleep(350_000)
            }
        }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"method\":\"taps\""), "\(r.stdout)")
        let bars = try RecordedLesson.bars(r.stdout)
        #expect(bars.map { $0["bar"] as? String } == ["1", "2"])
        let starts = bars.compactMap { $0["start"] as? Double }
        #expect(starts.count == 2 && abs(starts[1] - starts[0] - 1.6) < 0.15, "\(starts)")
        let beats = try #require(bars.first?["beats"] as? [Double])
        #expect(beats.count == 4)
        #expect(zip(beats.dropFirst(), beats).allSatisfy { abs($0 - $1 - 0.4) < 0.1 }, "\(beats)")
        let again = try etude.run(["align", made.lesson, made.wav, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("\"method\":\"taps\"") && again.stdout.contains("\"stored\":true"), "\(again.stdout)")
        let noTerminal = try etude.run(["align", made.lesson, made.wav, "--tap"])
        #expect(noTerminal.status == 1)
        #expect(noTerminal.stderr.contains("nothing to tap with"), "\(noTerminal.stderr)")
    }

    @Test("every damaged or wrong recording is one line naming it, exit 1, nothing stored")
    func damagedRecordings() throws {
        let etude = try Etude()
        let made = try #require(try RecordedLesson.make(in: etude.home, name: "good", bars: 2))
        let dir = etude.home.file("a folder.flac")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let fifo = etude.home.file("pipe.wav")
        #expect(mkfifo(fifo, 0o600) == 0)
        let empty = try etude.home.write("empty.mp3", [])
        let text = try etude.home.write("notes.flac", "these are my notes, not a recording\n")
        let junk = try etude.home.write("junk.wav", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) })
        let flac = etude.home.file("good.flac")
        #expect(try ProcessRunner.run(Tools.sox.path!, [made.wav, flac], timeout: 60).status == 0)
        let flacBytes = try #require(FileManager.default.contents(atPath: flac))
        let cutFLAC = try etude.home.write("cut.flac", Array(flacBytes.prefix(flacBytes.count / 2)))
        // A WAV header that announces 61 minutes (8-bit mono, 4 kHz), the file sparse.
        var header: [UInt8] = []
        func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let dataBytes = 61 * 60 * 4000
        header += Array("RIFF".utf8) + u32(36 + dataBytes) + Array("WAVEfmt ".utf8) + u32(16) + [1, 0, 1, 0] + u32(4000) + u32(4000) + [1, 0, 8, 0]
        header += Array("data".utf8) + u32(dataBytes)
        let long = try etude.home.write("long.wav", header)
        #expect(truncate(long, off_t(header.count + dataBytes)) == 0)
        let missing = etude.home.file("missing.flac")
        let cases: [(String, String)] = [
            (dir, "is a directory"), (fifo, "is a pipe"), ("/dev/zero", "is a device"), (empty, "is empty"),
            (text, "not a recording Etude can read"), (junk, "not a recording Etude can read"), (cutFLAC, "damaged"),
            (long, "lasts 61 minutes"), (missing, "no such file"),
        ]
        for (path, words) in cases {
            let r = try etude.run(["align", made.lesson, path], timeout: 60)
            #expect(r.status == 1, "\(path): \(r.status) \(r.stderr)")
            let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            #expect(lines.count == 1, "\(path): \(r.stderr)")
            #expect(r.stderr.hasPrefix("etude: \(path): "), "\(r.stderr)")
            #expect(r.stderr.contains(words), "\(path): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
    }

    @Test("render --recording at 70 %: two passes of the bars, each 1/0.7 as long, the pitch kept within 10 cents")
    func renderStretched() throws {
        let etude = try Etude()
        let made = try #require(try RecordedLesson.make(in: etude.home, name: "slow", bars: 6))
        let aligned = try etude.run(["align", made.lesson, made.wav, "--json"])
        #expect(aligned.status == 0, "\(aligned.stderr)")
        let bars = try RecordedLesson.bars(aligned.stdout)
        let start = try #require(bars[2]["start"] as? Double), end = try #require(bars[3]["end"] as? Double)
        let out = etude.home.file("slow-3-4.wav")
        let r = try etude.run(["render", made.lesson, "--recording", made.wav, "--bars", "3-4", "--tempo", "70%", "-o", out, "--verbose"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("Rubber Band R"), "\(r.stderr)")
        let wav = try WAVData(bytes: Array(try #require(FileManager.default.contents(atPath: out))))
        let source = try WAVData(bytes: Array(try #require(FileManager.default.contents(atPath: made.wav))))
        #expect(wav.sampleRate == 44_100 && wav.channels == 2)
        let seconds = Double(wav.frameCount) / Double(wav.sampleRate)
        let expected = 2 * (end - start) / 0.7 - 0.010
        #expect(abs(seconds - expected) / expected < 0.01, "\(seconds) s, expected \(expected) s")
        // The held bass note of bar 3 (A2 in the piece's chord list: 55 Hz is too low for a clean
        // peak; its chord's top note G4 is measured instead): the strongest partial near 392 Hz
        // in the source's bar 3 and in the stretched one.
        let original = Pitch.peak(source.samples[0], rate: source.sampleRate, from: start + 0.1, seconds: 0.4, near: 392)
        let stretched = Pitch.peak(wav.samples[0], rate: wav.sampleRate, from: 0.1 / 0.7, seconds: 0.4, near: 392)
        let cents = 1200 * log2(stretched / original)
        #expect(abs(cents) < 10, "source \(original) Hz, stretched \(stretched) Hz: \(cents) cents")
        let refused = try etude.run(["render", made.lesson, "--recording", made.wav, "--tempo", "40%", "-o", etude.home.file("x.wav")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("50% to 150%"), "\(refused.stderr)")
    }
}

/// A tone's frequency: the strongest DFT magnitude in ±60 cents of `near`, scanned every 0.25 cent.
enum Pitch {
    static func peak(_ samples: [Float], rate: Int, from: Double, seconds: Double, near: Double) -> Double {
        let a = Int(from * Double(rate)), n = Int(seconds * Double(rate))
        guard a >= 0, a + n <= samples.count else { return 0 }
        var best = (f: near, m: -1.0)
        var cents = -60.0
        while cents <= 60 {
            let f = near * pow(2, cents / 1200)
            var re = 0.0, im = 0.0
            let w = 2 * Double.pi * f / Double(rate)
            for i in 0..<n {
                let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
                let x = Double(samples[a + i]) * hann
                re += x * cos(w * Double(i))
                im -= x * sin(w * Double(i))
            }
            let m = re * re + im * im
            if m > best.m { best = (f, m) }
            cents += 0.25
        }
        return best.f
    }
}
