import Foundation
import MIDIFile
import Testing
import TestSupport
@testable import Lesson

/// `--transpose`: the interval, the new key (the nearer one on the circle of fifths), each
/// written note moved by the interval, fingering kept; and the learner's keyboard (`--keys`,
/// `--range`): what is expected, what is refused, the octave that fits a hand.
@Suite struct TranspositionTests {
    static let c = KeySignature(sharps: 0, minor: false)

    func t(_ text: String, from key: KeySignature? = c) throws -> Transposition {
        try Transposition.resolve(try Transposition.Request.parse(text), key: key)
    }

    @Test func semitonesGoToTheNearerKeyOfTheCircleOfFifths() throws {
        #expect(try t("+2").key(Self.c) == KeySignature(sharps: 2, minor: false))        // D
        #expect(try t("-2").key(Self.c) == KeySignature(sharps: -2, minor: false))       // B♭
        #expect(try t("+1").key(Self.c) == KeySignature(sharps: -5, minor: false))       // D♭, not C♯
        #expect(try t("-1").key(Self.c) == KeySignature(sharps: 5, minor: false))        // B, not C♭
        let e = KeySignature(sharps: 4, minor: false)
        #expect(try t("+2", from: e).key(e) == KeySignature(sharps: 6, minor: false))    // F♯ from E
        let am = KeySignature(sharps: 0, minor: true)
        #expect(try t("+2", from: am).key(am) == KeySignature(sharps: 2, minor: true))   // B minor
        #expect(try t("+14").steps == 8)
        #expect(try t("-10").steps == -6)
    }

    @Test func keysByNameTakeTheNearerWay() throws {
        #expect(try t("D") == Transposition(semitones: 2, steps: 1, from: Self.c))
        #expect(try t("Bb") == Transposition(semitones: -2, steps: -1, from: Self.c))
        #expect(try t("G").semitones == -5)
        #expect(try t("F#").key(Self.c).sharps == 6)
        #expect(try t("Gb").key(Self.c).sharps == -6)
        #expect(try t("C:D", from: nil).key(Self.c).sharps == 2)
    }

    @Test func badTranspositionsAreOneLineNamingTheFix() throws {
        #expect(throws: PlanError.self) { try Transposition.Request.parse("+25") }
        #expect(throws: PlanError.self) { try Transposition.Request.parse("H") }
        #expect(throws: PlanError.self) { try Transposition.Request.parse("D#") }   // no such major key: E♭
        #expect(throws: PlanError.self) { try t("D", from: nil) }                    // the lesson names no key
        #expect(throws: PlanError.self) { try t("Dm") }                              // a minor key for a major lesson
        do {
            _ = try Transposition.Request.parse("30")
        } catch {
            #expect(error.worded { "--\($0.rawValue) \($1)" } == "--transpose 30: give semitones from −24 to +24, or a key, e.g. --transpose +2")
        }
    }

    /// The one line a transposition to `text` is refused with, nil when it is taken.
    static func refusal(_ text: String, key: KeySignature) -> String? {
        let request: Transposition.Request
        do { request = try Transposition.Request.parse(text) } catch { return error.worded { "--\($0.rawValue) \($1)" } }
        do { _ = try Transposition.resolve(request, key: key) } catch { return error.worded { "--\($0.rawValue) \($1)" } }
        return nil
    }

    /// Issue 40: the key suggested in the other mode is a key (`Cb` on a minor lesson: `Bm`, not `Cbm`).
    @Test func theKeySuggestedInTheOtherModeIsAKey() throws {
        let am = KeySignature(sharps: 0, minor: true)
        for (given, hint) in [("Cb", "Bm"), ("Gb", "F#m"), ("Db", "C#m"), ("D", "Dm"), ("Bb", "Bbm")] {
            let message = Self.refusal(given, key: am)
            #expect(message?.hasSuffix("try --transpose \(hint)") == true, "\(given): \(message ?? "taken")")
            #expect(KeyName(hint) != nil, "\(hint) is a key")
        }
        for (given, hint) in [("A#m", "Bb"), ("Am", "A"), ("D#m", "Eb"), ("F minor", "F")] {
            #expect(KeyName(given)?.sameTonic(minor: false) == hint)
        }
    }

    @Test func writtenNotesMoveByTheInterval() throws {
        let d = try t("D")
        #expect(d.spelling(SpelledPitch(letter: 3, alter: 1), pitch: 66) == SpelledPitch(letter: 4, alter: 1))   // F♯ → G♯
        #expect(d.spelling(SpelledPitch(letter: 6, alter: -1), pitch: 70) == SpelledPitch(letter: 0, alter: 0))  // B♭ → C
        let bb = try t("Bb")
        #expect(bb.spelling(SpelledPitch(letter: 3, alter: 0), pitch: 65) == SpelledPitch(letter: 2, alter: -1)) // F → E♭
    }

    @Test func aLessonMovesNoteForNoteWithItsKeyAndFingering() throws {
        var conductor = [Build.name("Scale"), Build.keySignature(sharps: 0)]
        conductor.append(Build.timeSignature(4, 4))
        var right = [Build.name("RH")]
        for (i, p) in [60, 62, 64, 65].enumerated() {
            right.append(Annotation.finger(pitch: p, finger: i + 1).event(tick: i * 480))
            right.append(Annotation.spelling(pitch: p, SpelledPitch(letter: i, alter: 0)).event(tick: i * 480))
            right += Build.note(p, at: i * 480, length: 480)
        }
        right += [MIDIEvent(tick: 0, .noteOn(channel: 9, key: 42, velocity: 90)), MIDIEvent(tick: 100, .noteOff(channel: 9, key: 42, velocity: 0))]
        let lesson = Lesson(file: try Build.file([conductor, right]))
        let moved = lesson.transposed(try t("+2"))
        #expect(moved.notes.filter { $0.channel != 9 }.map(\.pitch) == [62, 64, 66, 67])
        #expect(moved.notes.filter { $0.channel == 9 }.map(\.pitch) == [42])
        #expect(moved.keySignatures.first?.value == KeySignature(sharps: 2, minor: false))
        #expect(moved.notes.filter { $0.channel != 9 }.compactMap { moved.finger(of: $0) } == [1, 2, 3, 4])
        #expect(moved.notes.filter { $0.channel != 9 }.compactMap { moved.spelling(of: $0)?.name } == ["D", "E", "F#", "G"])
        #expect(moved.pitchRange == 42...67)
        // The file moved event by event says the same.
        let file = try Build.file([conductor, right]).transposed(try t("+2"))
        let reread = Lesson(file: file)
        #expect(reread.notes.map(\.pitch) == moved.notes.map(\.pitch))
        #expect(reread.notes.compactMap { reread.spelling(of: $0)?.name } == ["D", "E", "F#", "G"])
    }

    @Test func keyboardSizesAndRanges() throws {
        #expect(try KeyboardRange.keys("61").range == 36...96)
        #expect(try KeyboardRange.range("C2-C7").range == 36...96)
        #expect(try KeyboardRange.range("21-108").count == 88)
        #expect(try KeyboardRange.range("C-1-G9").range == 0...127)
        #expect(try KeyboardRange.range("F1 – A7").range == 29...105)
        #expect(KeyboardRange(text: "C2-C7")?.range == 36...96)
        #expect(throws: PlanError.self) { try KeyboardRange.keys("62") }
        #expect(throws: PlanError.self) { try KeyboardRange.range("C4-A4") }       // fewer than 12 keys
        #expect(throws: PlanError.self) { try KeyboardRange.range("C7-C2") }
        #expect(throws: PlanError.self) { try KeyboardRange.range("C2") }
    }

    @Test func notesOffTheKeysAreNotExpectedAndARangeLeavingNothingIsRefused() throws {
        let lesson = Lesson(file: try Build.twelveBars())  // right hand 60–71 plus 90, 91
        var plan = PracticePlan(hands: .right)
        plan.keyboard = try KeyboardRange.range("C2-C6")
        let right = lesson.notes.filter { $0.part == .hand(.right) }
        #expect(right.filter { plan.expects($0) }.count == right.count - 2)
        #expect(!lesson.notes.filter { $0.part == .hand(.left) }.contains { plan.expects($0) })
        try plan.validate(for: lesson)
        plan.keyboard = try KeyboardRange.range("C1-B1")
        #expect(throws: PlanError.self) { try plan.validate(for: lesson) }
        // The pass the transport plays marks the same notes practised.
        plan.keyboard = try KeyboardRange.range("C2-C6")
        let pass = PassSchedule(lesson: lesson, plan: plan, from: 0, to: lesson.endTick, percent: 100, options: .init(pass: 1, countIn: false))
        #expect(pass.notes.filter { $0.cue.practised }.count == right.count - 2)
    }

    @Test func aHandThatFitsByOctavesIsOfferedAndMoved() throws {
        let lesson = Lesson(file: try Build.twelveBars())  // right hand 60–91
        var plan = PracticePlan(hands: .right)
        plan.keyboard = try KeyboardRange.keys("25")          // C3–C5: 48–72, the hand spans 31 keys
        #expect(KeyboardFit.check(lesson, plan: plan)?.hands.first?.octaves == nil)
        plan.keyboard = try KeyboardRange.range("C4-C7")      // 60–96: the hand is on it as written
        #expect(KeyboardFit.check(lesson, plan: plan)?.hands.isEmpty == true)
        plan.keyboard = try KeyboardRange.range("C5-C8")      // 72–108: the hand fits an octave up
        let fit = try #require(KeyboardFit.check(lesson, plan: plan))
        #expect(fit.hands.first?.octaves == 1)
        #expect(fit.notices(fitOption: "--fit octave").first?.contains("fits an octave up: add --fit octave") == true)
        let moved = fit.fitted(lesson).lesson
        #expect(moved.notes.filter { $0.part == .hand(.right) }.allSatisfy { (72...108).contains(Int($0.pitch)) })
        #expect(moved.notes.filter { $0.part == .hand(.left) }.map(\.pitch) == lesson.notes.filter { $0.part == .hand(.left) }.map(\.pitch))
    }

    @Test func oneOffRangeNoteIsLeftToEtudeAndTheHandStays() throws {
        let lesson = Lesson(file: try Build.twelveBars())  // left hand 36–47, one whole note a bar
        var plan = PracticePlan(hands: .both)
        plan.keyboard = try KeyboardRange.range("C#2-C7")   // 37–96: only the left hand's C2 is off
        let fit = try #require(KeyboardFit.check(lesson, plan: plan))
        let left = try #require(fit.hands.first { $0.hand == .left })
        #expect(left.outside == 1 && left.total == 12 && left.octaves == nil)
        let notices = fit.notices(fitOption: "--fit octave")
        #expect(notices.count == 1 && notices[0].contains("Etude plays the left-hand notes off it (1 below") && !notices[0].contains("--fit"))
        let (moved, lines) = fit.fitted(lesson)
        #expect(lines.isEmpty)
        #expect(moved.notes.map(\.pitch) == lesson.notes.map(\.pitch))
        #expect(!plan.expects(try #require(lesson.notes.first { $0.pitch == 36 })))
    }

    @Test func aHandMostlyOffMovesAndLeavesItsStrayNoteToEtude() throws {
        let lesson = Lesson(file: try Build.twelveBars())  // left hand 36–47
        var plan = PracticePlan(hands: .left)
        plan.keyboard = try KeyboardRange.range("C#3-C4")   // 49–60: the whole left hand is off
        let fit = try #require(KeyboardFit.check(lesson, plan: plan))
        let left = try #require(fit.hands.first)
        // An octave up puts 11 of 12 on the keys (48, C3, stays off): the move is still made.
        #expect(left.octaves == 1 && left.offAfterMove == 1)
        #expect(fit.notices(fitOption: "--fit octave").first?.contains("the left hand fits but for 1 note an octave up: add --fit octave") == true)
        let (moved, lines) = fit.fitted(lesson)
        #expect(lines.count == 1 && lines[0].hasPrefix("the left hand moved an octave up to fit your "))
        #expect(moved.notes.filter { $0.part == .hand(.left) }.map(\.pitch) == (48...59).map(UInt8.init))
        // After the move the hand is mostly on the keys: nothing more is offered.
        #expect(KeyboardFit.check(moved, plan: plan)?.hands.first?.octaves == nil)
    }

    @Test func fuerEliseOn61KeysKeepsItsLeftHand() throws {
        let file = try MIDIReader.read(Array(Data(contentsOf: Repo.lessons.appendingPathComponent("level5/fur-elise.mid")))).file
        let lesson = Lesson(file: file, fileName: "fur-elise.mid")
        var plan = PracticePlan(hands: .both)
        plan.keyboard = try KeyboardRange.keys("61")
        let fit = try #require(KeyboardFit.check(lesson, plan: plan))
        #expect(fit.hands.allSatisfy { $0.octaves == nil })
        let (moved, lines) = fit.fitted(lesson)
        #expect(lines.isEmpty)
        #expect(moved.notes.map(\.pitch) == lesson.notes.map(\.pitch))
    }
}
