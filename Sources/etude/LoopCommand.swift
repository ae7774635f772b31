import ArgumentParser
import Foundation
import Lesson
import MIDIFile
import Practice

struct LoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loop",
        abstract: "Loop bars A-B of a lesson, hands separately or together, at any tempo.",
        discussion: """
        Each pass plays exactly bars A to B: notes held past B stop at the bar line, notes held into A are not sounded. With --speed-trainer the tempo rises after each pass.

        Examples:
          etude loop song.mid 5-8 --tempo 60% --hand right --dry-run
          etude loop song.mid 5-8 --speed-trainer 60:100:10 --final-slow-pass --repeat 8 --dry-run
        """
    )

    @Argument(help: "The lesson: a .mid, .abc or MusicXML (.musicxml, .mxl, .xml) file, or a title or id from `etude list`.") var lesson: String
    @Argument(help: "Bars A-B to loop, inclusive (e.g. 5-8; a score's printed bars, 12-16@2 the second time through); optional with --saved.") var bars: String?
    @OptionGroup var practice: PracticeOptions
    @Flag(name: .customLong("count-in"), help: "One bar of clicks before the first pass.") var countIn = false
    @Flag(name: .customLong("dry-run"), help: "Print the passes (tempo, BPM, length) instead of playing.") var dryRun = false
    @Option(help: "Recall a loop saved on the practice screen (`s`) or listed by `etude loops LESSON`.") var saved: String?
    @Option(help: "SoundFont (.sf2/.sf3) to use instead of the one found automatically.") var soundfont: String?
    @Option(help: "Force one audio driver (pipewire, pulseaudio, alsa, jack, sdl2, oss).") var audioDriver: String?
    @Flag(help: "Show the audio driver chosen and FluidSynth's own log.") var verbose = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        let path = try StoreCLI.lessonPath(self.lesson, store)
        let loaded = try LoadedLesson.load(path, split: practice.splitPitch())
        let lesson = loaded.lesson
        // The history is only opened when it is needed: to recall a loop, or to play.
        let history = (saved != nil || !dryRun) ? PracticeHistory(options: store, path: path) : nil
        var plan: PracticePlan
        var loopName: String?
        do {
            if let saved, let history {
                let loop = try history.savedLoop(named: saved)
                if bars != nil { throw EtudeFailure("--saved \(saved) and bars \(bars ?? "") both given: use one of them") }
                plan = try practice.plan(bars: "\(loop.firstBar)-\(loop.lastBar)", defaultOther: .play, defaultRepeat: .forever)
                if practice.hand == "both" { plan.hands = try PracticePlan.parseHands(loop.hand) }
                if practice.other == nil { plan.otherHand = try PracticePlan.parseOtherHand(SavedLoopModes.otherHand(loop.otherHandMode)) }
                if practice.tempo == nil && practice.bpm == nil && practice.speedTrainer == nil { plan.tempo = .percent(Double(loop.tempoPercent)) }
                loopName = loop.name
            } else {
                guard let bars else { throw EtudeFailure("give the bars to loop (e.g. 5-8) or --saved NAME") }
                plan = try practice.plan(bars: bars, lesson: lesson, defaultOther: .play, defaultRepeat: .forever)
            }
            plan.countIn = countIn
            try plan.validate(for: lesson)
        } catch let error as PlanError {
            // The bars are an argument here, not the --bars option.
            var message = error.message
            if message.hasPrefix("--bars ") { message.removeFirst(2) }
            throw EtudeFailure(message)
        }
        guard !dryRun else {
            Console.out(try LoopPreview.text(lesson: lesson, plan: plan, maxPasses: 12))
            return
        }
        let status = try LoopPlayer.play(loaded, plan: plan, sound: LiveSoundOptions(soundfont: soundfont, audioDriver: audioDriver, verbose: verbose),
                                         history: history, loopName: loopName)
        if status != 0 { throw ExitCode(status) }
    }
}

/// `etude loop` for real: the loop heard through the live synth with a one-line status
/// (bar, pass, BPM) until q, Ctrl-C or the last pass. Without a terminal it prints one line
/// per finished pass instead.
enum LoopPlayer {
    static func play(_ loaded: LoadedLesson, plan: PracticePlan, sound: LiveSoundOptions, history: PracticeHistory?, loopName: String?) throws -> Int32 {
        let live = try sound.open()
        defer { live.close() }
        let session: PracticeSession
        do {
            session = try PracticeSession(lesson: loaded.lesson, plan: plan, clock: SteadyClock(), output: live)
        } catch {
            throw EtudeFailure(error.message)
        }
        let signals = ExitSignals()
        let keys = PlayKeys()
        let onTerminal = isatty(STDOUT_FILENO) != 0
        var last = ""
        var exitCode: Int32 = 0
        session.start()
        loop: while true {
            if let sig = signals.received {
                exitCode = 128 + sig
                break
            }
            let pressed = keys?.read(timeoutMs: 50) ?? { usleep(50_000); return [] }()
            for key in pressed {
                switch key {
                case .quit: break loop
                case .interrupt:
                    exitCode = 130
                    break loop
                case .togglePause: session.handle(.playPause)
                case .seekBack: session.handle(.previousBar)
                case .seekForward: session.handle(.nextBar)
                }
            }
            let passes = session.takeFinishedPasses()
            if !passes.isEmpty {
                history?.record(passes, mode: "watch") { _ in nil }
                if !onTerminal {
                    for p in passes where p.complete {
                        Console.out("pass \(p.pass): bars \(p.bars.lowerBound)-\(p.bars.upperBound) at \(PracticeSession.percentText(p.tempoPercent))%, \(String(format: "%.1f", p.durationSeconds)) s\n")
                    }
                }
            }
            if onTerminal {
                let m = session.snapshot().status
                let loopText = m.loop.map { "bars \($0.startBar)-\($0.endBar) · pass \(session.transport.pass)" } ?? ""
                let line = "bar \(m.bar)/\(m.bars) · \(loopText) · ♩=\(Int(m.bpm.rounded())) (\(m.tempoPercent)%) · \(m.playing ? "playing" : "paused")  [space pause, ←/→ bar, q quit]"
                if line != last {
                    last = line
                    Console.out("\r\(line)\u{1B}[K")
                }
            }
            if session.isFinished { break }
        }
        let resumePoint = session.resumePoint()
        session.stop()  // all notes off before the terminal is restored
        keys?.restore()
        if onTerminal && !last.isEmpty { Console.out("\n") }
        history?.record(session.takeFinishedPasses(), mode: "watch") { _ in nil }
        history?.saveResume(resumePoint, mode: "watch", loopName: loopName)
        SoundSetup.flushLog(verbose: sound.verbose)
        return exitCode
    }
}

/// The passes a loop would play, computed on a virtual clock (every pass counted clean).
enum LoopPreview {
    static func text(lesson: Lesson, plan: PracticePlan, maxPasses: Int) throws -> String {
        let clock = VirtualClock()
        let transport: Transport
        do {
            transport = try Transport(lesson: lesson, plan: plan, clock: clock)
        } catch {
            throw EtudeFailure(error.message)
        }
        let range = transport.bars
        var out = "\(lesson.title): bars \(lesson.bars.label(ofRange: range)), "
        out += plan.hands == .both ? "both hands" : "\(plan.hands.rawValue) hand (other hand: \(otherText(plan.otherHand)))"
        out += plan.metronome.enabled ? ", metronome" : ""
        out += "\n"
        transport.play()
        var passStart = 0.0
        var passes = 0
        var bpm = transport.effectiveBPM
        while let t = transport.nextEventTime(), passes < maxPasses {
            clock.set(t)
            for e in transport.advance(to: clock.now) {
                switch e.event {
                case .passStarted:
                    passStart = e.time
                    bpm = 0
                case .tempo(let b):
                    if bpm == 0 { bpm = b }
                case .passFinished(let n, let percent):
                    passes += 1
                    out += "pass \(n): \(ExportCommand.format(percent))% (\(ExportCommand.format(bpm)) BPM), \(String(format: "%.1f", e.time - passStart)) s\n"
                default:
                    break
                }
            }
        }
        if transport.state != .finished { out += "… (repeats until stopped)\n" }
        return out
    }

    static func otherText(_ o: PracticePlan.OtherHand) -> String {
        switch o {
        case .play: return "play"
        case .quiet: return "quiet"
        case .mute: return "mute"
        }
    }
}
