import Follow
import Clocks
import Foundation
import Judge
import Lesson
import MIDIFile
import Synth

/// A practice session at run time: the transport and the thread that plays it
/// (`TransportRunner`), the sound output, and the `Coach` that judges the learner in the
/// playing modes. `state()` hands a view everything it needs as a plain `SessionState`, and
/// `PracticeController` turns the learner's commands into changes here.
///
/// One owner: the runner's thread owns the transport, the coach and the session's own
/// practice state (the loop and its passes, the pass clock, the hold after a pass), as
/// swift-nio confines a channel to its event loop. Every change from another thread — a
/// command from the screen, a note or pedal from the input — goes through the runner's inbox
/// (`TransportRunner.run`), in order with the music; the coach is ticked there too, so judging
/// moves on the session's clock whether or not anything is drawn. After each change the owner
/// publishes what the others read: the transport (a copy), a `CoachSnapshot`, the loop as
/// shown, and the outbox — each finished pass as one `PassResult` (`takePassResults()`) and
/// the notices for the view (`takeNotices()`).
///
/// Two locks in all: the runner's inbox, and `exchange` here (the published values and the
/// outbox), each held only to copy a value in or out.
///
/// With a `MonotonicClock` it plays in real time on its own thread; with any other clock (a
/// `VirtualClock` in tests) nothing runs by itself and the caller owns it: `advance()` plays
/// what is due and ticks.
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
        /// `--guide on`: the learner hears their own part quietly on the synth while they play
        /// (never on their instrument); off, Etude never sounds it in the judging modes.
        public var guide: Bool
        /// Etude's part keeps the learner's tempo in play and memory mode (`--follow`): the music
        /// waits for them, catches up with them and falls silent when they stop.
        public var follow: Bool = false
        /// Seconds the learner's keys reach the session after they sounded, stamped with when
        /// they sounded (a microphone: its listener decides `ListeningProfile.latency` after an
        /// onset). Under `--follow` the music runs on that far past the learner's next note
        /// before it waits for them, so Etude's part is not late by it.
        public var hearingDelay: Double = 0
        /// `--recording`: the music's clock is warped so the lesson moves with the recording
        /// heard (its aligned bars and beats, `RecordingPace`), at the practice tempo.
        public var recording: RecordingPace?

        public init(mode: PracticeMode = .watch, window: TimingWindow = TimingWindow(), cleanThreshold: Double = 90,
                    computerKeyboard: Bool = true, title: String? = nil, lookaheadSeconds: Double = 3,
                    countIn: Bool = true, watchStopsAtEnd: Bool = true, holdAfterPass: Bool = true,
                    inputOffsetMs: Double = 0, timingHint: (@Sendable (PassReport) -> String?)? = nil,
                    onsetOnlyInput: Bool? = nil, guide: Bool = false) {
            self.onsetOnlyInput = onsetOnlyInput ?? computerKeyboard
            self.guide = guide
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
    /// The music's time: the given clock, warped to the learner's tempo while Etude follows them.
    public let clock: any TimeSource
    /// The clock the session was given (a played note's time is on it).
    public let baseClock: any TimeSource
    private let followed: FollowedClock
    public let settings: Settings
    private let output: any SoundOutput
    /// The output when it fades (a routine's step: `SessionCommand.gain`), set on the owner.
    let fader: GainOutput?
    /// Owns the transport and plays it (its own thread on a `MonotonicClock`, else `advance()`).
    /// Set once in `init`.
    private var runner: TransportRunner?
    private let initialTransport: Transport
    private let threaded: Bool
    private let title: String

    /// The runner's alone (read and changed only in its work: `owner { }`, its events, ticks,
    /// the commands it applies).
    struct Owned {
        var coach: Coach
        var loopOn: Bool
        var loopPasses = 0
        var loopName: String?
        /// When the pass under way began, on the base clock: real seconds, as the learner lived
        /// them, not the music's clock (which a recording's pace or a followed learner warps).
        var passStartWall: Double?
        var passStartDate = Date()
        var stopped = false
        var pausedByCoach = false
        /// The transport waits after a judged pass until the learner has seen the results.
        var heldForResults = false
        /// `--guide`, as the learner last set it (`setGuide`).
        var guide = false
        /// Etude's part follows the learner (`--follow`, the `f` key), and how.
        var following = false
        var partner = PartnerTiming()
        /// The learner's tempo at each onset the partner met them at this pass (bar, percent).
        var tempoSamples: [(bar: Int, percent: Double)] = []
        /// The practised notes of the plan's bars in seconds at the pass's tempo: the score the
        /// partner's follower walks, made when first needed for a plan and tempo.
        var planOnsets: (plan: PracticePlan, percent: Double, onsets: [PartnerTiming.Onset])?
        /// True while the music is moved to where the follower found the learner (its `.moved`
        /// leaves the follower where it is).
        var relocating = false
        /// `--recording`: how the clock follows the recording.
        var pace: RecordingPace?
        /// The loop marks (`[`, `]`), kept while the loop is off; the front end shows them.
        var marks: (start: Int?, end: Int?) = (nil, nil)
        /// The saved loop `L` applies next.
        var recallIndex = 0
    }
    /// The owner's state itself: reached only through `owned`, which checks the thread.
    private var ownedStorage: Owned
    /// The owner's state, checked on every access as swift-nio's `NIOLoopBound` checks its
    /// loop: on the runner's thread while it runs (any thread before `start()`, after `stop()`).
    var owned: Owned {
        _read {
            checkOwner()
            yield ownedStorage
        }
        _modify {
            checkOwner()
            yield &ownedStorage
        }
    }

    private func checkOwner() {
        precondition(runner?.isOnOwner ?? true, "a practice session's state is its runner thread's: post a message or use its methods")
    }

    /// What other threads post (notes, pedal, ticks), drained by the owner in order.
    private let mailbox = Mailbox<PracticeMessage>()
    /// The one outbox: what the application performs, in order (`PracticeEffect`).
    public let effects = EffectOutbox()

    /// What the owner publishes for the other threads, and what they hand the front end.
    private struct Exchange {
        var coach: CoachSnapshot
        var loop: SessionState.Loop
        var heldForResults = false
        /// Lines for the front end's status line (its own `PracticeViewState`), until it takes them.
        var notices: [PracticeNotice] = []
        /// Passes handed out by `takeFinishedPasses()`, for `score(for:)` (the last few only).
        var handedOut: [PassResult] = []
        var reportSink: (@Sendable (PassReport) -> Void)?
        var tickHook: (@Sendable (Double) -> Void)?
        var following = false
        var keysHook: (@Sendable (Int) -> String?)?
        /// Where `+`/`-` stop (the front end's: a recording's stretch range).
        var tempoRange = TempoPercent.range
        /// The front end saves loops (`s`): its hook is set.
        var savesLoops = false
    }
    private let exchange = NSLock()
    private var shared: Exchange

    /// Validates the plan (its one-line error) and prepares to play; nothing sounds before `start()`.
    public init(lesson: Lesson, plan: PracticePlan, clock: any TimeSource, output: any SoundOutput,
                settings: Settings = Settings()) throws(PlanError) {
        self.lesson = lesson
        let followed = FollowedClock(base: clock)
        var transport = try Transport(lesson: lesson, plan: plan, clock: followed)
        self.clock = followed
        self.followed = followed
        baseClock = clock
        self.output = output
        fader = output as? GainOutput
        self.settings = settings
        self.title = settings.title ?? lesson.title
        let coach = Coach(lesson: lesson, plan: plan, mode: settings.mode, window: settings.window,
                          cleanThreshold: settings.cleanThreshold, onsetOnlyInput: settings.onsetOnlyInput,
                          inputOffsetMs: settings.inputOffsetMs)
        ownedStorage = Owned(coach: coach, loopOn: plan.bars != nil, guide: settings.guide)
        ownedStorage.following = settings.follow && settings.mode.follows
        ownedStorage.pace = settings.recording
        ownedStorage.marks = (plan.bars?.lowerBound, plan.bars?.upperBound)
        shared = Exchange(coach: coach.snapshot(), loop: SessionState.Loop(enabled: plan.bars != nil, passes: 0, name: nil))
        shared.following = ownedStorage.following
        threaded = clock.isRealTime
        initialTransport = transport
        // Asked by the transport in the middle of its own work: on the owner.
        transport.isPassClean = { [weak self] finished in
            guard let self else { return true }
            return self.owned.coach.isPassClean(finished)
        }
        Self.applyMode(settings.mode, plan: plan, settings: settings, guide: settings.guide, to: &transport)
        if threaded {
            runner = TransportRunner(transport: transport, clock: followed, tickClock: clock, output: output,
                                     onEvents: { [weak self] events in self?.received(events) },
                                     onTick: { [weak self] now in self?.receive(.tick(now)) })
        } else {
            runner = TransportRunner(manual: transport, output: output,
                                     onEvents: { [weak self] events in self?.received(events) })
        }
    }

    /// The session's clock time.
    public var now: Double { clock.now }

    /// The coach judging now, as last published (a new coach after each mode change).
    public var coach: CoachSnapshot { exchange.withLock { shared.coach } }

    /// The current mode.
    public var mode: PracticeMode { coach.mode }

    /// True while the computer keyboard plays notes (the piano letters then win over `h`, `s`…).
    public var wantsPianoKeys: Bool { settings.computerKeyboard && mode.judges }

    /// Each finished, scored pass (the `--report` file), called on the runner's thread.
    public var onPassReport: (@Sendable (PassReport) -> Void)? {
        get { exchange.withLock { shared.reportSink } }
        set { exchange.withLock { shared.reportSink = newValue } }
    }

    /// Called on every tick, on the runner's thread (or in `advance()`): what the caller wants
    /// to move on the session's clock, never on the screen's frames.
    public var onTick: (@Sendable (Double) -> Void)? {
        get { exchange.withLock { shared.tickHook } }
        set { exchange.withLock { shared.tickHook = newValue } }
    }

    /// What to type on the computer keyboard for a pitch (wait mode names the awaited keys);
    /// nil for a MIDI instrument. Asked by `state()`, on the caller's thread.
    public var computerKeys: (@Sendable (Int) -> String?)? {
        get { exchange.withLock { shared.keysHook } }
        set { exchange.withLock { shared.keysHook = newValue } }
    }

    /// The saved loop playing now: recalled with `L`, saved with `s`, or set by the caller (a
    /// loop recalled with `--saved`); nil once the loop is changed by hand. `etude resume` shows it.
    public var loopName: String? {
        get { exchange.withLock { shared.loop.name } }
        set { owner { self.owned.loopName = newValue } }
    }

    /// Starts playing (real time: the transport thread starts).
    public func start() {
        owner { if owned.following { waitForFirstNote() } }
        runner?.start()
    }

    /// Following from the start: the music waits at the learner's first note, so Etude's part
    /// comes in with them there (the partner's cap is kept once the pass's notes are known).
    private func waitForFirstNote() {
        let now = clock.now
        guard let first = transport.notes(at: now, ahead: 30).filter({ $0.cue.practised }).map(\.start).min(), first >= now else { return }
        followed.retime(atWall: baseClock.now, rate: owned.partner.rate, cap: first - PartnerTiming.capMargin)
    }

    /// Plays what is due at `clock.now` and ticks the coach (virtual clocks only; the runner
    /// does this itself).
    public func advance() {
        guard !threaded else { return }
        runner?.advance(to: clock.now)
        receive(.tick(clock.now))
    }

    // MARK: The mailbox

    /// Hands a message to the session without waiting for the runner (the way in for every
    /// other thread: the input's notes and pedal, a gesture's command, a tick): it is queued in
    /// the mailbox and the owner drains it, in order, in between the music's events. False when
    /// the mailbox is full (the message is dropped and counted, `droppedMessages`). On a
    /// virtual clock (no runner thread) it is handled at once; after `stop()` it is dropped.
    @discardableResult
    public func post(_ message: PracticeMessage) -> Bool {
        if case .command(let command) = message {
            // The controller and its view are the front end's thread's: it runs the command.
            notify(.command(command))
            return true
        }
        switch mailbox.post(message) {
        case .refused: return false
        case .queued: return true
        case .first:
            runner?.post { [weak self] in self?.drainMailbox() }
            if runner == nil { drainMailbox() }
            return true
        }
    }

    /// Messages dropped because the mailbox was full (a flood the input's guard let through).
    public var droppedMessages: Int { mailbox.dropped }

    /// Handles everything posted so far, oldest first (on the owner).
    private func drainMailbox() {
        let messages = mailbox.takeAll()
        guard !messages.isEmpty else { return }
        for message in messages { receive(message) }
        publish()
    }

    /// One message, on the owner.
    private func receive(_ message: PracticeMessage) {
        switch message {
        case .played(let note): handlePlayed(note)
        case .pedal(let down, let time): owned.coach.handle(pedalDown: down, at: followed.projected(atWall: time))
        case .tick(let now): tick(now: now)
        case .command(let command): notify(.command(command))
        case .apply(let command): apply(command)
        }
    }

    /// Adds an effect to the outbox, after what the runtime emitted before it (the front end's
    /// own: a loop to save, a pass to write, where the learner stopped): one ordered stream.
    public func emit(_ effect: PracticeEffect) {
        effects.emit(effect)
    }

    /// Stops playing and silences everything (all notes off). Safe to call twice. A pass left
    /// before its end (at least a second of it) is handed out as unfinished, so its practice
    /// time reaches the history.
    public func stop() {
        let first = owner { () -> Bool in
            if owned.stopped { return false }
            owned.stopped = true
            queueUnfinishedPass()
            return true
        }
        if first { runner?.stop() }
    }

    private func queueUnfinishedPass() {
        let transport = self.transport
        let state = transport.state
        guard state == .playing || state == .paused else { return }
        let plan = transport.plan
        let now = baseClock.now
        guard let start = owned.passStartWall, now - start >= Self.shortestUnfinishedPass else { return }
        var info = FinishedPassInfo(pass: transport.pass, tempoPercent: transport.tempoPercent, startedAt: owned.passStartDate,
                                    durationSeconds: now - start, bars: transport.bars, isLoop: plan.bars != nil, hands: plan.hands)
        info.complete = false
        effects.emit(.pass(PassResult(info: info, mode: owned.coach.mode, report: nil)))
    }

    /// Shorter than this, a pass left at once is not worth a row in the history.
    static let shortestUnfinishedPass = 1.0

    /// True once the last pass was played (with a finite `repeat`).
    public var isFinished: Bool { transport.state == .finished }

    /// Pauses, in its turn after what was posted before; never waits for the runner (at once
    /// on a virtual clock). The coach's clock stands still with the music.
    public func pause() {
        post(.apply(.pause))
    }

    /// Resumes after `pause()`, in its turn; never waits. In wait mode the music held at a
    /// chord stays held until the learner plays it (space would let it run on without them, the
    /// chords left behind).
    public func resume() {
        post(.apply(.resume))
    }

    /// `pause()` on the owner.
    func pauseNow() {
        let wasPlaying = transport.state == .playing
        perform { $0.pause() }
        if wasPlaying { owned.coach.transportPaused(at: clock.now) }
    }

    /// `resume()` on the owner.
    func resumeNow() {
        if owned.pausedByCoach {
            notify(.message(Self.heldAtChord))
            return
        }
        let wasPaused = transport.state == .paused
        perform { $0.play() }
        if wasPaused { owned.coach.transportResumed(at: clock.now) }
    }

    /// What space says while wait mode holds the music at a chord.
    public static let heldAtChord = "waiting for your chord: play it to go on (→ moves to the next bar)"

    /// A note the learner played: judged by the coach, on the owner, in order with the music.
    /// A note played while the results hold the transport plays on (the next pass, after its
    /// count-in).
    ///
    /// This waits until the note is judged (tests, and a caller that reads the verdict next);
    /// an input posts it instead (`post(.played(note))`), never waiting.
    public func learnerPlayed(_ note: LearnerNote) {
        owner {
            drainMailbox()  // what was posted before it, first
            handlePlayed(note)
        }
    }

    private func handlePlayed(_ note: LearnerNote) {
        var event = PlayedEvent(pitch: note.pitch, velocity: note.velocity, time: note.time, isOn: note.isOn)
        if note.isOn {
            if releaseHeld() { return }
            notify(.resultsAway)  // playing on puts the results away
        }
        event.time = follow(event, wall: note.time)
        let actions = owned.coach.handle(played: event)
        apply(actions)
        resumeAfterChord(actions)
    }

    /// Wait mode: the learner's playing moves the lesson on. A chord played while they had
    /// paused the music with space (not held by the coach) plays on from there, as a chord the
    /// coach waited for does.
    private func resumeAfterChord(_ actions: [CoachAction]) {
        guard owned.coach.mode == .wait, !owned.pausedByCoach, transport.state == .paused,
              actions.contains(where: { if case .judged(let j) = $0 { return j.verdict == .onTime } else { return false } }) else { return }
        perform { $0.play() }
        owned.coach.transportResumed(at: clock.now)
    }

    /// The learner's sustain pedal went down or up (clock time): the coach's ear hears it.
    /// (Waits until it is heard; an input posts `.pedal` instead.)
    public func learnerPedal(down: Bool, at time: Double) {
        owner {
            drainMailbox()
            receive(.pedal(down: down, at: time))
        }
    }

    // MARK: Following the learner (on the owner)

    /// True while Etude's part keeps the learner's tempo.
    public var isFollowing: Bool { exchange.withLock { shared.following } }

    /// The listener's delay following makes up, in ms, when the learner is heard by a
    /// microphone (`Settings.hearingDelay`); nil for keys that arrive as they are played.
    public var followingByEarMs: Int? {
        settings.hearingDelay > 0 ? Int((settings.hearingDelay * 1000).rounded()) : nil
    }

    /// Turns following on or off (`f`): only in play and memory mode, where the learner plays
    /// against Etude's part in real time. Off, the music goes on at the plan's tempo from where it is.
    @discardableResult
    public func setFollowing(_ on: Bool) -> Bool {
        owner {
            let on = on && owned.coach.mode.follows
            owned.following = on
            owned.partner = on ? followingPartner(fromHere: true) : PartnerTiming()
            if !on { unfollow() }
            exchange.withLock { shared.following = on }
            return on
        }
    }

    /// The music at the plan's tempo again, from where it stands.
    private func unfollow() {
        if owned.partner.silenced {
            perform { $0.play() }
            owned.coach.transportResumed(at: clock.now)
        }
        owned.partner = PartnerTiming()
        followed.retime(atWall: baseClock.now, rate: 1, cap: nil)
    }

    /// A note's time as judged while following (where the learner was expected, on the music's
    /// clock), after the partner has moved the music for it.
    private func follow(_ event: PlayedEvent, wall: Double) -> Double {
        let warp = followed.warp
        var time = warp.projected(atWall: wall)
        guard owned.following else { return time }
        // A key that moves nothing (a release, an extra) is judged where the music is: while it
        // waits for the learner's next note, the judge waits with it (that note is not missed).
        let music = warp.score(atWall: wall)
        guard event.isOn, event.velocity > 0 else { return min(time, music) }
        let beat = beatSeconds()
        let pending = owned.coach.passOnsets(from: warp.score(atWall: wall) - 2 * beat)
        let comingIn = !owned.partner.metLearner
        if owned.partner.follower == nil { owned.partner = followingPartner(fromHere: true) }
        var passTimes: [Int: Double] = [:]
        for o in owned.coach.passOnsets() where passTimes[o.id] == nil { passTimes[o.id] = o.time }
        guard let move = owned.partner.heard(pitch: event.pitch, wall: wall, warp: warp, pending: pending, beat: beat,
                                             timeOf: { passTimes[$0] }) else {
            // Before the learner came in the music waits for them at their first note: a key the
            // follower does not take for it is a stray before the start (judged a beat before
            // where the music waits: an extra, not a wrong first note).
            return comingIn ? music - beat : min(time, music)
        }
        if let to = move.relocate {
            relocate(to: to, wall: move.wall, resume: move.resume)
            return followed.projected(atWall: wall)
        }
        // Coming in (the pass's first note) or back in after a stop: the learner sets the time,
        // so the note is where the music meets them, not late by however long they took.
        if move.resume || comingIn, let score = move.score { time = score }
        apply(move)
        if let score = move.score, !move.resume {
            owned.tempoSamples.append((transport.position(at: score).bar, transport.tempoPercent * move.rate))
        }
        return time
    }

    private func apply(_ move: PartnerTiming.Move) {
        if move.resume && transport.state == .paused && !owned.heldForResults && !owned.pausedByCoach {
            perform { $0.play() }
            owned.coach.transportResumed(at: clock.now)
        }
        followed.retime(atWall: move.wall, score: move.score, rate: move.rate, cap: move.cap)
        if let skip = move.skipBefore { runner?.skipNoteOns(before: skip) }
        if move.silence && transport.state == .playing {
            owned.coach.transportPaused(at: clock.now)
            perform { $0.pause() }
        }
    }

    /// A partner following the learner through the plan's notes, at the tempo they kept.
    /// `fromHere`: its follower waits for the learner from a beat before where the music is, and
    /// the music at their next note from here (following turned on in the middle of a pass).
    private func followingPartner(fromHere: Bool = false) -> PartnerTiming {
        var partner = PartnerTiming(score: planOnsets(), rate: owned.partner.rate, hearingDelay: settings.hearingDelay)
        if fromHere, transport.state == .playing || transport.state == .paused {
            let map = lesson.tempoMap
            let here = map.seconds(atTick: transport.tick(at: clock.now)) * 100 / max(1, transport.tempoPercent)
            partner.restart(from: here - beatSeconds())
            // The music waits at the learner's next note from here, not at one already behind it.
            partner.relocated(at: clock.now - 0.002, wall: baseClock.now)
        }
        return partner
    }

    /// The practised notes of the plan's bars in seconds at the pass's tempo (made once per
    /// plan and tempo): the follower's score.
    private func planOnsets() -> [PartnerTiming.Onset] {
        let plan = transport.plan
        let percent = max(1, transport.tempoPercent)
        if let made = owned.planOnsets, made.plan == plan, made.percent == percent { return made.onsets }
        let ticks = plan.tickRange(in: lesson)
        let map = lesson.tempoMap
        var onsets: [PartnerTiming.Onset] = []
        for (i, n) in lesson.notes.enumerated() where n.startTick >= ticks.lowerBound && n.startTick < ticks.upperBound && plan.expects(n) {
            onsets.append(PartnerTiming.Onset(pitch: Int(n.pitch), time: map.seconds(atTick: n.startTick) * 100 / percent, id: i))
        }
        onsets.sort { $0.time < $1.time }
        owned.planOnsets = (plan, percent, onsets)
        return onsets
    }

    /// A bar's start in the follower's score (seconds at the pass's tempo).
    private func planSeconds(bar: Int) -> Double? {
        guard let tick = lesson.bars.bar(number: bar)?.startTick else { return nil }
        return lesson.tempoMap.seconds(atTick: tick) * 100 / max(1, transport.tempoPercent)
    }

    /// The follower found the learner elsewhere (a restart a few bars back, a jump on): the
    /// music goes to the bar of that note, at the learner's place in it, the learner on it at `wall`.
    private func relocate(to note: PartnerTiming.Onset, wall: Double, resume: Bool) {
        let notes = lesson.notes
        guard notes.indices.contains(note.id) else { return }
        let bar = lesson.bars.position(atTick: notes[note.id].startTick).bar
        guard let barStart = lesson.bars.bar(number: bar)?.startTick else { return }
        let wasPaused = transport.state == .paused && !owned.heldForResults && !owned.pausedByCoach
        owned.relocating = true
        defer { owned.relocating = false }
        do {
            try perform { t throws(PlanError) in try t.seek(toBar: bar) }
        } catch {
            return
        }
        if wasPaused || resume {
            perform { $0.play() }
            owned.coach.transportResumed(at: clock.now)
        }
        let map = lesson.tempoMap
        let percent = max(1, transport.tempoPercent) / 100
        let into = max(0, map.seconds(atTick: notes[note.id].startTick) - map.seconds(atTick: barStart)) / percent
        let score = clock.now + into
        owned.partner.relocated(at: score, wall: wall)
        followed.retime(atWall: wall, score: score, rate: owned.partner.rate, cap: nil)
        runner?.skipNoteOns(before: score - 0.01)
        notify(.message("following you from bar \(lesson.bars.label(number: bar))"))
    }

    /// The tempo the learner kept this pass, bar by bar, while Etude followed them (nil: it did not).
    private func followedTempo() -> [PassReport.BarTempo]? {
        guard owned.following else { return nil }
        return PartnerTiming.byBar(owned.tempoSamples).map { PassReport.BarTempo(bar: $0.bar, percent: ($0.percent * 10).rounded() / 10) }
    }

    /// A beat of the music in its own seconds (at the plan's tempo).
    private func beatSeconds() -> Double {
        let bpm = transport.effectiveBPM
        return bpm.isFinite && bpm > 0 ? 60 / bpm : 0.5
    }

    /// True while the transport waits after a judged pass for the learner to read the results.
    public var isHeldForResults: Bool { exchange.withLock { shared.heldForResults } }

    /// Puts the results away and plays on after a hold (the next pass starts with its count-in);
    /// false when nothing was held (on the owner: any key but quit does it, `SessionCommands`).
    func releaseHeld() -> Bool {
        guard owned.heldForResults else { return false }
        owned.heldForResults = false
        notify(.resultsAway)
        perform { $0.play() }
        return true
    }

    /// What the transport does between passes in a mode: the judging modes hold after each pass
    /// (results) and count in; watch mode plays the piece once unless a loop is on.
    private static func applyMode(_ mode: PracticeMode, plan: PracticePlan, settings: Settings, guide: Bool, to transport: inout Transport) {
        // The learner's part: heard only when nobody plays along, or as the guide they asked for.
        transport.setLearnerPart(.forMode(judging: mode.judges, guide: guide))
        transport.holdBetweenPasses = mode.judges && settings.holdAfterPass
        transport.stopsAtEnd = settings.watchStopsAtEnd && mode == .watch && plan.bars == nil
        if mode.countsIn && settings.countIn { transport.setCountIn(true) }
        if mode == .wait { transport.setCountIn(false) }
    }

    /// Whether watch mode finishes after this pass (no loop on).
    private func setStopsAtEnd(_ on: Bool) {
        perform { t in
            t.stopsAtEnd = on
            return []
        }
    }

    /// Passes finished since the last call, in the order they ended, each whole (its report
    /// with it): the front end stores them in the history, writes `--report`, shows the hint.
    /// (Taken from the one outbox, `effects`, leaving its other effects in order.)
    public func takePassResults() -> [PassResult] {
        effects.take(where: Self.isPass).compactMap(Self.passResult)
    }

    private static func isPass(_ effect: PracticeEffect) -> Bool {
        if case .pass = effect { return true } else { return false }
    }

    private static func passResult(_ effect: PracticeEffect) -> PassResult? {
        if case .pass(let result) = effect { return result } else { return nil }
    }

    /// Passes finished since the last call, without their reports (`score(for:)` gives the
    /// figures of one handed out here): `takePassResults()` for callers that want both.
    public func takeFinishedPasses() -> [FinishedPassInfo] {
        let out = effects.take(where: Self.isPass).compactMap(Self.passResult)
        return exchange.withLock {
            shared.handedOut += out
            if shared.handedOut.count > 256 { shared.handedOut.removeFirst(shared.handedOut.count - 256) }
            return out.map(\.info)
        }
    }

    /// The figures of a pass handed out by `takeFinishedPasses()`, if it was judged (nil for a
    /// watched or unfinished pass).
    public func score(for pass: FinishedPassInfo) -> ScoreFigures? {
        passResult(for: pass)?.figures
    }

    /// The whole result (its report with it) of a pass handed out by `takeFinishedPasses()`,
    /// once; nil when it was not handed out or was asked for already.
    public func passResult(for pass: FinishedPassInfo) -> PassResult? {
        exchange.withLock {
            guard let i = shared.handedOut.firstIndex(where: { $0.info == pass }) else { return nil }
            return shared.handedOut.remove(at: i)
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
        try? perform { t throws(PlanError) in
            let range = t.bars
            return try t.seek(toBar: min(max(bar, range.lowerBound), range.upperBound))
        }
    }

    /// Shows a one-line message in the status bar (saved file, input ended…): a notice to the
    /// front end, which holds the message (`PracticeViewState`); any thread.
    public func show(message text: String) {
        notify(.message(text))
    }

    /// Most notices kept until the front end takes them (a burst of commands applied at once
    /// says one or two each; a one-line player never looks).
    static let noticeLimit = 4096

    func notify(_ notice: PracticeNotice) {
        exchange.withLock {
            shared.notices.append(notice)
            // A front end that never looks: its oldest lines go first, then its oldest other
            // notices, never a command it was given.
            while shared.notices.count > Self.noticeLimit,
                  let i = shared.notices.firstIndex(where: { if case .message = $0 { true } else { false } })
                      ?? shared.notices.firstIndex(where: { if case .command = $0 { false } else { true } }) {
                shared.notices.remove(at: i)
            }
        }
    }

    /// What to show posted since the last call (the runner's "the end…", an input's status,
    /// a judged pass's panel, the panel put away, a gesture's command), oldest first: the front
    /// end applies them to its `PracticeViewState`.
    public func takeNotices() -> [PracticeNotice] {
        exchange.withLock {
            let out = shared.notices
            shared.notices.removeAll()
            return out
        }
    }

    /// A learner's command from a thread that is not the screen's (a gesture key on the
    /// instrument, on the input thread): handed to the front end with the notices, so the
    /// controller and its view stay the screen thread's.
    public func command(_ command: PracticeCommand) {
        post(.command(command))
    }

    /// Practises with a whole new plan from its first bar (the weakest-section key); the
    /// plan's error when it does not fit the lesson.
    public func replacePlan(_ plan: PracticePlan) throws(PlanError) {
        let outcome: Result<Void, PlanError> = owner {
            var plan = plan
            plan.learnerPart = .forMode(judging: owned.coach.mode.judges, guide: owned.guide)
            do throws(PlanError) {
                try perform { t throws(PlanError) in try t.replacePlan(plan) }
            } catch {
                return .failure(error)
            }
            owned.coach.update(plan: plan)
            owned.loopOn = plan.bars != nil
            owned.loopPasses = 0
            owned.passStartWall = baseClock.now
            owned.passStartDate = Date()
            owned.loopName = nil
            owned.pausedByCoach = false
            owned.heldForResults = false
            notify(.resultsAway)
            // The loop marks follow its bars.
            if let bars = plan.bars { setLoopMarks((bars.lowerBound, bars.upperBound)) }
            setStopsAtEnd(settings.watchStopsAtEnd && owned.coach.mode == .watch && plan.bars == nil)
            return .success(())
        }
        try outcome.get()
    }

    /// Turns the guide on or off from the current position (`--guide`, the practice screen's
    /// key): the learner's part sounds quietly on the synth, or not at all, in the judging modes.
    public func setGuide(_ on: Bool) {
        owner {
            owned.guide = on
            let part = PracticePlan.LearnerPart.forMode(judging: owned.coach.mode.judges, guide: on)
            perform { $0.setLearnerPart(part) }
        }
    }

    /// Switches mode from the next pass on: a new coach on the transport's current plan, the
    /// bars played restarted so judging begins with a pass.
    public func setMode(_ mode: PracticeMode) {
        owner {
            owned.coach = Coach(lesson: lesson, plan: transport.plan, mode: mode, window: settings.window,
                            cleanThreshold: settings.cleanThreshold, onsetOnlyInput: settings.onsetOnlyInput,
                            inputOffsetMs: settings.inputOffsetMs)
            notify(.resultsAway)
            owned.partner.restart()
            if owned.following && !mode.follows {
                owned.following = false
                unfollow()
                exchange.withLock { shared.following = false }
            }
            let wasPaused = owned.pausedByCoach
            owned.pausedByCoach = false
            owned.heldForResults = false
            let settings = self.settings
            let plan = transport.plan
            let guide = owned.guide
            perform { t in
                Self.applyMode(mode, plan: plan, settings: settings, guide: guide, to: &t)
                return []
            }
            if wasPaused { perform { $0.play() } }
            try? perform { t throws(PlanError) in try t.seek(toBar: t.bars.lowerBound) }
        }
    }

    // MARK: What a view shows

    /// The session now, as plain values.
    public func state() -> SessionState {
        let now = clock.now
        let lookahead = settings.lookaheadSeconds
        let transport = self.transport
        let transportState = transport.state
        let plan = transport.plan
        let (coach, loop, keys, following) = exchange.withLock { (shared.coach, shared.loop, shared.keysHook, shared.following) }
        let upcoming = transport.notes(at: now, ahead: lookahead).map { n in
            SessionState.Note(index: n.cue.index, pitch: Int(n.cue.pitch), start: n.start - now, end: n.end - now,
                              part: n.cue.part, practised: n.cue.practised)
        }
        let lines = transport.barLines(at: now, ahead: lookahead).map { (seconds: $0.time - now, bar: $0.bar) }
        var feedback = coach.feedback(now: now)
        if let keys {
            for w in feedback.waitingFor { feedback.waitingKeys[w.pitch] = keys(w.pitch) }
        }
        var state = SessionState(
            now: now, title: title, transport: transportState, plan: plan, pass: transport.pass, tempoPercent: transport.tempoPercent,
            bpm: transportState == .playing ? transport.bpm(at: now) : transport.effectiveBPM,
            position: transport.position(at: now), tick: transport.tick(at: now), countIn: transport.countIn(at: now), lookaheadSeconds: lookahead,
            notes: upcoming, barLines: lines, loop: loop,
            mode: coach.mode, pianoKeys: settings.computerKeyboard && coach.mode.judges,
            feedback: feedback, judged: coach.judgedNotes, heardOff: coach.notesHeardOff)
        state.following = following
        state.followingByEarMs = following ? followingByEarMs : nil
        return state
    }

    // MARK: For the controller

    /// Runs a transport command on the owner (or at once on a virtual clock).
    func perform(_ command: (inout Transport) throws(PlanError) -> [TimedEvent]) throws(PlanError) {
        try runner?.perform(command)
    }

    func perform(_ command: (inout Transport) -> [TimedEvent]) {
        runner?.perform(command)
    }

    /// Runs `body` on the owner, then publishes what changed. The owner's state is reached as
    /// `owned.x`, one access at a time (never borrowed across a transport command, whose
    /// events come back into `received`).
    @discardableResult
    private func owner<T>(_ body: () -> T) -> T {
        guard let runner else { return body() }
        return runner.run {
            let out = body()
            publish()
            return out
        }
    }

    /// Copies what the owner changed where the other threads read it.
    private func publish() {
        let coach = owned.coach.snapshot()
        let loop = SessionState.Loop(enabled: owned.loopOn, passes: owned.loopPasses, name: owned.loopName)
        let held = owned.heldForResults
        exchange.withLock {
            shared.coach = coach
            shared.loop = loop
            shared.heldForResults = held
        }
    }

    /// Where `+`/`-` stop: every tempo a plan takes, or a recording's stretch range (set by the
    /// front end, `PracticeController.tempoRange`).
    var tempoRange: ClosedRange<Double> {
        get { exchange.withLock { shared.tempoRange } }
        set { exchange.withLock { shared.tempoRange = newValue } }
    }

    /// The front end saves loops (`s`; `PracticeController.onSaveLoop` is set).
    var savesLoops: Bool {
        get { exchange.withLock { shared.savesLoops } }
        set { exchange.withLock { shared.savesLoops = newValue } }
    }

    /// The loop marks (on the owner).
    var loopMarks: (start: Int?, end: Int?) { owned.marks }

    /// Sets the loop marks and shows them, in their turn (on the owner).
    func setLoopMarks(_ marks: (start: Int?, end: Int?)) {
        owned.marks = marks
        notify(.loopMarks(start: marks.start, end: marks.end))
    }

    /// The index of the saved loop `L` applies now, of `count` (on the owner).
    func nextRecall(of count: Int) -> Int {
        let index = owned.recallIndex % count
        owned.recallIndex = index + 1
        return index
    }

    /// Space after the end plays the piece again: the pass count starts over.
    func restartPassCount() {
        owner { self.owned.loopPasses = 0 }
    }

    /// The plan changed by hand (hands, loop, a recalled loop): the coach judges the next pass
    /// by it.
    func planChanged() {
        owner { self.owned.coach.update(plan: self.transport.plan) }
    }

    /// The loop changed by hand: restart the pass clock and the count, forget the saved name.
    func loopChanged(enabled: Bool) {
        owner {
            owned.coach.update(plan: transport.plan)
            owned.loopOn = enabled
            owned.loopPasses = 0
            owned.passStartWall = baseClock.now
            owned.passStartDate = Date()
            setStopsAtEnd(settings.watchStopsAtEnd && owned.coach.mode == .watch && !enabled)
        }
    }

    // MARK: Events and ticks (on the owner)

    private func received(_ events: [TimedEvent]) {
        let transport = self.transport
        var finished: [FinishedPassInfo] = []
        for e in events {
            switch e.event {
            case .moved(let bar, _, _):
                // Moved to where the follower found the learner: it stays where it is.
                guard !owned.relocating else { break }
                owned.partner.restart(from: planSeconds(bar: bar))
                owned.tempoSamples = []
            case .passStarted:
                // A new pass (its tempo may be new): the follower starts over on it.
                owned.partner = owned.following ? followingPartner() : PartnerTiming()
                owned.tempoSamples = []
                owned.passStartWall = wall(ofClock: e.time)
                owned.passStartDate = Date(timeIntervalSinceNow: wall(ofClock: e.time) - baseClock.now)
            case .passFinished(let pass, let percent):
                let plan = transport.plan
                let end = wall(ofClock: e.time)
                let start = owned.passStartWall ?? end
                finished.append(FinishedPassInfo(pass: pass, tempoPercent: percent, startedAt: owned.passStartDate,
                                                 durationSeconds: max(0, end - start),
                                                 bars: transport.bars, isLoop: plan.bars != nil, hands: plan.hands))
                owned.loopPasses += 1
                owned.passStartWall = end
                owned.passStartDate = Date(timeIntervalSinceNow: end - baseClock.now)
            case .finished:
                notify(.message("the end: space plays again, q quits"))
            case .heldAfterPass:
                owned.heldForResults = true
            default:
                break
            }
        }
        let coach = owned.coach
        let actions = coach.handle(events: events)
        if !finished.isEmpty {
            // A pass and its report come in the same batch: joined here, emitted once, whole.
            var reports = actions.compactMap { a -> (pass: Int, report: PassReport)? in
                if case .passReport(let pass, _, let report) = a { return (pass, report) } else { return nil }
            }
            let tempo = followedTempo()
            let results = finished.map { info -> PassResult in
                var report: PassReport?
                if let i = reports.firstIndex(where: { $0.pass == info.pass }) { report = reports.remove(at: i).report }
                if let tempo { report?.barTempo = tempo }
                return PassResult(info: info, mode: coach.mode, report: report)
            }
            for result in results { effects.emit(.pass(result)) }
        }
        apply(actions)
        publish()
    }

    /// The base clock's time of a moment just passed on the music's clock (an event's time, a
    /// tick or so ago): the music's clock runs at the warp's rate — a recording's pace, a
    /// followed learner — so the lag is turned back into real seconds at that rate.
    private func wall(ofClock time: Double) -> Double {
        let lag = max(0, clock.now - time)
        let rate = followed.warp.rate
        return baseClock.now - (rate > 0 ? lag / rate : lag)
    }

    /// The coach's clock and the caller's tick hook, on the transport thread (or `advance()`).
    private func tick(now: Double) {
        if owned.pace != nil { paceRecording() }
        if owned.following && transport.state != .stopped && transport.state != .finished {
            let wall = baseClock.now
            let warp = followed.warp
            let beat = beatSeconds()
            let pending = owned.coach.passOnsets(from: warp.score(atWall: wall) - 2 * beat)
            if let move = owned.partner.tick(wall: wall, warp: warp, pending: pending, beat: beat) { apply(move) }
        }
        apply(owned.coach.tick(now: clock.now))
        publish()
        exchange.withLock { shared.tickHook }?(now)
    }

    /// `--recording`: the music's clock moved on to where the recording is (on the owner, each tick).
    private func paceRecording() {
        let wall = baseClock.now
        guard let move = owned.pace?.step(wall: wall, clockNow: followed.now, transport: transport) else { return }
        followed.retime(atWall: wall, score: move.score, rate: move.rate, cap: nil)
        owned.coach.timeScale = move.rate  // judged in real seconds, as the recording is heard
    }

    /// How long the results panel stays once the next pass plays on (the front end's view
    /// puts it away; any key or note does at once).
    public static let resultsSeconds = 5.0

    /// Applies the coach's actions, on the owner.
    private func apply(_ actions: [CoachAction]) {
        let coach = owned.coach
        for action in actions {
            switch action {
            case .pauseTransport:
                coach.transportPaused(at: clock.now)
                owned.pausedByCoach = true
                perform { $0.pause() }
            case .resumeTransport:
                if owned.pausedByCoach {
                    owned.pausedByCoach = false
                    perform { $0.play() }
                    coach.transportResumed(at: clock.now)
                }
            case .passReport(let pass, let percent, var report):
                let now = clock.now
                let hint = coach.mode == .play || coach.mode == .memory ? settings.timingHint?(report) : nil
                if hint != nil { effects.emit(.calibrateHintShown) }  // remembered by the application
                let verdict = transport.plan.speedTrainer?.verdict(percent: percent, accuracy: report.figures.accuracy,
                                                                   threshold: settings.cleanThreshold)
                var results = SessionState.Results(pass: pass, tempoPercent: percent, figures: report.figures, offsetMs: report.offsetMs,
                                                   timingHint: hint, secondsPerChord: report.secondsPerChord, earLine: report.earLine,
                                                   review: report.reviewLines())
                results.speedTrainer = verdict
                if let tempo = followedTempo() {
                    results.tempoLine = PartnerTiming.summary(tempo.map { ($0.bar, $0.percent) })
                    report.barTempo = tempo
                }
                notify(.results(results, shownAt: now))
                exchange.withLock { shared.reportSink }?(report)
            case .weakestSection(_, let name, _):
                let start = transport.plan.speedTrainer?.start ?? 70  // the learner's own trainer when on
                show(message: "work on \(name): W loops it at \(PracticePlan.format(start)) % with the speed trainer")
            case .learnerKeys, .flashWrong, .judged:
                break
            }
        }
    }
}
