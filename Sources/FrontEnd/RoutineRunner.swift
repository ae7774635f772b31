import App
import Clocks
import Devices
import Foundation
import Judge
import Lesson
import MIDIFile
import MIDIInput
import Practice
import Reports
import Screen
import Synth
import Terminal

/// `etude routine run`: plays a `RoutinePlan` step by step on live FluidSynth (silently when
/// no audio device opens): a one-line countdown in each pause, then each entry by its mode.
///
/// - watch (or no mode): the lesson with the entry's hand/tempo/bars on a one-line status, a
///   fade at a time limit (`RoutinePlan.decide`), one watch pass in the history.
/// - wait / play / memory: the learner plays it on `--input`, judged by the same coach as
///   `etude practice --mode …`, on the full practice screen (a terminal) or, without one and
///   with a MIDI input, on the one-line status; the step still ends by its repetitions (N judged
///   passes) or its time limit (even while wait mode stands at a chord), and every finished
///   pass goes to the history with its mode and score.
///
/// → skips, q/Esc ends; every exit sends all-notes-off and restores the terminal.
public struct RoutineRunner: RoutinePlaying {
    public var sound: LiveSound
    /// Input and judging settings; each entry's mode replaces `mode`.
    public var playing: Playing

    public init(sound: LiveSound, playing: Playing) {
        self.sound = sound
        self.playing = playing
    }

    /// Seconds the last pass's results stay on the screen when an entry ends by its repetitions.
    static let resultsLinger = 2.5

    /// The step's policy for the step players.
    static func decide(_ length: RoutineEntry.Length) -> (Double, Int, Double?) -> StepPlayer.Decision {
        { elapsed, passes, passEnd in
            switch RoutinePlan.decide(length: length, elapsed: elapsed, completedPasses: passes, currentPassEnd: passEnd) {
            case .stop: return .stop
            case .play(let gain): return .play(gain: gain)
            }
        }
    }

    /// Plays the routine; returns the exit status (128 + a signal that ended it).
    public func play(_ plan: RoutinePlan, history: RoutineHistory) throws -> Int32 {
        // The synth and the learner's instrument, once for the whole routine (an unknown port is
        // one line); on the practice screen the synth's notices (the PulseAudio buffer grew, JACK
        // stopped) go to its status line, not over the screen; without one, to stderr as before.
        let needsInstrument = plan.steps.contains { ($0.mode ?? .watch).judges }
        let screenAvailable = isatty(STDOUT_FILENO) != 0 && isatty(STDIN_FILENO) != 0
        let devices = try PracticeSetup.open(sound: sound, playing: playing, instrument: needsInstrument, noticesOnScreen: screenAvailable)
        let (live, instrument, lights) = (devices.live, devices.instrument, devices.lights)
        let output = GainOutput(devices.lesson)
        let run = Run(plan: plan, history: history, output: output, instrument: instrument, runner: self)
        run.lights = lights
        run.live = live
        run.display.silent = LiveSound.silentNotice(live) != nil
        run.display.outputLatency = live.outputLatency
        run.display.gestureHelp = sound.gestures?.helpEntry
        if let instrument, let gestures = sound.gestures { gestures.route(instrument.hookup, to: nil) }
        run.display.echo = devices.echo
        defer {
            output.allNotesOff()
            devices.close()
            run.keys.close()
        }
        for (n, step) in plan.steps.enumerated() {
            if run.quit { break }
            run.play(step, number: n + 1)
        }
        run.line(run.quit ? "Routine ended early." : "Routine \(safe(plan.name)) done.", final: true)
        return run.exitCode
    }
}

/// One run of a routine: the keys, the status line and what ended it, shared by its steps.
private final class Run {
    let plan: RoutinePlan
    let history: RoutineHistory
    let output: GainOutput
    let instrument: Instrument?
    let runner: RoutineRunner
    let keys = LineKeys()
    let tty = isatty(STDOUT_FILENO) != 0
    let screenAvailable = isatty(STDOUT_FILENO) != 0 && isatty(STDIN_FILENO) != 0
    var quit = false
    var exitCode: Int32 = 0
    var display = PracticeView.Options()
    /// `--lights`: the keys to play next, lit while a played entry runs.
    var lights: KeyLights?
    /// The synth the routine plays through: an entry's `recording=` is heard where it is.
    var live: FluidSynthLive?
    private var lastStatus = ""

    init(plan: RoutinePlan, history: RoutineHistory, output: GainOutput, instrument: Instrument?, runner: RoutineRunner) {
        self.plan = plan
        self.history = history
        self.output = output
        self.instrument = instrument
        self.runner = runner
    }

    /// One step: the countdown before it, then the entry by its mode.
    func play(_ step: RoutinePlan.Step, number: Int) {
        let title = safe(step.lesson.title)
        let counter = "\(number)/\(plan.steps.count)"
        countdown(step, title: title, counter: counter)
        if quit { return }
        guard let path = step.path else {
            line("Skipping \(title): its file is missing (`etude library rescan`)", final: true)
            return
        }
        let mode = step.mode ?? .watch
        let played = mode.judges && instrument != nil
        let setup: PracticeSetup
        do {
            // The entry's key, else the one the learner chose for the lesson (not changed here);
            // a played entry on the learner's keyboard (notes off it are played for them).
            var request = PracticeSetup.Request(path: path, key: step.transpose.map { .fixed($0) } ?? .asked(nil),
                                                keyboard: played ? .init(input: runner.playing.input) : nil,
                                                library: runner.playing.library, history: false) { _ in
                var plan = RoutinePlan.practicePlan(hand: step.hand, tempoPercent: step.tempoPercent, bars: step.bars, length: step.length)
                if played {
                    // Real time from the first note: one bar of clicks to come in on (wait mode waits anyway).
                    if mode != .wait { plan.countIn = true }
                    if let trainer = step.speedTrainer {
                        plan.tempo = .percent(100)
                        plan.speedTrainer = trainer
                    }
                }
                return plan
            }
            request.words = RoutineEntry.words
            setup = try PracticeSetup.make(request)
        } catch {
            line("Skipping \(title): \(safe((error as? EtudeFailure)?.message ?? "\(error)"))", final: true)
            return
        }
        // `recording=`: the recording and its alignment (aligned first when none is kept).
        var recording: RecordingPractice?
        if let file = step.recording {
            do {
                recording = try RecordingPractice(path: file, lessonPath: setup.opened.path, lesson: setup.opened.lesson, plan: setup.plan,
                                                  soundfont: runner.sound.soundfont, library: runner.playing.library)
            } catch {
                line("Skipping \(title): \(safe((error as? EtudeFailure)?.message ?? "\(error)"))", final: true)
                return
            }
        }
        if played, let instrument {
            self.played(step, setup, mode: mode, instrument: instrument, title: title, counter: counter, recording: recording)
        } else {
            watched(step, setup, title: title, counter: counter, recording: recording)
        }
    }

    /// Reads keys and signals: true to skip the step (→), and sets `quit` for q/Esc/Ctrl-C/signals.
    func skipRequested(timeoutMs: Int32) -> Bool {
        guard let pressed = keys.read(timeoutMs: timeoutMs) else {
            exitCode = keys.signalStatus ?? exitCode
            quit = true
            return true
        }
        for key in pressed {
            switch LineCommand(key) {
            case .quit?:
                quit = true
                return true
            case .interrupt?:
                exitCode = 130
                quit = true
                return true
            case .forward?: return true
            default: break
            }
        }
        return false
    }

    /// On a terminal a status is one row redrawn in place, cut to the width (a wrapped line
    /// could not be redrawn); a final line stays, wrapped at spaces.
    func line(_ text: String, final: Bool = false) {
        if tty {
            if final {
                let rows = StatusLine.rows(text, onTerminal: true)
                Console.statusLine(rows.first ?? "", final: true)
                for row in rows.dropFirst() { Console.out(row + "\n") }
            } else if text != lastStatus {
                Console.statusLine(CellBuffer.cut(text, width: (TerminalSize.of(STDOUT_FILENO)?.columns ?? 80) - 1))
            }
            lastStatus = final ? "" : text
        } else if final || !text.isEmpty {
            Console.out(text + "\n")
        }
    }

    // MARK: Steps

    private func countdown(_ step: RoutinePlan.Step, title: String, counter: String) {
        guard step.pauseSeconds > 0 else { return }
        let start = MonotonicClock.seconds()
        while let left = RoutinePlan.countdown(pauseSeconds: step.pauseSeconds, elapsed: MonotonicClock.seconds() - start) {
            line(StatusLine.fitted("Next: \(counter) \(title)", " in \(left) s  [→ skip, q quit]"))
            if skipRequested(timeoutMs: 50) { break }
        }
        if tty { line("") }
    }

    /// Watching: the lesson plays with the other hand along, on the one-line status.
    private func watched(_ step: RoutinePlan.Step, _ setup: PracticeSetup, title: String, counter: String, recording: RecordingPractice?) {
        let (opened, practice) = (setup.opened, setup.plan)
        let clock = MonotonicClock()
        let player: StepPlayer
        do throws(PlanError) {
            if let recording {
                // The recording is heard instead of the lesson's notes; the lesson moves with it.
                player = try StepPlayer(lesson: opened.lesson, plan: practice, clock: clock, output: GainOutput(RecordingLessonFilter(output)),
                                        recording: recording.pace(for: opened.lesson))
            } else {
                player = StepPlayer(transport: try Transport(lesson: opened.lesson, plan: practice, clock: clock), clock: clock, output: output)
            }
        } catch {
            line("Skipping \(title): \(RoutineEntry.words(error))", final: true)
            return
        }
        let voice = live.flatMap { live in recording?.voice(live: live) { [weak player] in player.map { ($0.transport, $0.musicClock.now) } } }
        voice?.start()
        defer {
            voice?.stop()
            if runner.sound.verbose, let voice { Console.error("etude: \(RecordingPractice.summary(voice))") }
        }
        let started = Date()
        // Where the music was at the last tick, for `etude resume` (the entry's start until it plays).
        var lastTick = practice.tickRange(in: opened.lesson).lowerBound
        let result = player.run(
            decide: RoutineRunner.decide(step.length),
            control: { skipRequested(timeoutMs: 0) ? .skip : .keepGoing },
            status: { elapsed, passes, gain in
                lastTick = Int(player.transport.tick(at: player.musicClock.now))
                guard tty else { return }
                var s = "  \(StatusLine.clock(elapsed)) / \(StatusLine.clock(step.plannedSeconds))"
                s += "  pass \(passes + 1)  \(step.tempoPercent)%"
                if gain < 1 { s += "  fading" }
                s += "  [→ skip, q quit]"
                line(StatusLine.fitted("\(counter) \(title)", s))
            })
        let summary = "Played \(counter) \(title): \(StatusLine.clock(result.seconds)), \(result.completedPasses) pass\(result.completedPasses == 1 ? "" : "es")"
            + (result.faded ? ", faded out" : "") + (result.interrupted ? ", cut short" : "")
        line(summary, final: true)
        // A skip in the first second is a change of mind, not practice.
        guard result.seconds >= 1 else { return }
        let stopped = opened.lesson.tempoMap.seconds(atTick: lastTick)
        if let why = history.recordWatched(step, path: opened.path, startedAt: started, seconds: result.seconds, stoppedAtSeconds: stopped) {
            line(why, final: true)
        }
    }

    /// Practising: the learner plays, the coach judges; on the screen, or on the one-line
    /// status with a MIDI input when there is no terminal.
    private func played(_ step: RoutinePlan.Step, _ setup: PracticeSetup, mode: PracticeMode, instrument: Instrument,
                        title: String, counter: String, recording: RecordingPractice?) {
        if !screenAvailable && instrument.hookup.usesComputerKeyboard {
            line("Skipping \(title): \(mode.rawValue) mode needs you to play; run the routine in a terminal, or give --input midi or a FIFO", final: true)
            return
        }
        if !screenAvailable && instrument.hookup.ended {
            line("Skipping \(title): \(mode.rawValue) mode needs you to play, and the input has ended", final: true)
            return
        }
        let (opened, practice) = (setup.opened, setup.plan)
        for l in setup.notices { line(l, final: true) }
        // `--gestures`: a key of this entry's lesson cannot be a gesture (the entry is skipped).
        if let gestures = runner.sound.gestures {
            do {
                try gestures.check(lessonRange: opened.lesson.pitchRange)
            } catch {
                line("Skipping \(title): \(safe((error as? EtudeFailure)?.message ?? "\(error)"))", final: true)
                return
            }
        }
        var settings = runner.playing
        settings.mode = mode
        settings.holdAfterPass = false   // an entry's passes flow on; its length ends it
        if let follow = step.follow { settings.follow = follow && mode.follows }
        if recording != nil { settings.follow = false }  // the recording sets the time
        let session: PracticeSession
        let controller: PracticeController
        do {
            (session, controller) = try PracticeScreenRunner.makeSession(opened, plan: practice, output: recording == nil ? output : RecordingLessonFilter(output),
                                                                         playing: settings, instrument: instrument, recording: recording)
        } catch {
            line("Skipping \(title): \(safe((error as? EtudeFailure)?.message ?? "\(error)"))", final: true)
            return
        }
        if recording != nil { controller.tempoRange = RecordingPractice.tempoRange }
        let voice = live.flatMap { recording?.voice(live: $0, session: session) }
        voice?.start()
        defer {
            voice?.stop()
            if runner.sound.verbose, let voice { Console.error("etude: \(RecordingPractice.summary(voice))") }
        }
        defer { instrument.session = nil }
        // Gestures command this entry; between entries their keys stay silent and unjudged.
        runner.sound.gestures?.route(instrument.hookup, to: controller)
        defer {
            runner.sound.gestures?.route(instrument.hookup, to: nil)
            lights?.clear()
        }
        let history = self.history.history(lessonID: step.lesson.id, path: opened.path)
        // The entry's passes, loops and resume state are written by its effects thread, off the
        // screen's frames (a library locked by another program never stops them).
        let outbox = EffectOutbox()
        let effects = PracticeEffects(session: session, source: outbox, history: history, report: nil, rememberGuide: controller.onGuide,
                                      rememberHint: InputTiming.remembering(in: runner.playing.library))
        effects.start()
        // The screen's help lists s and L here too; r's file and G's choice leave as effects too.
        PracticeEffects.route(controller, history: history) { outbox.emit($0) }
        let scored = SessionStep(session: session, output: output, decide: RoutineRunner.decide(step.length))
        let passes = JudgedPasses(outbox: outbox, session: session, mode: mode)
        let (outcome, resumePoint, inputEnded) = screenAvailable
            ? onScreen(scored, controller: controller, step: step, counter: counter, passes: passes)
            : headless(scored, controller: controller, instrument: instrument, step: step, title: title, counter: counter, mode: mode, passes: passes)
        for l in passes.takeLines() { line(l, final: true) }
        let scores = passes.figures.compactMap { $0.map { Int(saturating: $0.score.rounded()) } }
        var summary = "Played \(counter) \(title) (\(mode.rawValue)): \(StatusLine.clock(outcome.seconds)), \(passes.figures.count) judged pass\(passes.figures.count == 1 ? "" : "es")"
        if !scores.isEmpty { summary += ", score\(scores.count == 1 ? "" : "s") \(scores.map(String.init).joined(separator: " ")) (best \(scores.max() ?? 0))" }
        summary += (outcome.faded ? ", faded out" : "") + (outcome.interrupted ? ", cut short" : "") + (inputEnded ? " (the input ended)" : "")
        line(summary, final: true)
        // `etude resume` goes on from the last entry played, as after `etude practice`.
        outbox.emit(.resume(resumePoint, mode: mode, loopName: nil))
        for l in effects.finish() { line("etude: \(l)", final: true) }
    }

    /// A played entry on the full practice screen (the learner needs to see the notes).
    private func onScreen(_ scored: SessionStep, controller: PracticeController, step: RoutinePlan.Step, counter: String,
                          passes: JudgedPasses) -> (StepPlayer.Result, ResumePoint, Bool) {
        let session = controller.session
        // The screen takes the terminal; the one-line keys come back after it.
        keys.pauseTerminal()
        defer { keys.resumeTerminal() }
        var overAt: Double?
        var lastTick: SessionStep.Tick?
        var skipped = false
        var outcome: PracticeScreenRunner.Outcome?
        do {
            outcome = try PracticeScreenRunner.screen(controller, display: display, signals: keys.signals, begin: { scored.start() }, frame: { loop in
                self.instrument?.releaseDue(now: session.now)
                let t = scored.tick()
                lights?.update(session.state())
                passes.record(t.finished)
                lastTick = t
                guard t.isOver else { return }
                let now = session.now
                if overAt == nil { overAt = now }
                // The last pass's results stay a moment (any key goes on at once).
                if controller.view.results == nil || now - (overAt ?? now) >= RoutineRunner.resultsLinger { loop.stop() }
            }, decorate: { model in
                let elapsed = lastTick?.elapsed ?? 0
                // The routine's progress first: a long title is what the status bar cuts.
                var info = "\(counter) \(StatusLine.clock(elapsed))/\(StatusLine.clock(step.plannedSeconds))"
                if case .repetitions(let count) = step.length { info += " pass \(min(count, (lastTick?.completedPasses ?? 0) + 1))/\(count)" }
                if (lastTick?.gain ?? 1) < 1 { info += " fading" }
                model.status.title = "\(info), \(model.status.title)"
                model.status.listening = AudioSetup.headerWords(self.instrument?.hookup.listeningSignal)
                model.helpEntries = display.gestureHelp.map { g in PracticeKeys.inRoutine.filter { !PracticeKeys.piano.contains($0) } + [g] }
                    ?? PracticeKeys.inRoutine
                if overAt != nil {
                    model.message = "entry done: any key goes on"
                } else if model.message == nil || model.message?.hasPrefix("the end") == true {
                    model.message = "routine \(counter): → next entry, q ends the routine"
                }
            }, key: { k in
                let command = PracticeKeyMap.command(for: k, pianoKeys: session.wantsPianoKeys)
                if command == .quit {
                    quit = true
                    return .quit
                }
                if overAt != nil { return .quit }
                if k == Key(.right) {
                    skipped = true
                    return .quit
                }
                return nil
            })
        } catch {
            line(safe((error as? EtudeFailure)?.message ?? "\(error)"), final: true)
            quit = true
        }
        if let outcome {
            if let signal = outcome.signal {
                exitCode = 128 + signal
                quit = true
            } else if outcome.ending == .interrupted {
                exitCode = 130
                quit = true
            } else if outcome.ending == .inputClosed {
                quit = true
            }
        }
        let (result, rest) = scored.finish(interrupted: skipped || (quit && overAt == nil))
        passes.record(rest)
        return (result, outcome?.resumePoint ?? session.resumePoint(), false)
    }

    /// A played entry without a terminal, on a MIDI input: the one-line status and a line per
    /// judged pass. The coach judges on its own clock (the session's runner ticks it).
    private func headless(_ scored: SessionStep, controller: PracticeController, instrument: Instrument, step: RoutinePlan.Step, title: String, counter: String,
                          mode: PracticeMode, passes: JudgedPasses) -> (StepPlayer.Result, ResumePoint, Bool) {
        var interrupted = false
        var inputEnded = false
        scored.start()
        line("Your turn: \(counter) \(title) in \(mode.rawValue) mode on \(instrument.hookup.sourceName.map(safe) ?? safe(runner.playing.input.description))", final: true)
        while true {
            if skipRequested(timeoutMs: 20) {
                interrupted = true
                break
            }
            controller.catchUp()  // a gesture played on the instrument runs here
            let t = scored.tick()
            lights?.update(scored.session.state())
            passes.record(t.finished)
            for l in passes.takeLines() { line(l, final: true) }
            if t.isOver { break }
            if instrument.hookup.ended {  // nothing more can be played
                interrupted = true
                inputEnded = true
                break
            }
            guard tty else { continue }
            var s = " (\(mode.rawValue))  \(StatusLine.clock(t.elapsed)) / \(StatusLine.clock(step.plannedSeconds))"
            s += "  pass \(t.completedPasses + 1)  \(step.tempoPercent)%"
            if t.gain < 1 { s += "  fading" }
            s += "  [→ skip, q quit]"
            line(StatusLine.fitted("\(counter) \(title)", s))
        }
        let resumePoint = scored.session.resumePoint()
        let (result, rest) = scored.finish(interrupted: interrupted)
        passes.record(rest)
        return (result, resumePoint, inputEnded)
    }
}

/// The judged passes of one played entry: each goes to the history as it ends (a pass cut by
/// the limit or by → for its time only), handed to the entry's effects thread, with a line for
/// the summary.
private final class JudgedPasses {
    let outbox: EffectOutbox
    let session: PracticeSession
    let mode: PracticeMode
    private(set) var figures: [ScoreFigures?] = []
    private var lines: [String] = []

    init(outbox: EffectOutbox, session: PracticeSession, mode: PracticeMode) {
        self.outbox = outbox
        self.session = session
        self.mode = mode
    }

    func record(_ passes: [FinishedPassInfo]) {
        // The session's other effects (the calibrate hint shown) to the entry's effects too.
        for e in session.effects.take(where: { if case .pass = $0 { false } else { true } }) { outbox.emit(e) }
        for p in passes {
            let result = session.passResult(for: p) ?? PassResult(info: p, mode: mode, report: nil)
            outbox.emit(.pass(result))
            guard p.complete else { continue }
            let f = result.figures
            figures.append(f)
            lines.append("  pass \(figures.count): " + (f.map(\.summary) ?? "not scored"))
        }
    }

    /// The pass lines not yet printed.
    func takeLines() -> [String] {
        let out = lines
        lines = []
        return out
    }
}
