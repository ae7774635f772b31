import App
import Clocks
import Devices
import Foundation
import Judge
import Lesson
import LessonLibrary
import MIDIFile
import Practice
import Reports
import Synth

/// `etude play --no-screen`: a file played live with a one-line status (position, BPM); space
/// pauses, ←/→ seek 5 s, q quits. Without a terminal it plays to the end.
public enum FilePlayer {
    /// Plays the lesson at `path` (any format); one line when it has no notes.
    /// `transpose` as `--transpose` gives it (else, with `library`, the lesson's remembered one).
    public static func play(path: String, sound: LiveSound, transpose: Transposition.Request? = nil, library: Library? = nil) throws -> Int32 {
        let read = try LessonOpener.read(path)
        let lesson = try OpenedLesson(lesson: Lesson(file: read.file, fileName: path), path: path, warnings: read.warnings).requiringNotes().lesson
        let (request, remember) = try library.map { try LessonFit.remembered(transpose, path: path, library: $0) } ?? (transpose, {})
        let moved = try LessonFit.file(read, path: path, transpose: request)
        remember()
        return try play(moved, lesson: lesson, sound: sound)
    }

    /// `lesson` is `file` read as a lesson: it says which note value the tempo counts.
    public static func play(_ file: MIDIFile, lesson: Lesson? = nil, sound: LiveSound) throws -> Int32 {
        let keys = LineKeys()
        defer { keys.close() }
        let live = try sound.open()
        let dispatcher = EventDispatcher(source: ScheduleCursor(MessageSchedule(file: file)), output: try sound.lesson(live))
        let silent = LiveSound.silentNotice(live).map { $0 + " · " } ?? ""
        let status = StatusLine()
        keys.onSuspend = { suspending in if suspending { dispatcher.pause() } }  // space resumes after `fg`
        dispatcher.start()
        let exitCode = keys.run(everyMs: 50) { commands in
            for command in commands {
                switch command {
                case .togglePause, .character("p"): dispatcher.togglePause()
                case .back, .character("h"): dispatcher.seek(by: -5)
                case .forward, .character("l"): dispatcher.seek(by: 5)
                default: break
                }
            }
            status.show("\(silent)\(StatusLine.clock(dispatcher.position)) / \(StatusLine.clock(dispatcher.duration))  \(lesson?.tempoMark(quarterBPM: dispatcher.bpm, atSeconds: dispatcher.position) ?? TempoMark(symbol: "♩", perMinute: dispatcher.bpm))  \(dispatcher.isPaused ? "paused" : "playing")  [space pause, ←/→ 5 s, q quit]")
            return !dispatcher.isFinished
        }
        // Order matters: silence first, then the terminal, then let releases ring out briefly.
        dispatcher.stop()
        keys.close()
        status.finish()
        if exitCode == 0 {
            let until = MonotonicClock.seconds() + 2
            while live.driver != nil && live.engine.activeVoices > 0 && MonotonicClock.seconds() < until {
                usleep(20_000)
            }
        }
        live.close()
        LiveSound.flushLog(verbose: sound.verbose)
        return exitCode
    }
}

/// `etude loop` for real: the loop heard through the live synth with a one-line status
/// (bar, pass, BPM) until q, Ctrl-C or the last pass. Without a terminal it prints one line
/// per finished pass instead.
public enum LoopPlayer {
    public static func play(_ lesson: OpenedLesson, plan: PracticePlan, sound: LiveSound, history: StoreHistory?,
                            loopName: String?, recording: RecordingPractice? = nil) throws -> Int32 {
        let opened = try lesson.requiringNotes()
        let live = try sound.open()
        defer { live.close() }
        let session: PracticeSession
        let output = try sound.lesson(live)
        var settings = PracticeSession.Settings()
        settings.recording = recording?.pace(for: opened.lesson)
        do {
            session = try PracticeSession(lesson: opened.lesson, plan: plan, clock: MonotonicClock(),
                                          output: recording == nil ? output : RecordingLessonFilter(output), settings: settings)
        } catch {
            throw EtudeFailure(error.message)
        }
        // `--recording`: the recording is what the loop sounds (`RecordingPractice`).
        let voice = recording?.voice(live: live, session: session)
        voice?.start()
        defer {
            voice?.stop()
            if sound.verbose, let voice { Console.error("etude: \(RecordingPractice.summary(voice))") }
        }
        let controller = PracticeController(session: session)
        let keys = LineKeys()
        let status = StatusLine()
        let silent = LiveSound.silentNotice(live).map { $0 + " · " } ?? ""
        let onTerminal = isatty(STDOUT_FILENO) != 0
        keys.onSuspend = { suspending in if suspending { session.pause() } }  // space resumes after `fg`
        session.start()
        let exitCode = keys.run(everyMs: 50) { commands in
            for command in commands {
                switch command {
                case .togglePause: controller.handle(.playPause)
                case .back: controller.handle(.previousBar)
                case .forward: controller.handle(.nextBar)
                default: break
                }
            }
            let passes = session.takeFinishedPasses()
            if !passes.isEmpty {
                history?.record(passes, mode: .watch) { _ in nil }
                if !onTerminal {
                    for p in passes where p.complete {
                        Console.out("pass \(p.pass): bars \(opened.lesson.bars.label(ofRange: p.bars)) at \(TempoPercent.text(p.tempoPercent))%, \(String(format: "%.1f", p.durationSeconds)) s\n")
                    }
                }
            }
            let state = session.state()
            let loopText = state.plan.bars.map { "loop \(opened.lesson.bars.label(ofRange: $0)) ×\(session.transport.pass) · " } ?? ""
            // What matters first, as the practice screen's header has it; the keys before the
            // silent notice (stderr said it), so at 80 columns the cut takes only that.
            status.show("\(state.transport == .playing ? "▶" : "■") bar \(opened.lesson.bars.label(number: state.position.bar))/\(opened.lesson.bars.label(number: opened.lesson.bars.lastNumber)) · \(loopText)\(opened.lesson.tempoMark(quarterBPM: state.bpm, atBar: state.position.bar)) (\(Int(state.tempoPercent.rounded()))%)  [space pause, ←/→ bar, q quit]\(silent.isEmpty ? "" : " · " + silent.dropLast(3))")
            return !session.isFinished
        }
        let resumePoint = session.resumePoint()
        session.stop()  // all notes off before the terminal is restored
        keys.close()
        status.finish()
        history?.record(session.takeFinishedPasses(), mode: .watch) { _ in nil }
        history?.saveResume(resumePoint, mode: .watch, loopName: loopName)
        LiveSound.flushLog(verbose: sound.verbose)
        return exitCode
    }
}

/// The passes a loop would play, computed on a virtual clock (every pass counted clean).
public enum LoopPreview {
    public static func text(lesson: Lesson, plan: PracticePlan, maxPasses: Int) throws(PlanError) -> String {
        let clock = VirtualClock()
        var transport = try Transport(lesson: lesson, plan: plan, clock: clock)
        let range = transport.bars
        var out = "\(safe(lesson.title)): bars \(lesson.bars.label(ofRange: range)), "
        out += plan.hands == .both ? "both hands" : "\(plan.hands.rawValue) hand (other hand: \(plan.otherHand.name))"
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
                    out += "pass \(n): \(PracticePlan.format(percent))% (\(PracticePlan.format(bpm)) BPM), \(String(format: "%.1f", e.time - passStart)) s\n"
                default:
                    break
                }
            }
        }
        if transport.state != .finished { out += "… (repeats until stopped)\n" }
        return out
    }
}
