import Foundation
import MIDIFile
import Testing
import TestSupport

/// `etude practice LESSON --recording RECORDING` as a learner runs it (issue 42 point 3), on a
/// recording the test makes (`RecordedLesson`: another SoundFont, a tempo curve of ±25 % and a
/// ritardando, a room and noise) whose bar times are known: the practice screen's bar counter
/// moves with the recording stretched to 70 % (aligned first, saying so), a pass played from a
/// FIFO at the recording's stretched times is clean, and a recording that cannot be played is
/// one line.
@Suite(.serialized) struct PracticeRecordingTests {
    static let ready = Tools.tmux.available && Tools.fluidsynth.available && Tools.sox.available && Tools.otherPiano.available

    /// The bar counter of the header ("bar 3:2/8" → 3).
    static func bar(_ screen: String) -> Int? {
        guard let header = screen.split(separator: "\n").first(where: { $0.contains("bar ") }),
              let range = header.range(of: #"bar (\d+):"#, options: .regularExpression) else { return nil }
        return Int(header[range].dropFirst(4).dropLast())
    }

    /// Watch mode at 70 %, no audio device: each bar comes on the screen when the stretched
    /// recording reaches it (the aligned times, a rubato performance), in the falling notes'
    /// view and on the staff (its cursor is the same position).
    @Test(.enabled(if: ready, "needs tmux, fluidsynth, sox and FluidR3_GM.sf2"))
    func theBarCounterMovesWithTheRecordingAt70Percent() throws {
        let etude = try Etude()
        let made = try RecordedLesson.make(in: etude.home, name: "take", bars: 8)
        let take = try #require(made)
        let pane = try TmuxPane(etude: etude, ["practice", take.lesson, "--recording", take.wav, "--tempo", "70%", "--repeat", "1"], width: 100, height: 30)
        #expect(eventually(120) { Self.bar(pane.screen()) != nil }, "\(pane.screen())\n\(pane.stderr)")
        #expect(pane.stderr.contains("had no alignment to this lesson: aligned now"), "\(pane.stderr)")
        #expect(pane.screen().contains("take.wav: "), "the header names the recording: \(pane.screen())")
        var seen: [Int: Double] = [:]
        let started = Date()
        var staffShown = false
        while Date().timeIntervalSince(started) < 30, seen[8] == nil {
            let screen = pane.screen()
            if let b = Self.bar(screen), seen[b] == nil { seen[b] = Date().timeIntervalSince(started) }
            if seen[4] != nil && !staffShown {
                try pane.keys("v")  // the staff (and the keyboard below it) from bar 4 on
                staffShown = true
            }
            usleep(10_000)
        }
        // Bar to bar, the screen keeps the recording's own time stretched to 70 %.
        for bar in 3...8 {
            let shown = try #require(seen[bar], "bar \(bar) never shown: \(seen)") - (seen[2] ?? 0)
            let expected = (take.truth[bar - 1] - take.truth[1]) / 0.7
            #expect(abs(shown - expected) < 0.2, "bar \(bar) came \(String(format: "%.2f", shown)) s after bar 2; the recording's at 70 %: \(String(format: "%.2f", expected)) s")
        }
        #expect(pane.screen().contains("𝄞") || pane.screen().contains("┃") || staffShown)
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
    }

    /// Play mode at 70 % from a FIFO: bars 1–4 played at the recording's stretched times (the
    /// performance's own tempo curve, not the lesson's even tempo) — every note a hit.
    @Test(.enabled(if: ready, "needs tmux, fluidsynth, sox and FluidR3_GM.sf2"))
    func aPassPlayedAtTheStretchedTimesIsClean() throws {
        let etude = try Etude()
        let made = try RecordedLesson.make(in: etude.home, name: "take", bars: 8)
        let take = try #require(made)
        let aligned = try etude.run(["align", take.lesson, take.wav])
        #expect(aligned.status == 0, "\(aligned.stderr)")
        let fifo = try etude.home.fifo("notes.fifo")
        let report = etude.home.file("passes.jsonl")
        let pane = try TmuxPane(etude: etude, ["practice", take.lesson, "--recording", take.wav, "--tempo", "70%", "--bars", "1-4", "--repeat", "1",
                                               "--mode", "play", "--hand", "both", "--input", fifo.path, "--echo", "off", "--report", report], width: 100, height: 30)
        #expect(eventually(60, poll: 5_000) { pane.screen().contains("count-in") }, "\(pane.screen())\n\(pane.stderr)")
        #expect(eventually(10, poll: 2_000) { !pane.screen().contains("count-in") }, "\(pane.screen())")
        // The count-in's end is seen a frame (30 a second) and a capture after it: 30 ms earlier.
        let start = Date(timeIntervalSinceNow: -0.03)
        // The performance the recording was made from: its notes at its own (curved) times.
        let performance = RecordedLesson.curved(RecordedLesson.song(bars: 8))
        var notes: [(time: Double, on: Bool, key: UInt8)] = []
        for (tick, kind) in performance.events where tick < 4 * 1920 {
            switch kind {
            case .noteOn(_, let key, let v) where v > 0: notes.append((performance.seconds(atTick: tick) / 0.7, true, key))
            case .noteOff(_, let key, _): notes.append((performance.seconds(atTick: tick) / 0.7, false, key))
            default: break
            }
        }
        notes.sort { $0.time < $1.time || ($0.time == $1.time && !$0.on && $1.on) }
        for n in notes {
            let wait = n.time - Date().timeIntervalSince(start)
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
            fifo.send([n.on ? 0x90 : 0x80, n.key, n.on ? 80 : 0])
        }
        #expect(eventually(30) { etude.home.read("passes.jsonl").hasSuffix("\n") }, "\(pane.screen())")
        let line = etude.home.read("passes.jsonl").split(separator: "\n").first.map(String.init) ?? ""
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let played = notes.filter(\.on).count
        #expect(json["hit"] as? Int == played, "\(line)")
        #expect(json["missed"] as? Int == 0, "\(line)")
        #expect(json["wrong"] as? Int == 0, "\(line)")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
    }

    /// The strongest frequency between 200 and 1100 Hz (1 Hz steps, Hann window) of `seconds` from `from`.
    static func peak(_ samples: [Float], rate: Int, from: Double, seconds: Double) -> Double {
        let a = max(0, Int(from * Double(rate))), n = min(samples.count - a, Int(seconds * Double(rate)))
        guard n > 0 else { return 0 }
        var best = (f: 0.0, power: -1.0)
        for f in stride(from: 200.0, through: 1100.0, by: 1.0) {
            var re = 0.0, im = 0.0
            let w = 2 * Double.pi * f / Double(rate)
            for i in 0..<n {
                let x = Double(samples[a + i]) * (0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n)))
                re += x * cos(w * Double(i))
                im -= x * sin(w * Double(i))
            }
            if re * re + im * im > best.power { best = (f, re * re + im * im) }
        }
        return best.f
    }

    /// RMS of mono float samples between two seconds.
    static func rms(_ samples: [Float], rate: Int, from: Double, to: Double) -> Double {
        let a = max(0, Int(from * Double(rate))), b = min(samples.count, Int(to * Double(rate)))
        guard b > a else { return 0 }
        var sum = 0.0
        for i in a..<b { sum += Double(samples[i]) * Double(samples[i]) }
        return (sum / Double(b - a)).squareRoot()
    }

    /// Wait mode on a JACK server of the test's own: the recording is what `etude:left` sounds,
    /// it stands still at the first chord of the practised hands (silence, none of the synth's
    /// lesson either) and plays on when the chord is played, to the next chord's beat.
    @Test(.enabled(if: ready && JackServer.available && Tools.which("jack_rec") != nil, "needs tmux, fluidsynth, sox, FluidR3_GM.sf2, jackd and jack_rec"))
    func waitModePausesTheRecordingAtEachChord() throws {
        let etude = try Etude()
        let made = try RecordedLesson.make(in: etude.home, name: "take", bars: 8)
        let take = try #require(made)
        #expect(try etude.run(["align", take.lesson, take.wav]).status == 0)
        let server = try JackServer(tag: "recwait")
        defer { server.stop() }
        let fifo = try etude.home.fifo("notes.fifo")
        let command = ([EtudeBinary.path, "practice", take.lesson, "--recording", take.wav, "--tempo", "70%", "--mode", "wait", "--hand", "both",
                        "--input", fifo.path, "--echo", "off", "--verbose"]).map(TmuxPane.quote).joined(separator: " ")
        let pane = try TmuxPane(command: command, environment: etude.environment.merging(server.environment) { $1 })
        #expect(eventually(60) { Self.bar(pane.screen()) != nil }, "\(pane.screen())\n\(pane.stderr)")
        let capture = etude.home.file("heard.wav")
        let rec = try Spawned("jack_rec", ["-f", capture, "-d", "6", "etude:left", "etude:right"], extra: server.environment)
        // Two seconds at the first chord, unplayed: silence. Then the chord (and the melody's first note).
        usleep(2_000_000)
        for key: UInt8 in [48, 60, 64, 67, 72] { fifo.send([0x90, key, 80]) }
        usleep(300_000)
        for key: UInt8 in [48, 60, 64, 67, 72] { fifo.send([0x80, key, 0]) }
        #expect(rec.wait(timeout: 20) == 0, "jack_rec: \((try? String(contentsOfFile: rec.stderrPath, encoding: .utf8)) ?? "")")
        let raw = etude.home.file("heard.f32")
        #expect(try ProcessRunner.run(Tools.sox.path ?? "sox", [capture, "-t", "f32", "-c", "1", raw], timeout: 30).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: raw))
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let waiting = Self.rms(samples, rate: server.rate, from: 0.3, to: 1.9)
        let played = Self.rms(samples, rate: server.rate, from: 2.1, to: 2.5)
        // Beat 2 waits for its note: silence again a beat (0.5 s at the performance's pace) and a fade later.
        let waitingAgain = Self.rms(samples, rate: server.rate, from: 3.6, to: 5.8)
        #expect(waiting < 1e-4, "the recording sounded while the first chord waited: \(waiting)")
        #expect(played > 20 * max(waiting, 1e-5), "the chord played did not start the recording: \(played) after \(waiting)")
        #expect(waitingAgain < played / 20, "the recording did not wait at the next beat: \(waitingAgain) after \(played)")
        // Heard at 70 % on a 48 kHz server from a 44.1 kHz file, its pitch is the recording's own:
        // the strongest partial of the first chord in both, within a sixth of a semitone.
        let own = etude.home.file("take.f32")
        #expect(try ProcessRunner.run(Tools.sox.path ?? "sox", [take.wav, "-t", "f32", "-c", "1", own], timeout: 30).status == 0)
        let ownSamples = try Data(contentsOf: URL(fileURLWithPath: own)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let heardPeak = Self.peak(samples, rate: server.rate, from: 2.15, seconds: 0.3)
        let ownPeak = Self.peak(ownSamples, rate: 44_100, from: RecordedLesson.lead + 0.08, seconds: 0.3)
        #expect(abs(heardPeak / ownPeak - 1) < 0.01, "heard \(heardPeak) Hz, the recording's \(ownPeak) Hz")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
        #expect(pane.stderr.contains("recording stretched live by Rubber Band"), "\(pane.stderr)")
    }

    /// `etude loop LESSON 3-4 --recording`, no terminal, no audio device: each pass lasts as
    /// long as bars 3–4 of the recording stretched to 70 % (the loop is the recording's).
    @Test(.enabled(if: ready, "needs tmux, fluidsynth, sox and FluidR3_GM.sf2"))
    func aLoopLastsAsLongAsTheRecordingsBarsStretched() throws {
        let etude = try Etude()
        let made = try RecordedLesson.make(in: etude.home, name: "take", bars: 8)
        let take = try #require(made)
        #expect(try etude.run(["align", take.lesson, take.wav]).status == 0)
        let loop = try etude.start(["loop", take.lesson, "3-4", "--recording", take.wav, "--tempo", "70%", "--repeat", "3"])
        var seen: [Int: Date] = [:]
        let deadline = Date(timeIntervalSinceNow: 90)
        while Date() < deadline, seen[3] == nil {
            let out = (try? String(contentsOfFile: loop.stdoutPath, encoding: .utf8)) ?? ""
            for pass in 1...3 where seen[pass] == nil && out.contains("pass \(pass):") { seen[pass] = Date() }
            usleep(5_000)
        }
        #expect(loop.wait(timeout: 30) == 0, "\((try? String(contentsOfFile: loop.stderrPath, encoding: .utf8)) ?? "")")
        let one = try #require(seen[1]), two = try #require(seen[2]), three = try #require(seen[3])
        let expected = (take.truth[4] - take.truth[2]) / 0.7
        for (a, b) in [(one, two), (two, three)] {
            #expect(abs(b.timeIntervalSince(a) - expected) < 0.2, "a pass took \(b.timeIntervalSince(a)) s; bars 3–4 of the recording at 70 %: \(expected) s")
        }
        // The time each pass is stored with (and said with) is those real seconds too, not the
        // music's clock, which the recording's pace runs slower or faster than real time.
        let out = (try? String(contentsOfFile: loop.stdoutPath, encoding: .utf8)) ?? ""
        let said = out.split(separator: "\n").compactMap { line -> Double? in
            guard line.hasPrefix("pass "), let comma = line.lastIndex(of: ",") else { return nil }
            return Double(line[line.index(after: comma)...].trimmingCharacters(in: .whitespaces).dropLast(2))
        }
        #expect(said.count == 3, "\(out)")
        let lesson = 2 * 4 * 0.5 / 0.7  // bars 3–4 at the lesson's own tempo, at 70 %
        #expect(abs(expected - lesson) > 0.3, "the recording's bars 3–4 should not last as long as the lesson's")
        for seconds in said.dropFirst() {  // the first pass holds the count-in's start too
            #expect(abs(seconds - expected) < 0.15, "a pass was stored as \(seconds) s; it was played in \(expected) s")
        }
    }

    /// A routine entry `recording=` (issue 42 point 3): the step is played with the recording —
    /// heard (the voice's summary with `--verbose`), the lesson paced by it: two passes of bars
    /// 3–4 at 70 % last as long as the recording's bars 3–4 stretched, not the lesson's, in the
    /// time the history keeps. An entry's recording that cannot be played is one line.
    @Test(.enabled(if: ready, "needs tmux, fluidsynth, sox and FluidR3_GM.sf2"))
    func aRoutineEntryPlaysWithTheRecording() throws {
        let etude = try Etude()
        let made = try RecordedLesson.make(in: etude.home, name: "take", bars: 8)
        let take = try #require(made)
        #expect(try etude.run(["align", take.lesson, take.wav]).status == 0)
        let entry = try etude.run(["routine", "new", "r", "--entry", "lesson=\(take.lesson);recording=\(take.wav);tempo=70;bars=3-4;reps=2"])
        #expect(entry.status == 0, "\(entry.stderr)")
        let shown = try etude.run(["routine", "list", "r"])
        #expect(shown.stdout.contains("take.wav"), "the entry says its recording: \(shown.stdout)")
        // The plan is timed by the recording's bars too (as the library's alignment found them).
        let plan = try etude.run(["routine", "run", "r", "--plan"])
        let about = try #require(plan.stdout.range(of: #"about \d+:\d\d"#, options: .regularExpression), "\(plan.stdout)")
        let parts = plan.stdout[about].dropFirst(6).split(separator: ":").compactMap { Double($0) }
        let planned = parts.count == 2 ? parts[0] * 60 + parts[1] : -1
        let run = try etude.run(["routine", "run", "r", "--verbose"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("recording stretched live by Rubber Band"), "\(run.stderr)")
        let stats = try etude.run(["stats", take.lesson, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], "\(stats.stdout)")
        let seconds = try #require(json["totalSeconds"] as? Double, "\(stats.stdout)")
        let recorded = 2 * (take.truth[4] - take.truth[2]) / 0.7
        let lesson = 2 * 2 * 4 * 0.5 / 0.7  // two passes of bars 3–4 at the lesson's own tempo
        #expect(abs(recorded - lesson) > 1)
        #expect(abs(seconds - recorded) < 0.6, "the step lasted \(seconds) s; two passes of the recording's bars 3–4 at 70 %: \(recorded) s (the lesson's \(lesson) s)")
        #expect(abs(planned - recorded) <= 1 && abs(planned - lesson) > 1, "planned \(planned) s: \(plan.stdout)")
        let bad = try etude.run(["routine", "new", "b", "--entry", "lesson=\(take.lesson);recording=\(etude.home.file("missing.flac"))"])
        #expect(bad.status != 0)
        #expect(bad.stderr.split(separator: "\n").count == 1 && bad.stderr.contains("missing.flac"), "\(bad.stderr)")
    }

    /// At 80×24 and at 60×20 the practice header still says whose recording it is: the
    /// lesson's title gives way first.
    @Test(.enabled(if: ready, "needs tmux, fluidsynth, sox and FluidR3_GM.sf2"), arguments: [(80, 24), (60, 20)])
    func theHeaderNamesTheRecordingOnASmallTerminal(size: (Int, Int)) throws {
        let etude = try Etude()
        let made = try RecordedLesson.make(in: etude.home, name: "take", bars: 8)
        let take = try #require(made)
        #expect(try etude.run(["align", take.lesson, take.wav]).status == 0)
        let pane = try TmuxPane(etude: etude, ["practice", take.lesson, "--recording", take.wav, "--tempo", "70%"], width: size.0, height: size.1)
        #expect(eventually(60) { Self.bar(pane.screen()) != nil }, "\(pane.screen())\n\(pane.stderr)")
        let header = pane.screen().split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.contains("take.wav"), "the header at \(size.0)×\(size.1): \(header)")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
    }

    /// A recording that cannot be played: one line naming it, exit 1, before anything opens.
    @Test func aDamagedRecordingIsOneLine() throws {
        let etude = try Etude()
        let lesson = Repo.lesson("level1/c-major-five-finger-parallel.mid")
        let garbage = try etude.home.write("take.flac", Array("not a recording at all".utf8) + [UInt8](repeating: 7, count: 4000))
        let fifo = etude.home.file("take.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let cases: [(String, String)] = [(garbage, "not a recording Etude can read"), ("/dev/zero", "is a device"), (etude.home.path, "is a directory"),
                                         (fifo, "is a pipe"), (etude.home.file("none.flac"), "no such file")]
        for (path, words) in cases {
            let r = try etude.run(["practice", lesson, "--recording", path], timeout: 30)
            #expect(r.status == 1, "\(path): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(words), "\(path): \(r.stderr)")
        }
        let tempo = try etude.run(["practice", lesson, "--recording", "/dev/zero", "--follow", "--mode", "play"])
        #expect(tempo.status != 0)
    }
}
