import ArgumentParser
import Foundation
import Lesson
import MIDIFile
import Practice
import Store
import Synth

/// `etude routine run`: plays a `RoutinePlan` step by step on live FluidSynth (silently when
/// no audio device opens): a one-line countdown in each pause, the lesson with the entry's
/// hand/tempo/bars, a fade at a time limit (`RoutinePlan.decide`), a watch pass in the history
/// for every entry played. → skips, q/Esc ends; every exit sends all-notes-off and restores
/// the terminal.
struct RoutinePlayer {
    var soundfont: String?
    var audioDriver: String?

    func play(_ plan: RoutinePlan, store: Store) throws {
        let font = try SoundSetup.soundFont(soundfont)
        var options = FluidSynthLive.Options()
        if let audioDriver { options.drivers = [audioDriver] }
        let live: FluidSynthLive
        do {
            live = try FluidSynthLive(soundFont: font, options: options, onSlowLoad: SoundSetup.slowLoadReporter(font))
            SoundSetup.endProgressLine()
        } catch {
            SoundSetup.endProgressLine()
            SoundSetup.flushLog(verbose: false)
            throw EtudeFailure("\(error.message); \(SoundFontLocator.installHint)")
        }
        if let warning = live.warning { Console.error("etude: \(warning)") }
        SoundSetup.flushLog(verbose: false)
        let output = GainOutput(live)
        let signals = ExitSignals()
        let keys = PlayKeys()
        let tty = isatty(STDOUT_FILENO) != 0
        var quit = false
        var exitCode: Int32 = 0
        defer {
            output.allNotesOff()
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
            // Countdown
            if step.pauseSeconds > 0 {
                let start = MonotonicClock.seconds()
                var shown: Int?
                var skipped = false
                while let left = RoutinePlan.countdown(pauseSeconds: step.pauseSeconds, elapsed: MonotonicClock.seconds() - start) {
                    if left != shown {
                        shown = left
                        line("Next: \(n + 1)/\(plan.steps.count) \(title) in \(left) s  [→ skip, q quit]")
                    }
                    if control(timeoutMs: 50) == .skip { skipped = true; break }
                }
                if tty { line("") }
                if quit { break }
                _ = skipped
            }
            guard let path = step.path else {
                line("Skipping \(title): its file is missing (`etude library rescan`)", final: true)
                continue
            }
            let lesson: Lesson
            do {
                let read = try LessonFile.readLesson(path)
                lesson = Lesson(file: read.file, fileName: path)
            } catch let e as EtudeFailure {
                line("Skipping \(title): \(e.message)", final: true)
                continue
            }
            var practice = PracticePlan()
            practice.tempo = .percent(Double(step.tempoPercent))
            practice.bars = step.bars
            if let hand = step.hand, let h = try? PracticePlan.parseHands(hand) { practice.hands = h }
            // Watching a routine: the other hand plays along (the entry's mode is kept in the history).
            switch step.length {
            case .repetitions(let count): practice.repeatMode = .times(max(1, count))
            case .minutes: practice.repeatMode = .forever
            }
            let clock = SteadyClock()
            let transport: Transport
            do {
                transport = try Transport(lesson: lesson, plan: practice, clock: clock)
            } catch {
                line("Skipping \(title): \(error.message)", final: true)
                continue
            }
            let started = Date()
            let planned: Double
            switch step.length {
            case .repetitions(let count): planned = transport.passDuration * Double(max(1, count))
            case .minutes(let m): planned = m * 60
            }
            let player = StepPlayer(transport: transport, clock: clock, output: output)
            var lastStatus = ""
            let result = player.run(
                decide: { elapsed, passes, passEnd in
                    switch RoutinePlan.decide(length: step.length, elapsed: elapsed, completedPasses: passes, currentPassEnd: passEnd) {
                    case .stop: return .stop
                    case .play(let gain): return .play(gain: gain)
                    }
                },
                control: { control(timeoutMs: 0) },
                status: { elapsed, passes, gain in
                    guard tty else { return }
                    var s = "\(n + 1)/\(plan.steps.count) \(title)  \(StatusLine.clock(elapsed)) / \(StatusLine.clock(planned))"
                    s += "  pass \(passes + 1)  \(step.tempoPercent)%"
                    if gain < 1 { s += "  fading" }
                    s += "  [→ skip, q quit]"
                    if s != lastStatus {
                        lastStatus = s
                        line(s)
                    }
                })
            let hand = step.hand ?? "both"
            let summary = "Played \(n + 1)/\(plan.steps.count) \(title): \(StatusLine.clock(result.seconds)), \(result.completedPasses) pass\(result.completedPasses == 1 ? "" : "es")"
                + (result.faded ? ", faded out" : "") + (result.interrupted ? ", cut short" : "")
            line(summary, final: true)
            // A skip in the first second is a change of mind, not practice.
            guard result.seconds >= 1 else { continue }
            try store.recordPass(lessonID: step.lesson.id, startedAt: started, mode: "watch", hand: hand,
                                 tempoPercent: step.tempoPercent, bars: step.bars, durationSeconds: result.seconds)
        }
        if quit { line("Routine ended early.", final: true) } else { line("Routine \(plan.name) done.", final: true) }
        if exitCode != 0 { throw ExitCode(exitCode) }
    }
}
