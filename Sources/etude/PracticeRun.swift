import Clocks
import ABC
import Foundation
import Judge
import Lesson
import MIDIInput
import MIDIFile
import Practice
import Screen
import Store
import Synth
import Terminal

/// Sound options shared by `practice`, `loop` and `play`.
struct LiveSoundOptions {
    var soundfont: String?
    var audioDriver: String?
    var verbose = false
    var periodSize: Int?
    var periods: Int?
    var rate: Int?

    /// The live synth; without an audio device it warns once (stderr) and stays silent.
    func open() throws -> FluidSynthLive {
        let font = try SoundSetup.soundFont(soundfont)
        var options = FluidSynthLive.Options()
        if let audioDriver { options.drivers = [audioDriver] }
        if let periodSize { options.periodSize = periodSize }
        if let periods { options.periods = periods }
        options.sampleRate = rate.map(Double.init)
        let live: FluidSynthLive
        do {
            live = try FluidSynthLive(soundFont: font, options: options, onSlowLoad: SoundSetup.slowLoadReporter(font))
            SoundSetup.endProgressLine()
        } catch {
            SoundSetup.endProgressLine()
            SoundSetup.flushLog(verbose: verbose)
            throw EtudeFailure("\(error.message); \(SoundFontLocator.installHint)")
        }
        if let warning = live.warning {
            Console.error("etude: \(warning)")
        } else if verbose, let driver = live.driver {
            let rate = live.engine.sampleRate
            Console.error("audio: \(driver), \(options.periodSize) × \(options.periods) frames at \(Int(rate)) Hz (\(String(format: "%.1f", options.bufferMilliseconds(at: rate))) ms buffer, audio flowing after \(String(format: "%.0f", live.audioStartup * 1000)) ms)")
        }
        SoundSetup.flushLog(verbose: verbose)
        return live
    }
}

/// A lesson loaded for practice: the lesson, its fingering (by note index) and the file path.
struct LoadedLesson {
    var lesson: Lesson
    var fingers: [Int: Int]
    var path: String

    static func load(_ path: String, split: Int?) throws -> LoadedLesson {
        let read = try LessonFile.readLesson(path)
        let lesson = Lesson(file: read.file, fileName: path, split: split)
        var fingers: [Int: Int] = [:]
        if !lesson.annotations.fingers.isEmpty {
            for (i, n) in lesson.notes.enumerated() {
                if let f = lesson.finger(of: n) { fingers[i] = f }
            }
        }
        return LoadedLesson(lesson: lesson, fingers: fingers, path: path)
    }
}

/// The history side of a practice run: passes, resume state and saved loops go to the store
/// when it opens; when it does not, practice goes on and one line says why.
final class PracticeHistory: @unchecked Sendable {
    private let store: Store?
    private let lessonID: String?
    private let path: String
    private let lock = NSLock()

    init(options: StoreOptions, path: String) {
        self.path = path.hasPrefix("/") ? URL(fileURLWithPath: path).standardizedFileURL.path
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path).standardizedFileURL.path
        var store: Store?
        var id: String?
        do {
            let s = try Store.open(path: Store.defaultPath(override: options.db), formats: StoreCLI.lessonFormats)
            for n in s.notices { Console.error("etude: \(n)") }
            id = try s.catalogue(fileAt: path).id
            store = s
        } catch let e as EtudeFailure {
            Console.error("etude: practice history is off: \(e.message)")
        } catch {
            Console.error("etude: practice history is off: \(Store.message(for: error) ?? "\(error)")")
        }
        self.store = store
        self.lessonID = id
    }

    /// The history of a lesson already in the catalogue of an open store (`routine run`).
    init(store: Store, lessonID: String, path: String) {
        self.store = store
        self.lessonID = lessonID
        self.path = path
    }

    var isOpen: Bool { store != nil && lessonID != nil }

    /// Stores passes (scored ones with their figures; one left unfinished only for its time).
    func record(_ passes: [FinishedPassInfo], mode: String, score: (FinishedPassInfo) -> ScoreFigures?) {
        guard let store, let lessonID else { return }
        lock.lock()
        defer { lock.unlock() }
        for p in passes {
            let s = p.complete ? score(p) : nil
            let record = PassRecord(lessonID: lessonID, startedAt: p.startedAt, mode: mode, hand: p.hands.rawValue,
                                    tempoPercent: Int(p.tempoPercent.rounded()), firstBar: p.bars.lowerBound, lastBar: p.bars.upperBound,
                                    durationSeconds: p.durationSeconds, figures: s, complete: p.complete)
            _ = try? store.recordPass(record)
        }
    }

    /// Saves where the learner stopped.
    func saveResume(_ point: ResumePoint, mode: String, loopName: String?) {
        guard let store, let lessonID else { return }
        let state = ResumeState(lessonID: lessonID, path: path, positionSeconds: point.positionSeconds, hand: point.hands.rawValue,
                                tempoPercent: Int(point.tempoPercent.rounded()), mode: mode,
                                loopFirstBar: point.loop?.lowerBound, loopLastBar: point.loop?.upperBound, loopName: loopName)
        try? store.saveResume(state)
    }

    /// Saves a loop under its automatic name; returns the message for the screen.
    func saveLoop(_ loop: LoopSnapshot) -> String {
        guard let store, let lessonID else { return "saving loops needs the library (it could not be opened)" }
        let name = loop.autoName
        do {
            try store.saveLoop(SavedLoop(lessonID: lessonID, name: name, firstBar: loop.bars.lowerBound, lastBar: loop.bars.upperBound,
                                         hand: loop.hands.rawValue, tempoPercent: Int(loop.tempoPercent.rounded()),
                                         otherHandMode: PracticeSession.otherName(loop.otherHand)))
            return "saved loop \"\(name)\""
        } catch {
            return "could not save the loop: \(Store.message(for: error) ?? "\(error)")"
        }
    }

    /// This lesson's saved loops, for `L` on the practice screen. A loop whose stored hand or
    /// other-hand mode no longer reads is left out rather than guessed.
    func savedLoops() -> [NamedLoop] {
        guard let store, let lessonID, let loops = try? store.loops(for: lessonID) else { return [] }
        return loops.compactMap { l in
            guard let hands = try? PracticePlan.parseHands(l.hand),
                  let other = try? PracticePlan.parseOtherHand(SavedLoopModes.otherHand(l.otherHandMode))
            else { return nil }
            return NamedLoop(name: l.name, loop: LoopSnapshot(bars: l.firstBar...l.lastBar, hands: hands,
                                                              tempoPercent: Double(l.tempoPercent), otherHand: other))
        }
    }

    /// A saved loop of this lesson by name.
    func savedLoop(named name: String) throws -> SavedLoop {
        guard let store, let lessonID else { throw EtudeFailure("--saved \(name): the library could not be opened") }
        guard let loop = try store.loop(named: name, for: lessonID) else {
            let names = ((try? store.loops(for: lessonID)) ?? []).map { "\"\($0.name)\"" }
            throw EtudeFailure("--saved \(name): no saved loop of that name for this lesson" +
                               (names.isEmpty ? "; save one with `s` on the practice screen" : " (saved: \(names.joined(separator: ", ")))"))
        }
        return loop
    }
}

/// The signal that asked practice to end (SIGINT/SIGTERM/SIGHUP), 0 for none. Set from a
/// signal handler, read by the frame loop, so every exit path runs the same cleanup.
nonisolated(unsafe) var practiceExitSignal: Int32 = 0
private let practiceSignalHandler: @convention(c) (Int32) -> Void = { sig in
    if practiceExitSignal == 0 { practiceExitSignal = sig }
}

/// Runs the practice screen: the live synth, the session, the screen loop; all-notes-off and
/// the terminal restored on every exit (q, Esc, Ctrl-C, SIGTERM, SIGHUP, an error).
/// `routine run` uses the parts (`Instrument`, `makeObserver`, `screen`) for its scored entries.
enum PracticeScreenRun {
    struct Display {
        var noteNaming: NoteNaming = .scientific
        var fingers = false
    }

    /// The playing modes: how the learner plays and is judged (`--mode`, `--input`…).
    struct Playing {
        var mode: PracticeMode = .watch
        var input = "keys"
        var window = TimingWindow()
        var threshold = 90.0
        var reportPath: String?
        var saveDirectory = FileManager.default.currentDirectoryPath
    }

    /// The learner's instrument (`--input`), opened once: its notes go to whichever session
    /// is current (`session`), so a routine keeps one MIDI port or FIFO for all its entries.
    final class Instrument: @unchecked Sendable {
        let hookup: InputHookup
        private let lock = NSLock()
        private var current: PracticeSession?

        /// The session the learner is playing to now (nil between lessons).
        var session: PracticeSession? {
            get { lock.withLock { current } }
            set { lock.withLock { current = newValue } }
        }

        /// Opens `input`; an unknown port or unreadable device is one line. Notes sound on `output`.
        init(input: String, output: any SoundOutput) throws {
            let box = InstrumentBox()
            do {
                hookup = try InputHookup(spec: InputSpec(input), output: output, clock: MonotonicClock(),
                                         onNote: { e in
                                             box.instrument?.session?.learnerPlayed(LearnerNote(pitch: e.pitch, velocity: e.velocity, isOn: e.isOn, time: e.time))
                                         },
                                         onStatus: { text in box.instrument?.session?.show(message: TextDecoding.sanitize(text)) })
            } catch {
                throw EtudeFailure(error.message)
            }
            box.instrument = self
            if let notice = hookup.notice { Console.error("etude: \(notice)") }
        }

        func stop() { hookup.stop() }
    }

    /// The Coach on the practice screen for `playing`'s mode, fed by `instrument`.
    static func makeObserver(for lesson: Lesson, plan: PracticePlan, playing: Playing, instrument: Instrument?,
                             appender: PassReportAppender? = nil) -> CoachObserver {
        let settings = CoachObserver.Settings(window: playing.window, cleanThreshold: playing.threshold,
                                              computerKeyboard: instrument?.hookup.usesComputerKeyboard ?? true,
                                              saveDirectory: playing.saveDirectory)
        let o = CoachObserver(lesson: lesson, plan: plan, mode: playing.mode, settings: settings)
        if let hookup = instrument?.hookup { o.onPianoKey = { key, time in hookup.press(key, at: time) } }
        if let appender { o.onPassReport = { appender.append($0) } }
        return o
    }

    /// Plays `loaded` with `plan` on the practice screen; returns the exit status.
    static func run(_ loaded: LoadedLesson, plan: PracticePlan, sound: LiveSoundOptions, display: Display,
                    history: PracticeHistory?, startBar: Int? = nil, loopName: String? = nil,
                    endWhenFinished: Bool = false, playing: Playing? = nil) throws -> Int32 {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw EtudeFailure("the practice screen needs a terminal (input and output are not a tty); run it in a terminal window")
        }
        // The report file first: a bad path is one quick line before anything loads.
        var appender: PassReportAppender?
        if let path = playing?.reportPath {
            do { appender = try PassReportAppender(path: path) } catch { throw EtudeFailure(error.message) }
        }
        defer { appender?.close() }
        let clock = MonotonicClock()
        // Validate before the synth loads, so a bad plan is one quick line.
        do { try plan.validate(for: loaded.lesson) } catch { throw EtudeFailure(error.cliMessage) }
        let live = try sound.open()
        defer { live.close() }
        // The learner's instrument, before the screen opens (an unknown port is one line).
        let instrument = try playing.map { try Instrument(input: $0.input, output: live) }
        defer { instrument?.stop() }
        let observer = playing.map { makeObserver(for: loaded.lesson, plan: plan, playing: $0, instrument: instrument, appender: appender) }
        let session: PracticeSession
        do {
            session = try PracticeSession(lesson: loaded.lesson, plan: plan, clock: clock, output: live,
                                          options: sessionOptions(loaded, display), observer: observer)
        } catch {
            throw EtudeFailure(error.cliMessage)
        }
        instrument?.session = session
        if let history {
            session.onSaveLoop = { history.saveLoop($0) }
            session.onRecallLoops = { history.savedLoops() }
        }
        session.loopName = loopName
        var modeName: String { observer?.modeName ?? "watch" }

        let (ending, resumePoint) = try screen(session, instrument: instrument, startBar: startBar, frame: { loop in
            if endWhenFinished && session.isFinished { loop.stop() }
            let passes = session.takeFinishedPasses()
            if !passes.isEmpty { history?.record(passes, mode: modeName) { session.score(for: $0) } }
        })
        history?.record(session.takeFinishedPasses(), mode: modeName) { session.score(for: $0) }
        history?.saveResume(resumePoint, mode: modeName, loopName: session.loopName)
        SoundSetup.flushLog(verbose: sound.verbose)
        if practiceExitSignal != 0 { return 128 + practiceExitSignal }
        if ending == .interrupted { return 130 }
        return 0
    }

    /// The session's display options for a loaded lesson.
    static func sessionOptions(_ loaded: LoadedLesson, _ display: Display) -> PracticeSession.Options {
        var options = PracticeSession.Options()
        options.noteNaming = display.noteNaming
        options.showFingers = display.fingers
        options.fingers = loaded.fingers
        return options
    }

    /// Shows `session` on the practice screen until q/Esc, Ctrl-C, a signal (in
    /// `practiceExitSignal`) or `frame` stopping the loop. `frame` runs before every frame is
    /// drawn (store passes, end the loop), `decorate` may add to the frame, and `key` may take a
    /// key before the session (nil = the session's). Starts the session (or calls `begin` to
    /// start it) once the screen is up; on every exit stops it
    /// (all notes off) before the terminal is restored. Returns where the learner stopped.
    static func screen(_ session: PracticeSession, instrument: Instrument?, startBar: Int? = nil,
                       begin: (() -> Void)? = nil,
                       frame: (ScreenLoop) -> Void,
                       decorate: (inout ScreenModel) -> Void = { _ in },
                       key: (Key) -> ScreenLoop.Action? = { _ in nil }) throws -> (ScreenLoop.Ending, ResumePoint) {
        practiceExitSignal = 0
        var resumePoint: ResumePoint?
        var previousHandlers: [(Int32, sighandler_t?)] = []
        let ending: ScreenLoop.Ending = try TerminalSession.run { terminal in
            // Ours after the session's: a signal ends the loop so cleanup runs in order.
            for sig in [SIGINT, SIGTERM, SIGHUP] { previousHandlers.append((sig, Glibc.signal(sig, practiceSignalHandler))) }
            // Back to the session's handlers before it closes; it then puts back the caller's.
            defer { for (sig, old) in previousHandlers { Glibc.signal(sig, old) } }
            defer {
                resumePoint = session.resumePoint()
                session.stop()  // all notes off before the terminal is restored
            }
            let loop = ScreenLoop(device: terminal, depth: terminal.colorDepth, fps: 30)
            loop.onSuspend = { suspending in if suspending { session.pause() } }  // space resumes after `fg`
            if let startBar { session.seek(toBar: startBar) }
            if let begin { begin() } else { session.start() }
            return loop.run(model: {
                if practiceExitSignal != 0 { loop.stop() }
                instrument?.hookup.releaseDue(now: session.now)
                frame(loop)
                var model = session.snapshot()
                decorate(&model)
                return model
            }, onKey: { k in key(k) ?? session.handle(key: k) })
        }
        return (ending, resumePoint ?? session.resumePoint())
    }
}

/// Lets the input's handler reach the instrument once it is built (the source may start
/// delivering before `init` returns).
private final class InstrumentBox: @unchecked Sendable {
    private let lock = NSLock()
    private weak var value: PracticeScreenRun.Instrument?
    var instrument: PracticeScreenRun.Instrument? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
