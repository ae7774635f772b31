import Foundation
import Judge
import Lesson
import MIDIFile
import Testing
@testable import Practice

/// The learner's keyboard in judging: notes of the practised hand off their keys are played by
/// Etude and never expected, in play and wait modes alike.
@Suite("Coach with the learner's keyboard")
struct KeyboardRangeCoachTests {
    /// The Coach's lesson with every fifth note of the line (G4) moved to E7, above a 61-key C7.
    static func lessonAboveC7() throws -> Lesson {
        var lesson = try CoachTests.lesson()
        lesson.notes = lesson.notes.map { n in
            var m = n
            if n.part == .hand(.right) && n.pitch == 67 { m.pitch = 100 }
            return m
        }
        return lesson
    }

    static let high = Set((0..<32).filter { $0 % 8 == 4 })

    @Test func aPerformanceWithoutTheNotesAboveC7MissesNothingOnSixtyOneKeys() throws {
        var plan = CoachTests.rightHand
        plan.keyboard = try KeyboardRange.keys("61")
        let run = try ScriptedRun(lesson: Self.lessonAboveC7(), plan: plan, mode: .play)
        run.performer = { _, percent, t0 in CoachTests.perform(start: t0, percent: percent, skip: Self.high) }
        run.run()
        let report = try #require(run.reports.first)
        #expect(report.hit == 28 && report.missed == 0 && report.wrong == 0 && report.extra == 0)
        #expect(report.accuracy == 100)
    }

    @Test func onEightyEightKeysTheSameNotesAreMissed() throws {
        var plan = CoachTests.rightHand
        plan.keyboard = try KeyboardRange.keys("88")
        let run = try ScriptedRun(lesson: Self.lessonAboveC7(), plan: plan, mode: .play)
        run.performer = { _, percent, t0 in CoachTests.perform(start: t0, percent: percent, skip: Self.high) }
        run.run()
        let report = try #require(run.reports.first)
        #expect(report.hit == 28 && report.missed == 4)
    }

    @Test func waitModeDoesNotWaitForANoteOffTheKeys() throws {
        var plan = CoachTests.rightHand
        plan.keyboard = try KeyboardRange.range("C2-C7")
        let run = try ScriptedRun(lesson: Self.lessonAboveC7(), plan: plan, mode: .wait)
        run.performer = { _, percent, t0 in CoachTests.perform(start: t0, percent: percent, skip: Self.high) }
        run.run()
        #expect(run.transport.state == .finished)
        let report = try #require(run.reports.first)
        #expect(report.missed == 0 && report.hit == 28)
    }
}
