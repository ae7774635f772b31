import Follow
import Foundation
import Judge
import Lesson
import MIDIFile

/// What the Coach asks its caller to do after an event: the caller (the practice session)
/// applies these to the transport runner, the screen and the report file.
public enum CoachAction: Equatable, Sendable {
    /// Wait mode reached a chord the learner has not yet held: pause the transport.
    case pauseTransport
    /// The chord waited for is held: resume the transport (it continues from where it waited).
    case resumeTransport
    /// The keys the learner holds now changed (`wrong` are the held keys that were not expected).
    case learnerKeys(held: Set<Int>, wrong: Set<Int>)
    /// A wrong key: flash it red until the given clock time.
    case flashWrong(pitch: Int, until: Double)
    /// One note judged (hit early/on time/late, wrong pitch, missed, extra), for live feedback.
    case judged(Judgement)
    /// A pass ended: its report (the results panel, `--report`).
    case passReport(pass: Int, tempoPercent: Double, report: PassReport)
    /// After a full run with mistakes: the weakest section and the plan that loops it.
    case weakestSection(section: SectionReport, name: String, plan: PracticePlan)
}

/// Turns the transport's events and the learner's played notes into practice: the wait gate,
/// play-mode matching, pass reports, the speed trainer's clean-pass test, the weakest
/// section and a recording of the last pass.
///
/// One owner, no lock: in a session the Coach lives on the runner's thread (the transport's
/// events, its ticks and the learner's notes all reach it there, through the runner's inbox),
/// and every other thread reads the `CoachSnapshot` the session publishes after each change.
/// Used alone (tests, a quiz) it belongs to the thread that calls it. It never calls back into
/// the transport, so `Transport.isPassClean` may ask it in the middle of a transport command.
///
/// Times: expected notes are laid out in pass-relative seconds from a `PassSchedule` built
/// like the transport's; each `.noteStarted` cue re-anchors pass time to clock time, so
/// pauses (wait mode, the space key) shift the expectations with the music. A tempo change
/// in the middle of a pass re-times the notes still to come; a jump to another bar starts the
/// pass's scoring afresh from that bar.
public final class Coach: @unchecked Sendable {
    public let lesson: Lesson
    public private(set) var plan: PracticePlan
    public let mode: PracticeMode
    public let window: TimingWindow
    /// Accuracy (0–100) at or above which a pass is clean and the speed trainer steps up.
    public let cleanThreshold: Double
    /// True for onset-only input (the computer keyboard): wait mode counts a key from its press.
    public let onsetOnlyInput: Bool
    /// The learner's input offset in seconds (positive = their keys arrive late): subtracted
    /// from every played time before it is judged or recorded (`etude calibrate`, `--offset`).
    public let inputOffset: Double

    private var pass = 0
    private var passPercent = 100.0
    /// The tempo the rest of the pass plays at (the pass's own until the learner changes it).
    private var currentPercent = 100.0
    /// After a jump to a bar: the new position's first event (its tempo) sets the anchor, so
    /// nothing is judged missed while a moved-but-stopped transport waits.
    private var awaitingStart = false
    /// Clock time minus pass time, from the last `.noteStarted` cue (or the pass start).
    private var anchor = 0.0
    /// What the learner is to play this pass (judging modes only; watch mode judges nothing).
    private var expected: [ExpectedNote] = []
    /// Grace notes and ornaments' notes of the practised hands: played by the learner or not,
    /// never judged.
    private var accepted = AcceptedNotes()
    /// The pass as judged: each note's pass-relative start (to re-anchor the clock) and
    /// whether it is expected are looked up in it, not kept per note (a 1,000,000-note pass).
    private var passNotes: PassNotes?
    /// Tempo changes inside the pass so far: a start after `after` moves by `scale` about it.
    private var retimes: [(after: Double, scale: Double)] = []
    private var pausedAt: Double?
    private var flashes: [CoachSnapshot.Flash] = []
    private var weakest: (section: SectionReport, name: String)?
    private var matcher: PlayMatcher?
    private var gate: WaitGate?
    private var waitJudgements: [Judgement] = []
    private var pausedForChord: Int?
    private var finishedPasses: [Int: PassReport] = [:]
    private var reports: [CoachSnapshot.Reported] = []
    private var held: Set<Int> = []
    private var wrongHeld: Set<Int> = []
    private var recorder: PerformanceRecorder?
    private var lastRecording: PerformanceRecorder?
    private var lastRecordingEnd: Double?
    private var fullRun = false
    private var judged: [Int: Verdict] = [:]
    /// Notes of the last finished pass struck right but held or played off (the ear's faults).
    private var heardOff: [Int: VerdictMark] = [:]
    /// The ear (releases, loudness): every key event and pedal change of the pass in pass time.
    private var ear = EarLog()

    /// - Parameters:
    ///   - plan: the plan the transport plays (hands practised, bars, count-in).
    ///   - window: the matching window (`--window`, default ±150 ms).
    ///   - cleanThreshold: accuracy for a clean pass (default 90 %).
    ///   - inputOffsetMs: the learner's calibrated offset in ms, subtracted from played times.
    public init(lesson: Lesson, plan: PracticePlan, mode: PracticeMode, window: TimingWindow = TimingWindow(),
                cleanThreshold: Double = 90, onsetOnlyInput: Bool = false, inputOffsetMs: Double = 0) {
        self.lesson = lesson
        self.plan = plan
        self.mode = mode
        self.window = window
        self.cleanThreshold = cleanThreshold
        self.onsetOnlyInput = onsetOnlyInput
        inputOffset = inputOffsetMs.isFinite ? inputOffsetMs / 1000 : 0
    }

    // MARK: Feeding

    /// Feed every batch the transport delivers (`TransportRunner`'s `onEvents`).
    public func handle(events: [TimedEvent]) -> [CoachAction] {
        var out: [CoachAction] = []
        for e in events { out += handleEvent(e) }
        if let last = events.last { out += expire(now: last.time) }
        return noted(out)
    }

    /// Feed every played note (key press or release) with its monotonic time.
    public func handle(played event: PlayedEvent) -> [CoachAction] {
        noted(played(event))
    }

    /// The session's runner thread calls this on its own clock (every few milliseconds, paused
    /// or not), so missed notes are judged while nothing is played and nothing is drawn.
    public func tick(now: Double) -> [CoachAction] {
        flashes.removeAll { $0.until <= now }
        return noted(expire(now: now))
    }

    private func noted(_ actions: [CoachAction]) -> [CoachAction] {
        for case .judged(let j) in actions where j.verdict != .extra {
            // A note a wrong key stood for stays wrong when its window closes (not also missed).
            if let id = j.expected?.id, !(j.verdict == .missed && judged[id] == .wrongPitch) { judged[id] = j.verdict }
        }
        return actions
    }

    /// The music's clock seconds per real second now (`--recording`'s pace warps the clock; the
    /// session sets it each tick): play mode's window and timing errors stay in real seconds.
    public var timeScale: Double = 1

    /// The speed trainer's question: was this pass at or above the threshold? Plug it into
    /// `transport.isPassClean = coach.isPassClean`. In watch mode every pass is clean.
    public var isPassClean: @Sendable (FinishedPass) -> Bool {
        { [self] finished in
            guard mode.judges else { return true }
            return finish(pass: finished.pass, endTime: finished.endTime).isClean(threshold: cleanThreshold)
        }
    }

    /// The transport was paused at this clock time (space key, or a `.pauseTransport` action
    /// applied): nothing is judged missed while the music stands still.
    public func transportPaused(at time: Double) {
        if pausedAt == nil { pausedAt = time }
    }

    /// The transport resumed: expectations move on by the length of the pause.
    public func transportResumed(at time: Double) {
        if let p = pausedAt { anchor += max(0, time - p) }
        pausedAt = nil
    }

    /// The sustain pedal went down or up (controller 64, at or above 64 is down) at this clock
    /// time: the ear hears notes lifted under it sounding on.
    public func handle(pedalDown down: Bool, at time: Double) {
        if mode.judges { ear.pedal.append((time - inputOffset - anchor, down)) }
    }

    /// Tells the Coach the plan changed (hands, loop): the next pass uses it.
    public func update(plan newPlan: PracticePlan) {
        plan = newPlan
    }

    // MARK: Reading

    /// How long a wrong key stays red.
    public static let flashSeconds = 0.3

    /// Everything a reader on another thread may see, as one value (`CoachSnapshot`).
    public func snapshot() -> CoachSnapshot {
        var waiting: (chord: [ExpectedNote], struck: Set<Int>)?
        if mode == .wait, let g = gate, let chord = g.current { waiting = (chord.notes, g.struck) }
        return CoachSnapshot(lesson: lesson, plan: plan, mode: mode, inputOffset: inputOffset, anchor: anchor, expected: expected,
                             waiting: waiting, held: held, wrongHeld: wrongHeld, flashes: flashes, weakest: weakest,
                             judgedNotes: judged, notesHeardOff: heardOff, reports: reports, finishedPasses: finishedPasses,
                             lastPassRecording: lastRecording, lastRecordingEnd: lastRecordingEnd)
    }

    /// What the learner sees of the judging at `now` (`CoachSnapshot.feedback(now:)`).
    public func feedback(now: Double) -> SessionState.Feedback { snapshot().feedback(now: now) }

    /// How each note of the pass under way was judged so far, by index into `Lesson.notes`.
    public var judgedNotes: [Int: Verdict] { judged }

    /// Notes of the last finished pass struck right but released short, held long, or played
    /// loud or soft: the staff marks them until the next pass starts.
    public var notesHeardOff: [Int: VerdictMark] { heardOff }

    /// The weakest section named after the last full run (nil before, or when all was right).
    public var weakestSection: (section: SectionReport, name: String)? { weakest }

    /// The report of finished pass `number` (the history stores its bars), nil when not judged.
    public func report(forPass number: Int) -> PassReport? { finishedPasses[number] }

    /// Reports of every finished pass so far, in order.
    public var passReports: [PassReport] { reports.map(\.report) }
    public var lastReport: PassReport? { reports.last?.report }

    /// The results panel's figures for the last pass.
    public var lastResults: SessionState.Results? { snapshot().lastResults }

    /// Keys the learner holds now and which of them are wrong.
    public var learnerKeys: (held: Set<Int>, wrong: Set<Int>) { (held, wrongHeld) }

    /// Wait mode: the pitches still to press for the chord waited for (key hints).
    public var waitingFor: Set<Int> { snapshot().waitingFor }

    /// Every practised note of the pass under way, judged or not, on the clock (the partner
    /// finds a learner who restarted a few bars back among them).
    public func passOnsets() -> [PartnerTiming.Onset] {
        guard matcher != nil else { return [] }
        return expected.map { PartnerTiming.Onset(pitch: $0.pitch, time: anchor + $0.time, id: $0.id) }
    }

    /// The practised notes of the pass under way from clock time `time` on, judged or not, in
    /// time order, at most `limit`: where a partner that follows the learner waits for them (the
    /// score's next note after where the follower put them, whatever the judge made of the keys).
    public func passOnsets(from time: Double, limit: Int = 24) -> [PartnerTiming.Onset] {
        guard matcher != nil else { return [] }
        // The notes are in time order but for a rolled chord's (a few ticks): start a second early.
        let from = time - anchor
        var lo = 0, hi = expected.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if expected[mid].time < from - 1 { lo = mid + 1 } else { hi = mid }
        }
        var out: [PartnerTiming.Onset] = []
        for e in expected[lo...] {
            if e.time > from + 60 || out.count >= 4 * limit { break }
            if e.time >= from { out.append(PartnerTiming.Onset(pitch: e.pitch, time: anchor + e.time, id: e.id)) }
        }
        out.sort { $0.time < $1.time }
        return Array(out.prefix(limit))
    }

    /// The last finished pass as played (nil before the first pass ends), to save as .mid.
    public var lastPassRecording: PerformanceRecorder? { lastRecording }

    /// The last finished pass as .mid bytes.
    public func lastPassMIDI() -> [UInt8]? { snapshot().lastPassMIDI() }

    /// What the learner sees for a section index, e.g. "Bars 5–8".
    public func sectionName(_ index: Int) -> String { Self.sectionName(index, in: lesson) }

    static func sectionName(_ index: Int, in lesson: Lesson) -> String {
        guard lesson.sections.indices.contains(index) else { return "section \(index + 1)" }
        return lesson.sections[index].name
    }

    /// The plan that loops a section at 70 % with the speed trainer on (70 → 100 % in 5 %
    /// steps after clean passes), keeping the hands practised.
    public func weakSectionPlan(section index: Int) -> PracticePlan? {
        Self.weakSectionPlan(section: index, lesson: lesson, plan: plan, mode: mode)
    }

    static func weakSectionPlan(section index: Int, lesson: Lesson, plan: PracticePlan, mode: PracticeMode) -> PracticePlan? {
        guard lesson.sections.indices.contains(index) else { return nil }
        let s = lesson.sections[index]
        var p = plan
        p.bars = s.firstBar...s.lastBar
        p.tempo = .percent(100)  // the speed trainer sets the tempo, starting at 70 %
        // The learner's own speed trainer (`--speed-trainer`) when they gave one.
        p.speedTrainer = plan.speedTrainer.map { PracticePlan.SpeedTrainer(start: $0.start, target: $0.target, step: $0.step) }
            ?? PracticePlan.SpeedTrainer(start: 70, target: 100, step: 5)
        p.repeatMode = .forever
        // Play and memory count in before each pass; wait mode waits anyway.
        p.countIn = mode.countsIn
        return p
    }

    // MARK: Private

    private func handleEvent(_ timed: TimedEvent) -> [CoachAction] {
        switch timed.event {
        case .passStarted(let number, let percent):
            return startPass(number: number, percent: percent, at: timed.time)
        case .tempoChanged(let percent):
            retime(at: timed.time, to: percent)
            return []
        case .moved(let bar, let number, let percent):
            guard let tick = lesson.bars.bar(number: bar)?.startTick else { return [] }
            let paused = pausedAt != nil
            let out = startPass(number: number, percent: percent, at: timed.time, from: tick)
            if paused { pausedAt = timed.time }
            awaitingStart = true
            return out
        case .tempo:
            // Every schedule (a pass, or the rest of one after a jump) opens with its tempo.
            if awaitingStart {
                anchor = timed.time
                awaitingStart = false
            }
            return []
        case .noteStarted(let cue):
            guard let notes = passNotes, let position = notes.position(ofLessonNote: cue.index) else { return [] }
            let note = notes[position]
            var start = note.start
            for r in retimes where start > r.after { start = r.after + (start - r.after) * r.scale }
            anchor = timed.time - start
            guard note.cue.practised else { return [] }
            if mode == .wait, let g = gate, let chord = g.current, chord.notes.contains(where: { $0.id == cue.index }),
               pausedForChord != g.index {
                pausedForChord = g.index
                return [.pauseTransport]
            }
            return []
        case .passFinished(let number, _):
            var out: [CoachAction] = []
            if mode.judges {
                let report = finish(pass: number, endTime: timed.time)
                out.append(.passReport(pass: number, tempoPercent: passPercent, report: report))
            } else {
                closeRecording(endTime: timed.time)
            }
            return out
        case .finished:
            guard mode.judges, fullRun, let report = reports.last?.report, let weakest = report.weakestSection,
                  let p = weakSectionPlan(section: weakest.section) else { return [] }
            self.weakest = (weakest, sectionName(weakest.section))
            return [.weakestSection(section: weakest, name: sectionName(weakest.section), plan: p)]
        default:
            return []
        }
    }

    /// Starts judging a pass, or (`from` a bar's tick, after a jump) the rest of it: the
    /// judgements so far are dropped and the recording goes on.
    private func startPass(number: Int, percent: Double, at time: Double, from tick: Int? = nil) -> [CoachAction] {
        let continuing = tick != nil && recorder != nil && pass == number
        pass = number
        passPercent = percent
        currentPercent = percent
        awaitingStart = false
        anchor = time
        let range = plan.tickRange(in: lesson)
        fullRun = tick == nil && (plan.bars == nil || plan.barRange(in: lesson) == lesson.bars.firstNumber...lesson.bars.lastNumber)
        let countIn = tick == nil && number == 1 && plan.countIn
        let schedule = PassSchedule(lesson: lesson, plan: plan, from: tick ?? range.lowerBound, to: range.upperBound, percent: percent,
                                    options: .init(pass: number, countIn: countIn))
        var practisedNotes = !mode.judges ? [] : PassJudging.expected(schedule, lesson: lesson, dynamics: ear.dynamics(of: lesson))
        // A rolled chord is judged as a chord, at its lowest note's time.
        let rolls = lesson.annotations.rolls
        if !rolls.isEmpty {
            let notes = lesson.notes
            let timeAt = Dictionary(practisedNotes.filter { notes.indices.contains($0.id) }.map { ("\(notes[$0.id].track)@\(notes[$0.id].startTick)", $0.time) },
                                    uniquingKeysWith: { a, b in min(a, b) })
            for i in practisedNotes.indices where notes.indices.contains(practisedNotes[i].id) {
                let n = notes[practisedNotes[i].id]
                if let d = rolls[Annotations.Key(track: n.track, tick: n.startTick, pitch: Int(n.pitch))], let t = timeAt["\(n.track)@\(n.startTick - d)"] {
                    practisedNotes[i].time = t
                }
            }
        }
        // Grace notes and an ornament's notes: accepted, not required.
        let graces = practisedNotes.filter { lesson.notes.indices.contains($0.id) && lesson.isAccepted(lesson.notes[$0.id]) }
        expected = graces.isEmpty ? practisedNotes : practisedNotes.filter { !(lesson.notes.indices.contains($0.id) && lesson.isAccepted(lesson.notes[$0.id])) }
        accepted = AcceptedNotes(graces)
        passNotes = schedule.notes
        retimes = []
        pausedAt = nil
        matcher = mode == .play || mode == .memory ? PlayMatcher(expected: expected, window: window) : nil
        gate = mode == .wait ? WaitGate(expected: expected, ignoresReleases: onsetOnlyInput) : nil
        waitJudgements = []
        ear.start(at: time, continuing: continuing)
        if !continuing {
            judged = [:]
            heardOff = [:]
        }
        pausedForChord = nil
        finishedPasses[number] = nil
        if continuing { return [] }
        var sig = TimeSignature(numerator: 4, denominatorPower: 2)
        if let first = lesson.timeSignatures.last(where: { $0.tick <= range.lowerBound }) { sig = first.value }
        let bpm = lesson.tempoMap.bpm(atTick: range.lowerBound) * percent / 100
        recorder = PerformanceRecorder(startTime: time + (countIn ? schedule.countInSeconds : 0), bpm: bpm, timeSignature: sig,
                                       ticksPerQuarter: lesson.ticksPerQuarter, onsetOnly: onsetOnlyInput,
                                       title: "\(lesson.title) — pass \(number)")
        return []
    }

    private func played(_ event: PlayedEvent) -> [CoachAction] {
        var out: [CoachAction] = []
        // When the learner meant it: their input's offset taken off (the flashes keep clock time).
        var meant = event
        meant.time = event.time - inputOffset
        recorder?.record(meant)
        // Pass time of this event.
        var local = meant
        local.time = meant.time - anchor
        if mode.judges { ear.events.append(local) }
        var wrongNow = false
        switch mode {
        case .watch:
            break
        case _ where event.isOn && accepts(local):
            break
        case .wait:
            if var g = gate {
                switch g.handle(local) {
                case .wrong(let p):
                    wrongNow = true
                    let replaced = g.replaced(by: p)
                    let j = Judgement(verdict: .wrongPitch, expected: replaced, played: event, errorMs: nil, section: replaced?.section ?? 0)
                    waitJudgements.append(j)
                    out.append(.judged(j))
                    out.append(.flashWrong(pitch: p, until: event.time + Coach.flashSeconds))
                    flashes.append(CoachSnapshot.Flash(pitch: p, until: event.time + Coach.flashSeconds))
                case .advanced(let chord, _):
                    ear.chordTimes.append(event.time)
                    for n in g.chords[chord].notes {
                        let j = Judgement(verdict: .onTime, expected: n, played: event, errorMs: 0, section: n.section)
                        waitJudgements.append(j)
                        out.append(.judged(j))
                    }
                    if pausedForChord == chord { out.append(.resumeTransport) }
                case .waiting, .finished:
                    break
                }
                gate = g
            }
        case .play, .memory:
            if var m = matcher {
                matcher = nil  // the only copy while it changes
                m.timeScale = timeScale
                out += m.expire(upTo: local.time).map { .judged($0) }
                if let j = m.play(local) {
                    out.append(.judged(j))
                    if j.verdict == .wrongPitch || j.verdict == .extra {
                        wrongNow = true
                        out.append(.flashWrong(pitch: event.pitch, until: event.time + Coach.flashSeconds))
                        flashes.append(CoachSnapshot.Flash(pitch: event.pitch, until: event.time + Coach.flashSeconds))
                    }
                }
                matcher = m
            }
        }
        if event.isOn && event.velocity > 0 {
            held.insert(event.pitch)
            if wrongNow { wrongHeld.insert(event.pitch) } else { wrongHeld.remove(event.pitch) }
        } else {
            held.remove(event.pitch)
            wrongHeld.remove(event.pitch)
        }
        out.append(.learnerKeys(held: held, wrong: wrongHeld))
        return out
    }

    /// The rest of the pass now plays at `newPercent`: notes due after this moment come
    /// proportionally sooner or later, as the transport plays them.
    /// A grace note or an ornament's note struck where one sounds (in wait mode: since the
    /// previous chord, up to the one waited for): accepted, not judged.
    private func accepts(_ local: PlayedEvent) -> Bool {
        guard !accepted.isEmpty else { return false }
        if mode == .wait, let g = gate {
            let to = g.current?.time ?? .infinity
            let from = g.index > 0 && g.index - 1 < g.chords.count ? g.chords[g.index - 1].time : -.infinity
            return accepted.accepts(pitch: local.pitch, from: from, to: to + 0.05)
        }
        // A key still due as a judged note here is that note (a trill's first note is judged,
        // its repeats accepted).
        let due = expected.contains { $0.pitch == local.pitch && abs($0.time - local.time) <= window.window && judged[$0.id] == nil }
        return !due && accepted.accepts(pitch: local.pitch, from: local.time - window.window, to: local.time + window.window)
    }

    private func retime(at time: Double, to newPercent: Double) {
        let oldPercent = currentPercent
        currentPercent = newPercent
        guard newPercent > 0, oldPercent > 0, newPercent != oldPercent else { return }
        let now = (pausedAt ?? time) - anchor
        let scale = oldPercent / newPercent
        retimes.append((now, scale))
        for i in expected.indices where expected[i].time > now {
            expected[i].time = now + (expected[i].time - now) * scale
            expected[i].duration *= scale
        }
        matcher?.retime(after: now, scale: scale)
        accepted.retime(after: now, scale: scale)
    }

    private func expire(now: Double) -> [CoachAction] {
        guard pausedAt == nil, !awaitingStart, var m = matcher else { return [] }
        matcher = nil  // the only copy while it changes: its judgements are not copied each time
        m.timeScale = timeScale
        // A late input's note played now is judged as meant a moment ago: keep its window open.
        let missed = m.expire(upTo: now - max(0, inputOffset) - anchor)
        matcher = m
        return missed.map { .judged($0) }
    }

    /// Ends the pass once (the clean-pass hook or the `.passFinished` event, whichever comes first).
    private func finish(pass number: Int, endTime: Double) -> PassReport {
        if let done = finishedPasses[number] { return done }
        var report: PassReport
        var judgements = waitJudgements
        if var m = matcher {
            report = m.finish()
            judgements = m.judgements
            matcher = nil
        } else if var g = gate {
            // Chords never completed are missed.
            while let chord = g.current {
                for n in chord.notes {
                    waitJudgements.append(Judgement(verdict: .missed, expected: n, played: nil, errorMs: nil, section: n.section))
                }
                g.reset(to: chord.time + 1e-6)
            }
            gate = nil
            judgements = waitJudgements
            report = PassReport(judgements: waitJudgements, window: window, sections: Set(expected.map(\.section)))
        } else {
            report = PassReport(judgements: [], window: window, sections: Set(expected.map(\.section)))
        }
        report.offsetMs = (inputOffset * 1000).rounded()
        if mode.judges {
            ear.hear(into: &report, expected: expected, judgements: judgements, mode: mode, onsetOnly: onsetOnlyInput, lesson: lesson,
                     endTime: endTime - anchor)
            heardOff = Dictionary(report.notes.filter(\.isHeardOff).map { ($0.id, $0.worst) }, uniquingKeysWith: { a, _ in a })
        }
        finishedPasses[number] = report
        reports.append(CoachSnapshot.Reported(pass: number, percent: passPercent, report: report))
        closeRecording(endTime: endTime)
        return report
    }

    private func closeRecording(endTime: Double) {
        guard let r = recorder else { return }
        lastRecording = r
        lastRecordingEnd = endTime
        recorder = nil
    }
}

enum QuizFormat {
    static func percent(_ p: Double) -> String {
        let r = (p * 10).rounded() / 10
        return r == r.rounded() && abs(r) < 1e15 ? String(Int(r)) : String(r)
    }
}
