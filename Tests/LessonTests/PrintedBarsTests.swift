import Foundation
import Testing
import MIDIFile
import TestSupport
@testable import Lesson

/// Bars from a score's printed numbers (`etude:bar` annotations), the learner's bar syntax,
/// and staves giving the hands.
@Suite struct PrintedBarsTests {
    /// A performance of printed bars (4/4 unless a bar's length is given) with one note per
    /// bar, as the MusicXML reader writes it: conductor with `etude:bar`, one piano track.
    static func lesson(_ printed: [Int], lengths: [Int]? = nil, signatures: [MIDIEvent] = [Build.timeSignature(4, 4)]) throws -> Lesson {
        var conductor: [MIDIEvent] = signatures
        var notes: [MIDIEvent] = [Build.name("Piano")]
        var tick = 0
        for (k, p) in printed.enumerated() {
            conductor.append(Annotation.bar(p).event(tick: tick))
            let length = lengths?[k] ?? Build.bar
            notes += Build.note(60 + k % 12, at: tick, length: length / 2)
            tick += length
        }
        conductor.append(MIDIEvent(tick: tick, .meta(type: MetaType.endOfTrack, data: [])))
        return Lesson(file: try Build.file([conductor, notes]))
    }

    @Test func barsStartExactlyWhereTheScoreSays() throws {
        // A pickup of one beat, then 4/4 bars; a 3-beat bar split at a repeat is kept as written.
        let l = try Self.lesson([0, 1, 2, 3], lengths: [480, 1920, 1440, 1920])
        #expect(l.bars.isPrinted)
        #expect(l.bars.bars.map(\.startTick) == [0, 480, 2400, 3840])
        #expect(l.bars.bars.map(\.endTick) == [480, 2400, 3840, 5760])
        #expect(l.bars.bars.map(\.number) == [0, 1, 2, 3])
        #expect(l.bars.hasPickup)
        #expect(l.bars.position(atTick: 0) == Position(bar: 0, beat: 4))
        #expect(l.bars.position(atTick: 2400 + 960) == Position(bar: 2, beat: 3))
    }

    @Test func numberStaysThePerformedIndexAndPrintedRepeats() throws {
        let l = try Self.lesson([1, 2, 3, 4, 1, 2, 3, 4, 5])
        #expect(l.bars.bars.map(\.number) == Array(1...9))
        #expect(l.bars.bars.map(\.printed) == [1, 2, 3, 4, 1, 2, 3, 4, 5])
        #expect(l.bars.bars.map(\.pass) == [1, 1, 1, 1, 2, 2, 2, 2, 1])
        #expect(l.bars.count == 9)
        #expect(l.bars.printedMapText == "1–4 → 1–4, 1–4@2 → 5–8, 5 → 9")
    }

    @Test func beatsFollowTheSignatureInForce() throws {
        let l = try Self.lesson([1, 2], lengths: [1920, 1440], signatures: [Build.timeSignature(4, 4), Build.timeSignature(6, 8, at: 1920)])
        #expect(l.bars.bars[1].signature.numerator == 6)
        #expect(l.bars.bars[1].beatTicks == 720)
        #expect(l.bars.bars[1].beats.map(\.number) == [1, 2])
    }

    @Test func labelsAndRanges() throws {
        let l = try Self.lesson([1, 2, 3, 4, 1, 2, 3, 4, 5, 6])
        let map = l.bars
        #expect(map.label(number: 6) == "2@2")
        #expect(map.label(number: 2) == "2")
        #expect(map.label(ofRange: 2...4) == "2–4")
        #expect(map.label(ofRange: 6...8) == "2–4@2")
        #expect(map.label(ofRange: 3...6) == "3@1–2")
        #expect(map.label(ofRange: 2...7) == "2@1–3@2")
        for r in [2...4, 6...8, 3...6, 2...7, 4...9, 1...10] {
            #expect(try map.range(parsing: map.label(ofRange: r)) == r)
        }
        #expect(try map.range(parsing: "2-4") == 2...4)
        #expect(try map.range(parsing: "2–4@2") == 6...8)
        #expect(try map.range(parsing: "2@2-4") == 6...8)
        #expect(try map.range(parsing: "3@1-2@2") == 3...6)
        #expect(try map.range(parsing: "4-5") == 4...9)
        #expect(try map.range(parsing: "3") == 3...3)
        #expect(try map.range(parsing: "3@2") == 7...7)
        #expect(try map.range(parsing: " 5 - 6 ") == 9...10)
    }

    @Test func rangeErrorsSayWhatWouldWork() throws {
        let map = try Self.lesson([0, 1, 2, 1, 2, 3]).bars
        func message(_ text: String) -> String {
            do { _ = try map.range(parsing: text); return "" } catch { return error.message }
        }
        #expect(message("9-12") == "--bars 9-12: the score has no bar 9 (its bars are numbered 0–3)")
        #expect(message("1-2@3") == "--bars 1-2@3: bar 1 is played 2 times; use @1 to @2")
        #expect(message("3-1") == "--bars 3-1: the first bar comes after the last; did you mean 1-3?")
        #expect(message("1@2-2@1") == "--bars 1@2-2@1: bar 2@1 is played before bar 1@2")
        #expect(message("x") == "--bars x: write the bars as A-B, e.g. 5-8 (or 5-8@2 for the second time through)")
        #expect(message("1-2@0").contains("after @"))
    }

    @Test func lessonsWithoutPrintedNumbersMeanWhatTheyAlwaysHave() throws {
        let l = Lesson(file: try Build.twelveBars())
        #expect(!l.bars.isPrinted)
        #expect(l.bars.bars.allSatisfy { $0.printed == $0.number && $0.pass == 1 })
        #expect(try PracticePlan.parseBars("5-8", in: l) == 5...8)
        #expect(try PracticePlan.parseBars("5–8", in: l) == PracticePlan.parseBars("5-8"))
        #expect(try PracticePlan.parseBars("5-8@1", in: l) == 5...8)
        #expect(throws: PlanError.self) { try PracticePlan.parseBars("5-8@2", in: l) }
        #expect(throws: PlanError.self) { try PracticePlan.parseBars("8-5", in: l) }
        #expect(throws: PlanError.self) { try PracticePlan.parseBars("11-14", in: l) }
        #expect(l.bars.label(ofRange: 5...8) == "5–8")
        #expect(l.sections.first?.name == "Bars 1–4")
    }

    @Test func aPlanOnPrintedBarsPlaysThosePerformedBars() throws {
        let l = try Self.lesson([1, 2, 3, 4, 1, 2, 3, 4, 5])
        var plan = PracticePlan()
        plan.bars = try PracticePlan.parseBars("2-3@2", in: l)
        try plan.validate(for: l)
        #expect(plan.tickRange(in: l) == 5 * 1920..<7 * 1920)
        let file = try LessonExport.midiFile(lesson: l, plan: plan)
        let exported = Lesson(file: file)
        #expect(exported.notes.map(\.pitch) == [65, 66])
    }

    @Test func autoSectionsAreNamedByPrintedBars() throws {
        let l = try Self.lesson([1, 2, 3, 4, 1, 2, 3, 4])
        #expect(l.sections.map(\.name) == ["Bars 1–4", "Bars 1–4@2"])
    }

    @Test func stavesGiveTheHands() throws {
        // Staff 1 dips below staff 2 (hands crossing): the staves still decide.
        var conductor = [Build.timeSignature(4, 4)]
        conductor.append(Annotation.bar(1).event(tick: 0))
        let right = [Build.name("Piano"), Annotation.hand(.right).event(tick: 0), MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))]
            + Build.note(48, at: 0, length: 480) + Build.note(50, at: 480, length: 480)
        let left = [Build.name("Piano"), Annotation.hand(.left).event(tick: 0), MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))]
            + Build.note(72, at: 0, length: 960)
        let l = Lesson(file: try Build.file([conductor, right, left]))
        #expect(l.handAssignment.method == .staves)
        #expect(l.notes.filter { $0.part == .hand(.right) }.map(\.pitch) == [48, 50])
        #expect(l.notes.filter { $0.part == .hand(.left) }.map(\.pitch) == [72])
        #expect(l.scoreParts.count == 1)
        #expect(l.scoreParts.first?.staves.map(\.hand) == [.right, .left])
        // --split still overrides.
        let split = Lesson(file: try Build.file([conductor, right, left]), split: 60)
        #expect(split.handAssignment.method == .splitPoint)
    }
}

/// `--bars` is checked for form where it is typed, before any lesson reads it.
@Suite struct BarsArgumentTests {
    @Test func theFormIsCheckedOnceAndTheLessonReadsTheRest() throws {
        let a = try BarsArgument(parsing: "12-16@2")
        #expect(a.first == .init(bar: 12, pass: nil) && a.last == .init(bar: 16, pass: 2))
        #expect(try BarsArgument(parsing: "3@1-2@2").last == .init(bar: 2, pass: 2), "an end naming its time may run backwards")
        #expect(try BarsArgument(parsing: "7").last == nil)
        for (text, problem) in [("9-3", "did you mean 3-9?"), ("5-x", "write the bars as A-B"), ("2@0", "after @ give which time through"),
                                ("1-2-3", "write the bars as A-B"), ("-4", "write the bars as A-B")] {
            #expect(throws: PlanError.self, "\(text)") { try BarsArgument(parsing: text) }
            do { _ = try BarsArgument(parsing: text) } catch { #expect(error.message.contains(problem), "\(text): \(error.message)") }
        }
        #expect(throws: PlanError.self, "counted bars have no second time") { try PracticePlan.bars(BarsArgument(parsing: "1-2@2"), in: nil) }
        #expect(try PracticePlan.bars(BarsArgument(parsing: "5–8"), in: nil) == 5...8)
    }
}
