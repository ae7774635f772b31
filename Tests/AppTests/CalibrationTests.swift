@testable import App
import Clocks
@testable import Devices
import Foundation
@testable import FrontEnd
import Judge
import Lesson
@testable import LessonLibrary
import MIDIFile
import MIDIInput
import Practice
@testable import Reports
import Screen
import Store
import Synth
import Terminal
import TestSupport
import Testing

/// `etude calibrate` below the command line: a calibration run on a virtual clock, its taps
/// arriving through a FIFO as a keyboard's MIDI bytes; the offset stored per device, looked up
/// for the input in use, taken off a play-mode pass; the suggestion to calibrate, once.
@Suite(.serialized) struct CalibrationRunTests {
    /// A FIFO read by an `InputHookup` on `clock`, its notes tapped into `run`, and its write end.
    final class FifoTaps {
        let dir: TempDir
        let path: String
        let hookup: InputHookup
        let fd: Int32

        init(clock: VirtualClock, run: CalibrationRun) throws {
            dir = try TempDir("etude-calibrate")
            path = dir.file("taps.fifo")
            guard mkfifo(path, 0o600) == 0 else { throw EtudeFailure("mkfifo \(path) failed") }
            hookup = try InputHookup(spec: .byteStream(path: path), output: nil, clock: clock,
                                     onNote: { e in if e.isOn && e.velocity > 0 { run.tap(at: e.time) } })
            fd = open(path, O_WRONLY | O_CLOEXEC)
        }

        deinit {
            close(fd)
            hookup.stop()
        }

        /// A key goes down now (the virtual clock stands still until the input thread has read it).
        func tap(_ run: CalibrationRun) {
            let before = run.state().calibration.taps.count
            var on: [UInt8] = [0x90, 60, 90]
            _ = write(fd, &on, 3)
            _ = eventually(10, poll: 1_000) { run.state().calibration.taps.count > before }
            var off: [UInt8] = [0x80, 60, 0]
            _ = write(fd, &off, 3)
        }
    }

    /// Plays every click at its time and a tap at each click + `error(i)` seconds, in time order.
    static func perform(_ run: CalibrationRun, clock: VirtualClock, fifo: FifoTaps, error: (Int) -> Double) -> [Int] {
        let beats = run.state().calibration.beats
        var events: [(time: Double, isClick: Bool)] = []
        for i in 0..<beats {
            events.append((run.clickTime(i), true))
            events.append((run.clickTime(i) + error(i), false))
        }
        var clicked: [Int] = []
        for e in events.sorted(by: { $0.time < $1.time }) {
            clock.set(e.time)
            if e.isClick { clicked += run.tick() } else { fifo.tap(run) }
        }
        clock.set(run.clickTime(beats - 1) + run.state().calibration.beatSeconds / 2)
        run.tick()
        return clicked
    }

    @Test func tapsThirtyMillisecondsAfterEachClickThroughAFifoCalibrateToThirty() throws {
        let clock = VirtualClock(now: 10)
        let output = RecordingOutput(clock: { clock.now })
        let run = CalibrationRun(clock: clock, output: output, start: 11)
        let fifo = try FifoTaps(clock: clock, run: run)
        #expect(fifo.fd >= 0)
        let clicked = Self.perform(run, clock: clock, fifo: fifo) { _ in 0.030 }
        #expect(clicked == Array(1...16))
        #expect(run.isComplete)
        let result = run.result()
        #expect(abs((result.offsetMs ?? 0) - 30) <= 2, "\(result)")
        #expect(result.spreadMs <= 2)
        #expect(result.verdict == .trusted)
        #expect(result.line == "offset 30 ms, spread 0 ms")
        // The clicks went to the synth on the metronome's channel and sounds, every fourth accented.
        let clicks = output.messages.compactMap { m -> UInt8? in
            if case .noteOn(Metronome.channel, let key, _) = m { return key }
            return nil
        }
        #expect(clicks.count == 16)
        #expect(clicks.enumerated().allSatisfy { $0.element == ($0.offset % 4 == 0 ? Metronome.accentKey : Metronome.beatKey) })
        // Each click is short: its note-off follows.
        #expect(output.messages.filter { if case .noteOff(Metronome.channel, _, _) = $0 { return true }; return false }.count == 16)
    }

    @Test func tapsWithTwoHundredMillisecondsOfRandomSpreadThroughAFifoAreRefused() throws {
        let clock = VirtualClock(now: 10)
        let run = CalibrationRun(clock: clock, output: nil, start: 11)
        let fifo = try FifoTaps(clock: clock, run: run)
        var rng = SeededGenerator(seed: 20)
        let errors = (0..<16).map { _ in 0.030 + Double.random(in: -0.2...0.2, using: &rng) }
        _ = Self.perform(run, clock: clock, fifo: fifo) { errors[$0] }
        let result = run.result()
        #expect(result.verdict == .tooSpread, "\(result)")
        #expect(result.refusal?.contains("too uneven to trust; nothing was saved: try again") == true)
        // Refused: nothing is stored, the command ends non-zero with the refusal on one line.
        let library = try Self.library()
        try StoredOffsets.store(result, device: "keys", library: library)
        #expect(try library.withStore(scan: false) { try $0.inputOffsets() }.isEmpty)
    }

    @Test func theScreenModelFollowsTheBeatsAndShowsTheTaps() {
        let clock = VirtualClock(now: 0)
        let run = CalibrationRun(beats: 8, clock: clock, output: nil, start: 1)
        func model() -> CalibrationModel { CalibrationView.model(run.state(), device: "the computer keyboard", computerKeyboard: true) }
        #expect(model().beatText == "get ready")
        #expect(model().footer == "any key but q taps the beat · q or Esc stops")
        clock.set(1)
        run.tick()
        #expect(model().beatText == "count-in 1/4")
        #expect(model().flash)
        #expect(model().instruction.hasPrefix("Listen to the clicks; from beat 5"))
        clock.set(1.3)
        #expect(!model().flash)
        for i in 1..<5 {
            clock.set(run.clickTime(i))
            run.tick()
        }
        run.tap(at: run.clickTime(4) + 0.04)
        let m = model()
        #expect(m.beatText == "beat 5/8")
        #expect(m.instruction == "Play any key exactly with each click")
        #expect(abs((m.tapsMs[4] ?? 0) - 40) < 1e-6)
        #expect(m.lastTap == 4)
        #expect(m.halfBeatMs == 300)
        #expect(m.awaitingTap)
        // A counted beat without a tap: ○ while its tap may still come, × once half a beat passed.
        clock.set(run.clickTime(5))
        run.tick()
        let screen = CalibrationScreen(depth: .none)
        #expect(screen.render(model(), size: TerminalSizeFixture.standard).rows.contains { $0.contains("○ ○ ○ ○ │ ● ○ · ·") })
        clock.set(run.clickTime(5) + 0.31)
        #expect(!model().awaitingTap)
        #expect(screen.render(model(), size: TerminalSizeFixture.standard).rows.contains { $0.contains("○ ○ ○ ○ │ ● × · ·") })
        let done = CalibrationView.model(run.state(), device: "x", computerKeyboard: false, result: ["offset 40 ms, spread 0 ms"])
        #expect(done.beatText == "done" && done.footer == "r tries again · q or Enter closes")
        // Drawn: the counter, the taps' scale and the keys.
        let text = screen.render(m, size: TerminalSizeFixture.standard).rows
        #expect(text.contains { $0.contains("beat 5/8") })
        #expect(text.contains { $0.contains("early") && $0.contains("late") && $0.contains("●") })
        #expect(text.last?.contains("any key but q taps the beat") == true)
    }

    // MARK: Stored offsets, looked up for the input in use

    static func library() throws -> Library {
        let dir = try TempDir("etude-calibrate-db")
        holder.append(dir)
        return Library(databaseOverride: dir.file("etude.sqlite"))
    }

    nonisolated(unsafe) static var holder: [TempDir] = []

    static func trusted(_ offset: Double) -> CalibrationResult {
        CalibrationResult(errorsMs: Array(repeating: offset, count: 12), countedBeats: 12)
    }

    @Test func offsetsAreStoredPerDeviceAndResetOneByOne() throws {
        let library = try Self.library()
        let clock = VirtualClock()
        let run = CalibrationRun(clock: clock, output: nil)
        let fifo = try FifoTaps(clock: clock, run: run)
        let fifoDevice = fifo.hookup.deviceID
        #expect(fifoDevice == URL(fileURLWithPath: fifo.path).standardizedFileURL.path)
        let keys = try InputHookup(spec: .computerKeyboard, output: nil, onNote: { _ in })
        #expect(keys.deviceID == "keys" && InputSpec.computerKeyboard.deviceID == "keys")
        keys.stop()
        // A MIDI port is stored by its name, not its address (which changes when replugged).
        #expect(InputDeviceID.alsa("Digital Piano MIDI 1 (24:0)") == "midi:Digital Piano MIDI 1")

        try StoredOffsets.store(Self.trusted(30), device: fifoDevice, library: library)
        try StoredOffsets.store(Self.trusted(-12), device: "keys", library: library)
        let shown = try StoredOffsets.show(library: library)
        #expect(shown.contains("the computer keyboard") && shown.contains("offset -12 ms, spread 0 ms"), "\(shown)")
        #expect(shown.contains(fifoDevice) && shown.contains("offset 30 ms, spread 0 ms"), "\(shown)")

        let onFifo = InputTiming.lookUp(hookup: fifo.hookup, override: nil, library: library)
        #expect(onFifo.offsetMs == 30 && onFifo.source == .calibrated && onFifo.hint == nil)
        let onKeys = InputTiming.lookUp(hookup: nil, override: nil, library: library)
        #expect(onKeys.offsetMs == -12 && onKeys.source == .calibrated)
        let overridden = InputTiming.lookUp(hookup: nil, override: 5, library: library)
        #expect(overridden.offsetMs == 5 && overridden.source == .override)

        // --reset names the input as --input does (a relative path is taken from here) or as --show prints it.
        #expect(InputDeviceID.named("notes.fifo") == FileManager.default.currentDirectoryPath + "/notes.fifo")
        #expect(InputDeviceID.named("keys") == "keys")
        #expect(try StoredOffsets.reset(fifo.path, input: .computerKeyboard, library: library) == "cleared the offset of \(fifoDevice) (was 30 ms)\n")
        #expect(InputTiming.lookUp(hookup: fifo.hookup, override: nil, library: library).source == .none)
        #expect(try StoredOffsets.reset("the computer keyboard", input: .computerKeyboard, library: library) == "cleared the offset of the computer keyboard (was -12 ms)\n")
        // Nothing left to clear is the state asked for, said so.
        #expect(try StoredOffsets.reset("keys", input: .computerKeyboard, library: library) == "nothing to clear: no input is calibrated yet\n")
        #expect(try StoredOffsets.show(library: library).hasPrefix("No input calibrated yet"))
    }

    @Test func overridesAreCheckedAsOneLine() throws {
        #expect(try InputTiming.override("30") == 30)
        #expect(try InputTiming.override("-12.4ms") == -12)
        #expect(try InputTiming.override(nil) == nil)
        for bad in ["abc", "900", "nan"] {
            #expect(throws: EtudeFailure.self) { try InputTiming.override(bad) }
        }
        #expect(try LiveSound.bufferMilliseconds("20") == 20)
        #expect(throws: EtudeFailure.self) { try LiveSound.bufferMilliseconds("1") }
    }

    // MARK: Judging with the offset

    /// A play-mode session on the four-note bar (`passes` times), judged with `timing`; how
    /// many times its hint spoke.
    func session(_ timing: InputTiming, passes: Int = 1) throws -> (SessionHarness, VirtualClock, LockedBox<Int>) {
        let clock = VirtualClock()
        let output = RecordingOutput(clock: { clock.now })
        let told = LockedBox(0)
        var hint: (@Sendable (PassReport) -> String?)?
        if let ask = timing.hint {
            hint = { @Sendable (report: PassReport) -> String? in
                let line = ask(report)
                if line != nil { told.value += 1 }
                return line
            }
        }
        var plan = PlayingModesTests.firstBarRight
        plan.repeatMode = .times(passes)
        let s = try SessionHarness(lesson: PlayingModesTests.lesson(), plan: plan, clock: clock, output: output,
                                   settings: .init(mode: .play, computerKeyboard: false, holdAfterPass: false,  // passes back to back, 2 s apart
                                                  inputOffsetMs: timing.offsetMs, timingHint: hint))
        return (s, clock, told)
    }

    /// Pass `pass` (from 0; 2 s each) played `late` seconds after each note, then on to `until`
    /// seconds into the pass (the results panel of a pass shows just after its end).
    func playPass(_ s: SessionHarness, _ clock: VirtualClock, _ pass: Int, late: Double, until: Double = 2) {
        let modes = PlayingModesTests()
        if pass == 0 { s.start() }
        for (i, pitch) in [72, 73, 74, 75].enumerated() {
            let t = Double(pass) * 2 + Double(i) * 0.5
            modes.play(s, clock, until: t)
            modes.play(s, clock, until: t + late)
            modes.press(s, clock, pitch)
            modes.play(s, clock, until: t + late + 0.2)
            modes.release(s, clock, pitch)
        }
        modes.play(s, clock, until: Double(pass) * 2 + until)
    }

    /// The bar played `late` seconds after each note, `passes` times; the last report.
    func playLate(_ s: SessionHarness, _ clock: VirtualClock, by late: Double, passes: Int = 1) throws -> PassReport {
        for pass in 0..<passes { playPass(s, clock, pass, late: late) }
        PlayingModesTests().play(s, clock, until: Double(passes) * 2 + 0.4)
        #expect(s.coach.passReports.count == passes)
        return try #require(s.coach.lastReport)
    }

    @Test func aPassPlayedThirtyMillisecondsLateWithThatOffsetCalibratedIsOnTime() throws {
        // Calibrated through the FIFO, stored for its device, looked up for the session.
        let library = try Self.library()
        let clock = VirtualClock(now: 10)
        let run = CalibrationRun(clock: clock, output: nil, start: 11)
        let fifo = try FifoTaps(clock: clock, run: run)
        _ = Self.perform(run, clock: clock, fifo: fifo) { _ in 0.030 }
        let device = fifo.hookup.deviceID
        try StoredOffsets.store(run.result(), device: device, library: library)
        let timing = InputTiming.lookUp(hookup: fifo.hookup, override: nil, library: library)
        #expect(timing.offsetMs == 30)

        let (s, sessionClock, _) = try session(timing)
        let report = try playLate(s, sessionClock, by: 0.030)
        #expect(report.figures.hit == 4)
        #expect(abs(report.figures.timingMeanMs) <= 3, "\(report.figures)")
        #expect(report.figures.onTime == 4)
        #expect(report.offsetMs == 30)
        #expect(report.json().contains("\"offsetMs\":30"))
        // The results panel names the offset applied.
        guard case .results(let info)? = s.snapshot().overlay else {
            Issue.record("no results panel")
            return
        }
        #expect(info.offsetMs == 30)
        #expect(ResultsPanel.lines(info).contains("input offset 30 ms applied"))

        // Without the offset the same playing is 30 ms late, and the panel names no offset.
        let (plain, plainClock, _) = try session(InputTiming(device: "keys", offsetMs: 0, source: .none))
        let late = try playLate(plain, plainClock, by: 0.030)
        #expect(abs(late.figures.timingMeanMs - 30) <= 3)
        #expect(late.offsetMs == 0)
        guard case .results(let plainInfo)? = plain.snapshot().overlay else {
            Issue.record("no results panel")
            return
        }
        #expect(!ResultsPanel.lines(plainInfo).contains { $0.contains("input offset") })
    }

    @Test func aNoteLateByMoreThanTheWindowButWithinItOnceTheOffsetIsTakenOffIsAHit() throws {
        // Window ±150 ms; offset 30 ms: a key 170 ms after its note was meant 140 ms after it.
        let (s, clock, _) = try session(InputTiming(device: "keys", offsetMs: 30, source: .override))
        let report = try playLate(s, clock, by: 0.170)
        #expect(report.figures.hit == 4 && report.figures.missed == 0, "\(report.figures)")
        #expect(abs(report.figures.timingMeanMs - 140) <= 3)
        #expect(report.figures.late == 4)
    }

    @Test func recordWritesEachNoteWhereItWasMeant() {
        let take = RecordingTake()
        take.begin(at: 100)
        take.offsetSeconds = 0.030
        take.add(PlayedEvent(pitch: 60, velocity: 90, time: 100.530, isOn: true))
        take.add(PlayedEvent(pitch: 60, velocity: 0, time: 100.930, isOn: false))
        let notes = take.recorder(bpm: 120, onsetOnly: false).notes(endTime: 102)
        #expect(notes.count == 1)
        #expect(abs((notes.first?.start ?? 0) - 0.5) < 1e-9)
        #expect(abs((notes.first?.end ?? 0) - 0.9) < 1e-9)
    }

    @Test func aLateLearnerWhoNeverCalibratedIsToldOnceAndNotAgainAfterCalibrating() throws {
        let hint = InputTiming.hintLine(meanMs: 62)
        #expect(hint == "hits 62 ms late on average, steadily: `etude calibrate` measures your offset once")

        let library = try Self.library()
        let first = InputTiming.lookUp(hookup: nil, override: nil, library: library)
        #expect(first.hint != nil)
        // Two passes 62 ms late: told in the first pass's results panel, not in the second's.
        let (s, clock, told) = try session(first, passes: 2)
        playPass(s, clock, 0, late: 0.062, until: 2)
        guard case .results(let info)? = s.snapshot().overlay else {
            Issue.record("no results panel after the first pass")
            return
        }
        #expect(abs(info.figures.timingMeanMs - 62) <= 3)
        #expect(info.timingHint == hint)
        #expect(ResultsPanel.lines(info).contains(hint))
        playPass(s, clock, 1, late: 0.062, until: 2.1)
        guard case .results(let again)? = s.snapshot().overlay else {
            Issue.record("no results panel after the second pass")
            return
        }
        #expect(again.title == "Pass 2 at 100%")
        #expect(abs(again.figures.timingMeanMs - 62) <= 3)
        #expect(again.timingHint == nil)
        #expect(told.value == 1)
        // Shown once, remembered once: by the application's effects, off the runner.
        let effects = PracticeEffects(session: s.session, history: nil, report: nil, rememberHint: InputTiming.remembering(in: library))
        effects.start()
        effects.finish()
        #expect(effects.performedCount == 3, "two passes and the hint, each once")

        // The next session: remembered in the library, not shown again.
        let second = InputTiming.lookUp(hookup: nil, override: nil, library: library)
        #expect(second.hint == nil)
        let (s2, clock2, _) = try session(second)
        _ = try playLate(s2, clock2, by: 0.062)
        guard case .results(let info2)? = s2.snapshot().overlay else {
            Issue.record("no results panel")
            return
        }
        #expect(info2.timingHint == nil)

        // A learner who calibrated (any input) is never told; nor is one playing on time.
        let calibrated = try Self.library()
        try StoredOffsets.store(Self.trusted(62), device: "keys", library: calibrated)
        #expect(InputTiming.lookUp(hookup: nil, override: nil, library: calibrated).hint == nil)
        let onTime = try Self.library()
        let fresh = InputTiming.lookUp(hookup: nil, override: nil, library: onTime)
        let (s3, clock3, told3) = try session(fresh)
        _ = try playLate(s3, clock3, by: 0.010)
        #expect(told3.value == 0)
        #expect(InputTiming.lookUp(hookup: nil, override: nil, library: onTime).hint != nil, "still to be told")
    }
}

/// A screen size for rendering tests.
enum TerminalSizeFixture {
    static let standard = TerminalSize(columns: 100, rows: 30)
}

extension CellBuffer {
    /// The buffer's rows as text.
    var rows: [String] {
        (0..<height).map { y in String((0..<width).map { x in self[x, y].character }) }
    }
}

