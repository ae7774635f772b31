import Foundation
import Lesson
import MIDIFile
import Testing
@testable import Notation

private typealias N = Music.N

/// The characters of one row of a drawn system (trailing blanks kept).
private func row(_ raster: StaffRaster, system: Int, y: Int) -> String {
    let s = raster.systems[system]
    return String(String.UnicodeScalarView((0..<s.width).map { s[$0, y].character }))
}

/// Key-signature cells of a system: (row, character).
private func keyCells(_ raster: StaffRaster, system: Int) -> [(y: Int, c: Character)] {
    let s = raster.systems[system]
    var out: [(Int, Character)] = []
    for y in 0..<raster.systemHeight {
        for x in 0..<s.width where s[x, y].ink == .keySignature { out.append((y, Character(s[x, y].character))) }
    }
    return out
}

/// The staff as printed: key signatures and accidentals readable at every size, rests no one
/// takes for digits, an excerpt's plain end, clefs and ottava lines as an engraver writes them.
@Suite("Notation as printed")
struct PrintedNotationTests {
    // MARK: - 80×24: the compact staff

    @Test(arguments: [(-4, "♭BEAD"), (4, "♯FCGD"), (-1, "♭B"), (7, "♯FCGDAEB")])
    func compactKeySignatureNamesTheLettersItAlters(sharps: Int, text: String) throws {
        let lesson = Music.lesson(right: Music.line([72, 74, 76, 77]), left: Music.line([48, 50, 52, 53]), keys: [(0, sharps, false)])
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let raster = StaffRaster(score: score, lesson: lesson, density: .compact)
        let cells = keyCells(raster, system: 0)
        for staff in Staff.allCases {
            let middle = raster.lineRow(staff, step: 4)
            #expect(String(cells.filter { $0.y == middle }.map(\.c)).contains(text), "\(staff): on the middle line")
        }
        #expect(cells.count == 2 * text.count, "nothing of the key anywhere else: \(cells)")
        #expect(row(raster, system: 0, y: raster.lineRow(.treble, step: 4)).contains(text))
        // The full staff still draws the glyphs on their lines and spaces.
        let full = StaffRaster(score: score, lesson: lesson, density: .full)
        #expect(keyCells(full, system: 0).count == 2 * abs(sharps))
    }

    @Test func compactKeyChangeNamesTheNewKeyOrWhatItCancels() throws {
        // A♭ major, then C major at bar 2, then D major at bar 3.
        let lesson = Music.lesson(right: Music.line(Array(repeating: 72, count: 12)), keys: [(0, -4, false), (4, 0, false), (8, 2, false)])
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200))
        let raster = StaffRaster(score: score, lesson: lesson, density: .compact)
        let middle = row(raster, system: 0, y: raster.lineRow(.treble, step: 4))
        #expect(middle.contains("♭BEAD") && middle.contains("♮BEAD") && middle.contains("♯FC"))
    }

    @Test func mapleLeafRagKeyReadsAsItsFourFlatsAt80x24() throws {
        let url = Music.root.appendingPathComponent("Tests/LessonTests/Fixtures/hands/joplin-maple-leaf-rag.mid")
        let lesson = try Lesson(bytes: [UInt8](Data(contentsOf: url)), fileName: "maple.mid")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80, bars: 1...4))
        try #require(score.systems.first?.key.sharps == -4, "the file says A♭ major")
        let raster = StaffRaster(score: score, lesson: lesson, density: .compact)
        let cells = keyCells(raster, system: 0)
        #expect(cells.map(\.y).allSatisfy { $0 == raster.lineRow(.treble, step: 4) || $0 == raster.lineRow(.bass, step: 4) })
        #expect(String(cells.map(\.c)) == "♭BEAD♭BEAD")
    }

    @Test func restsAreNotDigits() throws {
        // A quarter, an eighth and a sixteenth rest between notes with fingers.
        let right = [N(pitch: 72, at: 0, length: 1, finger: 1), N(pitch: 74, at: 2, length: 0.5, finger: 2),
                     N(pitch: 76, at: 3, length: 0.25, finger: 3), N(pitch: 77, at: 3.5, length: 0.25, finger: 4), N(pitch: 79, at: 3.75, length: 0.25, finger: 5)]
        let lesson = Music.lesson(right: right)
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 120))
        for density in StaffDensity.allCases {
            let raster = StaffRaster(score: score, lesson: lesson, density: density)
            let rests = raster.systems[0].cells.filter { $0.ink == .rest }.map(\.character)
            #expect(rests.count >= 3)
            #expect(rests.allSatisfy { !("0"..."9").contains(Character($0)) }, "\(density): \(rests)")
        }
    }

    @Test func anExcerptEndsWithAPlainBarLineThePieceWithAFinalOne() {
        let lesson = Music.lesson(right: Music.line(Array(repeating: 72, count: 16)))
        func finalCells(_ bars: ClosedRange<Int>?) -> Int {
            let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200, bars: bars))
            let raster = StaffRaster(score: score, lesson: lesson, density: .compact)
            return raster.systems[raster.systems.count - 1].cells.filter { "║╖╜╢".unicodeScalars.contains($0.character) }.count
        }
        #expect(finalCells(1...2) == 0)
        #expect(finalCells(3...4) > 0)
        #expect(finalCells(nil) > 0)
    }

    @Test func restsStartWhereEngraversWriteThem() {
        // 4/4, left hand: a quarter then silence (Clementi Op. 36 No. 1, bar 1): a quarter rest
        // and a half rest, not a dotted half from beat 2. Then beats 1–3 silent: half, quarter.
        let left = [N(pitch: 48, at: 0, length: 1), N(pitch: 48, at: 7, length: 1)]
        let score = ScoreLayout.layout(Music.lesson(right: Music.line([72], length: 8), left: left), options: NotationOptions(width: 200))
        let rests = score.systems.flatMap(\.rests).filter { $0.staff == .bass }.map { "\($0.tick / Music.tpq):\($0.duration.value.name)\($0.duration.dots > 0 ? "." : "")" }
        #expect(rests == ["1:quarter", "2:half", "4:half", "6:quarter"])
        // 6/8: a quarter rest for the first two eighths of a beat, a dotted quarter rest for a beat.
        let compound = ScoreLayout.layout(Music.lesson(right: [N(pitch: 72, at: 0, length: 1.5), N(pitch: 74, at: 2.5, length: 0.5),
                                                               N(pitch: 76, at: 3, length: 1.5)], time: (6, 8)),
                                          options: NotationOptions(width: 200))
        let r = compound.systems.flatMap(\.rests).filter { $0.staff == .treble }
        #expect(r.map(\.duration) == [NoteDuration(.quarter), NoteDuration(.quarter, dots: 1)])
        #expect(r.map(\.tick) == [Music.tpq * 3 / 2, Music.tpq * 9 / 2])
    }

    // MARK: - Clefs and ottava lines

    /// Every note of the built-in scale lessons on the staff a method book prints it on: no
    /// ottava line, at most four ledger lines (five for a two-octave B or B♭ scale's lone top
    /// note, written out as books do), clef changes only at bar lines.
    @Test(arguments: ["c-major", "g-major", "d-major", "a-major", "e-major", "b-major", "f-sharp-major", "d-flat-major",
                      "a-flat-major", "e-flat-major", "b-flat-major", "f-major", "a-harmonic-minor", "e-harmonic-minor",
                      "b-harmonic-minor", "f-sharp-harmonic-minor", "c-sharp-harmonic-minor", "g-sharp-harmonic-minor",
                      "e-flat-harmonic-minor", "b-flat-harmonic-minor", "f-harmonic-minor", "c-harmonic-minor",
                      "g-harmonic-minor", "d-harmonic-minor"])
    func scaleLessonsNeedNoOttava(name: String) throws {
        let lesson = try Music.builtIn("level2/\(name)-scale.mid")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let heads = score.systems.flatMap(\.heads)
        #expect(heads.count >= lesson.notes.count)
        #expect(heads.allSatisfy { $0.ottava == 0 }, "no ottava")
        #expect(score.systems.allSatisfy { $0.ottavas.isEmpty })
        for h in heads {
            #expect(LayoutBuilder.ledgerLines(lo: h.step, hi: h.step) <= (h.spelling.letter == 6 ? 5 : 4), "\(h.spelling.name) at step \(h.step) in \(h.clef)")
            #expect(h.step == (h.spelling.diatonic(forPitch: h.pitch) ?? 0) - h.clef.bottomLineDiatonic, "written where it sounds")
        }
        #expect(score.systems.allSatisfy { $0.clefChanges.isEmpty }, "clefs change at bar lines only")
    }

    @Test func fMajorScaleLeftHandGoesToTheTrebleClefForItsTopBarsAndBack() throws {
        let lesson = try Music.builtIn("level2/f-major-scale.mid")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200))
        let left = Music.heads(score).filter { $0.staff == .bass }
        // Part B (the left hand alone) starts at bar 5: F3 … F4 | G4 … | … D4 | C4 … F3.
        let bars = score.systems.flatMap(\.bars)
        let byBar = Dictionary(grouping: left) { h in bars.first { b in b.startTick <= h.tick && h.tick < b.endTick }?.number ?? 0 }
        #expect(byBar[5]?.allSatisfy { $0.clef == .bass } == true)
        #expect(byBar[6]?.allSatisfy { $0.clef == .treble } == true, "G4 up to F5: the treble clef")
        #expect(byBar[7]?.allSatisfy { $0.clef == .treble } == true)
        #expect(byBar[8]?.allSatisfy { $0.clef == .bass } == true)
        #expect(left.allSatisfy { $0.ottava == 0 })
    }

    @Test func aHandFarFromItsStaffChangesClefAndOnlyBeyondBothTakesAnOttava() {
        // Right hand down to A2 for a bar: the bass clef for that bar. Left hand up to C6: treble.
        // (C3 alone would stay on the treble staff: four ledger lines are read.)
        let right = Music.line([72, 74, 76, 77]) + Music.line([45, 47, 48, 50], from: 4) + Music.line([76], from: 8, length: 4)
        let left = Music.line([48], length: 4) + Music.line([84, 86, 88, 89], from: 4) + Music.line([36], from: 8, length: 4)
        let score = ScoreLayout.layout(Music.lesson(right: right, left: left), options: NotationOptions(width: 200))
        let heads = Music.heads(score)
        #expect(heads.filter { $0.staff == .treble }.map(\.clef) == [.treble, .treble, .treble, .treble, .bass, .bass, .bass, .bass, .treble])
        #expect(heads.filter { $0.staff == .bass }.map(\.clef) == [.bass, .treble, .treble, .treble, .treble, .bass])
        #expect(heads.allSatisfy { $0.ottava == 0 })
        #expect(score.systems[0].bars[1].clefChanges == [.treble: .bass, .bass: .treble])
    }

    @Test func aScoreHasTheOttavaLinesItPrintsAndNoOther() {
        // Engraved (the file says its clefs): C7 D7 under the score's 8va, E7 F7 with none (ledger lines).
        let right = Music.line([96, 98, 100, 101])
        let lesson = Music.lesson(right: right, clefs: [("right", 0, .treble)], ottavas: [("right", 0, 1), ("right", 2, 0)])
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200))
        let heads = Music.heads(score)
        #expect(heads.map(\.ottava) == [1, 1, 0, 0])
        #expect(heads.map(\.step) == [12, 13, 21, 22])
        #expect(score.systems[0].ottavas.count == 1)
        // The same notes with no line in the score: none is made up.
        let plain = ScoreLayout.layout(Music.lesson(right: right, clefs: [("right", 0, .treble)]), options: NotationOptions(width: 200))
        #expect(Music.heads(plain).allSatisfy { $0.ottava == 0 })
        // An 8vb line in the source on the bass staff is kept.
        let low = Music.lesson(right: Music.line([72]), left: Music.line([36, 38]), clefs: [("right", 0, .treble), ("left", 0, .bass)],
                               ottavas: [("left", 0, -1)])
        #expect(Music.heads(ScoreLayout.layout(low)).filter { $0.staff == .bass }.map(\.ottava) == [-1, -1])
    }

    @Test func theFrenchViolinClefIsDrawnOnTheBottomLine() throws {
        let lesson = Music.lesson(right: Music.line([67, 69, 71, 72]), clefs: [("right", 0, .french)])
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200))
        #expect(Music.heads(score).filter { $0.staff == .treble }.map(\.step) == [0, 1, 2, 3], "G4 on the bottom line")
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        let s = raster.systems[0]
        let bottom = raster.lineRow(.treble, step: 0)
        let clefCells = (0..<raster.systemHeight).flatMap { y in (0..<s.width).filter { s[$0, y].ink == .clef }.map { (y, s[$0, y].character) } }
        #expect(clefCells.contains { $0.0 == bottom && $0.1 == "G" }, "the G clef on the bottom line: \(clefCells)")
    }
}
