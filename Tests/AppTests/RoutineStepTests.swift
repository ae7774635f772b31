@testable import App
import Clocks
import Foundation
import Judge
import Lesson
import MIDIFile
import Practice
import Synth
import Testing

/// A routine entry practised in wait / play mode (`SessionStep`) on a virtual clock: the
/// routine's length policy (`RoutinePlan.decide`) over a judged practice session.
@Suite("Routine step practised with the Coach")
struct SessionStepTests {
    /// One bar (2 s at 120 BPM) of the right hand, C5 C#5 D5 D#5, as `routine run` plans an entry.
    func make(_ mode: PracticeMode, length: RoutineEntry.Length, fade: Double = RoutinePlan.fadeSeconds)
        throws -> (SessionStep, SessionHarness, VirtualClock, RecordingOutput, SessionHarness) {
        let lesson = PlayingModesTests.lesson()
        var plan = PracticePlan(hands: .right, bars: 1...1)
        switch length {
        case .repetitions(let n): plan.repeatMode = .times(n)
        case .minutes: plan.repeatMode = .forever
        }
        let clock = VirtualClock()
        let rec = RecordingOutput(clock: { clock.now })
        let output = GainOutput(rec)
        let session = try SessionHarness(lesson: lesson, plan: plan, clock: clock, output: output,
                                         settings: .init(mode: mode, computerKeyboard: false, holdAfterPass: false))
        let observer = session
        let step = SessionStep(session: session.session, output: output) { elapsed, passes, end in
            switch RoutinePlan.decide(length: length, elapsed: elapsed, completedPasses: passes, currentPassEnd: end, fade: fade) {
            case .stop: return .stop
            case .play(let gain): return .play(gain: gain)
            }
        }
        return (step, session, clock, rec, observer)
    }

    /// Runs frames of 50 ms (transport, screen, step policy) until the step is over or `limit`;
    /// `learner` may play at each frame. Returns the ticks.
    func frames(_ step: SessionStep, _ s: SessionHarness, _ clock: VirtualClock, limit: Double = 60,
                learner: (Double) -> Void = { _ in }) -> [SessionStep.Tick] {
        var ticks: [SessionStep.Tick] = []
        s.advance()
        while clock.now < limit {
            learner(clock.now)
            clock.advance(by: 0.05)
            s.advance()
            _ = s.snapshot()
            let t = step.tick()
            ticks.append(t)
            if t.isOver { break }
        }
        return ticks
    }

    func volumes(_ rec: RecordingOutput) -> [UInt8] {
        rec.messages.compactMap { m in
            if case .controlChange(0, 7, let v) = m { return v } else { return nil }
        }
    }

    @Test func repetitionsInWaitModeAreJudgedPassesWithFigures() throws {
        let (step, s, clock, rec, observer) = try make(.wait, length: .repetitions(2))
        step.start()
        // The learner plays each note the lesson waits for, a frame after it stops there.
        let ticks = frames(step, s, clock) { now in
            for p in observer.coach.waitingFor.sorted() {
                s.learnerPlayed(LearnerNote(pitch: p, velocity: 80, isOn: true, time: now))
                s.learnerPlayed(LearnerNote(pitch: p, velocity: 0, isOn: false, time: now + 0.01))
            }
        }
        let finished = ticks.flatMap(\.finished)
        #expect(ticks.last?.isOver == true)
        #expect(finished.map(\.pass) == [1, 2])
        let figures = finished.compactMap { s.score(for: $0) }
        #expect(figures.count == 2)
        #expect(figures.allSatisfy { $0.hit == 4 && $0.missed == 0 && $0.wrong == 0 && $0.score == 100 }, "\(figures)")
        #expect(ticks.allSatisfy { $0.gain == 1 }, "repetitions never fade")
        let (result, rest) = step.finish(interrupted: false)
        #expect(rest.isEmpty)
        #expect(result.completedPasses == 2)
        #expect(!result.faded && !result.interrupted)
        #expect(rec.recorded.last.map { if case .message(.controlChange(15, 7, 100)) = $0.entry { true } else { false } } == true,
                "full volume back on every channel for the next step")
        #expect(rec.recorded.contains { $0.entry == .allNotesOff })
        #expect(volumes(rec).allSatisfy { $0 == 100 })
    }

    /// The learner plays the first note, then stops: wait mode stands at the second note, yet
    /// the time limit still ends the step (at most a fade's length after it, when a pass was
    /// about to end), with nothing judged and everything silenced.
    @Test func aTimeLimitEndsAWaitModeStepEvenWhenTheLearnerStopsPlaying() throws {
        let limit = 0.05  // 3 s
        let (step, s, clock, rec, observer) = try make(.wait, length: .minutes(limit), fade: 1)
        step.start()
        var played = false
        let ticks = frames(step, s, clock) { now in
            if !played, observer.coach.waitingFor == [72] {
                played = true
                s.learnerPlayed(LearnerNote(pitch: 72, velocity: 80, isOn: true, time: now))
                s.learnerPlayed(LearnerNote(pitch: 72, velocity: 0, isOn: false, time: now + 0.01))
            }
        }
        #expect(played)
        let last = try #require(ticks.last)
        #expect(last.isOver, "the step ended by itself")
        #expect(last.elapsed >= 3 - 1e-9 && last.elapsed <= 3 + 1 + 0.05 + 1e-9, "ended at the limit: \(last.elapsed)")
        #expect(s.transport.state != .playing, "the lesson no longer plays")
        #expect(ticks.flatMap(\.finished).isEmpty, "no pass was finished")
        let (result, _) = step.finish(interrupted: false)
        #expect(result.completedPasses == 0)
        #expect(rec.recorded.contains { $0.entry == .allNotesOff })
    }

    /// Play mode with a time limit: the passes go on (each judged, all missed here), the sound
    /// fades over the last second before the limit, and the step stops at it.
    @Test func playModeWithATimeLimitJudgesEachPassAndFadesAtTheLimit() throws {
        let limit = 5.0 / 60  // 5 s: passes end at 2 and 4 s, the third would end at 6 s
        let (step, s, clock, rec, _) = try make(.play, length: .minutes(limit), fade: 0.5)
        step.start()
        let ticks = frames(step, s, clock)
        let last = try #require(ticks.last)
        #expect(last.isOver)
        #expect(abs(last.elapsed - 5) < 0.051, "\(last.elapsed)")
        let finished = ticks.flatMap(\.finished)
        #expect(finished.count == 2)
        let figures = finished.compactMap { s.score(for: $0) }
        #expect(figures.map(\.missed) == [4, 4], "\(figures)")
        #expect(figures.allSatisfy { $0.hit == 0 && $0.score == 0 })
        let gains = ticks.map(\.gain)
        #expect(gains.contains { $0 > 0 && $0 < 1 }, "faded before the limit")
        #expect(ticks.filter { $0.elapsed < 4.5 - 1e-9 }.allSatisfy { $0.gain == 1 })
        #expect(volumes(rec).contains { $0 > 0 && $0 < 100 }, "the lesson's channel volume went down")
        let (result, _) = step.finish(interrupted: false)
        #expect(result.faded)
        #expect(result.completedPasses == 2)
    }

    /// What is left of a pass: counts down while playing, stands still while paused.
    @Test func remainingInPassFreezesWhileTheLessonWaits() throws {
        let (_, s, clock, _, _) = try make(.watch, length: .repetitions(1))
        #expect(s.transport.remainingInPass(at: clock.now) == nil, "not started")
        s.start()
        s.advance()
        clock.advance(by: 0.5)
        s.advance()
        #expect(abs((s.transport.remainingInPass(at: clock.now) ?? 0) - 1.5) < 1e-9)
        s.pause()
        clock.advance(by: 10)
        #expect(abs((s.transport.remainingInPass(at: clock.now) ?? 0) - 1.5) < 1e-9)
    }
}
