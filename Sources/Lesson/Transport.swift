#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Clocks
import MIDIFile


/// A pass that just ended, handed to whoever decides whether it was clean (the Judge's own
/// `PassReport` holds the scores).
public struct FinishedPass: Equatable, Sendable {
    public var pass: Int
    public var tempoPercent: Double
    public var startTime: Double
    public var endTime: Double
}

/// Plays a practice plan against a clock: pull-based, for a realtime dispatch thread.
///
/// The thread asks `nextEventTime()`, sleeps until then, and calls `advance(to: clock.now)`,
/// which returns every event due with its clock time (synth messages to send at once,
/// display events for the screen). A value with no lock: one owner (the practice runner's
/// thread) mutates it, and other threads read copies of it (an immutable snapshot). Pausing,
/// seeking and stopping return the note-offs that silence what is sounding, so no note ever hangs.
///
/// Driving it from a dispatcher that keeps its own timeline (position seconds that freeze
/// while paused): give the transport a `VirtualClock`, `clock.set(position)` before each
/// `advance(to: position)`, and forward `.synth` events to the sound output and the rest to
/// the screen/judge. Seeking is by bar (`seek(toBar:)`), not by seconds, because a loop's
/// seconds repeat.
///
/// Passes: the loop (or whole lesson) is played `repeat` times; before each new pass
/// `isPassClean` is asked about the one that ended, and the speed trainer steps up only
/// after clean passes. Until scoring exists every pass is clean (the default).
public struct Transport: Sendable {
    public enum State: Equatable, Sendable {
        case stopped, playing, paused, finished
    }

    public let lesson: Lesson
    /// The plan as given, with any live changes (tempo, metronome) applied.
    public var plan: PracticePlan { currentPlan }
    private var currentPlan: PracticePlan
    public let clock: any TimeSource
    /// Bars played each pass.
    public var bars: ClosedRange<Int> { barRange }
    private var barRange: ClosedRange<Int>
    /// Asked once per finished pass by `advance(to:)`; a Judge plugs in here (or passes its
    /// own to `advance(to:isPassClean:)`).
    public var isPassClean: @Sendable (FinishedPass) -> Bool = { _ in true }
    private var planner: PassPlanner
    private var stateValue: State = .stopped
    /// The pass playing; it keeps its own place in its events (`next()`).
    private var schedule: PassSchedule
    /// Clock time of the schedule's offset 0.
    private var scheduleStart = 0.0
    private var passStart = 0.0
    private var pausedOffset = 0.0
    private var passNumber = 1
    private var percent: Double
    private var currentBPM: Double
    private var sounding: [UInt16: Int] = [:]
    /// The guide notes sounding (`TransportEvent.guide`), silenced on the synth alone.
    private var guideSounding: [UInt16: Int] = [:]
    private var pedalDown = Set<UInt8>()
    private var range: Range<Int>
    private var wrapSchedule: PassSchedule?
    private var holding = false
    private var stopping = false

    /// Waits (paused) at the end of each pass until `play()`, and starts the next pass with the
    /// plan's count-in: the playing modes, so the learner can read the results and come in on
    /// time. Set it from the thread that owns the transport's commands.
    public var holdBetweenPasses: Bool {
        get { holding }
        set { holding = newValue }
    }

    /// Finishes after the pass being played, whatever the plan's repeats (watch mode without a
    /// loop: the piece is played once).
    public var stopsAtEnd: Bool {
        get { stopping }
        set { stopping = newValue }
    }

    /// Validates the plan (throws its one-line error) and prepares the first pass.
    public init(lesson: Lesson, plan: PracticePlan, clock: any TimeSource) throws(PlanError) {
        try plan.validate(for: lesson)
        self.lesson = lesson
        self.currentPlan = plan
        self.clock = clock
        barRange = plan.barRange(in: lesson)
        range = plan.tickRange(in: lesson)
        planner = try PassPlanner(plan: currentPlan, lesson: lesson)
        percent = planner.firstPass()
        schedule = PassSchedule(lesson: lesson, plan: currentPlan, from: range.lowerBound, to: range.upperBound, percent: percent,
                                options: .init(pass: 1, countIn: currentPlan.countIn))
        currentBPM = lesson.tempoMap.bpm(atTick: range.lowerBound) * percent / 100
    }

    public var state: State { stateValue }
    /// The pass being played (1-based).
    public var pass: Int { passNumber }
    /// Tempo of the current pass as a percent of the file's.
    public var tempoPercent: Double { percent }
    /// Effective quarter-note BPM at the current position (file tempo × pass tempo).
    public var effectiveBPM: Double { currentBPM }

    /// The lesson tick at a clock time (during the count-in: the loop's first tick).
    public func tick(at now: Double) -> Double {
        switch stateValue {
        case .playing: return schedule.tick(atOffset: now - scheduleStart)
        case .paused: return schedule.tick(atOffset: pausedOffset)
        case .stopped: return Double(schedule.startTick)
        case .finished: return Double(range.upperBound)
        }
    }

    /// The count-in's click under way at a clock time (beat 2 of 4), nil once the music plays.
    public func countIn(at now: Double) -> (beat: Int, beats: Int)? {
        let offset: Double
        switch stateValue {
        case .playing: offset = now - scheduleStart
        case .paused: offset = pausedOffset
        case .stopped, .finished: return nil
        }
        let beats = schedule.countInBeats
        guard beats > 0, offset >= 0, offset < schedule.countInSeconds else { return nil }
        return (min(beats, Int(offset / schedule.countInSeconds * Double(beats)) + 1), beats)
    }

    /// The clock time the current pass started as a display places it at `now` (paused: where
    /// it would have to have started; stopped: now), nil once finished.
    private func displayStart(at now: Double) -> Double? {
        switch stateValue {
        case .playing: return scheduleStart
        case .paused: return now - pausedOffset
        case .stopped: return now
        case .finished: return nil
        }
    }

    /// Notes sounding at `now` or starting within `seconds` after it, with clock times: what
    /// a falling-notes display draws. Across the end of a pass the next pass is included at
    /// the current tempo (a speed-trainer step may make it a little faster when it comes).
    public func notes(at now: Double, ahead seconds: Double) -> [TimedNote] {
        guard let base = displayStart(at: now) else { return [] }
        let horizon = now + seconds
        var out = schedule.notesShown(now: now, horizon: horizon, offset: base, lesson: lesson).notes
        func collect(_ list: PassSchedule, offset: Double) {
            out += list.notesShown(now: now, horizon: horizon, offset: offset, lesson: lesson).notes
        }
        var passEnd = base + schedule.duration
        var passes = passNumber
        while passEnd <= horizon, morePassesLikely(after: passes) {
            let wrap = nextPassSchedule()
            guard wrap.duration > 0 else { break }
            collect(wrap, offset: passEnd)
            passEnd += wrap.duration
            passes += 1
        }
        return out
    }

    /// Bar lines at or after `now` within `seconds`, with clock times (the next pass's at
    /// the current tempo), for the falling-notes view.
    public func barLines(at now: Double, ahead seconds: Double) -> [TimedBar] {
        guard let base = displayStart(at: now) else { return [] }
        let horizon = now + seconds
        var out: [TimedBar] = []
        // Bar starts are in time order: bisect to the first one shown.
        var lo = 0, hi = schedule.barStarts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if base + schedule.barStarts[mid].time >= now { hi = mid } else { lo = mid + 1 }
        }
        for b in schedule.barStarts[lo...] {
            if base + b.time > horizon { break }
            out.append(TimedBar(time: base + b.time, bar: b.bar))
        }
        var passEnd = base + schedule.duration
        var passes = passNumber
        while passEnd <= horizon, morePassesLikely(after: passes) {
            let wrap = nextPassSchedule()
            guard wrap.duration > 0 else { break }
            for b in wrap.barStarts where passEnd + b.time <= horizon { out.append(TimedBar(time: passEnd + b.time, bar: b.bar)) }
            passEnd += wrap.duration
            passes += 1
        }
        return out
    }

    /// The next pass's schedule at the current tempo: the one kept by the last change, or
    /// built now (a copy read on another thread never writes its cache).
    private func nextPassSchedule() -> PassSchedule {
        if let wrap = wrapSchedule, wrap.factor == percent / 100 { return wrap }
        return PassSchedule(lesson: lesson, plan: currentPlan, from: range.lowerBound, to: range.upperBound, percent: percent)
    }

    /// Keeps the next pass's schedule ready for the views (built once per tempo, plan or loop
    /// change, by the owner, so a snapshot's `notes(at:ahead:)` does not rebuild it per frame).
    private mutating func refreshWrap() {
        guard morePassesLikely(after: passNumber), wrapSchedule?.factor != percent / 100 else { return }
        wrapSchedule = PassSchedule(lesson: lesson, plan: currentPlan, from: range.lowerBound, to: range.upperBound, percent: percent)
    }

    private func morePassesLikely(after passes: Int) -> Bool {
        switch currentPlan.repeatMode {
        case .forever: return true
        case .times(let n): return passes < n
        }
    }

    /// Seconds the current pass lasts at its tempo (count-in included).
    public var passDuration: Double { schedule.duration }

    /// Seconds of the current pass still to play from clock time `now` at its tempo; frozen
    /// while paused (a wait-mode pause moves the pass's end later), nil when not started or
    /// finished. A routine's time limit uses it to let a pass that ends near the limit finish.
    public func remainingInPass(at now: Double) -> Double? {
        switch stateValue {
        case .playing: return max(0, schedule.duration - (now - scheduleStart))
        case .paused: return max(0, schedule.duration - pausedOffset)
        case .stopped, .finished: return nil
        }
    }

    /// Effective quarter-note BPM at a clock time, from the position itself (does not wait
    /// for `advance` to deliver a `.tempo` event).
    public func bpm(at now: Double) -> Double {
        let t = tick(at: now)
        let p = tempoPercent
        return lesson.tempoMap.bpm(atTick: Int(t)) * p / 100
    }

    /// Bar and beat at a clock time.
    public func position(at now: Double) -> Position {
        let t = tick(at: now)
        return lesson.bars.position(atTick: min(Int(t), max(range.lowerBound, range.upperBound - 1)))
    }

    /// Starts, or resumes after a pause, at `clock.now`. Returns events due now (on resume:
    /// the sustain pedal put back down).
    @discardableResult
    public mutating func play() -> [TimedEvent] {
        let now = clock.now
        switch stateValue {
        case .playing:
            return []
        case .paused:
            scheduleStart = now - pausedOffset
            passStart = scheduleStart
            stateValue = .playing
            return pedalDown.sorted().map { TimedEvent(time: now, event: .synth(.controlChange(channel: $0, controller: 64, value: 127))) }
        case .stopped, .finished:
            if stateValue == .finished { reset() }
            scheduleStart = now
            passStart = now
            schedule.rewind()
            stateValue = .playing
            return []
        }
    }

    /// Pauses; returns the note-offs (and pedal lifts) to send now.
    @discardableResult
    public mutating func pause() -> [TimedEvent] {
        guard stateValue == .playing else { return [] }
        let now = clock.now
        pausedOffset = max(0, now - scheduleStart)
        stateValue = .paused
        return silence(at: now, keepPedalState: true)
    }

    /// Stops and rewinds to the first pass; returns the note-offs to send now.
    @discardableResult
    public mutating func stop() -> [TimedEvent] {
        let out = silence(at: clock.now, keepPedalState: false)
        reset()
        return out
    }

    /// Moves to the start of a bar inside the plan's bars, keeping the pass and its tempo.
    /// Returns the note-offs to send now. The loop continues from there; the next pass starts
    /// at the loop's first bar as usual.
    @discardableResult
    public mutating func seek(toBar number: Int) throws(PlanError) -> [TimedEvent] {
        let current = bars
        guard current.contains(number), let bar = lesson.bars.bar(number: number) else {
            throw PlanError("bar \(number) is outside the bars being practised (\(current.lowerBound)–\(current.upperBound))")
        }
        let now = clock.now
        var out = silence(at: now, keepPedalState: false)
        let announce = bar.startTick == range.lowerBound
        currentBPM = lesson.tempoMap.bpm(atTick: bar.startTick) * percent / 100
        schedule = PassSchedule(lesson: lesson, plan: currentPlan, from: bar.startTick, to: range.upperBound, percent: percent,
                                options: .init(pass: passNumber, countIn: false, announce: announce))
        if !announce {
            // The rest of the pass still ends with its report.
            schedule = schedule.withPassFinished(pass: passNumber, percent: percent)
        }
        switch stateValue {
        case .playing:
            scheduleStart = now
        case .paused:
            pausedOffset = 0
        case .stopped, .finished:
            stateValue = .paused
            pausedOffset = 0
        }
        if !announce { out.append(TimedEvent(time: now, event: .moved(bar: number, pass: passNumber, tempoPercent: percent))) }
        return out
    }

    /// Turns the count-in before a pass on or off (the playing modes have one); a pass already
    /// under way is not changed.
    public mutating func setCountIn(_ on: Bool) {
        currentPlan.countIn = on
    }

    /// Changes the tempo at once (10–400 % of the file's), continuing from the current
    /// position: held notes keep sounding and end at their new times. Without a speed
    /// trainer the tempo also holds for the following passes. Returns events to send now.
    @discardableResult
    public mutating func setTempo(percent newPercent: Double) throws(PlanError) -> [TimedEvent] {
        _ = try TempoPercent(newPercent)
        planner.override(percent: newPercent)
        if currentPlan.speedTrainer == nil { currentPlan.tempo = .percent(newPercent) }
        return continuePass(percent: newPercent)
    }

    /// Turns the metronome on or off, or changes its volume (0–1), from the current position.
    @discardableResult
    public mutating func setMetronome(enabled: Bool, volume: Double? = nil) -> [TimedEvent] {
        currentPlan.metronome.enabled = enabled
        if let volume { currentPlan.metronome.volume = min(1, max(0, volume)) }
        return continuePass(percent: percent)
    }

    /// Changes which hands are practised and what the other hand does, from the current
    /// position (notes already sounding end as written). Throws for a hand the lesson lacks.
    @discardableResult
    public mutating func setHands(_ hands: PracticePlan.Hands, other: PracticePlan.OtherHand) throws(PlanError) -> [TimedEvent] {
        var candidate = plan
        candidate.hands = hands
        candidate.otherHand = other
        try candidate.validate(for: lesson)
        currentPlan.hands = hands
        currentPlan.otherHand = other
        return continuePass(percent: percent)
    }

    /// What Etude sounds of the learner's own part (the mode and `--guide` decide), from the
    /// current position; notes already sounding end as written.
    @discardableResult
    public mutating func setLearnerPart(_ part: PracticePlan.LearnerPart) -> [TimedEvent] {
        guard currentPlan.learnerPart != part else { return [] }
        currentPlan.learnerPart = part
        return continuePass(percent: percent)
    }

    /// Loops other bars (nil = the whole lesson): silences what sounds, restarts at pass 1
    /// from the new first bar (at once when playing), speed trainer from its start. Returns
    /// the note-offs to send now.
    @discardableResult
    public mutating func setLoop(_ bars: ClosedRange<Int>?) throws(PlanError) -> [TimedEvent] {
        var candidate = plan
        candidate.bars = bars
        try candidate.validate(for: lesson)
        let now = clock.now
        let out = silence(at: now, keepPedalState: false)
        currentPlan.bars = bars
        barRange = candidate.barRange(in: lesson)
        range = candidate.tickRange(in: lesson)
        wrapSchedule = nil
        restartFirstPass(at: now)
        return out
    }

    /// Switches to a whole new plan (e.g. "loop the weakest section at 70 % with the speed
    /// trainer on"): silences what sounds, restarts at pass 1 of the new plan's first bar (at
    /// once when playing). Throws the plan's one-line error and keeps the old plan then.
    @discardableResult
    public mutating func replacePlan(_ newPlan: PracticePlan) throws(PlanError) -> [TimedEvent] {
        try newPlan.validate(for: lesson)
        let newPlanner = try PassPlanner(plan: newPlan, lesson: lesson)
        let now = clock.now
        let out = silence(at: now, keepPedalState: false)
        currentPlan = newPlan
        planner = newPlanner
        barRange = newPlan.barRange(in: lesson)
        range = newPlan.tickRange(in: lesson)
        wrapSchedule = nil
        restartFirstPass(at: now)
        return out
    }

    /// Back to pass 1 of the (new) bars: at once when playing, else where it stands.
    private mutating func restartFirstPass(at now: Double) {
        let wasPlaying = stateValue == .playing
        reset()
        if wasPlaying {
            stateValue = .playing
            scheduleStart = now
            passStart = now
        }
    }

    /// Rebuilds the rest of the current pass from the current position (tempo or metronome
    /// changed), keeping what sounds; returns the click note-offs to send now.
    private mutating func continuePass(percent newPercent: Double) -> [TimedEvent] {
        let now = clock.now
        wrapSchedule = nil
        let offset: Double
        switch stateValue {
        case .playing: offset = now - scheduleStart
        case .paused: offset = pausedOffset
        case .stopped, .finished:
            percent = newPercent
            resetKeepingTempo()
            return []
        }
        if schedule.startPending {
            // Nothing of the pass was played yet (its start still to come): it begins whole,
            // announced, at the new tempo, so the judge sees its start.
            let oldPercent = percent
            percent = newPercent
            schedule = PassSchedule(lesson: lesson, plan: currentPlan, from: schedule.startTick, to: range.upperBound, percent: newPercent,
                                    options: .init(pass: passNumber, countIn: schedule.countInBeats > 0))
            currentBPM = lesson.tempoMap.bpm(atTick: schedule.startTick) * newPercent / 100
            return newPercent != oldPercent ? [TimedEvent(time: now, event: .tempoChanged(tempoPercent: newPercent))] : []
        }
        var out: [TimedEvent] = []
        // Clicks are short; end the ones sounding rather than carrying them over.
        for key in sounding.keys.sorted() where UInt8(key >> 8) == Metronome.channel
            && (UInt8(key & 0xFF) == Metronome.accentKey || UInt8(key & 0xFF) == Metronome.beatKey) {
            out.append(TimedEvent(time: now, event: .synth(.noteOff(channel: Metronome.channel, key: UInt8(key & 0xFF), velocity: 0))))
            sounding[key] = nil
        }
        let current = schedule.tick(atOffset: offset)
        let inCountIn = offset < schedule.countInSeconds
        let from = inCountIn ? schedule.startTick : min(range.upperBound, Int(current) + 1)
        let map = lesson.tempoMap
        let oldPercent = percent
        percent = newPercent
        var next = PassSchedule(lesson: lesson, plan: currentPlan, from: from, to: range.upperBound, percent: newPercent,
                                options: .init(pass: passNumber, countIn: inCountIn, announce: false, restoreState: false,
                                               releaseHeldSince: range.lowerBound))
        next = next.withPassFinished(pass: passNumber, percent: newPercent)
        // Offset 0 of the new schedule is the tick `from`, a moment after now.
        let gap = inCountIn ? 0 : max(0, (map.seconds(atTick: from) - map.seconds(atTick: current)) / (newPercent / 100))
        let start = now + gap
        schedule = next
        currentBPM = map.bpm(atTick: Int(current)) * newPercent / 100
        switch stateValue {
        case .playing: scheduleStart = start
        default: pausedOffset = -gap
        }
        if newPercent != oldPercent { out.append(TimedEvent(time: now, event: .tempoChanged(tempoPercent: newPercent))) }
        return out
    }

    private mutating func resetKeepingTempo() {
        schedule = PassSchedule(lesson: lesson, plan: currentPlan, from: range.lowerBound, to: range.upperBound, percent: percent,
                                options: .init(pass: passNumber, countIn: currentPlan.countIn))
        currentBPM = lesson.tempoMap.bpm(atTick: range.lowerBound) * percent / 100
    }

    /// Clock time of the next due event, nil when nothing is scheduled (not playing).
    public func nextEventTime() -> Double? {
        guard stateValue == .playing else { return nil }
        if let t = schedule.nextTime { return scheduleStart + t }
        return scheduleStart + schedule.duration
    }

    /// Every event due at or before `now`, in order, with its clock time. Crosses pass
    /// boundaries (asking `isPassClean`, stepping the speed trainer) as often as needed.
    public mutating func advance(to now: Double) -> [TimedEvent] {
        let hook = isPassClean
        return advance(to: now, isPassClean: hook)
    }

    /// As `advance(to:)`, asking `clean` (not the stored hook) whether each finished pass was
    /// clean: the owner of both the transport and its judge passes the judge here.
    public mutating func advance(to now: Double, isPassClean clean: (FinishedPass) -> Bool) -> [TimedEvent] {
        defer { refreshWrap() }
        var out: [TimedEvent] = []
        while stateValue == .playing {
            while let t = schedule.nextTime, scheduleStart + t <= now, let e = schedule.next() {
                let timed = TimedEvent(time: scheduleStart + e.time, event: e.event)
                track(timed.event)
                out.append(timed)
            }
            let end = scheduleStart + schedule.duration
            guard schedule.isExhausted, end <= now else { break }
            let report = FinishedPass(pass: passNumber, tempoPercent: percent, startTime: passStart, endTime: end)
            let passWasClean = clean(report)
            guard !stopping, let next = planner.next(afterCleanPass: passWasClean) else {
                stateValue = .finished
                out.append(TimedEvent(time: end, event: .finished))
                break
            }
            let finishedPass = passNumber
            passNumber += 1
            percent = next
            schedule = PassSchedule(lesson: lesson, plan: currentPlan, from: range.lowerBound, to: range.upperBound, percent: percent,
                                    options: .init(pass: passNumber, countIn: holding && currentPlan.countIn))
            scheduleStart = end
            passStart = end
            if holding {
                stateValue = .paused
                pausedOffset = 0
                out.append(TimedEvent(time: end, event: .heldAfterPass(pass: finishedPass)))
                break
            }
        }
        return out
    }

    /// Convenience for a dispatch loop: the events due at `clock.now`.
    public mutating func advance() -> [TimedEvent] {
        advance(to: clock.now)
    }

    // MARK: Private

    private mutating func track(_ event: TransportEvent) {
        switch event {
        case .guide(let kind):
            switch kind {
            case .noteOn(let c, let k, let v) where v > 0:
                guideSounding[UInt16(c) << 8 | UInt16(k), default: 0] += 1
            case .noteOn(let c, let k, _), .noteOff(let c, let k, _):
                let key = UInt16(c) << 8 | UInt16(k)
                if let n = guideSounding[key] {
                    if n <= 1 { guideSounding[key] = nil } else { guideSounding[key] = n - 1 }
                }
            default:
                break
            }
        case .synth(let kind):
            switch kind {
            case .noteOn(let c, let k, let v) where v > 0:
                sounding[UInt16(c) << 8 | UInt16(k), default: 0] += 1
            case .noteOn(let c, let k, _), .noteOff(let c, let k, _):
                let key = UInt16(c) << 8 | UInt16(k)
                if let n = sounding[key] {
                    if n <= 1 { sounding[key] = nil } else { sounding[key] = n - 1 }
                }
            case .controlChange(let c, 64, let v):
                if v >= 64 { pedalDown.insert(c) } else { pedalDown.remove(c) }
            default:
                break
            }
        case .tempo(let bpm):
            currentBPM = bpm
        default:
            break
        }
    }

    private mutating func silence(at now: Double, keepPedalState: Bool) -> [TimedEvent] {
        var out: [TimedEvent] = []
        for key in sounding.keys.sorted() {
            out.append(TimedEvent(time: now, event: .synth(.noteOff(channel: UInt8(key >> 8), key: UInt8(key & 0xFF), velocity: 0))))
        }
        sounding.removeAll()
        for key in guideSounding.keys.sorted() {
            out.append(TimedEvent(time: now, event: .guide(.noteOff(channel: UInt8(key >> 8), key: UInt8(key & 0xFF), velocity: 0))))
        }
        guideSounding.removeAll()
        for c in pedalDown.sorted() {
            out.append(TimedEvent(time: now, event: .synth(.controlChange(channel: c, controller: 64, value: 0))))
        }
        if !keepPedalState { pedalDown.removeAll() }
        return out
    }

    private mutating func reset() {
        stateValue = .stopped
        percent = planner.firstPass()
        passNumber = 1
        schedule = PassSchedule(lesson: lesson, plan: currentPlan, from: range.lowerBound, to: range.upperBound, percent: percent,
                                options: .init(pass: 1, countIn: currentPlan.countIn))
        pausedOffset = 0
        currentBPM = lesson.tempoMap.bpm(atTick: range.lowerBound) * percent / 100
    }
}

extension PassSchedule {
    /// The same schedule with a `passFinished` report at its end (used for the rest of a pass
    /// after a seek, which does not announce a new pass start).
    func withPassFinished(pass: Int, percent: Double) -> PassSchedule {
        var copy = self
        copy.extraEvents(TimedEvent(time: duration, event: .passFinished(pass: pass, tempoPercent: percent)))
        return copy
    }
}
