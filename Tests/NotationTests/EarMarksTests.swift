import Judge
import Testing
@testable import Notation

/// After a pass every verdict has its own head on the staff — `‹` early, `›` late, `x` after a
/// wrong key, `.` short, `=` long, `f` loud, `p` soft, `×` wrong, `◌` missed (the falling
/// notes' glyphs) — so each reads without colour, and each kind has its colour with it.
@Suite("The ear's marks on the staff")
struct EarMarksTests {
    @Test func everyVerdictHasItsOwnHeadWithAndWithoutColour() throws {
        let lesson = MarksTests.lesson
        let score = ScoreLayout.layout(lesson)
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        // The right hand's eight notes, one verdict each (the last one right).
        let heads = Music.heads(score).filter { $0.hand == .right }.sorted { $0.column < $1.column }
        let kinds: [VerdictMark] = [.early, .late, .wrongKeyFirst, .short, .long, .loud, .soft, .ok]
        #expect(heads.count == kinds.count)
        var judgements: [Int: VerdictMark] = [:]
        for (h, k) in zip(heads, kinds) { judgements[h.noteIndex] = k }
        let marks = StaffMarks(judgements: judgements)
        for (h, k) in zip(heads, kinds) {
            #expect(marks.mark(noteIndex: h.noteIndex, startTick: 0) == .judged(k))
            let cell = raster.resolve(headCell(raster, h, system: 0), marks: marks)
            #expect(cell.scalar == (k == .ok ? UInt32(("●" as Unicode.Scalar).value) : k.glyph.value), "\(k)")
        }
        let plain = ScoreText.lines(raster: raster, color: false, marks: marks).joined(separator: "\n")
        for k in kinds where k != .ok { #expect(plain.contains(Character(k.glyph)), "\(k): \(plain)") }
        #expect(plain.contains("●"))
        let colored = ScoreText.lines(raster: raster, color: true, marks: marks).joined(separator: "\n")
        #expect(colored.contains("\u{1B}[1;33m‹") && colored.contains("\u{1B}[1;33m›"), "early and late in amber")
        #expect(colored.contains("\u{1B}[1;91mx"), "after a wrong key in red")
        #expect(colored.contains("\u{1B}[1;95m.") && colored.contains("\u{1B}[1;95m=") && colored.contains("\u{1B}[1;95mf")
                && colored.contains("\u{1B}[1;95mp"), "held or played off in violet")
    }
}
