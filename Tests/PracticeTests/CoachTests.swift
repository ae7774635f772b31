import Clocks
import Foundation
import Judge
import Lesson
import MIDIFile
import Testing
@testable import Practice

/// A scripted practice run: a real `Transport` on a `VirtualClock`, the Coach fed with its
/// events and with played notes at exact times, and the Coach's pause/resume actions applied
/// to the transport as the practice session does.
final class ScriptedRun {
    let lesson: Lesson
    let clock = VirtualClock(now: 100)
    var transport: Transport
    let coach: Coach
    var pending: [PlayedEvent] = []
    var actions: [CoachAction] = []
    /// Every transport event delivered, in order.
    var events: [TimedEvent] = []
    /// Called at each pass start (pass, tempo %, clock time): returns the notes to play in it.
    var performer: (Int, Double, Double) -> [PlayedEvent] = { _, _, _ in [] }
    /// Learner commands (tempo keys, bar jumps) at clock times, applied as the session does.
    var commands: [(time: Double, command: (inout Transport) throws -> [TimedEvent])] = []

    init(lesson: Lesson, plan: PracticePlan, mode: PracticeMode, onsetOnly: Bool = false) throws {
        self.lesson = lesson
        transport = try Transport(lesson: lesson, plan: plan, clock: clock)
        coach = Coach(lesson: lesson, plan: plan, mode: mode, onsetOnlyInput: onsetOnly)
        transport.isPassClean = coach.isPassClean
    }

    /// Runs a transport command now and hands its events to the coach, as the runner does.
    func command(_ body: (inout Transport) throws -> [TimedEvent]) rethrows {
        let batch = try body(&transport)
        events += batch
        apply(coach.handle(events: batch))
    }

    private func apply(_ list: [CoachAction]) {
        actions += list
        for a in list {
            switch a {
            case .pauseTransport:
                transport.pause()
                coach.transportPaused(at: clock.now)
            case .resumeTransport:
                transport.play()
                coach.transportResumed(at: clock.now)
            default:
                break
            }
        }
    }

    /// Runs until the transport finishes (or nothing can happen any more).
    func run() {
        transport.play()
        var steps = 0
        while transport.state != .finished, steps < 100_000 {
            steps += 1
            pending.sort { $0.time < $1.time }
            commands.sort { $0.time < $1.time }
            let nextEvent = transport.nextEventTime()
            let nextPlayed = pending.first?.time
            if let c = commands.first, nextEvent.map({ c.time < $0 }) ?? true, nextPlayed.map({ c.time < $0 }) ?? true {
                commands.removeFirst()
                clock.set(c.time)
                try? command(c.command)
            } else if let e = nextEvent, nextPlayed.map({ e <= $0 }) ?? true {
                clock.set(e)
                let batch = transport.advance(to: e)
                events += batch
                for ev in batch {
                    if case .passStarted(let pass, let percent) = ev.event {
                        pending += performer(pass, percent, ev.time)
                    }
                }
                apply(coach.handle(events: batch))
            } else if let p = nextPlayed {
                let played = pending.removeFirst()
                clock.set(p)
                apply(coach.handle(played: played))
            } else {
                break
            }
        }
    }

    var reports: [PassReport] {
        actions.compactMap { if case .passReport(_, _, let r) = $0 { return r } else { return nil } }
    }

    var passTempos: [Double] {
        events.compactMap { if case .passStarted(_, let p) = $0.event { return p } else { return nil } }
    }
}

@Suite("Coach")
struct CoachTests {
    static let rightPitches = [60, 62, 64, 65, 67, 65, 64, 62]

    /// Eight bars of 4/4 at 120 BPM: a right-hand line of quarter notes (32 notes) and a
    /// left-hand whole note per bar. Sections (no markers): bars 1–4 and 5–8.
    static func lesson(chords: Bool = false) throws -> Lesson {
        let tpq = 480
        var right: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("RH".utf8))),
                                  MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20])),
                                  MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: [4, 2, 24, 8]))]
        var left: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("LH".utf8)))]
        for i in 0..<32 {
            let pitches = chords ? [60, 64, 67] : [rightPitches[i % 8]]
            for p in pitches {
                right.append(MIDIEvent(tick: i * tpq, .noteOn(channel: 0, key: UInt8(p), velocity: 80)))
                right.append(MIDIEvent(tick: i * tpq + 400, .noteOff(channel: 0, key: UInt8(p), velocity: 0)))
            }
        }
        for b in 0..<8 {
            left.append(MIDIEvent(tick: b * 4 * tpq, .noteOn(channel: 1, key: 36, velocity: 70)))
            left.append(MIDIEvent(tick: b * 4 * tpq + 1900, .noteOff(channel: 1, key: 36, velocity: 0)))
        }
        right.append(MIDIEvent(tick: 32 * tpq, .meta(type: MetaType.endOfTrack, data: [])))
        left.append(MIDIEvent(tick: 32 * tpq, .meta(type: MetaType.endOfTrack, data: [])))
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: [Track(events: right), Track(events: left)])
        return Lesson(file: file, fileName: "coach.mid")
    }

    static let rightHand = PracticePlan(hands: .right)

    /// The right-hand line played at `offset` seconds from each written time (quarter = 0.5 s at 100 %).
    static func perform(start: Double, percent: Double, offset: Double = 0, skip: Set<Int> = [],
                        replace: [Int: Int] = [:]) -> [PlayedEvent] {
        let beat = 0.5 / (percent / 100)
        var out: [PlayedEvent] = []
        for i in 0..<32 where !skip.contains(i) {
            let t = start + Double(i) * beat + offset
            let p = replace[i] ?? rightPitches[i % 8]
            out.append(PlayedEvent(pitch: p, velocity: 80, time: t, isOn: true))
            out.append(PlayedEvent(pitch: p, velocity: 0, time: t + 0.4 * beat, isOn: false))
        }
        return out
    }

    @Test func perfectPerformanceScoresHundred() throws {
        let run = try ScriptedRun(lesson: Self.lesson(), plan: Self.rightHand, mode: .play)
        run.performer = { _, percent, t0 in Self.perform(start: t0, percent: percent) }
        run.run()
        let report = try #require(run.reports.first)
        #expect(run.reports.count == 1)
        #expect(report.hit == 32 && report.missed == 0 && report.wrong == 0 && report.extra == 0)
        #expect(report.accuracy == 100)
        #expect(report.score == 100)
        #expect(report.timingMeanMs == 0)
        #expect(report.sections.map(\.section) == [0, 1])
        let info = try #require(run.coach.lastResults)
        #expect(info.figures.accuracy == 100 && info.figures.score == 100 && info.figures.hit == 32)
        #expect(info.title == "Pass 1 at 100%")
        // No weakest section after a perfect run.
        #expect(!run.actions.contains { if case .weakestSection = $0 { return true } else { return false } })
    }

    /// The learner slows to 50 % in the middle of bar 2 and keeps playing with the music: the
    /// rest of the pass is judged at the new tempo, so a faithful performance stays perfect.
    @Test func tempoChangeMidPassJudgesTheRestAtTheNewTempo() throws {
        let run = try ScriptedRun(lesson: Self.lesson(), plan: Self.rightHand, mode: .play)
        // The pass starts at clock 100; at 103.75 (between notes 7 and 8) the tempo drops to 50 %:
        // note 8 is 0.25 s of music away, now 0.5 s; each later quarter takes 1 s.
        let all = Self.perform(start: 100, percent: 100)
        run.pending = all.filter { $0.time < 103.75 }
        for i in 8..<32 {
            let t = 104.25 + Double(i - 8) * 1.0
            let p = Self.rightPitches[i % 8]
            run.pending += [PlayedEvent(pitch: p, velocity: 80, time: t, isOn: true),
                            PlayedEvent(pitch: p, velocity: 0, time: t + 0.4, isOn: false)]
        }
        run.commands = [(103.75, { try $0.setTempo(percent: 50) })]
        run.run()
        #expect(run.events.contains { $0.event == .tempoChanged(tempoPercent: 50) && $0.time == 103.75 })
        let report = try #require(run.reports.first)
        #expect(run.reports.count == 1)
        #expect(report.hit == 32 && report.missed == 0 && report.wrong == 0 && report.extra == 0)
        #expect(abs(report.timingMeanMs) < 1e-6)
        #expect(report.timingSdMs < 1e-6)
    }

    /// A jump from bar 1 to bar 5 in the middle of a pass: scoring starts afresh there, so the
    /// report covers bars 5–8 as played after the jump (nothing skipped counts as missed).
    @Test func jumpMidPassScoresFromTheNewBar() throws {
        let run = try ScriptedRun(lesson: Self.lesson(), plan: Self.rightHand, mode: .play)
        let all = Self.perform(start: 100, percent: 100)
        run.pending = all.filter { $0.time < 101.25 }  // notes 0–2
        for i in 16..<32 {
            let t = 101.25 + Double(i - 16) * 0.5
            let p = Self.rightPitches[i % 8]
            run.pending += [PlayedEvent(pitch: p, velocity: 80, time: t + 0.02, isOn: true),
                            PlayedEvent(pitch: p, velocity: 0, time: t + 0.2, isOn: false)]
        }
        run.commands = [(101.25, { try $0.seek(toBar: 5) })]
        run.run()
        #expect(run.events.contains { $0.event == .moved(bar: 5, pass: 1, tempoPercent: 100) })
        let report = try #require(run.reports.first)
        #expect(run.reports.count == 1)
        #expect(report.hit == 16 && report.missed == 0 && report.wrong == 0 && report.extra == 0)
        #expect(abs(report.timingMeanMs - 20) < 1e-6)
        #expect(report.sections.map(\.section) == [1])
        // Part of a pass is not a full run: no weakest-section advice from it.
        #expect(!run.actions.contains { if case .weakestSection = $0 { return true } else { return false } })
    }

    /// `etude resume`: the transport is moved to bar 5 before it plays, and the pass that
    /// follows is judged from there (nothing is missed while it waits to start).
    @Test func movedBeforePlayingJudgesFromThatBar() throws {
        let run = try ScriptedRun(lesson: Self.lesson(), plan: Self.rightHand, mode: .play)
        try run.command { try $0.seek(toBar: 5) }
        _ = run.coach.tick(now: 100.5)
        run.clock.set(102)
        for i in 16..<32 {
            let t = 102 + Double(i - 16) * 0.5
            let p = Self.rightPitches[i % 8]
            run.pending += [PlayedEvent(pitch: p, velocity: 80, time: t, isOn: true),
                            PlayedEvent(pitch: p, velocity: 0, time: t + 0.2, isOn: false)]
        }
        run.run()
        let report = try #require(run.reports.first)
        #expect(run.reports.count == 1)
        #expect(report.hit == 16 && report.missed == 0 && report.extra == 0)
        #expect(abs(report.timingMeanMs) < 1e-6)
    }

    @Test func lateByFortyMillisecondsMeasuresForty() throws {
        let run = try ScriptedRun(lesson: Self.lesson(), plan: Self.rightHand, mode: .play)
        run.performer = { _, percent, t0 in Self.perform(start: t0, percent: percent, offset: 0.040) }
        run.run()
        let report = try #require(run.reports.first)
        #expect(report.hit == 32)
        #expect(abs(report.timingMeanMs - 40) < 0.01)
        #expect(report.timingSdMs < 0.01)
        #expect(report.onTime == 32)
    }

    @Test func wrongPitchCountsWrongAndNotAlsoMissed() throws {
        let run = try ScriptedRun(lesson: Self.lesson(), plan: Self.rightHand, mode: .play)
        // Note 9 (bar 3, beat 2) should be D4 (62): play C#4 (61) instead.
        run.performer = { _, percent, t0 in Self.perform(start: t0, percent: percent, replace: [9: 61]) }
        run.run()
        let report = try #require(run.reports.first)
        #expect(report.wrong == 1)
        #expect(report.missed == 0)
        #expect(report.hit == 31)
        #expect(report.extra == 0)
        let flashes = run.actions.compactMap { if case .flashWrong(let p, _) = $0 { return p } else { return nil } }
        #expect(flashes == [61])
        let judged = run.actions.compactMap { if case .judged(let j) = $0 { return j } else { return nil } }
        #expect(judged.contains { $0.verdict == .missed && $0.expected?.pitch == 62 && $0.expected?.section == 0 })
    }

    @Test func memoryModeHidesNotesAndHintsAndScoresLikePlay() throws {
        #expect(PracticeMode.memory.hidesFallingNotes && PracticeMode.memory.hidesKeyHints)
        #expect(!PracticeMode.play.hidesFallingNotes && !PracticeMode.wait.hidesKeyHints)
        let run = try ScriptedRun(lesson: Self.lesson(), plan: Self.rightHand, mode: .memory)
        run.performer = { _, percent, t0 in Self.perform(start: t0, percent: percent) }
        run.run()
        #expect(run.reports.first?.accuracy == 100)
    }

    @Test func waitModeAdvancesOnlyWhenTheWholeChordIsHeld() throws {
        let lesson = try Self.lesson(chords: true)
        var plan = PracticePlan(hands: .right)
        plan.bars = 1...1
        let run = try ScriptedRun(lesson: lesson, plan: plan, mode: .wait)
        // The learner comes in late: at each chord, C and E at once, a wrong D, then G 0.3 s later.
        run.performer = { _, _, t0 in
            var out: [PlayedEvent] = []
            for i in 0..<4 {
                let t = t0 + Double(i) * 0.5 + 0.2 + Double(i) * 1.0
                out.append(PlayedEvent(pitch: 60, time: t))
                out.append(PlayedEvent(pitch: 64, time: t))
                out.append(PlayedEvent(pitch: 62, time: t + 0.1))
                out.append(PlayedEvent(pitch: 62, velocity: 0, time: t + 0.15, isOn: false))
                out.append(PlayedEvent(pitch: 67, time: t + 0.3))
                for p in [60, 64, 67] { out.append(PlayedEvent(pitch: p, velocity: 0, time: t + 0.45, isOn: false)) }
            }
            return out
        }
        run.run()
        // pause, (no resume until G), resume — four times.
        let control = run.actions.compactMap { a -> String? in
            switch a {
            case .pauseTransport: return "pause"
            case .resumeTransport: return "resume"
            case .flashWrong(let p, _): return "wrong \(p)"
            default: return nil
            }
        }
        #expect(control == Array(repeating: ["pause", "wrong 62", "resume"], count: 4).flatMap { $0 })
        // The left hand (accompaniment for this plan) waited too: each of its note starts and
        // each chord start came when the transport was resumed, not at the written time.
        let starts = run.events.compactMap { e -> (Double, Int)? in
            if case .noteStarted(let cue) = e.event, cue.pitch == 60 { return (e.time, cue.startTick) } else { return nil }
        }
        #expect(starts.count == 4)
        // Resumed from where it waited: the chord i is reached 0.5 s after the resume of chord i-1.
        let t0 = starts[0].0
        for i in 1..<4 {
            let resumeOfPrevious = t0 + Double(i - 1) * 0.5 + 0.2 + Double(i - 1) * 1.0 + 0.3
            #expect(abs(starts[i].0 - (resumeOfPrevious + 0.5)) < 1e-6)
        }
        let report = try #require(run.reports.first)
        #expect(report.hit == 12)
        // Each wrong key came before its chord was held: the notes are hits (wrong key first), the
        // keys extras — each expected note counted once.
        #expect(report.wrong == 0 && report.extra == 4)
        #expect(report.notes.filter { $0.wrongKeyFirst == true }.count == 4)
        #expect(report.missed == 0)
        #expect(run.transport.state == .finished)
    }

    @Test func waitModeDoesNotPauseWhenTheChordIsAlreadyHeld() throws {
        let lesson = try Self.lesson(chords: true)
        var plan = PracticePlan(hands: .right)
        plan.bars = 1...1
        let run = try ScriptedRun(lesson: lesson, plan: plan, mode: .wait)
        // The first chord on the beat (the transport is there first and waits), the others 10 ms
        // early, all three keys together: no pause for those.
        run.performer = { _, _, t0 in
            (0..<4).flatMap { i in [60, 64, 67].map { PlayedEvent(pitch: $0, time: t0 + Double(i) * 0.5 - (i == 0 ? 0 : 0.01)) } }
        }
        run.run()
        let control = run.actions.filter { $0 == .pauseTransport || $0 == .resumeTransport }
        #expect(control == [.pauseTransport, .resumeTransport])
        #expect(run.reports.first?.hit == 12)
    }

    @Test func speedTrainerStepsOnlyAfterCleanPasses() throws {
        var plan = PracticePlan(hands: .right)
        plan.bars = 1...2
        plan.speedTrainer = PracticePlan.SpeedTrainer(start: 50, target: 70, step: 10)
        plan.repeatMode = .times(4)
        let run = try ScriptedRun(lesson: Self.lesson(), plan: plan, mode: .play)
        // Pass 1 clean, pass 2 with half the notes missing, passes 3 and 4 clean.
        run.performer = { pass, percent, t0 in
            let notes = Self.perform(start: t0, percent: percent, skip: pass == 2 ? Set(0..<4) : [])
            return notes.filter { $0.time < t0 + 8 * 0.5 / (percent / 100) }  // bars 1–2 only
        }
        run.run()
        #expect(run.passTempos == [50, 60, 60, 70])
        #expect(run.reports.map(\.accuracy) == [100, 50, 100, 100])
        #expect(run.reports.map { $0.isClean(threshold: 90) } == [true, false, true, true])
    }

    @Test func weakestSectionIsTheOneWithMistakesAndGetsALoopPlan() throws {
        let run = try ScriptedRun(lesson: Self.lesson(), plan: Self.rightHand, mode: .play)
        // Mistakes in bars 5–8 only: two missed, one wrong.
        run.performer = { _, percent, t0 in Self.perform(start: t0, percent: percent, skip: [17, 22], replace: [28: 70]) }
        run.run()
        let report = try #require(run.reports.first)
        #expect(report.sections[0].accuracy == 100)
        #expect(report.sections[1].missed == 2 && report.sections[1].wrong == 1)
        let weakest = run.actions.compactMap { a -> (SectionReport, String, PracticePlan)? in
            if case .weakestSection(let s, let name, let plan) = a { return (s, name, plan) } else { return nil }
        }
        #expect(weakest.count == 1)
        let (section, name, plan) = try #require(weakest.first)
        #expect(section.section == 1)
        #expect(name == "Bars 5–8")
        #expect(plan.bars == 5...8)
        #expect(plan.speedTrainer?.start == 70)
        #expect(plan.hands == .right)
        // The plan is valid for the lesson: a transport accepts it and starts at 70 %.
        let loop = try Transport(lesson: run.lesson, plan: plan, clock: VirtualClock())
        #expect(loop.tempoPercent == 70)
    }

    @Test func recordedLastPassRereadsAsTheSameNotes() throws {
        let run = try ScriptedRun(lesson: Self.lesson(), plan: Self.rightHand, mode: .play)
        var played: [PlayedEvent] = []
        var start = 0.0
        run.performer = { _, percent, t0 in
            start = t0
            played = Self.perform(start: t0, percent: percent, offset: 0.013, replace: [3: 66])
            return played
        }
        run.run()
        let bytes = try #require(run.coach.lastPassMIDI())
        let file = try MIDIReader.read(bytes, strict: true).file
        let notes = NotePairing.notes(in: file).notes
        let map = TempoMap(file: file)
        let ons = played.filter(\.isOn)
        #expect(notes.count == ons.count)
        for (n, p) in zip(notes, ons) {
            #expect(Int(n.pitch) == p.pitch)
            #expect(abs(map.seconds(atTick: n.startTick) - (p.time - start)) < 0.002)
            let off = try #require(played.first { !$0.isOn && $0.pitch == p.pitch && $0.time > p.time })
            #expect(abs(map.seconds(atTick: n.endTick) - (off.time - start)) < 0.002)
        }
    }

    @Test func reportFileLinesParseAsJSONWithTheRequiredFields() throws {
        var plan = PracticePlan(hands: .right)
        plan.repeatMode = .times(2)
        let run = try ScriptedRun(lesson: Self.lesson(), plan: plan, mode: .play)
        run.performer = { pass, percent, t0 in Self.perform(start: t0, percent: percent, skip: pass == 2 ? [1] : []) }
        run.run()
        // The lines as `--report` writes them (the file itself: PassReportFileTests in AppTests).
        let lines = run.reports.map { $0.json() }
        #expect(lines.count == 2)
        let fields = ["hit", "missed", "wrong", "extra", "accuracy", "timingMeanMs", "timingSdMs", "score"]
        for (i, line) in lines.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for f in fields { #expect(object[f] is NSNumber, "field \(f)") }
            let sections = try #require(object["sections"] as? [[String: Any]])
            #expect(sections.count == 2)
            for s in sections { for f in fields { #expect(s[f] is NSNumber, "section field \(f)") } }
            #expect((object["missed"] as? Int) == (i == 0 ? 0 : 1))
        }
    }

    @Test func watchModeJudgesNothingAndEveryPassIsClean() throws {
        var plan = PracticePlan(hands: .right)
        plan.bars = 1...1
        plan.speedTrainer = PracticePlan.SpeedTrainer(start: 50, target: 60, step: 10)
        plan.repeatMode = .times(2)
        let run = try ScriptedRun(lesson: Self.lesson(), plan: plan, mode: .watch)
        run.performer = { _, _, t0 in [PlayedEvent(pitch: 61, time: t0 + 0.1)] }
        run.run()
        #expect(run.reports.isEmpty)
        #expect(run.passTempos == [50, 60])
        // Played keys still light up.
        #expect(run.actions.contains(.learnerKeys(held: [61], wrong: [])))
    }

    @Test func pauseDoesNotTurnTheRestIntoMisses() throws {
        var plan = PracticePlan(hands: .right)
        plan.bars = 1...2
        let clock = VirtualClock(now: 10)
        let lesson = try Self.lesson()
        var transport = try Transport(lesson: lesson, plan: plan, clock: clock)
        let coach = Coach(lesson: lesson, plan: plan, mode: .play)
        transport.play()
        var judged: [Judgement] = []
        func collect(_ a: [CoachAction]) { for x in a { if case .judged(let j) = x { judged.append(j) } } }
        // Play the first four notes on time, pause 5 s after the fourth, resume, play the rest.
        var t = 10.0
        for i in 0..<8 {
            let due = 10 + Double(i) * 0.5 + (i >= 4 ? 5 : 0)
            if i == 4 {
                clock.set(11.9)
                collect(coach.handle(events: transport.advance(to: 11.9)))
                transport.pause(); coach.transportPaused(at: 11.9)
                clock.set(16.9)
                collect(coach.tick(now: 16.9))
                transport.play(); coach.transportResumed(at: 16.9)
            }
            t = due
            clock.set(t)
            collect(coach.handle(events: transport.advance(to: t)))
            collect(coach.handle(played: PlayedEvent(pitch: Self.rightPitches[i], time: t)))
        }
        clock.set(t + 1)
        collect(coach.handle(events: transport.advance(to: t + 1)))
        #expect(judged.filter { $0.verdict == .missed }.isEmpty)
        #expect(judged.filter(\.verdict.isHit).count == 8)
    }

    /// A microphone is told each expected key's due time in play mode (issue 41: a key due now
    /// counts more than one due 300 ms later), the same keys as `expectedPitches`.
    @Test func expectedKeysComeWithTheirDueTimes() throws {
        var plan = PracticePlan(hands: .right)
        plan.bars = 1...2
        let clock = VirtualClock(now: 10)
        let lesson = try Self.lesson()
        var transport = try Transport(lesson: lesson, plan: plan, clock: clock)
        let coach = Coach(lesson: lesson, plan: plan, mode: .play)
        transport.play()
        _ = coach.handle(events: transport.advance(to: 10))
        let due = coach.snapshot().expectedDue(near: 10.25)
        #expect(Set(due.keys) == coach.snapshot().expectedPitches(near: 10.25))
        #expect(abs((due[Self.rightPitches[0]] ?? 9) + 0.25) < 1e-6 && abs((due[Self.rightPitches[1]] ?? 9) - 0.25) < 1e-6, "\(due)")
        let waiting = Coach(lesson: lesson, plan: plan, mode: .wait)
        #expect(waiting.snapshot().expectedDue(near: 10.25).isEmpty)
    }
}

@Suite("Coach feedback")
struct CoachFeedbackTests {
    @Test func learnerKeysAndWrongFlashes() throws {
        let lesson = try CoachTests.lesson()
        let coach = Coach(lesson: lesson, plan: CoachTests.rightHand, mode: .memory)
        let clock = VirtualClock(now: 0)
        var transport = try Transport(lesson: lesson, plan: CoachTests.rightHand, clock: clock)
        transport.play()
        _ = coach.handle(events: transport.advance(to: 0))
        _ = coach.handle(played: PlayedEvent(pitch: 60, time: 0))   // right
        _ = coach.handle(played: PlayedEvent(pitch: 61, time: 0.01))  // wrong
        let f = coach.feedback(now: 0.1)
        #expect(f.held == [60, 61])
        #expect(f.wrong == [61])
        #expect(f.flashes == [61])
        // After release and the flash: nothing of the learner's left.
        _ = coach.handle(played: PlayedEvent(pitch: 60, velocity: 0, time: 0.2, isOn: false))
        _ = coach.handle(played: PlayedEvent(pitch: 61, velocity: 0, time: 0.2, isOn: false))
        let later = coach.feedback(now: 1)
        #expect(later.held.isEmpty && later.wrong.isEmpty && later.flashes.isEmpty)
    }

    @Test func waitModeHintsTheKeysStillMissing() throws {
        let lesson = try CoachTests.lesson(chords: true)
        let coach = Coach(lesson: lesson, plan: CoachTests.rightHand, mode: .wait)
        var transport = try Transport(lesson: lesson, plan: CoachTests.rightHand, clock: VirtualClock())
        transport.play()
        #expect(coach.handle(events: transport.advance(to: 0)).contains(.pauseTransport))
        _ = coach.handle(played: PlayedEvent(pitch: 64, time: 0.3))
        #expect(coach.waitingFor == [60, 67])
        let f = coach.feedback(now: 0.3)
        #expect(f.waitingFor.map(\.pitch).sorted() == [60, 67])
        #expect(f.waitingFor.allSatisfy { $0.hand == .right })
        #expect(f.held == [64])
    }
}
