@testable import App
@testable import FrontEnd
import Judge
import Screen
import Terminal
import Testing

/// What the learner reads after a pass with every kind of mistake: the results panel, the review
/// and `etude judge`'s lines name the wrong key, count each note once, spell the hand RH/LH
/// beside a verdict, list the bars in order with "+N more", and read the same without colour.
@Suite struct ResultsWordingTests {
    /// Five bars of C4 D4 E4 F4 (right hand) with one kind of mistake or two in each.
    static func report() -> PassReport {
        var report = PassReport(judgements: [])
        report.figures = ScoreFigures(hit: 16, missed: 1, wrong: 1, extra: 1, early: 1, onTime: 14, late: 1,
                                      accuracy: 84.21, timingMeanMs: 4, timingSdMs: 12, score: 82)
        report.figures.short = 1; report.figures.long = 1; report.figures.loud = 1; report.figures.soft = 1
        report.dynamics = true
        report.notes = (0..<20).map { i in
            var n = NoteVerdict(id: i, bar: String(i / 4 + 1), beat: Double(i % 4 + 1), pitch: [60, 62, 64, 65][i % 4],
                                hand: i % 2 == 0 ? "right" : "left", onset: .hit, release: .ok, loudness: .ok)
            n.barNumber = i / 4 + 1
            switch i {
            case 1: n.onset = .wrong; n.played = 63; n.release = nil; n.loudness = nil
            case 2: n.onset = .early; n.timingMs = -70
            case 5: n.onset = .missed; n.release = nil; n.loudness = nil
            case 6: n.onset = .late; n.timingMs = 80; n.release = .short; n.heldRatio = 0.4
            case 9: n.wrongKeyFirst = true; n.played = 63
            case 12: n.release = .long; n.heldRatio = 1.6
            case 17: n.loudness = .loud; n.velocity = 110; n.dynamic = "p"
            case 18: n.loudness = .soft; n.velocity = 30; n.dynamic = "f"
            default: break
            }
            return n
        }
        return report
    }

    @Test func theReviewLinesListTheBarsInOrderWithTheWrongKeyNamedAndMore() {
        let r = Self.report()
        #expect(r.reviewLines() == [
            "bar 1: D4 → D#4 wrong, E4 early",
            "bar 2: D4 missed, E4 late",
            "bar 3: D4 wrong key first (D#4)",
            "+2 more bars",
        ])
        #expect(r.reviewLines(limit: 5).suffix(2) == ["bar 4: C4 long", "bar 5: D4 loud (p), E4 soft (f)"])
    }

    @Test func nothingPlayedListsBarsOneToThreeFirst() {
        var r = Self.report()
        for i in r.notes.indices {
            r.notes[i] = NoteVerdict(id: i, bar: r.notes[i].bar, pitch: r.notes[i].pitch, hand: "right", onset: .missed)
            r.notes[i].barNumber = i / 4 + 1
        }
        // A longer bar later (bar 5 with more notes) must not jump ahead.
        r.notes.append(contentsOf: (0..<3).map { k in
            var n = NoteVerdict(id: 100 + k, bar: "5", pitch: 67, hand: "right", onset: .missed)
            n.barNumber = 5
            return n
        })
        let lines = r.reviewLines()
        #expect(lines.map { $0.prefix(6) } == ["bar 1:", "bar 2:", "bar 3:", "+2 mor"], "\(lines)")
    }

    @Test(arguments: [ColorDepth.none, .truecolor])
    func theResultsPanelSaysWhatHappenedWithAndWithoutColour(depth: ColorDepth) {
        let r = Self.report()
        let info = ResultsInfo(title: "Pass 1 at 100%", figures: r.figures, earLine: r.earLine, review: r.reviewLines())
        #expect(ResultsPanel.lines(info) == [
            "hit 16   missed 1   wrong 1   extra 1",
            "accuracy 84.2 %",
            "Releases: short 1, long 1 · loudness: loud 1, soft 1",
            "timing +4 ms ± 12 ms (on time)",
            "bar 1: D4 → D#4 wrong, E4 early",
            "bar 2: D4 missed, E4 late",
            "bar 3: D4 wrong key first (D#4)",
            "+2 more bars",
            "score 82",
        ])
        var model = ScreenModel(lookaheadSeconds: 4, pitchRange: 48...84)
        model.overlay = .results(info)
        let text = PracticeScreen(depth: depth).render(model, size: TerminalSize(columns: 80, rows: 24)).plainText()
        for line in ResultsPanel.lines(info) { #expect(text.contains(line), "\(depth): \(line)\n\(text)") }
    }

    @Test func theTimingWordIsOnTimeWithinTenMilliseconds() {
        #expect([-10.0, -3, 0, 1, 10].map { TimingLean(meanMs: $0) } == Array(repeating: .onTime, count: 5))
        #expect(TimingLean(meanMs: 10.5) == .late && TimingLean(meanMs: -11) == .early)
        var r = Self.report()
        r.figures.timingMeanMs = 1
        #expect(r.summaryLines()[2].hasPrefix("Timing +1 ms on average (on time)"), "\(r.summaryLines())")
        r.figures.timingMeanMs = -25
        #expect(r.summaryLines()[2].hasPrefix("Timing −25 ms on average (early)"))
    }

    @Test func theReviewCountsEveryVerdictAndNamesTheWrongKeys() throws {
        var review = try #require(PassReview(report: Self.report(), pass: 1))
        #expect(review.summary == "bar 1: 1 wrong (D4 → D#4), 1 early")
        review.step(1)
        #expect(review.summary == "bar 2: 1 missed, 1 late, 1 short")
        review.step(1)
        #expect(review.summary == "bar 3: 1 wrong key first (D#4 before D4)")
        review.step(2)
        #expect(review.summary == "bar 5: 1 loud, 1 soft")
    }

    @Test func everyJudgeLineCarriesItsVerdictAndTheHandAsRHOrLH() {
        let lines = Self.report().notes.filter(\.isFault).map(PerformanceJudge.line)
        #expect(lines == [
            "bar 1 beat 2  D4 → D#4  LH  wrong",
            "bar 1 beat 3  E4  RH  early -70 ms",
            "bar 2 beat 2  D4  LH  missed",
            "bar 2 beat 3  E4  RH  late 80 ms, short (held 40%)",
            "bar 3 beat 2  D4  LH  wrong key first (D#4)",
            "bar 4 beat 1  C4  RH  long (held 160%)",
            "bar 5 beat 2  D4  LH  loud (velocity 110, marked p)",
            "bar 5 beat 3  E4  RH  soft (velocity 30, marked f)",
        ])
        #expect(lines.allSatisfy { !$0.contains(" right ") && !$0.contains(" left ") })
    }
}
