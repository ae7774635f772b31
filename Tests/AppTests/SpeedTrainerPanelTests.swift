import Clocks
import Foundation
import Lesson
import Practice
import Screen
import Synth
import Terminal
import Testing

/// The speed trainer in the results panel: the next pass's tempo and the accuracy it took,
/// and `W` heard through the panel's "any key continues".
@Suite("speed trainer panel")
struct SpeedTrainerPanelTests {
    let modes = PlayingModesTests()

    func make(_ plan: PracticePlan) throws -> (SessionHarness, VirtualClock) {
        let clock = VirtualClock()
        let s = try SessionHarness(lesson: PlayingModesTests.lesson(), plan: plan, clock: clock, output: RecordingOutput(clock: { clock.now }),
                                   settings: .init(mode: .play, computerKeyboard: false, countIn: false))
        return (s, clock)
    }

    func panel(_ s: SessionHarness) -> ResultsInfo? {
        if case .results(let info)? = s.snapshot().overlay { return info }
        return nil
    }

    @Test func theRuleInWords() {
        let st = PracticePlan.SpeedTrainer(start: 60, target: 100, step: 15)
        #expect(st.verdict(percent: 60, accuracy: 93.4, threshold: 90) == "speed trainer: next pass at 75 % (accuracy 93 %, needed 90 %)")
        #expect(st.verdict(percent: 60, accuracy: 89.9, threshold: 90) == "speed trainer: stays at 60 % (accuracy 89 %, needed 90 %)")
        #expect(st.verdict(percent: 90, accuracy: 100, threshold: 90) == "speed trainer: next pass at 100 % (accuracy 100 %, needed 90 %)")
        #expect(st.verdict(percent: 100, accuracy: 100, threshold: 90) == "speed trainer: at its target 100 %")
        #expect(st.stepped(from: 90, clean: true) == 100 && st.stepped(from: 60, clean: false) == 60)
    }

    @Test func aCleanPassSaysTheNextTempoAndTheNextPassPlaysAtIt() throws {
        var plan = PracticePlan(hands: .right, bars: 1...1, repeatMode: .forever)
        plan.speedTrainer = PracticePlan.SpeedTrainer(start: 60, target: 100, step: 10)
        let (s, clock) = try make(plan)
        s.start()
        let beat = 0.5 / 0.6
        for (i, pitch) in [72, 73, 74, 75].enumerated() {
            modes.play(s, clock, until: Double(i) * beat)
            modes.press(s, clock, pitch)
            modes.play(s, clock, until: Double(i) * beat + 0.3)
            modes.release(s, clock, pitch)
        }
        modes.play(s, clock, until: 4 * beat + 0.2)
        let info = try #require(panel(s), "the results panel is up")
        #expect(info.speedTrainer == "speed trainer: next pass at 70 % (accuracy 100 %, needed 90 %)")
        #expect(ResultsPanel.lines(info).contains("speed trainer: next pass at 70 % (accuracy 100 %, needed 90 %)"))
        _ = s.handle(key: Key(" "))  // any key plays on
        modes.play(s, clock, until: clock.now + 0.2)
        #expect(s.transport.tempoPercent == 70)
    }

    @Test func wThroughTheHeldPanelLoopsTheWeakestSectionAtTheLearnersOwnStart() throws {
        var plan = PracticePlan(hands: .right, repeatMode: .forever)
        plan.speedTrainer = PracticePlan.SpeedTrainer(start: 60, target: 100, step: 10)
        let (s, clock) = try make(plan)
        s.start()
        let beat = 0.5 / 0.6
        for (i, pitch) in [72, 73, 74, 75].enumerated() {
            modes.play(s, clock, until: Double(i) * beat)
            modes.press(s, clock, pitch)
            modes.play(s, clock, until: Double(i) * beat + 0.3)
            modes.release(s, clock, pitch)
        }
        modes.play(s, clock, until: 16 * beat + 0.3)
        let info = try #require(panel(s), "the results panel holds the music")
        #expect(info.speedTrainer?.hasPrefix("speed trainer: stays at 60 % (accuracy 25 %, needed 90 %)") == true, "\(info.speedTrainer ?? "nil")")
        // One W: the panel goes and the weakest section loops, from the learner's 60 %.
        _ = s.handle(key: Key("W"))
        #expect(s.transport.plan.bars != nil, "the weakest section loops")
        #expect(s.transport.state == .playing, "the panel let the music go on")
        #expect(s.transport.plan.speedTrainer?.start == 60 && s.transport.plan.speedTrainer?.step == 10)
        #expect(s.transport.tempoPercent == 60)
        #expect(s.snapshot().message?.contains("from 60 %") == true, "\(s.snapshot().message ?? "")")
    }
}
