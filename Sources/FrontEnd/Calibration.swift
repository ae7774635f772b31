import Clocks
import Devices
import Foundation
import Judge
import Lesson
import LessonLibrary
import MIDIFile
import MIDIInput
import Practice
import Reports
import Screen
import Synth
import Terminal

/// One calibration as it runs on a clock: the clicks due (through the synth, on the metronome's
/// sounds) and the learner's taps, from the input's thread or the terminal's keys. With a
/// `MonotonicClock` a caller's loop calls `tick()`; with a `VirtualClock` a test does, and the
/// same taps give the same result.
public final class CalibrationRun: @unchecked Sendable {
    /// What a view shows: the calibration so far and when the last click sounded.
    public struct State: Equatable, Sendable {
        public var calibration: Calibration
        public var now: Double
        public var lastClick: Double?
        public var bpm: Double
    }

    /// Seconds before the first click: the screen is up and the learner listening.
    public static let leadIn = 0.8
    /// How long a click's note sounds.
    static let clickLength = 0.05

    public let clock: any TimeSource
    public let bpm: Double
    private let output: (any SoundOutput)?
    private let firstClick: Double
    private let lock = NSLock()
    private var calibration: Calibration
    private var clickOffs: [(time: Double, key: UInt8)] = []

    /// - Parameters:
    ///   - start: when the first click is due (default: `leadIn` from now).
    public init(beats: Int = Calibration.defaultBeats, bpm: Double = Calibration.defaultBPM, clock: any TimeSource,
                output: (any SoundOutput)?, start: Double? = nil) {
        self.clock = clock
        self.bpm = bpm
        self.output = output
        calibration = Calibration(beats: beats, bpm: bpm)
        firstClick = start ?? clock.now + Self.leadIn
    }

    /// When click `index` (from 0) is due.
    public func clickTime(_ index: Int) -> Double { firstClick + Double(index) * calibration.beatSeconds }

    /// When the next click or note-off is due (nil once everything sounded).
    public var nextDue: Double? {
        lock.withLock {
            let click = calibration.clicks.count < calibration.beats ? clickTime(calibration.clicks.count) : nil
            return ([click] + clickOffs.map { Optional($0.time) }).compactMap { $0 }.min()
        }
    }

    /// Sounds what is due now (clicks, their note-offs); returns the beats (from 1) that clicked.
    /// Each click counts from when it was sent, however late its call came.
    @discardableResult
    public func tick() -> [Int] {
        let now = clock.now
        var sounded: [Int] = []
        var send: [MIDIEvent.Kind] = []
        lock.withLock {
            for off in clickOffs where off.time <= now {
                send.append(.noteOff(channel: Metronome.channel, key: off.key, velocity: 0))
            }
            clickOffs.removeAll { $0.time <= now }
            while calibration.clicks.count < calibration.beats, clickTime(calibration.clicks.count) <= now {
                let index = calibration.clicks.count
                let accent = index % 4 == 0
                let key = accent ? Metronome.accentKey : Metronome.beatKey
                send.append(.noteOn(channel: Metronome.channel, key: key,
                                    velocity: UInt8(clamping: Int(accent ? Metronome.accentVelocity : Metronome.beatVelocity))))
                clickOffs.append((now + Self.clickLength, key))
                calibration.clicked(at: now)
                sounded.append(index + 1)
            }
        }
        for m in send { output?.send(m) }
        return sounded
    }

    /// A key went down at `time` (the input's own timestamp, or when the terminal read it).
    public func tap(at time: Double) {
        lock.withLock { calibration.tapped(at: time) }
    }

    /// The input sent a message that is not a key (aftertouch is not counted: see
    /// `Calibration.maxOtherMessagesPerClick`).
    public func other(_ kind: MIDIEvent.Kind) {
        let counted: Bool
        switch kind {
        case .polyPressure, .channelPressure: counted = false
        default: counted = true
        }
        lock.withLock { calibration.otherMessage(isCounted: counted) }
    }

    /// Every click sounded and half a beat passed for the last tap.
    public var isComplete: Bool {
        let now = clock.now
        return lock.withLock { calibration.isComplete(now: now) }
    }

    /// Every click sounded (the last tap may still come).
    public var allClicked: Bool { lock.withLock { calibration.clicks.count == calibration.beats } }

    public func state() -> State {
        let now = clock.now
        return lock.withLock { State(calibration: calibration, now: now, lastClick: calibration.clicks.last, bpm: bpm) }
    }

    public func result() -> CalibrationResult { lock.withLock { calibration.result() } }

    /// Silences a click still sounding.
    public func stop() {
        let offs = lock.withLock { () -> [(time: Double, key: UInt8)] in
            let o = clickOffs
            clickOffs = []
            return o
        }
        for off in offs { output?.send(.noteOff(channel: Metronome.channel, key: off.key, velocity: 0)) }
    }
}

/// The calibration screen's model from a run's state: pure, so a test reads what it shows.
public enum CalibrationView {
    /// How long the beat lamp stays lit after a click.
    static let flashSeconds = 0.12

    public static func model(_ state: CalibrationRun.State, device: String, computerKeyboard: Bool,
                             result: [String] = [], refused: Bool = false) -> CalibrationModel {
        let c = state.calibration
        var taps: [Int: Double] = [:]
        for p in c.pairs() { taps[p.click] = p.errorSeconds * 1000 }
        let last = c.taps.last.flatMap { t in c.pairs().min(by: { abs(c.clicks[$0.click] + $0.errorSeconds - t) < abs(c.clicks[$1.click] + $1.errorSeconds - t) })?.click }
        let footer = !result.isEmpty ? "r tries again · q or Enter closes"
            : computerKeyboard ? "any key but q taps the beat · q or Esc stops" : "play any key on \(device) with each click · q or Esc stops"
        return CalibrationModel(device: device, bpm: state.bpm, beats: c.beats, countIn: Calibration.ignoredBeats,
                                clicked: c.clicks.count,
                                flash: state.lastClick.map { state.now - $0 < flashSeconds } ?? false,
                                awaitingTap: state.lastClick.map { state.now - $0 < c.beatSeconds / 2 } ?? false,
                                tapsMs: taps, lastTap: last, halfBeatMs: c.beatSeconds * 500, result: result, refused: refused,
                                footer: footer)
    }
}

/// `etude calibrate`: measures the learner's offset on one input — a click through the synth,
/// a key on each beat — and stores it for that device, so practice, routines and `record`
/// judge with it. On a terminal the calibration screen; without one, a line per beat and the
/// result as the last line, so a script can follow it.
public struct Calibrator: Sendable {
    public var input: InputSpec
    public var beats = Calibration.defaultBeats
    public var sound = LiveSound()
    public var library: Library

    public init(input: InputSpec, library: Library) {
        self.input = input
        self.library = library
    }

    /// How one attempt ended.
    enum Ending: Equatable {
        case finished(CalibrationResult)
        case stopped(afterBeat: Int)
        case inputEnded(afterBeat: Int)
        case interrupted(Int32)
    }

    /// Runs the calibration; returns the exit status (0 when an offset was stored).
    public func run() throws -> Int32 {
        guard Calibration.beatRange.contains(beats) else {
            throw EtudeFailure("--beats \(beats): give \(Calibration.beatRange.lowerBound)–\(Calibration.beatRange.upperBound) beats (the first \(Calibration.ignoredBeats) count you in)")
        }
        // A microphone is set up, not tapped: the room, the level, a few keys (`AudioSetup`).
        if case .audio(let source) = input { return try AudioCalibrator(source: source, library: library).run() }
        let onScreen = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if input == .computerKeyboard && isatty(STDIN_FILENO) != 1 { throw Self.nothingToTapWith }
        // The library first: a database that cannot be written is one line before any sound; then
        // the input (no JACK server, a missing port or microphone), before the synth says anything.
        try AudioSetup.checkWritable(library)
        do { try input.check() } catch { throw EtudeFailure(error.message) }
        let live = try sound.open()
        defer { live.close() }
        let clock = MonotonicClock()
        let current = CurrentRun()
        let messages = MessageQueue()
        let hookup: InputHookup
        do {
            hookup = try InputHookup(spec: input, output: live, clock: clock,
                                     onNote: { e in if e.isOn && e.velocity > 0 { current.run?.tap(at: e.time) } },
                                     onStatus: { messages.post($0) }, onControl: { current.run?.other($0) })
        } catch {
            throw EtudeFailure(error.message)
        }
        defer { hookup.stop() }
        if let notice = hookup.notice { Console.error("etude: \(notice)") }
        EchoChoice.apply(to: hookup, explicit: sound.echo, library: library)
        let device = hookup.deviceID
        let attempt = Attempt(beats: beats, clock: clock, output: live, hookup: hookup, device: device, current: current,
                              messages: messages, library: library)
        let ending: Ending
        if onScreen {
            ending = try attempt.onScreen()
        } else {
            if hookup.usesComputerKeyboard && isatty(STDIN_FILENO) != 1 { throw Self.nothingToTapWith }
            ending = try attempt.oneLine()
        }
        LiveSound.flushLog(verbose: sound.verbose)
        return try Self.report(ending, device: device, library: library)
    }

    static let nothingToTapWith = EtudeFailure("nothing to tap with: no MIDI input and stdin is not a terminal; pass --input with a MIDI device or FIFO, or run it in a terminal")

    /// The result's last words on stdout (and a refusal on stderr); the exit status.
    static func report(_ ending: Ending, device: String, library: Library) throws -> Int32 {
        switch ending {
        case .interrupted(let status):
            Console.error("etude: calibration interrupted: nothing was saved")
            return status
        case .stopped(let beat):
            // q is the learner's choice, as on every screen: not a failure.
            Console.out("Calibration stopped at beat \(beat): nothing was saved. Run `etude calibrate` again and play to the last click.\n")
            return 0
        case .inputEnded(let beat):
            throw EtudeFailure("the input ended at beat \(beat), before the last click: nothing was saved; keep it open until the calibration is done")
        case .finished(let result):
            if let refusal = result.refusal {
                if let line = result.line { Console.out(line + "\n") }
                throw EtudeFailure(refusal)
            }
            Console.out(savedLine(result, device: device) + "\n")
            Console.out((result.line ?? "") + "\n")
            return 0
        }
    }

    /// "12 of 12 beats tapped; stored for …: judging takes it off your notes from now on".
    static func savedLine(_ result: CalibrationResult, device: String) -> String {
        "\(result.taps) of \(result.countedBeats) beats tapped; stored for \(InputDevice.description(device)): judging takes it off your notes from now on"
    }
}

/// The run taps go to now (a retry starts a new one); the input's thread reads it.
final class CurrentRun: @unchecked Sendable {
    private let lock = NSLock()
    private var value: CalibrationRun?
    var run: CalibrationRun? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// One command's attempts, on the screen or on lines.
private struct Attempt {
    let beats: Int
    let clock: MonotonicClock
    let output: any SoundOutput
    let hookup: InputHookup
    let device: String
    let current: CurrentRun
    let messages: MessageQueue
    let library: Library

    func start() -> CalibrationRun {
        let run = CalibrationRun(beats: beats, clock: clock, output: output)
        current.run = run
        return run
    }

    /// Without a terminal (or with one on stdin only): a header, `beat N/16` as each click
    /// sounds, and the result (printed by the caller) as the last line.
    func oneLine() throws -> Calibrator.Ending {
        let keys = LineKeys()
        defer { keys.close() }
        let run = start()
        defer { run.stop() }
        let name = InputDevice.description(device)
        Console.out("calibrating \(name): \(beats) clicks at \(Int(run.bpm)) BPM; play a key exactly with each click (the first \(Calibration.ignoredBeats) count you in)\n")
        // On a terminal the beat counts in place on one line; otherwise a line per beat.
        let status = StatusLine()
        defer { status.finish() }
        while true {
            for b in run.tick() {
                if isatty(STDOUT_FILENO) != 0 { status.show("beat \(b)/\(beats)  [q stops]") } else { Console.out("beat \(b)/\(beats)\n") }
            }
            for m in messages.take() { Console.error("etude: \(safe(m))") }
            if run.isComplete || (run.allClicked && hookup.ended) { break }
            if hookup.ended && !hookup.usesComputerKeyboard { return .inputEnded(afterBeat: run.state().calibration.clicks.count) }
            let wait = min(20, max(1, ((run.nextDue ?? clock.now + 0.02) - clock.now) * 1000))
            guard let pressed = keys.read(timeoutMs: Int32(wait.rounded(.up))) else {
                return .interrupted(keys.signalStatus ?? 130)
            }
            let at = clock.now
            for key in pressed {
                switch LineCommand(key) {
                case .quit?: return .stopped(afterBeat: run.state().calibration.clicks.count)
                case .interrupt?: return .interrupted(130)
                case .character?, .togglePause?: if hookup.usesComputerKeyboard { run.tap(at: at) }
                default: break
                }
            }
        }
        let result = run.result()
        try StoredOffsets.store(result, device: device, library: library)
        return .finished(result)
    }

    /// The calibration screen: the lamp, the beats, the taps on the scale, the result; r tries
    /// again, q (or Enter once done) closes.
    func onScreen() throws -> Calibrator.Ending {
        var screen: CalibrationFrames?
        let end = try ScreenHost.run { host in
            let made = CalibrationFrames(attempt: self, depth: host.depth)
            screen = made
            return made
        }
        let ending = screen?.ending ?? .stopped(afterBeat: 0)
        if let signal = end.signal { return .interrupted(128 + signal) }
        if end.ending == .interrupted { return .interrupted(130) }
        return ending
    }

    /// What the screen says when the beats are over.
    static func resultLines(_ result: CalibrationResult, device: String) -> [String] {
        var lines = [result.line ?? "no key was played near the clicks"]
        if let problem = result.problem {
            lines.append(problem.prefix(1).uppercased() + problem.dropFirst())
            lines.append("Nothing was saved: r to \(CalibrationResult.advice)")
        } else {
            lines.append("Stored for \(InputDevice.description(device))")
            lines.append("Judging takes it off your notes from now on")
        }
        return lines
    }
}

/// The calibration screen on the screen host: its model is the attempt's run and, once the
/// beats are over, the result; it draws `CalibrationScreen` and takes q, r, Enter and taps.
private final class CalibrationFrames: FullScreen {
    let attempt: Attempt
    let screen: CalibrationScreen
    let name: String
    var run: CalibrationRun
    var outcome: (result: CalibrationResult, lines: [String])?
    /// How the attempt ended so far (what the command reports).
    var ending: Calibrator.Ending = .stopped(afterBeat: 0)

    init(attempt: Attempt, depth: ColorDepth) {
        self.attempt = attempt
        screen = CalibrationScreen(depth: depth)
        name = InputDevice.description(attempt.device)
        run = attempt.start()
    }

    var minimumSize: TerminalSize { CalibrationScreen.minimumSize }

    func render(into area: Rect, buffer: inout CellBuffer) {
        let model = CalibrationView.model(run.state(), device: name, computerKeyboard: attempt.hookup.usesComputerKeyboard,
                                          result: outcome?.lines ?? [], refused: outcome.map { $0.result.verdict != .trusted } ?? false)
        screen.render(model, into: area, buffer: &buffer)
    }

    func restart() {
        run.stop()
        run = attempt.start()
    }

    func key(_ key: Key) -> TerminalAction {
        let at = attempt.clock.now
        switch LineCommand(key) {
        case .quit?:
            if outcome == nil { ending = .stopped(afterBeat: run.state().calibration.clicks.count) }
            return .quit
        case .character("r")? where outcome != nil, .character("R")? where outcome != nil:
            restart()
            outcome = nil
            ending = .stopped(afterBeat: 0)
        default:
            if outcome != nil {
                if key == Key(.enter) { return .quit }
            } else if attempt.hookup.usesComputerKeyboard, !key.isPaste {
                run.tap(at: at)  // any key is a tap; a paste is text, not a key struck
            }
        }
        return .continue
    }

    func idle() throws -> TerminalAction {
        run.tick()
        if outcome == nil, run.isComplete || (run.allClicked && attempt.hookup.ended) {
            let result = run.result()
            try StoredOffsets.store(result, device: attempt.device, library: attempt.library)
            outcome = (result, Attempt.resultLines(result, device: attempt.device))
            ending = .finished(result)
        }
        if outcome == nil, attempt.hookup.ended, !attempt.hookup.usesComputerKeyboard {
            ending = .inputEnded(afterBeat: run.state().calibration.clicks.count)
            return .quit
        }
        return .continue
    }

    func wake() -> Double? { run.nextDue.map { $0 - attempt.clock.now } }

    /// The clicks stood still while away (Ctrl-Z): an unfinished attempt starts again.
    func suspend(_ suspending: Bool) {
        if !suspending && outcome == nil { restart() }
    }

    func close() { run.stop() }
}
