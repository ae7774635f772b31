import Clocks
import Foundation
import Judge
import Lesson
import MIDIFile
import Synth

/// A practice session at run time: the transport and the thread that plays it
/// (`TransportRunner`), the sound output, and the `Coach` that judges the learner in the
/// playing modes. The coach is ticked by the runner's thread (`tick(now)`), so judging moves on
/// the session's clock whether or not anything is drawn; `state()` hands a view everything it
/// needs as a plain `SessionState`, and `PracticeController` turns the learner's commands into
/// changes here.
///
/// Threads: the transport thread delivers events and ticks, the input thread delivers the
/// learner's notes, the screen thread reads `state()` and sends commands. The transport is a
/// value owned by the `TransportRunner`: commands change it through `perform` (serialised with
/// the runner's own playing), everyone else reads the copy published after each change. Each
/// finished pass leaves as one `PassResult` in the outbox (`takePassResults()`). This object
/// never holds its own lock while calling the runner or the coach.
///
/// With a `MonotonicClock` it plays in real time on its own thread; with any other clock (a
/// `VirtualClock` in tests) nothing runs by itself: `advance()` plays what is due and ticks.
public final class PracticeSession: @unchecked Sendable {
    /// How the learner plays and is judged (fixed for the session; the mode can change).
    public struct Settings: Sendable {
        public var mode: PracticeMode
        public var window: TimingWindow
        /// Accuracy (0–100) at or above which a pass is clean and the speed trainer steps up.
        public var cleanThreshold: Double
        /// The learner plays on the computer keyboard (onset-only notes, piano letters on screen).
        public var computerKeyboard: Bool
        /// The title shown (default: the lesson's).
        public var title: String?
        /// Seconds of music ahead in `state()`.
        public var lookaheadSeconds: Double
        /// The real-time modes (play, memory) start each pass with a one-bar count-in; false
        /// for `--no-count-in`.
        public var countIn: Bool
        /// Watch mode plays the piece once unless a loop is on (false when the learner asked for
        /// repeats with `--repeat`).
        public var watchStopsAtEnd: Bool
        /// The judging modes hold the transport after each pass until a key (the results panel);
        /// a routine's entries flow on by themselves instead.
        public var holdAfterPass: Bool
        /// The learner's input offset in ms (positive = their keys arrive late), subtracted from
        /// every played time before judging: the calibrated one for the input, or `--offset`.
        public var inputOffsetMs: Double
        /// Only key presses mean something (the computer keyboard, a microphone): judged by onset.
        public var onsetOnlyInput: Bool
        /// Asked after each pass judged in real time (play, memory): a line for its results panel
        /// about the learner's timing (the suggestion to calibrate), or nil.
        public var timingHint: (@Sendable (PassReport) -> String?)?

        public init(mode: PracticeMode = .watch, window: TimingWindow = TimingWindow(), cleanThreshold: Double = 90,
                    computerKeyboard: Bool = true, title: String? = nil, lookaheadSeconds: Double = 3,
                    countIn: Bool = true, watchStopsAtEnd: Bool = true, holdAfterPass: Bool = true,
                    inputOffsetMs: Double = 0, timingHint: (@Sendable (PassReport) -> String?)? = nil,
                    onsetOnlyInput: Bool? = nil) {
            self.onsetOnlyInput = onsetOnlyInput ?? computerKeyboard
            self.mode = mode
            self.window = window
            self.cleanThreshold = cleanThreshold
            self.computerKeyboard = computerKeyboard
            self.title = title
            self.lookaheadSeconds = lookaheadSeconds
            self.countIn = countIn
            self.watchStopsAtEnd = watchStopsAtEnd
            self.holdAfterPass = holdAfterPass
            self.inputOffsetMs = inputOffsetMs
            self.timingHint = timingHint
        }
    }

    public let lesson: Lesson
    /// The transport as of its last change: an immutable copy of the one the runner owns.
    public var transport: Transport { runner?.transport ?? initialTransport }
    public let clock: any TimeSource
    public let settings: Settings
    private let output: any SoundOutput
    /// Owns the transport and plays it (its own thread on a `MonotonicClock`, else `advance()`).
    /// Set once in `init`.
    private var runner: TransportRunner?
    private let initialTransport: Transport
    private let threaded: Bool
    private let title: String

    private let lock = NSLock()
    private var coachValue: Coach
    /// Lines for the front end's status line (its own `PracticeViewState`), until it takes them.
    private var notices: [PracticeNotice] = []
    private var loopOn: Bool
    private var loopPasses = 0
    private var passStartClock: Double?
    private var passStartDate = Date()
    /// Finished passes, each one whole value, until the front end takes them.
    private var outbox: [PassResult] = []
    /// Passes handed out by `takeFinishedPasses()`, for `score(for:)` (the last few only).
    private var handedOut: [PassResult] = []
    private var stopped = false
    private var pausedByCoach = false
    /// The transport waits after a judged pass until the learner has seen the results.
    private var heldForResults = false
    private var reportSink: (@Sendable (PassReport) -> Void)?
    private var tickHook: (@Sendable (Double) -> Void)?
    private var currentLoopName: String?
    private var keysHook: (@Sendable (Int) -> String?)?

    /// Validates the plan (its one-line error) and prepares to play; nothing sounds before `start()`.
    public init(lesson: Lesson, plan: PracticePlan, clock: any TimeSource, output: any SoundOutput,
                settings: Settings = Settings()) throws(PlanError) {
        self.lesson = lesson
        var transport = try Transport(lesson: lesson, plan: plan, clock: clock)
        self.clock = clock
        self.output = output
        self.settings = settings
        self.title = settings.title ?? lesson.title
        coachValue = Coach(lesson: lesson, plan: plan, mode: settings.mode, window: settings.window,
                           cleanThreshold: settings.cleanThreshold, onsetOnlyInput: settings.onsetOnlyInput,
                           inputOffsetMs: settings.inputOffsetMs)
        loopOn = plan.bars != nil
        threaded = clock is MonotonicClock
        initialTransport = transport
        transport.isPassClean = { [weak self] finished in
            guard let self else { return true }
            return self.coach.isPassClean(finished)
        }
        Self.applyMode(settings.mode, plan: plan, settings: settings, to: &transport)
        if let steady = clock as? MonotonicClock {
            runner = TransportRunner(transport: transport, clock: steady, output: output,
                                     onEvents: { [weak self] events in self?.received(events) },
                                     onTick: { [weak self] now in self?.tick(now: now) })
        } else {
            runner = TransportRunner(manual: transport, output: output,
                                     onEvents: { [weak self] events in self?.received(events) })
        }
    }

    /// The session's clock time.
    public var now: Double { clock.now }

    /// The coach judging now (a new one after each mode change).
    public var coach: Coach { lock.withLock { coachValue } }

    /// The current mode.
    public var mode: PracticeMode { coach.mode }

    /// True while the computer keyboard plays notes (the piano letters then win over `h`, `s`…).
    public var wantsPianoKeys: Bool { settings.computerKeyboard && coach.mode.judges }

    /// Each finished, scored pass (the `--report` file).
    public var onPassReport: (@Sendable (PassReport) -> Void)? {
        get { lock.withLock { reportSink } }
        set { lock.withLock { reportSink = newValue } }
    }

    /// Called on every tick (transport thread, or `advance()`): the computer keyboard's notes end here.
    public var onTick: (@Sendable (Double) -> Void)? {
        get { lock.withLock { tickHook } }
        set { lock.withLock { tickHook = newValue } }
    }

    /// What to type on the computer keyboard for a pitch (wait mode names the awaited keys);
    /// nil for a MIDI instrument.
    public var computerKeys: (@Sendable (Int) -> String?)? {
        get { lock.withLock { keysHook } }
        set { lock.withLock { keysHook = newValue } }
    }

    /// The saved loop playing now: recalled with `L`, saved with `s`, or set by the caller (a
    /// loop recalled with `--saved`); nil once the loop is changed by hand. `etude resume` shows it.
    public var loopName: String? {
        get { lock.withLock { currentLoopName } }
        set { lock.withLock { currentLoopName = newValue } }
    }

    /// Starts playing (real time: the transport thread starts).
    public func start() {
        runner?.start()
    }

    /// Plays what is due at `clock.now` and ticks the coach (virtual clocks only; the runner
    /// does this itself).
    public func advance() {
        guard !threaded else { return }
        runner?.advance(to: clock.now)
        tick(now: clock.now)
    }

    /// Stops playing and silences everything (all notes off). Safe to call twice. A pass left
    /// before its end (at least a second of it) is handed out as unfinished, so its practice
    /// time reaches the history.
    public func stop() {
        if lock.withLock({ let was = stopped; stopped = true; return was }) { return }
        queueUnfinishedPass()
        runner?.stop()
    }

    private func queueUnfinishedPass() {
        let transport = self.transport
        let state = transport.state
        guard state == .playing || state == .paused else { return }
        let plan = transport.plan
        let pass = transport.pass
        let percent = transport.tempoPercent
        let bars = transport.bars
        let now = clock.now
        lock.withLock {
            guard let start = passStartClock, now - start >= Self.shortestUnfinishedPass else { return }
            var info = FinishedPassInfo(pass: pass, tempoPercent: percent, startedAt: passStartDate, durationSeconds: now - start,
                                        bars: bars, isLoop: plan.bars != nil, hands: plan.hands)
            info.complete = false
            outbox.append(PassResult(info: info, mode: coachValue.mode, report: nil))
        }
    }

    /// Shorter than this, a pass left at once is not worth a row in the history.
    static let shortestUnfinishedPass = 1.0

    /// True once the last pass was played (with a finite `repeat`).
    public var isFinished: Bool { transport.state == .finished }

    /// Pauses; returns at once. The coach's clock stands still with the music.
    public func pause() {
        let wasPlaying = transport.state == .playing
        perform { $0.pause() }
        if wasPlaying { coach.transportPaused(at: clock.now) }
    }

    /// Resumes after `pause()`.
    public func resume() {
        let wasPaused = transport.state == .paused
        perform { $0.play() }
        if wasPaused { coach.transportResumed(at: clock.now) }
    }

    /// A note the learner played: judged by the coach. A note played while the results hold
    /// the transport plays on (the next pass, after its count-in).
    public func learnerPlayed(_ note: LearnerNote) {
        let coach = self.coach
        let event = PlayedEvent(pitch: note.pitch, velocity: note.velocity, time: note.time, isOn: note.isOn)
        if note.isOn {
            if releaseHold() { return }
            post(.resultsAway)  // playing on puts the results away
        }
        apply(coach.handle(played: event), coach: coach)
    }

    /// The learner's sustain pedal went down or up (clock time): the coach's ear hears it.
    public func learnerPedal(down: Bool, at time: Double) {
        coach.handle(pedalDown: down, at: time)
    }

    /// True while the transport waits after a judged pass for the learner to read the results.
    public var isHeldForResults: Bool { lock.withLock { heldForResults } }

    /// Puts the results away and plays on after a hold (the next pass starts with its count-in);
    /// false when nothing was held.
    @discardableResult
    public func releaseHold() -> Bool {
        let held = lock.withLock { () -> Bool in
            let h = heldForResults
            heldForResults = false
            if h { notices.append(.resultsAway) }
            return h
        }
        if held { perform { $0.play() } }
        return held
    }

    /// What the transport does between passes in a mode: the judging modes hold after each pass
    /// (results) and count in; watch mode plays the piece once unless a loop is on.
    private func applyModeToTransport(_ mode: PracticeMode, plan: PracticePlan) {
        let settings = self.settings
        perform { t in
            Self.applyMode(mode, plan: plan, settings: settings, to: &t)
            return []
        }
    }

    private static func applyMode(_ mode: PracticeMode, plan: PracticePlan, settings: Settings, to transport: inout Transport) {
        transport.holdBetweenPasses = mode.judges && settings.holdAfterPass
        transport.stopsAtEnd = settings.watchStopsAtEnd && mode == .watch && plan.bars == nil
        if mode.countsIn && settings.countIn { transport.setCountIn(true) }
        if mode == .wait { transport.setCountIn(false) }
    }

    /// Whether watch mode finishes after this pass (no loop on), from the owner's side.
    private func setStopsAtEnd(_ on: Bool) {
        perform { t in
            t.stopsAtEnd = on
            return []
        }
    }

    /// Passes finished since the last call, in the order they ended, each whole (its report
    /// with it): the front end stores them in the history, writes `--report`, shows the hint.
    public func takePassResults() -> [PassResult] {
        lock.withLock {
            let out = outbox
            outbox.removeAll()
            return out
        }
    }

    /// Passes finished since the last call, without their reports (`score(for:)` gives the
    /// figures of one handed out here): `takePassResults()` for callers that want both.
    public func takeFinishedPasses() -> [FinishedPassInfo] {
        lock.withLock {
            let out = outbox
            outbox.removeAll()
            handedOut += out
            if handedOut.count > 256 { handedOut.removeFirst(handedOut.count - 256) }
            return out.map(\.info)
        }
    }

    /// The figures of a pass handed out by `takeFinishedPasses()`, if it was judged (nil for a
    /// watched or unfinished pass).
    public func score(for pass: FinishedPassInfo) -> ScoreFigures? {
        lock.withLock {
            guard let i = handedOut.firstIndex(where: { $0.info == pass }) else { return nil }
            return handedOut.remove(at: i).figures
        }
    }

    /// Where the learner is now, for resuming later.
    public func resumePoint() -> ResumePoint {
        let t = clock.now
        let transport = self.transport
        let tick = Int(transport.tick(at: t))
        let plan = transport.plan
        return ResumePoint(positionSeconds: lesson.tempoMap.seconds(atTick: tick), bar: transport.position(at: t).bar,
                           hands: plan.hands, tempoPercent: transport.tempoPercent, loop: plan.bars,
                           otherHand: plan.otherHand, metronome: plan.metronome.enabled)
    }

    /// Moves to a bar (clamped to the bars being played); used when resuming.
    public func seek(toBar bar: Int) {
        let range = transport.bars
        let target = min(max(bar, range.lowerBound), range.upperBound)
        try? perform { t throws(PlanError) in try t.seek(toBar: target) }
    }

    /// Shows a one-line message in the status bar (saved file, input ended…): a notice to the
    /// front end, which holds the message (`PracticeViewState`); any thread.
    public func show(message text: String) {
        post(.message(text))
    }

    private func post(_ notice: PracticeNotice) {
        lock.withLock {
            notices.append(notice)
            if notices.count > 64 { notices.removeFirst(notices.count - 64) }  // a front end that never looks
        }
    }

    /// What to show posted since the last call (the runner's "the end…", an input's status,
    /// a judged pass's panel, the panel put away), oldest first: the front end applies them
    /// to its `PracticeViewState`.
    public func takeNotices() -> [PracticeNotice] {
        lock.withLock {
            let out = notices
            notices.removeAll()
            return out
        }
    }

    /// Practises with a whole new plan from its first bar (the weakest-section key); the
    /// plan's error when it does not fit the lesson.
    public func replacePlan(_ plan: PracticePlan) throws(PlanError) {
        try perform { t throws(PlanError) in try t.replacePlan(plan) }
        coach.update(plan: plan)
        lock.withLock {
            loopOn = plan.bars != nil
            loopPasses = 0
            passStartClock = clock.now
            passStartDate = Date()
            currentLoopName = nil
            notices.append(.resultsAway)
            pausedByCoach = false
            heldForResults = false
        }
        setStopsAtEnd(settings.watchStopsAtEnd && coach.mode == .watch && plan.bars == nil)
    }

    /// Switches mode from the next pass on: a new coach on the transport's current plan, the
    /// bars played restarted so judging begins with a pass.
    public func setMode(_ mode: PracticeMode) {
        let fresh = Coach(lesson: lesson, plan: transport.plan, mode: mode, window: settings.window,
                          cleanThreshold: settings.cleanThreshold, onsetOnlyInput: settings.onsetOnlyInput,
                          inputOffsetMs: settings.inputOffsetMs)
        let wasPaused = lock.withLock { () -> Bool in
            coachValue = fresh
            notices.append(.resultsAway)
            let p = pausedByCoach
            pausedByCoach = false
            return p
        }
        lock.withLock { heldForResults = false }
        applyModeToTransport(mode, plan: transport.plan)
        if wasPaused { perform { $0.play() } }
        try? perform { t throws(PlanError) in try t.seek(toBar: t.bars.lowerBound) }
    }

    // MARK: What a view shows

    /// The session now, as plain values.
    public func state() -> SessionState {
        let now = clock.now
        let lookahead = settings.lookaheadSeconds
        let transport = self.transport
        let transportState = transport.state
        let plan = transport.plan
        let coach = self.coach
        let upcoming = transport.notes(at: now, ahead: lookahead).map { n in
            SessionState.Note(index: n.cue.index, pitch: Int(n.cue.pitch), start: n.start - now, end: n.end - now,
                              part: n.cue.part, practised: n.cue.practised)
        }
        let lines = transport.barLines(at: now, ahead: lookahead).map { (seconds: $0.time - now, bar: $0.bar) }
        let local = lock.withLock {
            (loopOn, loopPasses, currentLoopName)
        }
        var feedback = coach.feedback(now: now)
        if let keys = computerKeys {
            for w in feedback.waitingFor { feedback.waitingKeys[w.pitch] = keys(w.pitch) }
        }
        return SessionState(
            now: now, title: title, transport: transportState, plan: plan, pass: transport.pass, tempoPercent: transport.tempoPercent,
            bpm: transportState == .playing ? transport.bpm(at: now) : transport.effectiveBPM,
            position: transport.position(at: now), tick: transport.tick(at: now), countIn: transport.countIn(at: now), lookaheadSeconds: lookahead,
            notes: upcoming, barLines: lines,
            loop: SessionState.Loop(enabled: local.0, passes: local.1, name: local.2),
            mode: coach.mode, pianoKeys: settings.computerKeyboard && coach.mode.judges,
            feedback: feedback, judged: coach.judgedNotes, heardOff: coach.notesHeardOff)
    }

    // MARK: For the controller

    /// Runs a transport command through the runner (or at once on a virtual clock).
    func perform(_ command: (inout Transport) throws(PlanError) -> [TimedEvent]) throws(PlanError) {
        try runner?.perform(command)
    }

    func perform(_ command: (inout Transport) -> [TimedEvent]) {
        runner?.perform(command)
    }

    /// Whether the loop is on (the plan's bars), as the controller's `l` toggles it.
    var isLoopOn: Bool { lock.withLock { loopOn } }

    /// Space after the end plays the piece again: the pass count starts over.
    func restartPassCount() {
        lock.withLock { loopPasses = 0 }
    }

    /// The loop changed by hand: restart the pass clock and the count, forget the saved name.
    func loopChanged(enabled: Bool) {
        let now = clock.now
        lock.withLock {
            loopOn = enabled
            loopPasses = 0
            passStartClock = now
            passStartDate = Date()
        }
        setStopsAtEnd(settings.watchStopsAtEnd && coach.mode == .watch && !enabled)
    }

    // MARK: Events and ticks

    private func received(_ events: [TimedEvent]) {
        let transport = self.transport
        var finished: [FinishedPassInfo] = []
        lock.lock()
        for e in events {
            switch e.event {
            case .passStarted:
                passStartClock = e.time
                passStartDate = Date(timeIntervalSinceNow: e.time - clock.now)
            case .passFinished(let pass, let percent):
                let plan = transport.plan
                let start = passStartClock ?? e.time
                finished.append(FinishedPassInfo(pass: pass, tempoPercent: percent, startedAt: passStartDate,
                                                 durationSeconds: max(0, e.time - start),
                                                 bars: transport.bars, isLoop: plan.bars != nil, hands: plan.hands))
                loopPasses += 1
                passStartClock = e.time
                passStartDate = Date(timeIntervalSinceNow: e.time - clock.now)
            case .finished:
                notices.append(.message("the end: space plays again, q quits"))
            case .heldAfterPass:
                heldForResults = true
            default:
                break
            }
        }
        lock.unlock()
        let coach = self.coach
        let actions = coach.handle(events: events)
        if !finished.isEmpty {
            // A pass and its report come in the same batch: joined here, emitted once, whole.
            var reports = actions.compactMap { a -> (pass: Int, report: PassReport)? in
                if case .passReport(let pass, _, let report) = a { return (pass, report) } else { return nil }
            }
            let results = finished.map { info -> PassResult in
                var report: PassReport?
                if let i = reports.firstIndex(where: { $0.pass == info.pass }) { report = reports.remove(at: i).report }
                return PassResult(info: info, mode: coach.mode, report: report)
            }
            lock.withLock { outbox += results }
        }
        apply(actions, coach: coach)
    }

    /// The coach's clock and the caller's tick hook, on the transport thread (or `advance()`).
    private func tick(now: Double) {
        let coach = self.coach
        apply(coach.tick(now: now), coach: coach)
        lock.withLock { tickHook }?(now)
    }

    /// How long the results panel stays once the next pass plays on (the front end's view
    /// puts it away; any key or note does at once).
    public static let resultsSeconds = 5.0

    /// Applies the coach's actions; never holds this object's lock while calling the transport.
    private func apply(_ actions: [CoachAction], coach: Coach) {
        for action in actions {
            switch action {
            case .pauseTransport:
                let now = clock.now
                coach.transportPaused(at: now)
                lock.withLock { pausedByCoach = true }
                perform { $0.pause() }
            case .resumeTransport:
                let was = lock.withLock { () -> Bool in
                    let p = pausedByCoach
                    pausedByCoach = false
                    return p
                }
                if was {
                    perform { $0.play() }
                    coach.transportResumed(at: clock.now)
                }
            case .passReport(let pass, let percent, let report):
                let now = clock.now
                let hint = coach.mode == .play || coach.mode == .memory ? settings.timingHint?(report) : nil
                // Asked before taking this object's lock (the transport has its own).
                let verdict = transport.plan.speedTrainer?.verdict(percent: percent, accuracy: report.figures.accuracy,
                                                                   threshold: settings.cleanThreshold)
                var results = SessionState.Results(pass: pass, tempoPercent: percent, figures: report.figures, offsetMs: report.offsetMs,
                                                   timingHint: hint, secondsPerChord: report.secondsPerChord, earLine: report.earLine,
                                                   review: report.reviewLines())
                results.speedTrainer = verdict
                let sink = lock.withLock { () -> (@Sendable (PassReport) -> Void)? in
                    notices.append(.results(results, shownAt: now))
                    return reportSink
                }
                sink?(report)
            case .weakestSection(_, let name, _):
                let start = transport.plan.speedTrainer?.start ?? 70  // the learner's own trainer when on
                show(message: "work on \(name): W loops it at \(PracticePlan.format(start)) % with the speed trainer")
            case .learnerKeys, .flashWrong, .judged:
                break
            }
        }
    }
}
