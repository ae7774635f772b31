import Clocks
import Foundation
import Judge
import Lesson
import MIDIFile
import Screen
import Synth
import Terminal

/// A pass that ended, with what was practised: what the history stores.
public struct FinishedPassInfo: Equatable, Sendable {
    public var pass: Int
    public var tempoPercent: Double
    /// Wall-clock start of the pass.
    public var startedAt: Date
    public var durationSeconds: Double
    public var bars: ClosedRange<Int>
    /// True when bars were looped (not the whole lesson).
    public var isLoop: Bool
    public var hands: PracticePlan.Hands
    /// False for the pass under way when practice stopped: stored for its time, never scored.
    public var complete = true
}

/// A loop as the learner set it on the screen, for saving under a name.
public struct LoopSnapshot: Equatable, Sendable {
    public var bars: ClosedRange<Int>
    public var hands: PracticePlan.Hands
    public var tempoPercent: Double
    public var otherHand: PracticePlan.OtherHand

    public init(bars: ClosedRange<Int>, hands: PracticePlan.Hands, tempoPercent: Double, otherHand: PracticePlan.OtherHand) {
        self.bars = bars
        self.hands = hands
        self.tempoPercent = tempoPercent
        self.otherHand = otherHand
    }

    /// The automatic name, e.g. `bars 5-8 at 70%` (`, right hand` when one hand).
    public var autoName: String {
        var name = "bars \(bars.lowerBound)-\(bars.upperBound) at \(PracticeSession.percentText(tempoPercent))%"
        if hands != .both { name += ", \(hands.rawValue) hand" }
        return name
    }
}

/// A loop saved for the lesson, as `L` on the practice screen steps through them.
public struct NamedLoop: Equatable, Sendable {
    public var name: String
    public var loop: LoopSnapshot

    public init(name: String, loop: LoopSnapshot) {
        self.name = name
        self.loop = loop
    }
}

/// Where the learner is, for `etude resume`.
public struct ResumePoint: Equatable, Sendable {
    /// Seconds into the lesson at the file's own tempo.
    public var positionSeconds: Double
    public var bar: Int
    public var hands: PracticePlan.Hands
    public var tempoPercent: Double
    public var loop: ClosedRange<Int>?
}

/// Watch-mode practice: owns the transport, the thread that plays it (`TransportRunner`) and
/// the sound output; turns practice-screen commands into transport calls and the transport's
/// state into a `ScreenModel` per frame. The screen thread only takes short locks (the
/// transport's and this object's), never waits on the playing thread.
///
/// With a `MonotonicClock` it plays in real time on its own thread; with any other clock (a
/// `VirtualClock` in tests) nothing runs by itself: `advance()` plays what is due.
public final class PracticeSession: @unchecked Sendable {
    /// Display choices that are not part of the practice plan.
    public struct Options: Sendable {
        public var title: String?
        public var noteNaming: NoteNaming = .scientific
        public var showNoteNames = false
        public var showFingers = false
        /// Finger numbers by index into `Lesson.notes` (from the lesson's fingering).
        public var fingers: [Int: Int] = [:]
        /// Seconds of music above the keyboard.
        public var lookaheadSeconds = 3.0
        public init() {}
    }

    public let lesson: Lesson
    public let transport: Transport
    public let clock: any TimeSource
    private let output: any SoundOutput
    private var runner: TransportRunner?
    private let observer: (any PracticeObserver)?
    private let options: Options
    private let title: String
    private let pitchRange: ClosedRange<Int>?

    private let lock = NSLock()
    private var showHelp = false
    private var showNames: Bool
    private var message: String?
    private var loopMarkStart: Int?
    private var loopMarkEnd: Int?
    private var loopOn: Bool
    private var loopPasses = 0
    private var passStartClock: Double?
    private var passStartDate = Date()
    private var finishedQueue: [FinishedPassInfo] = []
    private var stopped = false

    /// Called (on the thread handling the key) when the learner presses `s`; returns the
    /// message to show, e.g. `saved "bars 5-8 at 70%"`. Without it `s` says saving is off.
    public var onSaveLoop: (@Sendable (LoopSnapshot) -> String)? {
        get { lock.withLock { saveHook } }
        set { lock.withLock { saveHook = newValue } }
    }
    private var saveHook: (@Sendable (LoopSnapshot) -> String)?

    /// Called when the learner presses `L`: the lesson's saved loops, read afresh each time so a
    /// loop just saved with `s` is among them. Each press applies the next one (bars, hand,
    /// tempo, other hand). Without it `L` says saved loops are off.
    public var onRecallLoops: (@Sendable () -> [NamedLoop])? {
        get { lock.withLock { recallHook } }
        set { lock.withLock { recallHook = newValue } }
    }
    private var recallHook: (@Sendable () -> [NamedLoop])?
    private var recallIndex = 0

    /// The saved loop playing now: recalled with `L`, saved with `s`, or set by the caller (a
    /// loop recalled with `--saved`); nil once the loop is changed by hand. `etude resume` shows it.
    public var loopName: String? {
        get { lock.withLock { currentLoopName } }
        set { lock.withLock { currentLoopName = newValue } }
    }
    private var currentLoopName: String?

    /// Validates the plan (its one-line error) and prepares to play; nothing sounds before `start()`.
    public init(lesson: Lesson, plan: PracticePlan, clock: any TimeSource, output: any SoundOutput,
                options: Options = Options(), observer: (any PracticeObserver)? = nil) throws(PlanError) {
        self.lesson = lesson
        self.transport = try Transport(lesson: lesson, plan: plan, clock: clock)
        self.clock = clock
        self.output = output
        self.options = options
        self.observer = observer
        self.title = TextDecoding.sanitize(options.title ?? lesson.title)
        self.showNames = options.showNoteNames
        if let low = lesson.notes.map(\.pitch).min(), let high = lesson.notes.map(\.pitch).max() {
            pitchRange = Int(low)...Int(high)
        } else {
            pitchRange = nil
        }
        if let bars = plan.bars {
            loopMarkStart = bars.lowerBound
            loopMarkEnd = bars.upperBound
            loopOn = true
        } else {
            loopOn = false
        }
        if let steady = clock as? MonotonicClock {
            runner = TransportRunner(transport: transport, clock: steady, output: output) { [weak self] events in
                self?.received(events)
            }
        }
        observer?.attach(to: self)
    }

    /// The session's clock time.
    public var now: Double { clock.now }

    /// Starts playing (real time: the transport thread starts).
    public func start() {
        if let runner {
            runner.start()
        } else {
            perform { $0.play() }
        }
    }

    /// Plays what is due at `clock.now` (virtual clocks only; the runner does this itself).
    public func advance() {
        guard runner == nil else { return }
        deliver(transport.advance(to: clock.now))
    }

    /// Stops playing and silences everything (all notes off). Safe to call twice. A pass left
    /// before its end (at least a second of it) is handed out as unfinished, so its practice
    /// time reaches the history.
    public func stop() {
        if lock.withLock({ let was = stopped; stopped = true; return was }) { return }
        queueUnfinishedPass()
        if let runner {
            runner.stop()
        } else {
            deliver(transport.stop())
            output.allNotesOff()
        }
    }

    private func queueUnfinishedPass() {
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
            finishedQueue.append(info)
        }
    }

    /// Shorter than this, a pass left at once is not worth a row in the history.
    static let shortestUnfinishedPass = 1.0

    /// True once the last pass was played (with a finite `repeat`).
    public var isFinished: Bool { transport.state == .finished }

    /// Pauses (an observer waiting for the learner uses this); returns at once.
    public func pause() { perform { $0.pause() } }

    /// Resumes after `pause()`.
    public func resume() { perform { $0.play() } }

    /// Forwards a note the learner played to the observer.
    public func learnerPlayed(_ note: LearnerNote) {
        observer?.learnerPlayed(note, session: self)
    }

    /// Passes finished since the last call (the caller stores them in the history).
    public func takeFinishedPasses() -> [FinishedPassInfo] {
        lock.withLock {
            let out = finishedQueue
            finishedQueue.removeAll()
            return out
        }
    }

    /// The observer's score for a finished pass (nil in watch mode).
    public func score(for pass: FinishedPassInfo) -> ScoreFigures? { observer?.score(for: pass) }

    /// Where the learner is now, for resuming later.
    public func resumePoint() -> ResumePoint {
        let t = clock.now
        let tick = Int(transport.tick(at: t))
        let plan = transport.plan
        return ResumePoint(positionSeconds: lesson.tempoMap.seconds(atTick: tick), bar: transport.position(at: t).bar,
                           hands: plan.hands, tempoPercent: transport.tempoPercent, loop: plan.bars)
    }

    /// Moves to a bar (clamped to the bars being played); used when resuming.
    public func seek(toBar bar: Int) {
        let range = transport.bars
        let target = min(max(bar, range.lowerBound), range.upperBound)
        try? perform { t throws(PlanError) in try t.seek(toBar: target) }
    }

    /// Shows a one-line message in the status bar (an observer's news: saved file, input ended).
    public func show(message text: String) { say(text) }

    /// Practises with a whole new plan from its first bar (the weakest-section key); the
    /// plan's one-line error when it does not fit the lesson.
    public func replacePlan(_ plan: PracticePlan) throws(PlanError) {
        try perform { t throws(PlanError) in try t.replacePlan(plan) }
        lock.withLock {
            if let bars = plan.bars {
                loopMarkStart = bars.lowerBound
                loopMarkEnd = bars.upperBound
            }
            loopOn = plan.bars != nil
            loopPasses = 0
            passStartClock = clock.now
            passStartDate = Date()
            currentLoopName = nil
        }
    }

    // MARK: Keys and commands

    /// A key from the screen loop.
    public func handle(key: Key) -> ScreenLoop.Action {
        let command = PracticeCommand.command(for: key, pianoKeys: observer?.wantsPianoKeys ?? false)
        if lock.withLock({ showHelp }), command != .quit {
            lock.withLock { showHelp = false }
            return .continue
        }
        guard let command else { return .continue }
        return handle(command)
    }

    /// Applies one command; `.quit` ends the screen loop.
    @discardableResult
    public func handle(_ command: PracticeCommand) -> ScreenLoop.Action {
        if let observer, observer.handle(command, session: self) { return .continue }
        switch command {
        case .quit:
            return .quit
        case .playPause:
            switch transport.state {
            case .playing: perform { $0.pause() }
            case .finished:
                lock.withLock { loopPasses = 0 }
                perform { $0.play() }
            default: perform { $0.play() }
            }
        case .previousBar, .nextBar:
            let range = transport.bars
            let current = transport.position(at: clock.now).bar
            let target = min(max(current + (command == .nextBar ? 1 : -1), range.lowerBound), range.upperBound)
            seekKeepingState(target)
            say("bar \(target)")
        case .restart:
            seekKeepingState(transport.bars.lowerBound)
            say("from bar \(transport.bars.lowerBound)")
        case .loopStartHere:
            lock.withLock { currentLoopName = nil }
            let bar = currentBar()
            lock.withLock {
                loopMarkStart = bar
                if let end = loopMarkEnd, end < bar { loopMarkEnd = nil }
            }
            if let end = lock.withLock({ loopMarkEnd }) {
                applyLoop(bar...end)
            } else {
                say("loop from bar \(bar): press ] at its last bar")
            }
        case .loopEndHere:
            lock.withLock { currentLoopName = nil }
            let bar = currentBar()
            let start = lock.withLock { () -> Int in
                let s = min(loopMarkStart ?? transport.bars.lowerBound, bar)
                loopMarkStart = s
                loopMarkEnd = bar
                return s
            }
            applyLoop(start...bar)
        case .toggleLoop:
            let marks = lock.withLock { (loopMarkStart, loopMarkEnd, loopOn) }
            if marks.2 {
                setLoop(nil)
                lock.withLock { currentLoopName = nil }
                say("loop off")
            } else if let a = marks.0, let b = marks.1 {
                applyLoop(a...b)
            } else {
                say("set a loop first: [ at its first bar, ] at its last")
            }
        case .tempoUp, .tempoDown:
            let current = transport.tempoPercent
            let next = TempoPercent.clamped(current).stepped(up: command == .tempoUp).value
            if next != current {
                try? perform { t throws(PlanError) in try t.setTempo(percent: next) }
            }
            say("tempo \(Self.percentText(next))%")
        case .cycleHand:
            let plan = transport.plan
            let order: [PracticePlan.Hands] = [.both, .right, .left]
            let start = order.firstIndex(of: plan.hands) ?? 0
            for step in 1...order.count {
                let h = order[(start + step) % order.count]
                do {
                    try perform { t throws(PlanError) in try t.setHands(h, other: plan.otherHand) }
                    say(h == .both ? "both hands" : "\(h.rawValue) hand")
                    break
                } catch {
                    continue
                }
            }
        case .cycleOtherHand:
            let plan = transport.plan
            let next: PracticePlan.OtherHand
            switch plan.otherHand {
            case .play: next = .quietDefault
            case .quiet: next = .mute
            case .mute: next = .play
            }
            try? perform { t throws(PlanError) in try t.setHands(plan.hands, other: next) }
            say("other hand: \(Self.otherName(next))")
        case .toggleMetronome:
            let on = !transport.plan.metronome.enabled
            perform { $0.setMetronome(enabled: on) }
            say(on ? "metronome on" : "metronome off")
        case .toggleNoteNames:
            let on = lock.withLock { showNames.toggle(); return showNames }
            say(on ? "note names on" : "note names off")
        case .toggleHelp:
            lock.withLock { showHelp.toggle() }
        case .saveLoop:
            let plan = transport.plan
            let bars = plan.bars ?? transport.bars
            let snapshot = LoopSnapshot(bars: bars, hands: plan.hands, tempoPercent: transport.tempoPercent, otherHand: plan.otherHand)
            let hook = lock.withLock { saveHook }
            if let hook {
                let message = hook(snapshot)
                if plan.bars != nil { lock.withLock { currentLoopName = snapshot.autoName } }
                say(message)
            } else {
                say("saving loops needs the library (it could not be opened)")
            }
        case .recallLoop:
            recallNextLoop()
        case .pianoKey, .octaveDown, .octaveUp:
            break
        case .cycleMode, .loopWeakestSection, .saveLastPass:
            say("playing modes need `etude practice --mode wait|play|memory`")
        }
        return .continue
    }

    /// 70, 72.5 (one decimal at most).
    public static func percentText(_ p: Double) -> String {
        let tenths = Int((p * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : String(format: "%.1f", Double(tenths) / 10)
    }

    /// "play", "quiet" or "mute".
    public static func otherName(_ o: PracticePlan.OtherHand) -> String {
        switch o {
        case .play: return "play"
        case .quiet: return "quiet"
        case .mute: return "mute"
        }
    }

    private func currentBar() -> Int {
        transport.position(at: clock.now).bar
    }

    /// `L`: the next saved loop, with its hand, other hand and tempo; the loop marks follow, so
    /// `l` turns it off and on again.
    private func recallNextLoop() {
        guard let hook = lock.withLock({ recallHook }) else {
            say("saved loops need the library (it could not be opened)")
            return
        }
        let loops = hook()
        guard !loops.isEmpty else {
            say("no saved loops for this lesson yet: set one with [ and ], save it with s")
            return
        }
        let index = lock.withLock { () -> Int in
            let i = recallIndex % loops.count
            recallIndex = i + 1
            return i
        }
        let choice = loops[index]
        let loop = choice.loop
        // Checked whole before anything changes: a loop this lesson cannot play leaves it as it was.
        var candidate = transport.plan
        candidate.bars = loop.bars
        candidate.hands = loop.hands
        candidate.otherHand = loop.otherHand
        do throws(PlanError) {
            try candidate.validate(for: lesson)
            _ = try TempoPercent(loop.tempoPercent)
            try perform { t throws(PlanError) in try t.setHands(loop.hands, other: loop.otherHand) }
            try perform { t throws(PlanError) in try t.setTempo(percent: loop.tempoPercent) }
        } catch {
            say("loop \"\(choice.name)\": \(error.message)")
            return
        }
        setLoop(loop.bars)
        guard transport.plan.bars == loop.bars else { return }   // setLoop said why not
        lock.withLock {
            loopMarkStart = loop.bars.lowerBound
            loopMarkEnd = loop.bars.upperBound
            currentLoopName = choice.name
        }
        var text = "loop \"\(choice.name)\" (\(index + 1)/\(loops.count)): bars \(loop.bars.lowerBound)–\(loop.bars.upperBound)"
        text += loop.hands == .both ? ", both hands" : ", \(loop.hands.rawValue) hand"
        text += ", \(Self.percentText(loop.tempoPercent))%"
        say(text)
    }

    private func applyLoop(_ bars: ClosedRange<Int>) {
        setLoop(bars)
        say("loop bars \(bars.lowerBound)–\(bars.upperBound)")
    }

    private func setLoop(_ bars: ClosedRange<Int>?) {
        do {
            try perform { t throws(PlanError) in try t.setLoop(bars) }
            lock.withLock {
                loopOn = bars != nil
                loopPasses = 0
                passStartClock = clock.now
                passStartDate = Date()
            }
        } catch {
            say(error.message)
        }
    }

    /// Seeks; a stopped or finished transport stays paused there, a playing one plays on.
    private func seekKeepingState(_ bar: Int) {
        try? perform { t throws(PlanError) in try t.seek(toBar: bar) }
    }

    private func say(_ text: String) {
        lock.withLock { message = text }
    }

    // MARK: Events

    private func perform(_ command: (Transport) throws(PlanError) -> [TimedEvent]) throws(PlanError) {
        if let runner {
            do {
                try runner.perform { t in try command(t) }
            } catch let e as PlanError {
                throw e
            } catch {
                throw PlanError("\(error)")
            }
        } else {
            deliver(try command(transport))
        }
    }

    private func perform(_ command: (Transport) -> [TimedEvent]) {
        if let runner {
            runner.perform(command)
        } else {
            deliver(command(transport))
        }
    }

    /// Manual (virtual clock) delivery, as the runner does it: synth out, then the rest.
    private func deliver(_ events: [TimedEvent]) {
        guard !events.isEmpty else { return }
        for e in events {
            if case .synth(let m) = e.event { output.send(m) }
        }
        received(events)
    }

    private func received(_ events: [TimedEvent]) {
        lock.lock()
        for e in events {
            switch e.event {
            case .passStarted:
                passStartClock = e.time
                passStartDate = Date(timeIntervalSinceNow: e.time - clock.now)
            case .passFinished(let pass, let percent):
                let plan = transport.plan
                let start = passStartClock ?? e.time
                finishedQueue.append(FinishedPassInfo(pass: pass, tempoPercent: percent, startedAt: passStartDate,
                                                      durationSeconds: max(0, e.time - start),
                                                      bars: transport.bars, isLoop: plan.bars != nil, hands: plan.hands))
                loopPasses += 1
                passStartClock = e.time
                passStartDate = Date(timeIntervalSinceNow: e.time - clock.now)
            case .finished:
                message = "the end: space plays again, q quits"
            default:
                break
            }
        }
        lock.unlock()
        observer?.transportEvents(events, session: self)
    }

    // MARK: The frame

    /// One frame's state, built from short locks only.
    public func snapshot() -> ScreenModel {
        let now = clock.now
        let state = transport.state
        let plan = transport.plan
        let lookahead = options.lookaheadSeconds
        let position = transport.position(at: now)
        let tick = transport.tick(at: now)
        let upcoming = transport.notes(at: now, ahead: lookahead)
        let lines = transport.barLines(at: now, ahead: lookahead)
        let local = lock.withLock { (showHelp, showNames, message, loopOn, loopPasses, loopMarkStart, loopMarkEnd) }

        var model = ScreenModel()
        model.lookaheadSeconds = lookahead
        model.noteNaming = options.noteNaming
        model.showNoteNames = local.1
        model.showFingers = options.showFingers || local.1
        model.message = local.2

        var keyboard = KeyboardState()
        var notes: [FallingNote] = []
        notes.reserveCapacity(upcoming.count)
        for n in upcoming {
            let role = Self.role(n.cue)
            let finger = model.showFingers ? options.fingers[n.cue.index] : nil
            notes.append(FallingNote(pitch: Int(n.cue.pitch), start: n.start - now, end: n.end - now, role: role, finger: finger))
            if n.start <= now && n.end > now && state == .playing { keyboard.light(Int(n.cue.pitch), role) }
        }
        if let observer {
            for k in observer.litKeys(at: now) { keyboard.light(k.pitch, k.role) }
        }
        model.notes = notes
        model.keyboard = keyboard
        model.barLines = lines.map { BarLine(seconds: $0.time - now, bar: $0.bar) }

        let loopBars = plan.bars
        if let loopBars {
            if let wrap = lines.first(where: { $0.bar == loopBars.lowerBound && $0.time > now + 0.01 }) {
                model.loopEndSeconds = wrap.time - now
            }
            if let first = lines.first(where: { $0.bar == loopBars.lowerBound && $0.time >= now }) {
                model.loopStartSeconds = first.time - now
            }
        }

        var status = StatusInfo()
        status.title = title
        status.playing = state == .playing
        status.bar = position.bar
        status.beat = position.beat
        status.bars = lesson.bars.lastNumber
        status.bpm = state == .playing ? transport.bpm(at: now) : transport.effectiveBPM
        status.tempoPercent = Int(transport.tempoPercent.rounded())
        status.hand = plan.hands.rawValue
        status.otherHand = Self.otherName(plan.otherHand)
        if let loopBars {
            status.loop = LoopStatus(startBar: loopBars.lowerBound, endBar: loopBars.upperBound, enabled: local.3, pass: local.4)
        } else if let a = local.5, let b = local.6 {
            status.loop = LoopStatus(startBar: a, endBar: b, enabled: false, pass: 0)
        }
        status.metronome = plan.metronome.enabled
        status.mode = observer?.modeName ?? "watch"
        model.status = status

        let barList = lesson.bars.bars
        let index = lesson.bars.index(atTick: Int(tick))
        var fraction = 0.0
        if barList.indices.contains(index) {
            let bar = barList[index]
            fraction = bar.lengthTicks > 0 ? min(1, max(0, (tick - Double(bar.startTick)) / Double(bar.lengthTicks))) : 0
        }
        var timeline = TimelineInfo(position: Double(index) + fraction, length: Double(max(1, barList.count)))
        let marks: ClosedRange<Int>? = loopBars ?? local.5.flatMap { a in local.6.map { b in a...max(a, b) } }
        if let marks, let first = barList.firstIndex(where: { $0.number == marks.lowerBound }),
           let last = barList.firstIndex(where: { $0.number == marks.upperBound }) {
            timeline.loopStart = Double(first)
            timeline.loopEnd = Double(last + 1)
            timeline.loopEnabled = loopBars != nil
        }
        model.timeline = timeline

        model.pitchRange = pitchRange
        if local.0 {
            model.overlay = .help
        } else if let overlay = observer?.overlay {
            model.overlay = overlay
        }
        observer?.decorate(&model, now: now)
        return model
    }

    private static func role(_ cue: NoteCue) -> NoteRole {
        guard cue.practised else { return .accompaniment }
        switch cue.part.hand {
        case .right?: return .rightHand
        case .left?: return .leftHand
        case nil: return .accompaniment
        }
    }
}
