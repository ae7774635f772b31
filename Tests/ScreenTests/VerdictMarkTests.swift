import Judge
import Terminal
import Testing
@testable import Screen

/// After a pass, the falling notes carry each note's verdict: a glyph on the note's first row
/// that reads without colour, and the verdict's colour.
@Suite struct VerdictMarkTests {
    static func model() -> ScreenModel {
        var m = ScreenModel(lookaheadSeconds: 4, pitchRange: 48...84)
        let marks: [VerdictMark] = [.ok, .early, .late, .wrong, .missed, .wrongKeyFirst, .short, .long, .loud, .soft]
        m.notes = marks.enumerated().map { i, v in
            FallingNote(pitch: 60 + 2 * i, start: 0.3 * Double(i), end: 0.3 * Double(i) + 0.6, role: .rightHand, verdict: v)
        }
        return m
    }

    @Test(arguments: [ColorDepth.none, .truecolor])
    func everyVerdictsGlyphIsOnItsNoteWithAndWithoutColour(depth: ColorDepth) {
        let buffer = PracticeScreen(depth: depth).render(Self.model(), size: TerminalSize(columns: 80, rows: 24))
        let text = buffer.plainText()
        for mark in VerdictMark.allCases {
            #expect(text.contains(Character(mark.glyph)), "\(mark) \(depth): \(text)")
        }
        // Each glyph sits in its note's column, on one row, in a cell of its own style.
        let layout = KeyboardLayout(width: 80, range: 48...84)
        for note in Self.model().notes {
            guard let v = note.verdict, let cols = layout.noteColumns(note.pitch) else { continue }
            let rows = (3..<(23 - KeyboardWidget.height)).filter { buffer[cols.lowerBound, $0].scalar == v.glyph.value }
            #expect(rows.count == 1, "\(v) at column \(cols.lowerBound)")
            if depth == .truecolor, let y = rows.first {
                #expect(buffer[cols.lowerBound, y].bg == Theme(depth: depth).verdictColor(v), "\(v)")
            }
        }
    }

    @Test func aNoteWithoutAVerdictIsDrawnAsBefore() {
        var m = Self.model()
        for i in m.notes.indices { m.notes[i].verdict = nil }
        let text = PracticeScreen(depth: .none).render(m, size: TerminalSize(columns: 80, rows: 24)).plainText()
        #expect(!text.contains("✓") && !text.contains("◌") && !text.contains("‹"))
    }

    @Test func theMarkIsTheWorstVerdictOnsetFirst() {
        var v = NoteVerdict(id: 0, pitch: 60, hand: "right", onset: .late, release: .short)
        #expect(v.worst == .late)
        #expect(v.marks == [.late, .short])
        v.onset = .hit
        #expect(v.worst == .short)
        v.release = .ok
        v.loudness = .soft
        #expect(v.worst == .soft)
        v.loudness = .ok
        #expect(v.worst == .ok && !v.isFault)
        v.wrongKeyFirst = true
        #expect(v.worst == .wrongKeyFirst)
        #expect(NoteVerdict(id: 0, pitch: 60, hand: "right", onset: .missed).worst == .missed)
    }

    @Test func theReviewsHelpListsItsKeysAndEveryMarkAt80x24() {
        var m = Self.model()
        m.overlay = .help
        m.helpEntries = PracticeKeys.review
        let text = PracticeScreen(depth: .none).render(m, size: TerminalSize(columns: 80, rows: 24)).plainText()
        for entry in PracticeKeys.review {
            #expect(text.contains(entry.keys) && text.contains(entry.action), "\(entry)")
        }
    }

    @Test func theResultsPanelNamesTheReviewKey() {
        var m = Self.model()
        var info = ResultsInfo(title: "Pass 1 at 100%", figures: ScoreFigures(hit: 6, missed: 1, wrong: 1, extra: 0, accuracy: 75, score: 70))
        m.overlay = .results(info)
        let without = PracticeScreen(depth: .none).render(m, size: TerminalSize(columns: 80, rows: 24)).plainText()
        #expect(!without.contains("reviews the pass") && without.contains("any key continues"))
        info.reviewKey = "Enter"
        m.overlay = .results(info)
        let with = PracticeScreen(depth: .none).render(m, size: TerminalSize(columns: 80, rows: 24)).plainText()
        #expect(with.contains("Enter reviews the pass bar by bar") && with.contains("any key continues"), "\(with)")
    }
}
