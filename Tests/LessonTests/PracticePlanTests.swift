import Clocks
import Testing
import TestSupport
import MIDIFile
@testable import Lesson

@Suite struct PracticePlanTests {
    @Test func errorsNameTheOptionAndTheFix() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        #expect(throws: PlanError(.bars, "40-44", "the lesson has 12 bars")) {
            try PracticePlan(bars: 40...44).validate(for: lesson)
        }
        #expect(throws: PlanError(.bars, "0-4", "bars start at 1 (this lesson has no pickup bar 0); it has 12 bars")) {
            try PracticePlan(bars: 0...4).validate(for: lesson)
        }
        #expect(throws: PlanError(.bars, "8-5", "the first bar comes after the last; did you mean 5-8?")) {
            try PracticePlan.parseBars("8-5")
        }
        #expect(throws: PlanError(.bars, "five", "write the bars as A-B, e.g. 5-8")) {
            try PracticePlan.parseBars("five")
        }
        #expect(throws: PlanError(.tempo, "500%", "the tempo must be between 10% and 400%")) {
            try PracticePlan(tempo: .percent(500)).validate(for: lesson)
        }
        #expect(throws: PlanError(.tempo, "5%", "the tempo must be between 10% and 400%")) {
            try PracticePlan.parseTempo("5%")
        }
        #expect(throws: PlanError(.bpm, "1000", "that is 833.3% of the lesson's 120 BPM; use 12–480 BPM (10–400%)")) {
            try PracticePlan(tempo: .bpm(1000)).validate(for: lesson)
        }
        #expect(throws: PlanError(.speedTrainer, "60:500:10", "500% is outside 10–400%")) {
            try PracticePlan.parseSpeedTrainer("60:500:10")
        }
        #expect(throws: PlanError(.repeat, "0", "give a number of passes (1 or more) or forever")) {
            try PracticePlan.parseRepeat("0")
        }
        let rightOnly = Build.lesson(try Build.file([[], [Build.name("RH")] + Build.note(72, at: 0, length: 480)]))
        #expect(throws: PlanError.self) { try PracticePlan(hands: .left).validate(for: rightOnly) }
        do {
            try PracticePlan(hands: .left).validate(for: rightOnly)
        } catch {
            #expect(error.message.hasPrefix("hand left: the lesson has only a right hand part"))
            #expect(error.suggestion == "right")
        }
        try PracticePlan(hands: .right).validate(for: rightOnly)
    }

    @Test func parsesCommandLineText() throws {
        #expect(try PracticePlan.parseBars("5-8") == 5...8)
        #expect(try PracticePlan.parseBars("5–8") == 5...8)
        #expect(try PracticePlan.parseBars("12") == 12...12)
        #expect(try PracticePlan.parseTempo("75%") == .percent(75))
        #expect(try PracticePlan.parseTempo("120") == .percent(120))
        #expect(try PracticePlan.parseSpeedTrainer("60:100:5") == .init(start: 60, target: 100, step: 5))
        #expect(try PracticePlan.parseHands("LH") == .left)
        #expect(try PracticePlan.parseOtherHand("quiet") == .quietDefault)
        #expect(try PracticePlan.parseRepeat("forever") == .forever)
        #expect(try PracticePlan.parseRepeat("3") == .times(3))
    }

    @Test func targetBPMScalesTheFirstTempo() throws {
        let lesson = Build.lesson(try Build.twelveBars(extraConductor: [Build.tempo(bpm: 60, at: 4 * Build.bar)]))
        let plan = PracticePlan(tempo: .bpm(72))
        #expect(close(try plan.tempoFactor(for: lesson), 0.6))
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: plan, clock: clock)
        #expect(close(t.effectiveBPM, 72))
        let bpms = runToEnd(&t, clock: clock).compactMap { if case .tempo(let b) = $0.event { return b } else { return nil } }
        #expect(bpms.count == 2)
        #expect(close(bpms[0], 72) && close(bpms[1], 36))
    }

    @Test func passPlannerIsAPlainValue() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        var p = try PassPlanner(plan: PracticePlan(repeatMode: .times(2), speedTrainer: .init(start: 50, target: 70, step: 20)), lesson: lesson)
        #expect(p.firstPass() == 50)
        #expect(p.next(afterCleanPass: true) == 70)
        #expect(p.next(afterCleanPass: true) == nil)
        #expect(p.next(afterCleanPass: true) == nil)
    }
}
