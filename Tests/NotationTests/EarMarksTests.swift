import Testing
@testable import Notation

/// After a pass, a note struck right but held or played off (the ear's short, long, loud,
/// soft) is marked on the staff: `◇` for its head, so it reads without colour, and amber with it.
@Suite("The ear's marks on the staff")
struct EarMarksTests {
    @Test func aNoteHeldOrPlayedOffIsMarkedWithADiamond() throws {
        let lesson = MarksTests.lesson
        let score = ScoreLayout.layout(lesson)
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        let heads = Music.heads(score)
        let e4 = try #require(heads.first { $0.pitch == 64 }), f4 = try #require(heads.first { $0.pitch == 65 })
        let marks = StaffMarks(judgements: [e4.noteIndex: .off, f4.noteIndex: .hit])
        #expect(marks.mark(noteIndex: e4.noteIndex, startTick: 0) == .off)
        let plain = ScoreText.lines(raster: raster, color: false, marks: marks).joined(separator: "\n")
        #expect(plain.contains("◇") && plain.contains("●"), "\(plain)")
        let colored = ScoreText.lines(raster: raster, color: true, marks: marks).joined(separator: "\n")
        #expect(colored.contains("\u{1B}[1;93m◇"), "\(colored)")
    }
}
