import Clocks
import ArgumentParser
import Foundation
import Judge
import Lesson
import MIDIFile
import Practice
import Screen
import Store
import Synth
import Terminal

/// `etude routine run`: plays a `RoutinePlan` step by step on live FluidSynth (silently when
/// no audio device opens): a one-line countdown in each pause, then each entry by its mode.
///
/// - watch (or no mode): the lesson with the entry's hand/tempo/bars on a one-line status, a
///   fade at a time limit (`RoutinePlan.decide`), one watch pass in the history.
/// - wait / play / memory: the learner plays it on `--input`, judged by the same Coach as
///   `etude practice --mode …`, on the full practice screen (a terminal) or, without one and
///   with a MIDI input, on the one-line status; the step still ends by its repetitions (N judged
///   passes) or its time limit (even while wait mode stands at a chord), and every finished
///   pass goes to the history with its mode and score.
///
/// → skips, q/Esc ends; every exit sends all-notes-off and restores the terminal.
struct RoutinePlayer {
    var sound: LiveSoundOptions
    /// Input and judging settings; each entry's mode replaces `mode`.
    var playing: PracticeScreenRun.Playing

    /// The mode an entry plays in (watch when it names none).
    static func mode(of step: RoutinePlan.Step) -> PracticeMode {
        step.mode.flatMap { PracticeMode(rawValue: $0.lowercased()) } ?? .watch
    }

    /// The practice plan of a step: hand, tempo, bars and its length as passes.
    static func practicePlan(hand: String?, tempoPercent: Int, bars: ClosedRange<Int>?,
                             length: RoutineEntry.Length) -> PracticePlan {
        var plan = PracticePlan()
        plan.tempo = .percent(Double(tempoPercent))
        plan.bars = bars
        if let hand, let h = try? PracticePlan.parseHands(hand) { plan.hands = h }
        switch length {
        case .repetitions(let count): plan.repeatMode = .times(max(1, count))
        case .minutes: plan.repeatMode = .forever
        }
        return plan
    }

    /// One pass of a step timed from its lesson file: its bars at its tempo (nil when the file
    /// cannot be read or the bars do not fit; the plan then uses the catalogue's duration).
    static func passSeconds(_ q: RoutinePlan.PassQuery) -> Double? {
        guard let path = q.path, let read = try? LessonFile.readLesson(path) else { return nil }
        let lesson = Lesson(file: read.file, fileName: path)
        let plan = practicePlan(hand: q.hand, tempoPercent: q.tempoPercent, bars: q.bars, length: .repetitions(1))
        return try? Transport(lesson: lesson, plan: plan, clock: VirtualClock()).passDuration
    }

    /// The step's policy for the step players.
    static func decide(_ length: RoutineEntry.Length) -> (Double, Int, Double?) -> StepPlayer.Decision {
        { elapsed, passes, passEnd in
            switch RoutinePlan.decide(length: length, elapsed: elapsed, completedPasses: passes, currentPassEnd: passEnd) {
            case .stop: return .stop
            case .play(let gain): return .play(gain: gain)
            }
        }
    }


    func play(_ plan: RoutinePlan, store: Store) throws {
        let live = try sound.open()
        let output = GainOutput(live)
        // The learner's instrument, once for the whole routine (an unknown port is one line).
        let needsInstrument = plan.steps.contains { Self.mode(of: $0).judges }
        var instrument: PracticeScreenRun.Instrument?
        do {
            if needsInstrument { instrument = try PracticeScreenRun.Instrument(input: playing.input, output: live) }
        } catch {
            output.allNotesOff()
            live.close()
            throw error
        }
        let signals = ExitSignals()
        var keys = PlayKeys()
        let tty = isatty(STDOUT_FILENO) != 0
        let screenAvailable = tty && isatty(STDIN_FILENO) != 0
        var quit = false
        var exitCode: Int32 = 0
        defer {
            output.allNotesOff()
            instrument?.stop()
            keys?.restore()
            live.close()
        }

        /// Reads keys and signals: .skip for →, and sets `quit` for q/Esc/Ctrl-C/signals.
        func control(timeoutMs: Int32) -> StepPlayer.Control {
            if let sig = signals.received {
                exitCode = 128 + sig
                quit = true
                return .skip
            }
            guard let keys else {
                if timeoutMs > 0 { usleep(UInt32(timeoutMs) * 1000) }
                return .keepGoing
            }
            for key in keys.read(timeoutMs: timeoutMs) {
                switch key {
                case .quit:
                    quit = true
                    return .skip
                case .interrupt:
                    exitCode = 128 + SIGINT
                    quit = true
                    return .skip
                case .seekForward: return .skip
                default: break
                }
            }
            return .keepGoing
        }

        func line(_ text: String, final: Bool = false) {
            if tty {
                Console.out("\r\(text)\u{1B}[K" + (final ? "\n" : ""))
            } else if final || !text.isEmpty {
                Console.out(text + "\n")
            }
        }

        for (n, step) in plan.steps.enumerated() {
            if quit { break }
            let title = TextDecoding.sanitize(step.lesson.title)
            let counter = "\(n + 1)/\(plan.steps.count)"
            // Countdown
            if step.pauseSeconds > 0 {
                let start = MonotonicClock.seconds()
                var shown: Int?
                while let left = RoutinePlan.countdown(pauseSeconds: step.pauseSeconds, elapsed: MonotonicClock.seconds() - start) {
                    if left != shown {
                        shown = left
                        line("Next: \(counter) \(title) in \(left) s  [→ skip, q quit]")
                    }
                    if control(timeoutMs: 50) == .skip { break }
                }
                if tty { line("") }
                if quit { break }
            }
            guard let path = step.path else {
                line("Skipping \(title): its file is missing (`etude library rescan`)", final: true)
                continue
            }
            let loaded: LoadedLesson
            do {
                loaded = try LoadedLesson.load(path, split: nil)
            } catch let e as EtudeFailure {
                line("Skipping \(title): \(e.message)", final: true)
                continue
            }
            let mode = Self.mode(of: step)
            var practice = Self.practicePlan(hand: step.hand, tempoPercent: step.tempoPercent, bars: step.bars, length: step.length)
            let started = Date()
            let hand = step.hand ?? "both"

            if let m = step.mode, PracticeMode(rawValue: m.lowercased()) == nil {
                line("\(title): mode \(TextDecoding.sanitize(m)) is not one of watch, wait, play, memory; playing it to watch (`etude routine edit` fixes it)", final: true)
            }
            guard mode.judges, let instrument else {
                // Watching: the other hand plays along.
                let clock = MonotonicClock()
                let transport: Transport
                do {
                    transport = try Transport(lesson: loaded.lesson, plan: practice, clock: clock)
                } catch {
                    line("Skipping \(title): \(RoutineCommand.entryWords(error))", final: true)
                    continue
                }
                let player = StepPlayer(transport: transport, clock: clock, output: output)
                var lastStatus = ""
                // Where the music was at the last tick, for `etude resume` (the entry's start until it plays).
                var lastTick = practice.tickRange(in: loaded.lesson).lowerBound
                let result = player.run(
                    decide: Self.decide(step.length),
                    control: { control(timeoutMs: 0) },
                    status: { elapsed, passes, gain in
                        lastTick = Int(transport.tick(at: clock.now))
                        guard tty else { return }
                        var s = "\(counter) \(title)  \(StatusLine.clock(elapsed)) / \(StatusLine.clock(step.plannedSeconds))"
                        s += "  pass \(passes + 1)  \(step.tempoPercent)%"
                        if gain < 1 { s += "  fading" }
                        s += "  [→ skip, q quit]"
                        if s != lastStatus {
                            lastStatus = s
                            line(s)
                        }
                    })
                let summary = "Played \(counter) \(title): \(StatusLine.clock(result.seconds)), \(result.completedPasses) pass\(result.completedPasses == 1 ? "" : "es")"
                    + (result.faded ? ", faded out" : "") + (result.interrupted ? ", cut short" : "")
                line(summary, final: true)
                // A skip in the first second is a change of mind, not practice.
                guard result.seconds >= 1 else { continue }
                try store.recordPass(lessonID: step.lesson.id, startedAt: started, mode: "watch", hand: hand,
                                     tempoPercent: step.tempoPercent, bars: step.bars, durationSeconds: result.seconds)
                try? store.saveResume(ResumeState(lessonID: step.lesson.id, path: path,
                                                  positionSeconds: loaded.lesson.tempoMap.seconds(atTick: lastTick), hand: hand,
                                                  tempoPercent: step.tempoPercent, mode: "watch",
                                                  loopFirstBar: step.bars?.lowerBound, loopLastBar: step.bars?.upperBound, loopName: nil))
                continue
            }

            // Practising: the learner plays, the Coach judges.
            if !screenAvailable && instrument.hookup.usesComputerKeyboard {
                line("Skipping \(title): \(mode.rawValue) mode needs you to play; run the routine in a terminal, or give --input midi or a FIFO", final: true)
                continue
            }
            if !screenAvailable && instrument.hookup.ended {
                line("Skipping \(title): \(mode.rawValue) mode needs you to play, and the input has ended", final: true)
                continue
            }
            var settings = playing
            settings.mode = mode
            // Real time from the first note: one bar of clicks to come in on (wait mode waits anyway).
            if mode != .wait { practice.countIn = true }
            let observer = PracticeScreenRun.makeObserver(for: loaded.lesson, plan: practice, playing: settings, instrument: instrument)
            let session: PracticeSession
            do {
                session = try PracticeSession(lesson: loaded.lesson, plan: practice, clock: MonotonicClock(), output: output,
                                              options: PracticeScreenRun.sessionOptions(loaded, PracticeScreenRun.Display()),
                                              observer: observer)
            } catch {
                line("Skipping \(title): \(RoutineCommand.entryWords(error))", final: true)
                continue
            }
            let history = PracticeHistory(store: store, lessonID: step.lesson.id, path: path)
            // The screen's help lists s and L here too.
            session.onSaveLoop = { history.saveLoop($0) }
            session.onRecallLoops = { history.savedLoops() }
            let scored = SessionStep(session: session, output: output, decide: Self.decide(step.length))
            var figures: [(pass: Int, figures: ScoreFigures?)] = []
            var passLines: [String] = []
            func record(_ passes: [FinishedPassInfo]) {
                for p in passes {
                    guard p.complete else {   // cut by the limit or →: its time only, not a judged pass
                        history.record([p], mode: mode.rawValue) { _ -> ScoreFigures? in nil }
                        continue
                    }
                    let f = session.score(for: p)
                    history.record([p], mode: mode.rawValue) { _ in f }
                    figures.append((figures.count + 1, f))
                    passLines.append("  pass \(figures.count): " + (f.map(\.summary) ?? "not scored"))
                }
            }
            instrument.session = session
            defer { instrument.session = nil }
            var skipped = false
            var inputEnded = false
            let outcome: StepPlayer.Result
            var resumePoint: ResumePoint?
            if screenAvailable {
                // The full practice screen: the learner needs to see the notes.
                keys?.restore()
                keys = nil
                var overAt: Double?
                var lastTick: SessionStep.Tick?
                let (ending, point) = try PracticeScreenRun.screen(session, instrument: instrument, begin: { scored.start() }, frame: { loop in
                    // The routine's own signal watch may get the signal instead of the screen's handler.
                    if signals.received != nil { loop.stop() }
                    let t = scored.tick()
                    record(t.finished)
                    lastTick = t
                    guard t.isOver else { return }
                    let now = session.now
                    if overAt == nil { overAt = now }
                    // The last pass's results stay a moment (any key goes on at once).
                    if observer.results == nil || now - (overAt ?? now) >= Self.resultsLinger { loop.stop() }
                }, decorate: { model in
                    let elapsed = lastTick?.elapsed ?? 0
                    // The routine's progress first: a long title is what the status bar cuts.
                    var info = "\(counter) \(StatusLine.clock(elapsed))/\(StatusLine.clock(step.plannedSeconds))"
                    if case .repetitions(let count) = step.length { info += " pass \(min(count, (lastTick?.completedPasses ?? 0) + 1))/\(count)" }
                    if (lastTick?.gain ?? 1) < 1 { info += " fading" }
                    model.status.title = "\(info) · \(model.status.title)"
                    model.helpEntries = PracticeKeys.inRoutine
                    if overAt != nil {
                        model.message = "entry done: any key goes on"
                    } else if model.message == nil || model.message?.hasPrefix("the end") == true {
                        model.message = "routine \(counter): → next entry, q ends the routine"
                    }
                }, key: { k in
                    let command = PracticeCommand.command(for: k, pianoKeys: observer.wantsPianoKeys)
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
                if practiceExitSignal != 0 {
                    exitCode = 128 + practiceExitSignal
                    quit = true
                } else if let sig = signals.received {
                    exitCode = 128 + sig
                    quit = true
                } else if ending == .interrupted {
                    exitCode = 130
                    quit = true
                } else if ending == .inputClosed {
                    quit = true
                }
                let (result, rest) = scored.finish(interrupted: skipped || (quit && overAt == nil))
                record(rest)
                outcome = result
                resumePoint = point
                keys = PlayKeys()
            } else {
                // No terminal, a MIDI input: the one-line status and a line per judged pass.
                var lastStatus = ""
                var interrupted = false
                scored.start()
                line("Your turn: \(counter) \(title) in \(mode.rawValue) mode on \(instrument.hookup.sourceName.map(TextDecoding.sanitize) ?? playing.input)", final: true)
                while true {
                    if control(timeoutMs: 20) == .skip {
                        interrupted = true
                        break
                    }
                    instrument.hookup.releaseDue(now: session.now)
                    _ = session.snapshot()  // the coach's clock runs on frames (play-mode misses, wait hints)
                    let t = scored.tick()
                    let before = passLines.count
                    record(t.finished)
                    for l in passLines[before...] { line(l, final: true) }
                    if t.isOver { break }
                    if instrument.hookup.ended {  // nothing more can be played
                        interrupted = true
                        inputEnded = true
                        break
                    }
                    guard tty else { continue }
                    var s = "\(counter) \(title) (\(mode.rawValue))  \(StatusLine.clock(t.elapsed)) / \(StatusLine.clock(step.plannedSeconds))"
                    s += "  pass \(t.completedPasses + 1)  \(step.tempoPercent)%"
                    if t.gain < 1 { s += "  fading" }
                    s += "  [→ skip, q quit]"
                    if s != lastStatus {
                        lastStatus = s
                        line(s)
                    }
                }
                let before = passLines.count
                resumePoint = session.resumePoint()
                let (result, rest) = scored.finish(interrupted: interrupted)
                record(rest)
                for l in passLines[before...] { line(l, final: true) }
                passLines.removeAll()
                outcome = result
            }
            if screenAvailable { for l in passLines { line(l, final: true) } }
            let scores = figures.compactMap { $0.figures.map { Int($0.score.rounded()) } }
            var summary = "Played \(counter) \(title) (\(mode.rawValue)): \(StatusLine.clock(outcome.seconds)), \(figures.count) judged pass\(figures.count == 1 ? "" : "es")"
            if !scores.isEmpty { summary += ", score\(scores.count == 1 ? "" : "s") \(scores.map(String.init).joined(separator: " ")) (best \(scores.max() ?? 0))" }
            summary += (outcome.faded ? ", faded out" : "") + (outcome.interrupted ? ", cut short" : "") + (inputEnded ? " (the input ended)" : "")
            line(summary, final: true)
            // `etude resume` goes on from the last entry played, as after `etude practice`.
            if let resumePoint { history.saveResume(resumePoint, mode: mode.rawValue, loopName: nil) }
        }
        if quit { line("Routine ended early.", final: true) } else { line("Routine \(plan.name) done.", final: true) }
        if exitCode != 0 { throw ExitCode(exitCode) }
    }

    /// Seconds the last pass's results stay on the screen when an entry ends by its repetitions.
    static let resultsLinger = 2.5
}
