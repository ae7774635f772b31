import Clocks
import Foundation
import Lesson
import MIDIFile
import Practice
import Synth
import Terminal
import Testing

/// Issue 38.1 on a practice session (virtual clock, recording output): in wait, play and memory
/// mode the practised hand never reaches the output; `--guide on` sends it as quiet guide notes
/// (the synth alone); watch mode plays everything; `G` turns the guide on and off, said and
/// handed to whoever remembers it.
@Suite struct LearnerPartSessionTests {
    static let rightHand = 72...79

    func make(_ mode: PracticeMode, guide: Bool = false) throws -> (SessionHarness, VirtualClock, RecordingOutput) {
        let clock = VirtualClock()
        let output = RecordingOutput(clock: { clock.now })
        let plan = PracticePlan(hands: .right, bars: 1...1, repeatMode: .times(1))
        let s = try SessionHarness(lesson: PlayingModesTests.lesson(), plan: plan, clock: clock, output: output,
                                   settings: .init(mode: mode, computerKeyboard: false, countIn: false, guide: guide))
        return (s, clock, output)
    }

    func play(_ s: SessionHarness, _ clock: VirtualClock, until time: Double) {
        while clock.now < time - 1e-9 {
            clock.advance(by: min(0.05, time - clock.now))
            s.advance()
        }
        s.advance()
    }

    static func rightOns(_ messages: [MIDIEvent.Kind]) -> [(key: Int, velocity: Int)] {
        messages.compactMap { if case .noteOn(_, let k, let v) = $0, v > 0, rightHand.contains(Int(k)) { return (Int(k), Int(v)) } else { return nil } }
    }

    @Test(arguments: [PracticeMode.wait, .play, .memory])
    func theJudgingModesNeverSoundThePractisedHand(_ mode: PracticeMode) throws {
        let (s, clock, output) = try make(mode)
        s.start()
        for (i, pitch) in [72, 73, 74, 75].enumerated() {
            play(s, clock, until: Double(i) * 0.5 + 0.01)
            s.learnerPlayed(LearnerNote(pitch: pitch, velocity: 80, isOn: true, time: clock.now))
            play(s, clock, until: Double(i) * 0.5 + 0.3)
            s.learnerPlayed(LearnerNote(pitch: pitch, velocity: 0, isOn: false, time: clock.now))
        }
        play(s, clock, until: 3)
        #expect(Self.rightOns(output.messages).isEmpty, "\(mode): \(output.messages)")
        #expect(output.guides.isEmpty)
        #expect(output.messages.contains { if case .noteOn(_, 48, let v) = $0 { return v > 0 } else { return false } }, "the other hand still sounds")
        let pass = try #require(s.takeFinishedPasses().first)
        #expect(s.score(for: pass)?.hit == 4, "judged as ever")
    }

    @Test func theGuideIsQuietOnTheSynthAlone() throws {
        let (s, clock, output) = try make(.play, guide: true)
        s.start()
        play(s, clock, until: 2.5)
        #expect(Self.rightOns(output.messages).isEmpty, "never an ordinary message: \(output.messages)")
        let guided = Self.rightOns(output.guides)
        #expect(guided.map(\.key) == [72, 73, 74, 75], "\(output.guides)")
        #expect(guided.allSatisfy { $0.velocity == 28 }, "80 at 35 %: \(guided)")
    }

    @Test func watchModePlaysEverything() throws {
        let (s, clock, output) = try make(.watch)
        s.start()
        play(s, clock, until: 2.5)
        #expect(Self.rightOns(output.messages).map(\.key) == [72, 73, 74, 75])
        #expect(output.guides.isEmpty)
    }

    @Test func theGuideKeyTurnsItOnSaysSoAndIsRemembered() throws {
        let (s, clock, output) = try make(.play)
        let told = LockedBools()
        s.controller.onGuide = { told.add($0) }
        s.start()
        play(s, clock, until: 0.2)
        _ = s.handle(key: Key("G"))
        #expect(s.controller.view.message?.hasPrefix("guide on") == true, "\(String(describing: s.controller.view.message))")
        play(s, clock, until: 1.8)
        #expect(!output.guides.isEmpty, "heard from the key on")
        #expect(Self.rightOns(output.messages).isEmpty)
        _ = s.handle(key: Key("G"))
        #expect(s.controller.view.message == "guide off: Etude never sounds your part")
        #expect(told.all == [true, false])
    }
}

final class LockedBools: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Bool] = []
    func add(_ v: Bool) { lock.withLock { values.append(v) } }
    var all: [Bool] { lock.withLock { values } }
}
