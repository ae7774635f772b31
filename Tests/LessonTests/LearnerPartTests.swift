import Clocks
import MIDIFile
import Testing
import TestSupport
@testable import Lesson

/// Issue 38.1: the learner's own part is never sounded in the judging modes unless they ask for
/// the guide, and the guide is a quiet note for the synth alone (`TransportEvent.guide`), never a
/// `.synth` message that could reach their instrument or the key lights' port.
@Suite struct LearnerPartTests {
    static let leftPitches = Set(36...47)

    static func run(_ part: PracticePlan.LearnerPart, hands: PracticePlan.Hands = .right) throws -> [TimedEvent] {
        let lesson = Build.lesson(try Build.twelveBars())
        var plan = PracticePlan(hands: hands, otherHand: .play, bars: 1...2)
        plan.learnerPart = part
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: plan, clock: clock)
        return runToEnd(&t, clock: clock)
    }

    static func guides(_ events: [TimedEvent]) -> [(pitch: Int, velocity: Int)] {
        events.compactMap { if case .guide(.noteOn(_, let k, let v)) = $0.event, v > 0 { return (Int(k), Int(v)) } else { return nil } }
    }

    @Test func heardPlaysEveryNoteAsWritten() throws {
        let events = try Self.run(.heard)
        #expect(events.noteOns.count == 10)
        #expect(Self.guides(events).isEmpty)
    }

    @Test func silentSendsNothingOfThePractisedHandButStillCuesIt() throws {
        let events = try Self.run(.silent)
        let ons = events.noteOns
        #expect(ons.count == 2 && ons.allSatisfy { Self.leftPitches.contains($0.pitch) }, "only the other hand sounds: \(ons)")
        #expect(Self.guides(events).isEmpty)
        // No note-off either for a note never struck (a piano would see a stray message).
        #expect(events.noteOffs.allSatisfy { Self.leftPitches.contains($0.pitch) }, "\(events.noteOffs)")
        // The screen and the judge still see every practised note.
        let cues = events.compactMap { if case .noteStarted(let c) = $0.event { return c } else { return nil } }
        #expect(cues.filter(\.practised).count == 8)
    }

    @Test func theGuideIsQuietAndForTheSynthOnly() throws {
        let events = try Self.run(.guide)
        let ons = events.noteOns
        #expect(ons.count == 2 && ons.allSatisfy { Self.leftPitches.contains($0.pitch) }, "no practised note is an ordinary message: \(ons)")
        let guides = Self.guides(events)
        #expect(guides.count == 8 && guides.allSatisfy { !Self.leftPitches.contains($0.pitch) })
        #expect(guides.allSatisfy { $0.velocity == 28 }, "80 × 0.35: \(guides)")
        let guideOffs = events.filter { if case .guide(.noteOff) = $0.event { return true } else { return false } }
        #expect(guideOffs.count == 8, "each guide note ends on the synth")
    }

    @Test func pausingSilencesTheGuideOnTheSynthOnly() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        var plan = PracticePlan(hands: .right, bars: 1...2)
        plan.learnerPart = .guide
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: plan, clock: clock)
        _ = t.play()
        clock.set(0.1)
        let started = t.advance(to: clock.now)
        #expect(!Self.guides(started).isEmpty, "a guide note sounds at the start")
        let off = t.pause()
        #expect(off.contains { if case .guide(.noteOff) = $0.event { return true } else { return false } }, "\(off)")
        #expect(!off.contains { if case .synth(.noteOff(_, let k, _)) = $0.event { return !Self.leftPitches.contains(Int(k)) } else { return false } })
    }

    @Test func theModeDecidesThePart() {
        #expect(PracticePlan.LearnerPart.forMode(judging: false, guide: true) == .heard)
        #expect(PracticePlan.LearnerPart.forMode(judging: true, guide: false) == .silent)
        #expect(PracticePlan.LearnerPart.forMode(judging: true, guide: true) == .guide)
    }

    @Test func switchingThePartMidPassTakesEffectFromThere() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(hands: .right, bars: 1...2), clock: clock)
        t.setLearnerPart(.silent)
        let events = runToEnd(&t, clock: clock)
        #expect(events.noteOns.allSatisfy { Self.leftPitches.contains($0.pitch) })
    }
}
