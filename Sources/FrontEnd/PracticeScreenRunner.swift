import App
import Clocks
import Devices
import Foundation
import Judge
import Lesson
import LessonLibrary
import Listening
import MIDIFile
import MIDIInput
import Notation
import Practice
import Reports
import Screen
import Synth
import Terminal

/// Runs practice sessions on the full screen: the live synth, the learner's instrument, the
/// session with its controller, the screen loop drawing `PracticeView`; all notes off and the
/// terminal restored on every exit (q, Esc, Ctrl-C, SIGTERM, SIGHUP, an error).
public enum PracticeScreenRunner {
    /// How a screen ended, with where the learner stopped.
    public struct Outcome: Sendable {
        public var ending: TerminalEnding
        public var resumePoint: ResumePoint
        /// SIGINT/SIGTERM/SIGHUP caught while it ran.
        public var signal: Int32?

        /// The exit status the command should end with (0 for q).
        public var exitStatus: Int32 {
            if let signal { return 128 + signal }
            return ending == .interrupted ? 130 : 0
        }
    }

    /// The session for `playing`'s mode and instrument.
    public static func makeSession(_ opened: OpenedLesson, plan: PracticePlan, output: any SoundOutput, playing: Playing,
                                   instrument: Instrument?, title: String? = nil,
                                   recording: RecordingPractice? = nil) throws -> (PracticeSession, PracticeController) {
        let timing = InputTiming.lookUp(hookup: instrument?.hookup, override: playing.offsetMs, library: playing.library)
        let guide = Guide.resolve(playing.guide, path: opened.path, library: playing.library)
        var settings = PracticeSession.Settings(mode: playing.mode, window: playing.window, cleanThreshold: playing.threshold,
                                                computerKeyboard: instrument?.hookup.usesComputerKeyboard ?? true, title: title,
                                                countIn: playing.countIn, watchStopsAtEnd: playing.watchStopsAtEnd,
                                                holdAfterPass: playing.holdAfterPass,
                                                inputOffsetMs: timing.offsetMs, timingHint: timing.hint,
                                                onsetOnlyInput: instrument?.hookup.isOnsetOnly,
                                                guide: guide.on)
        settings.follow = playing.follow && playing.mode.follows
        settings.hearingDelay = instrument?.hearingDelay ?? 0
        if let recording {
            settings.recording = recording.pace(for: opened.lesson)
            settings.title = title ?? recording.title(for: opened.lesson)
        }
        let session: PracticeSession
        do {
            session = try PracticeSession(lesson: opened.lesson, plan: plan, clock: MonotonicClock(), output: output, settings: settings)
        } catch {
            throw EtudeFailure(error.message)
        }
        let controller = PracticeController(session: session, saveDirectory: playing.saveDirectory)
        controller.onSavePass = { bytes, directory, now in PassFile.save(bytes, in: directory, now: now) }
        controller.onGuide = guide.remember
        instrument?.attach(controller)
        return (session, controller)
    }

    /// Plays a practice's setup on the practice screen (its plan was validated as it was made);
    /// returns the exit status.
    public static func run(_ setup: PracticeSetup, sound: LiveSound, display: PracticeView.Options, startBar: Int? = nil,
                           loopName: String? = nil, endWhenFinished: Bool = false, playing: Playing) throws -> Int32 {
        try run(setup.opened, plan: setup.plan, sound: sound, display: display, history: setup.history, startBar: startBar,
                loopName: loopName, endWhenFinished: endWhenFinished, playing: playing, validated: true)
    }

    /// Plays `opened` with `plan` on the practice screen; returns the exit status.
    public static func run(_ lesson: OpenedLesson, plan: PracticePlan, sound: LiveSound, display: PracticeView.Options,
                           history: StoreHistory?, startBar: Int? = nil, loopName: String? = nil,
                           endWhenFinished: Bool = false, playing: Playing, validated: Bool = false) throws -> Int32 {
        let opened = try lesson.requiringNotes()
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw EtudeFailure("the practice screen needs a terminal (input and output are not a tty); run it in a terminal window")
        }
        // The report file first: a bad path is one quick line before anything loads.
        var appender: PassReportAppender?
        if let path = playing.reportPath {
            let inputs = playing.reportInputs + (playing.input.filePath.map { [$0] } ?? []) + (playing.library?.databaseFiles ?? [])
            do { appender = try PassReportAppender(path: path, inputs: inputs) } catch { throw EtudeFailure(error.message) }
        }
        defer { appender?.close() }
        // Validate before the synth loads, so a bad plan is one quick line.
        if !validated { do { try plan.validate(for: opened.lesson) } catch { throw EtudeFailure(error.message) } }
        let recording = try playing.recording.map { path in
            try RecordingPractice(path: path, lessonPath: opened.path, lesson: opened.lesson, plan: plan, soundfont: sound.soundfont, library: playing.library)
        }
        // The synth and the learner's instrument, before the screen opens (an unknown port is one line).
        let devices = try PracticeSetup.open(sound: sound, playing: playing)
        defer { devices.close() }
        guard let instrument = devices.instrument else { throw EtudeFailure("the instrument (--input) could not be opened") }
        let (live, echo, lights) = (devices.live, devices.echo, devices.lights)
        // What Etude sounds, remembered so a microphone can tell it from the learner's notes.
        let own = OwnSoundTap(devices.lesson)
        instrument.hookup.ignore(own)
        let (session, controller) = try makeSession(opened, plan: plan, output: recording == nil ? own : RecordingLessonFilter(own),
                                                    playing: playing, instrument: instrument, recording: recording)
        if recording != nil { controller.tempoRange = RecordingPractice.tempoRange }
        let voice = recording?.voice(live: live, session: session)
        voice?.start()
        defer {
            voice?.stop()
            if sound.verbose, let voice { Console.error("etude: \(RecordingPractice.summary(voice))") }
        }
        if let gestures = sound.gestures {
            try gestures.check(lessonRange: opened.lesson.pitchRange)
            gestures.route(instrument.hookup, to: controller)
        }
        // The runner thread (the one that plays the music) only emits each finished pass, whole,
        // into the session's outbox; the history rows, the `--report` line, saved loops and
        // files are written by the effects thread, so neither a note nor a frame waits for a
        // disk or a library another program holds locked.
        let effects = PracticeEffects(session: session, history: history, report: appender, rememberGuide: controller.onGuide,
                                      rememberHint: InputTiming.remembering(in: playing.library))
        effects.start()
        PracticeEffects.route(controller, history: history) { [weak session] in session?.emit($0) }
        if let history { history.input = playing.input.description }  // `etude resume` comes back to it
        session.loopName = loopName
        var shown = display
        shown.silent = LiveSound.silentNotice(live) != nil
        // A microphone is never echoed (its piano sounds itself): the header keeps the room for its signal.
        shown.echo = instrument.hookup.isListening ? nil : echo
        shown.outputLatency = live.outputLatency
        shown.gestureHelp = sound.gestures?.helpEntry
        var pausedForDropout = false
        // Whatever ends the screen, the passes it finished are stored (or kept) before the line returns.
        var performed = false
        defer { if !performed { for line in effects.finish() { Console.error("etude: \(line)") } } }
        let outcome = try screen(controller, display: shown, startBar: startBar, frame: { loop in
            instrument.releaseDue(now: session.now)
            // The instrument's port gone (the status line says so): wait mode pauses, once.
            let gone = !instrument.hookup.missingPorts.isEmpty
            if gone && !pausedForDropout && session.mode == .wait { session.pause() }
            pausedForDropout = gone
            lights?.update(session.state())
            if endWhenFinished && session.isFinished { loop.stop() }
        }, decorate: { model in
            // A microphone's signal it cannot trust is said in the header (issue 30).
            model.status.listening = AudioSetup.headerWords(instrument.hookup.listeningSignal)
                ?? (instrument.hookup.missingPorts.isEmpty ? nil : "keyboard gone")
            // The JACK server died under the synth: the header says the lesson is silent now.
            if live.driver == nil { model.status.silent = true }
        })
        session.emit(.resume(outcome.resumePoint, mode: session.mode, loopName: session.loopName))
        // The screen is gone: what is left is stored now, or kept in the spool with one line.
        performed = true
        for line in effects.finish() { Console.error("etude: \(line)") }
        LiveSound.flushLog(verbose: sound.verbose)
        return outcome.exitStatus
    }

    /// Shows `controller`'s session on the practice screen (on the `ScreenHost`) until q/Esc,
    /// Ctrl-C, a signal or `frame` stopping the host. `frame` runs before every frame is drawn
    /// (store passes, end the screen), `decorate` may add to the frame, and `key` may take a key
    /// before the session (nil = the session's). Starts the session (or calls `begin` to start
    /// it) once the screen is up; on every exit stops it (all notes off) before the terminal is
    /// restored.
    public static func screen(_ controller: PracticeController, display: PracticeView.Options = PracticeView.Options(),
                              startBar: Int? = nil, signals watch: SignalWatch? = nil,
                              begin: (() -> Void)? = nil,
                              frame: (ScreenHost) -> Void,
                              decorate: (inout ScreenModel) -> Void = { _ in },
                              key: (Key) -> TerminalAction? = { _ in nil }) throws -> Outcome {
        let session = controller.session
        var screen: PracticeFrames?
        // The screen holds the caller's closures only while the host runs, inside this call.
        let end = try withoutActuallyEscaping(frame) { frame in
            try withoutActuallyEscaping(decorate) { decorate in
                try withoutActuallyEscaping(key) { key in
                    // Let go of the caller's closures with the host, however it ends.
                    defer {
                        screen?.everyFrame = {}
                        screen?.decorate = { _ in }
                        screen?.takeKey = { _ in nil }
                    }
                    return try ScreenHost.run(signals: watch) { host in
                        if let startBar { session.seek(toBar: startBar) }
                        if let begin { begin() } else { session.start() }
                        let frames = PracticeFrames(controller: controller, display: display, depth: host.depth)
                        frames.everyFrame = { frame(host) }
                        frames.decorate = decorate
                        frames.takeKey = key
                        screen = frames
                        return frames
                    }
                }
            }
        }
        return Outcome(ending: end.ending, resumePoint: screen?.resumePoint ?? session.resumePoint(), signal: end.signal)
    }
}

/// Draws the practice screen's frames: the pure view of the session's state, on the view the
/// learner chose with `v` — falling notes, the staff, or the staff above the keyboard. The
/// staff is laid out once (when first shown) and only marked per frame. A terminal too small
/// for the screen pauses the music until it is large enough again. On the `ScreenHost` it is
/// the practice and routine screens: the keys go to the bar prompt, the review, the caller's
/// `takeKey`, then the session's key map.
final class PracticeFrames: FullScreen {
    let session: PracticeSession
    /// The learner's keys, and the screen's own view state they edit (`controller.view`).
    let controller: PracticeController
    let display: PracticeView.Options
    let depth: ColorDepth
    var view: PracticeDisplay = .fallingNotes
    /// The bar number being typed after `g`, shown in the status line.
    var barPrompt: BarPrompt?
    private lazy var staff = StaffCache(lesson: session.lesson)
    private lazy var sounding = SoundingNotes(lesson: session.lesson)
    private var pausedForSize = false
    /// The review of the last pass, while it is open (`PassReview`).
    var review: PassReview?
    /// The verdicts of the pass whose results are up, by lesson note (worked out once a pass).
    private var marked: (results: SessionState.Results, verdicts: [Int: VerdictMark])?
    /// Before every frame (stores passes, ends the screen).
    var everyFrame: () -> Void = {}
    /// Adds to each frame's model.
    var decorate: (inout ScreenModel) -> Void = { _ in }
    /// Takes a key before the session's key map (nil: not taken).
    var takeKey: (Key) -> TerminalAction? = { _ in nil }
    /// Where the learner stopped, taken as the screen closed.
    private(set) var resumePoint: ResumePoint?

    init(controller: PracticeController, display: PracticeView.Options, depth: ColorDepth) {
        self.controller = controller
        self.session = controller.session
        self.display = display
        self.depth = depth
    }

    /// The key that opens the review from the results panel.
    static let reviewKey = "Enter"

    /// After a judged pass, while its results are up and the music stands still: how each of
    /// its notes was judged, to mark the falling notes. Empty otherwise.
    private func verdicts(after state: SessionState, results: SessionState.Results?) -> [Int: VerdictMark] {
        guard let results, state.transport != .playing else { return [:] }
        if marked?.results != results {
            marked = (results, session.coach.report(forPass: results.pass).map(PassReview.verdicts) ?? [:])
        }
        return marked?.verdicts ?? [:]
    }

    /// A key while the review is open, or Enter on the results panel opening it: `.stay` when
    /// the key was the review's, `.pass` for the practice screen's own keys.
    func reviewKey(_ key: Key) -> PassReview.Step {
        if var open = review {
            if case .character("v") = key.code, !open.showHelp, key.modifiers.isEmpty || key.modifiers == .alt {
                view = view.next  // the bar on the staff too (the session's `v` would play on)
                return .stay
            }
            let step = open.key(key)
            review = step == .leave ? nil : open
            if step == .pass { review = nil }
            return step == .pass ? .pass : .stay
        }
        guard key.code == .enter, key.modifiers.isEmpty, barPrompt == nil else { return .pass }
        let state = session.state()
        let shown = controller.view
        guard !shown.showHelp, let results = shown.results, state.transport != .playing,
              let report = session.coach.report(forPass: results.pass),
              let opened = PassReview(report: report, pass: results.pass) else { return .pass }
        review = opened
        return .stay
    }

    var minimumSize: TerminalSize { PracticeScreen.minimumSize }

    /// Each frame: the caller's work, and the music paused while the terminal is too small.
    func willDraw(fits: Bool) {
        everyFrame()
        if !fits && !pausedForSize && session.transport.state == .playing {
            session.pause()
            pausedForSize = true
        } else if fits && pausedForSize {
            pausedForSize = false
            session.resume()
        }
    }

    /// Ctrl-Z pauses (space resumes after `fg`).
    func suspend(_ suspending: Bool) {
        if suspending { session.pause() }
    }

    /// All notes off before the terminal is restored; where the learner stopped kept.
    func close() {
        resumePoint = session.resumePoint()
        session.stop()
    }

    func key(_ k: Key) -> TerminalAction {
        if var prompt = barPrompt {
            // Typing a bar number (`g`): the keys are the number's until Enter or Esc.
            let step = prompt.key(k)
            barPrompt = step == .typing ? prompt : nil
            if case .go(let text) = step { controller.goToBar(text) }
            return .continue
        }
        // The review of a pass (Enter on its results) takes its keys first.
        switch reviewKey(k) {
        case .stay, .leave: return .continue
        case .pass: break
        }
        if let action = takeKey(k) { return action }
        let command = PracticeKeyMap.command(for: k, pianoKeys: session.wantsPianoKeys)
        if command == .goToBar, !controller.view.showHelp {
            _ = controller.handle(keyCommand: command)  // the results panel goes away
            barPrompt = BarPrompt()
            return .continue
        }
        switch controller.handle(keyCommand: command) {
        case .quit: return .quit
        case .cycleView:
            view = view.next
            return .continue
        case .continue: return .continue
        }
    }

    func render(into area: Rect, buffer: inout CellBuffer) {
        let state = session.state()
        let shown = controller.view
        let verdicts = verdicts(after: state, results: shown.results)
        var model = PracticeView.model(state, view: shown, lesson: session.lesson, options: display, verdicts: verdicts)
        if case .results(var info)? = model.overlay, review == nil, !verdicts.isEmpty {
            info.reviewKey = Self.reviewKey
            model.overlay = .results(info)
        }
        decorate(&model)
        if let barPrompt { model.message = barPrompt.message }
        if review != nil, state.transport == .playing { review = nil }  // a note played on: the next pass
        if let review { model = review.model(lesson: session.lesson, base: model) }
        switch view {
        case .fallingNotes:
            PracticeScreen(depth: depth).render(model, into: area, buffer: &buffer)
        case .staff, .both:
            let staffArea = StaffPracticeScreen.staffArea(area.size, view: view)
            let raster = staff.raster(width: staffArea.width, height: staffArea.height)
            let marks = review?.staffMarks(lesson: session.lesson) ?? PracticeView.staffMarks(state, sounding: sounding)
            StaffPracticeScreen(depth: depth).render(model, staff: raster, marks: marks, view: view, into: area, buffer: &buffer)
        }
    }
}

