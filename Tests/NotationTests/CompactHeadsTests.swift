import Testing
import Lesson
@testable import Notation

/// The compact staff (one row a line, for 80×24) draws every filled head the same size, one
/// cell of block, whether it sits on a line (`█` in the line's row) or in a space (`▄` over
/// `▀` across the rows of the lines around it), so eighth notes that step line, space, line,
/// space look alike (issue 39: dots on lines, bars in spaces); the time signature's two
/// figures stand on adjacent rows; the clefs are glyphs.
@Suite struct CompactHeadsTests {
    /// Half-cell heights of a drawn head: █ is two halves, ▄ and ▀ one each.
    static func halves(_ c: Unicode.Scalar) -> Int { c == "█" ? 2 : (c == "▄" || c == "▀") ? 1 : 0 }

    @Test func headsOnLinesAndInSpacesAreAlike() {
        // E4 F4 G4 A4 B4 C5 D5 E5: line, space, line, space … in eighths.
        let pitches = [64, 65, 67, 69, 71, 72, 74, 76]
        let right = pitches.enumerated().map { Music.N(pitch: $0.element, at: Double($0.offset) * 0.5, length: 0.5) }
        let lesson = Music.lesson(right: right)
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 120))
        let raster = StaffRaster(score: score, lesson: lesson, density: .compact)
        let system = raster.systems[0]
        var shapes: [Int] = []
        for note in lesson.notes.indices {
            let cells = (0..<system.cells.count).filter { system.cells[$0].note == Int32(note) && system.cells[$0].ink == .head }
            #expect(Set(cells.map { $0 % system.width }).count == 1, "note \(note): one column")
            let total = cells.map { Self.halves(system.cells[$0].character) }.reduce(0, +)
            shapes.append(total)
        }
        #expect(shapes == Array(repeating: 2, count: pitches.count), "every head one cell tall: \(shapes)")
    }

    @Test func theTimeSignatureStandsOnAdjacentRows() {
        let lesson = Music.lesson(right: [Music.N(pitch: 67, at: 0, length: 1)], time: (3, 4))
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let raster = StaffRaster(score: score, lesson: lesson, density: .compact)
        let system = raster.systems[0]
        let figures = (0..<system.cells.count).filter { system.cells[$0].ink == .timeSignature }
        for staff in [Staff.treble, .bass] {
            let bottom = raster.bottomLineRow[staff] ?? 0
            let rows = figures.map { $0 / system.width }.filter { $0 <= bottom && $0 >= bottom - 4 }
            #expect(Set(rows).count == 2 && (Set(rows).max() ?? 0) - (Set(rows).min() ?? 0) == 1, "\(staff): rows \(Set(rows).sorted())")
        }
    }

    /// The compact staff's clefs are shapes in cells every monospace font has, not letters
    /// (issue 39: `G` and `F` read as note names): `§` on the treble's G line, `ɔ:` — the bass
    /// clef's curl and dots — on the bass's F line, and the time signature's figures below that
    /// line so the two do not run together.
    @Test func theClefsAreGlyphsOnTheirLinesNotLetters() {
        let lesson = Music.lesson(right: [Music.N(pitch: 67, at: 0, length: 1)], time: (3, 4))
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let raster = StaffRaster(score: score, lesson: lesson, density: .compact)
        let system = raster.systems[0]
        func clef(_ staff: Staff) -> (text: String, row: Int) {
            let bottom = raster.bottomLineRow[staff] ?? 0
            let cells = (0..<system.cells.count).filter {
                system.cells[$0].ink == .clef && $0 / system.width <= bottom && $0 / system.width >= bottom - 4
            }
            return (String(String.UnicodeScalarView(cells.map { system.cells[$0].character })), bottom - (cells.first ?? 0) / system.width)
        }
        let treble = clef(.treble), bass = clef(.bass)
        #expect(treble.text == "§" && treble.row == 1, "the treble clef on the G line (second from the bottom): \(treble)")
        #expect(bass.text == "ɔ:" && bass.row == 3, "the bass clef on the F line (fourth from the bottom): \(bass)")
        for text in [treble.text, bass.text] { #expect(!text.contains { $0.isLetter && $0.isASCII }, "\(text)") }
        // No time-signature figure on the F line beside the bass clef's dots.
        let bottom = raster.bottomLineRow[.bass] ?? 0
        let fLine = (0..<system.width).map { system.cells[(bottom - 3) * system.width + $0].ink }
        #expect(!fLine.contains(.timeSignature))
        // Octave clefs keep their mark: beside `§`, under or over the second cell of `ɔ:`.
        #expect(Painter.compactClef(.treble8vb).octave == "₈" && Painter.compactClef(.bass8va).octaveAbove)
    }

    /// A tall staff area is filled with systems: compact when it shows more of them than full
    /// (200×50: three compact systems rather than one full one over half the screen).
    @Test func theDensityFillsTheHeightWithMoreSystems() {
        #expect(StaffCache.density(fullHeight: 30, compactHeight: 14, height: 46) == .compact)
        #expect(StaffCache.density(fullHeight: 20, compactHeight: 10, height: 46) == .full, "two full systems fit")
        #expect(StaffCache.density(fullHeight: 30, compactHeight: 14, height: 24) == .compact, "full does not fit")
        #expect(StaffCache.density(fullHeight: 20, compactHeight: 14, height: 24) == .full, "compact shows no more")
        #expect(StaffCache.density(fullHeight: 24, compactHeight: 12, height: 26) == .full, "full fills the area: it reads better")
        #expect(StaffCache.density(fullHeight: 28, compactHeight: 15, height: 46, systems: 2) == .compact, "a two-system piece whole")
        #expect(StaffCache.density(fullHeight: 28, compactHeight: 15, height: 46, systems: 1) == .full, "one system: nothing more to show")
    }
}
