@testable import FrontEnd
import Judge
import Lesson
import Notation
import Screen
import Terminal
import TestSupport
import Testing

/// The review of a pass, bar by bar: opens on the first bar with a mistake, steps, counts each
/// bar's verdicts in a line, and draws the bar's notes marked.
@Suite struct PassReviewTests {
    /// Four bars of four quarter notes (the PlayingModes lesson's right hand): bar 1 right,
    /// bar 2 right, bar 3 with a late, a wrong and a short note, bar 4 with a missed note.
    static func report() -> PassReport {
        var report = PassReport(judgements: [])
        report.notes = (0..<16).map { i in
            var n = NoteVerdict(id: 2 * i, pitch: 72 + i % 4, hand: "right", onset: .hit, release: .ok)
            n.barNumber = i / 4 + 1
            n.bar = String(i / 4 + 1)
            n.beat = Double(i % 4 + 1)
            switch i {
            case 8: n.onset = .late
            case 9: n.onset = .wrong; n.played = 75; n.release = nil
            case 10: n.release = .short
            case 13: n.onset = .missed; n.release = nil
            default: break
            }
            return n
        }
        return report
    }

    @Test func opensOnTheFirstBarWithAMistakeAndSteps() throws {
        var review = try #require(PassReview(report: Self.report(), pass: 2))
        #expect(review.bars.map(\.label) == ["1", "2", "3", "4"])
        #expect(review.bar.label == "3")
        #expect(review.summary == "bar 3: 1 wrong (C#5 → D#5), 1 late, 1 short")
        #expect(review.message.hasPrefix("bar 3: 1 wrong (C#5 → D#5), 1 late, 1 short  ·  3 of 4  ·  ←/→ bar · Esc back"))
        #expect(review.key(Key(.right)) == .stay && review.summary == "bar 4: 1 missed")
        #expect(review.key(Key("n")) == .stay && review.bar.label == "4", "the last bar stays")
        for _ in 0..<5 { _ = review.key(Key("p")) }
        #expect(review.summary == "bar 1: all 4 notes right")
        #expect(review.key(Key(.home)) == .stay && review.bar.label == "3", "Home: the first mistake")
        #expect(review.key(Key(.left)) == .stay && review.bar.label == "2")
        #expect(review.key(Key("?")) == .stay && review.showHelp)
        #expect(review.key(Key(.escape)) == .stay && !review.showHelp, "any key closes the help first")
        #expect(review.key(Key("q")) == .pass, "q quits as everywhere")
        #expect(review.key(Key(.escape)) == .leave)
        #expect(review.key(Key(.enter)) == .leave)
    }

    @Test func aPassWithoutMistakesOpensOnItsFirstBarAndOneWithoutBarsNotAtAll() throws {
        var report = Self.report()
        for i in report.notes.indices { report.notes[i].onset = .hit; report.notes[i].release = .ok }
        let review = try #require(PassReview(report: report, pass: 1))
        #expect(review.bar.label == "1" && review.firstMistake == nil)
        report.notes = report.notes.map { var n = $0; n.barNumber = nil; return n }
        #expect(PassReview(report: report, pass: 1) == nil)
    }

    @Test func theFrameShowsTheBarsNotesMarkedAndTheSummary() throws {
        let lesson = PlayingModesTests.lesson()
        let rightHand = lesson.notes.indices.filter { lesson.notes[$0].part.hand == .right }
        var report = Self.report()
        for i in report.notes.indices { report.notes[i].id = rightHand[i] }
        let review = try #require(PassReview(report: report, pass: 2))
        var base = ScreenModel()
        base.status.title = "four"
        base.overlay = .results(ResultsInfo(figures: ScoreFigures(hit: 14, missed: 1, wrong: 1, extra: 0, accuracy: 87.5, score: 80)))
        let model = review.model(lesson: lesson, base: base)
        #expect(model.overlay == nil && model.message == review.message)
        #expect(model.status.title == "review of pass 2 · four" && model.status.bar == 3)
        #expect(model.notes.map(\.verdict) == [.late, .wrong, .short, .ok])
        #expect(model.notes.map(\.pitch) == [72, 73, 74, 75])
        #expect(model.notes.first?.start == 0 && abs((model.notes.last?.start ?? 0) - 1.5) < 1e-9, "a quarter is 0.5 s at ♩=120")
        #expect(model.lookaheadSeconds == 2.5 && model.barLines.map(\.label) == ["3", "4"])
        // The staff: bar 3's page, the bar bracketed, every judged note marked.
        let marks = review.staffMarks(lesson: lesson)
        #expect(marks.loopBars == 3...3 && marks.cursorTick == 2 * 1920)
        #expect(marks.judgements[rightHand[9]] == .wrong && marks.judgements[rightHand[13]] == .missed)
        #expect(marks.judgements[rightHand[10]] == .short && marks.judgements[rightHand[0]] == .ok)
        #expect(marks.judgements[rightHand[8]] == .late, "early and late are marked on the staff too")
        // After a pass: each note's mark by lesson note.
        let verdicts = PassReview.verdicts(report)
        #expect(verdicts[rightHand[8]] == .late && verdicts[rightHand[0]] == .ok && verdicts.count == 16)
    }

    /// C4 C4 C4 C4 in a bar: four notes in the review, each set apart from the next (issue 39:
    /// repeated notes merged into one block).
    @Test func repeatedNotesStayApartInTheReview() throws {
        let file = try Build.file([[Build.timeSignature(4, 4), Build.tempo(bpm: 120)],
                                   [Build.name("RH")] + (0..<4).flatMap { Build.note(60, at: $0 * 480, length: 480) }])
        let lesson = Lesson(file: file, fileName: "repeated.mid")
        var report = PassReport(judgements: [])
        report.notes = lesson.notes.indices.map { i in
            var n = NoteVerdict(id: i, pitch: 60, hand: "right", onset: .hit, release: .ok)
            n.barNumber = 1
            n.bar = "1"
            return n
        }
        let review = try #require(PassReview(report: report, pass: 1))
        var base = ScreenModel()
        base.pitchRange = 48...72
        let model = review.model(lesson: lesson, base: base)
        #expect(model.notes.count == 4)
        for depth in [ColorDepth.truecolor, .none] {
            for (w, h) in [(80, 24), (60, 20), (200, 50)] {
                let buffer = PracticeScreen(depth: depth).render(model, size: TerminalSize(columns: w, rows: h))
                let c = KeyboardLayout(width: w, range: 48...72).noteColumns(60)!.lowerBound
                let keyboardY = h - 1 - KeyboardWidget.height
                let halves = (3..<keyboardY).filter { buffer[c, $0].character == "▄" || buffer[c, $0].character == "▀" }
                #expect(halves.count >= 3, "\(depth) \(w)×\(h): three gaps between four notes, at rows \(halves)")
            }
        }
    }
}
