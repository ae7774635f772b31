import Judge
import Foundation
import Lesson
import MIDIFile
import Testing
@testable import Notation

private typealias N = Music.N

/// The raster cell where a head is drawn (its main cell), in full density.
func headCell(_ raster: StaffRaster, _ head: PlacedHead, system: Int) -> RasterCell {
    let row = (raster.bottomLineRow[head.staff] ?? 0) - head.step
    return raster.systems[system][head.column, row]
}

private func system(of head: PlacedHead, in score: Score) -> Int {
    score.systems.firstIndex { $0.heads.contains(head) } ?? -1
}

@Suite("Grand staff layout")
struct LayoutTests {
    @Test func secondsStandSideBySide() {
        // C4+D4, C4+E4+G4, C4+D4+E4 (cluster), F4+G4+A4+B4.
        let right = [N(pitch: 60, at: 0, length: 1), N(pitch: 62, at: 0, length: 1),
                     N(pitch: 60, at: 1, length: 1), N(pitch: 64, at: 1, length: 1), N(pitch: 67, at: 1, length: 1),
                     N(pitch: 60, at: 2, length: 1), N(pitch: 62, at: 2, length: 1), N(pitch: 64, at: 2, length: 1),
                     N(pitch: 65, at: 3, length: 1), N(pitch: 67, at: 3, length: 1), N(pitch: 69, at: 3, length: 1), N(pitch: 71, at: 3, length: 1)]
        let score = ScoreLayout.layout(Music.lesson(right: right))
        let chords = score.systems[0].chords.filter { $0.staff == .treble }
        #expect(chords.count == 4)
        let displaced = chords.map { c in score.systems[0].heads[c.heads].map(\.displaced) }
        #expect(displaced == [[false, true], [false, false, false], [false, true, false], [false, true, false, true]])
        for c in chords {
            for h in score.systems[0].heads[c.heads] { #expect(h.column == c.column + (h.displaced ? 1 : 0)) }
        }
        // Drawn: the second's two heads in adjacent columns, one row apart.
        let raster = StaffRaster(score: score, lesson: Music.lesson(right: right), density: .full)
        let first = score.systems[0].heads[chords[0].heads]
        let c = headCell(raster, first[first.startIndex], system: 0), d = headCell(raster, first[first.startIndex + 1], system: 0)
        #expect(c.ink == .head && d.ink == .head && c.character == "●" && d.character == "●")
    }

    @Test func ledgerLinesAboveAndBelowAndTheOctaveMarks() throws {
        // Treble: A5 (1 ledger line), C6 (2), A6 (4: the most before 8va), B6 (8va), C7 (8va).
        // Bass: E2 (1 below), C2 (2), E1 (4), D1 (8vb), C1 (8vb).
        let right = Music.line([81, 84, 93], length: 4) + [N(pitch: 95, at: 16, length: 4), N(pitch: 96, at: 24, length: 4)]
        let left = Music.line([40, 36, 28], length: 4) + [N(pitch: 26, at: 16, length: 4), N(pitch: 24, at: 24, length: 4)]
        let lesson = Music.lesson(right: right, left: left)
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200))
        let heads = Music.heads(score)
        let treble = heads.filter { $0.staff == .treble }, bass = heads.filter { $0.staff == .bass }
        #expect(treble.map(\.step) == [10, 12, 17, 11, 12])
        #expect(treble.map(\.ottava) == [0, 0, 0, 1, 1])
        #expect(bass.map(\.step) == [-2, -4, -9, -3, -4])
        #expect(bass.map(\.ottava) == [0, 0, 0, -1, -1])
        // One 8va span over the two high notes, one 8vb under the two low ones.
        let spans = score.systems.flatMap(\.ottavas)
        #expect(spans.filter { $0.staff == .treble }.map(\.octaves) == [1])
        #expect(spans.filter { $0.staff == .bass }.map(\.octaves) == [-1])
        // Ledger cells: on every ledger step between the staff and the head, beside the head.
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        func ledgerRows(_ head: PlacedHead) -> [Int] {
            let s = system(of: head, in: score)
            let base = raster.bottomLineRow[head.staff] ?? 0
            // This staff's ledger lines only (the other hand plays in the same column).
            let rows = head.staff == .treble ? 0..<(raster.bottomLineRow[.treble] ?? 0) : (raster.bottomLineRow[.bass] ?? 0)..<raster.systemHeight
            return rows.filter { y in raster.systems[s][head.column - 1, y].ink == .ledger }.map { base - $0 }
        }
        #expect(ledgerRows(treble[0]) == [10])
        #expect(ledgerRows(treble[1]) == [12, 10])
        #expect(ledgerRows(treble[2]) == [16, 14, 12, 10])
        #expect(ledgerRows(treble[3]) == [10])
        #expect(ledgerRows(bass[0]) == [-2])
        #expect(ledgerRows(bass[2]) == [-2, -4, -6, -8])
        let text = ScoreText.lines(lesson: lesson, options: NotationOptions(width: 200), color: false).joined(separator: "\n")
        #expect(text.contains("8va") && text.contains("8vb"))
    }

    @Test func anOctaveMarkHoldsOverNeighboursSoItDoesNotFlicker() {
        // C7 A6 C7: A6 alone would need no mark, but between two 8va notes it joins the run.
        let lesson = Music.lesson(right: Music.line([96, 93, 96]))
        let score = ScoreLayout.layout(lesson)
        #expect(Music.heads(score).map(\.ottava) == [1, 1, 1])
        #expect(score.systems[0].ottavas.count == 1)
    }

    @Test func clefChangesFromTheFile() throws {
        // The right hand's staff changes to the bass clef at bar 2 and back to treble mid-bar 3;
        // the left hand's staff is in treble clef from the start.
        let right = [N(pitch: 72, at: 0, length: 4), N(pitch: 55, at: 4, length: 4), N(pitch: 50, at: 8, length: 2), N(pitch: 76, at: 10, length: 2)]
        let left = [N(pitch: 72, at: 0, length: 4), N(pitch: 74, at: 4, length: 4), N(pitch: 76, at: 8, length: 4)]
        let lesson = Music.lesson(right: right, left: left,
                                  clefs: [("right", 0, .treble), ("right", 4, .bass), ("right", 10, .treble), ("left", 0, .treble)])
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200))
        #expect(score.systems.count == 1)
        let s = score.systems[0]
        #expect(s.clefs[.treble] == .treble && s.clefs[.bass] == .treble)
        let treble = Music.heads(score).filter { $0.staff == .treble }
        #expect(treble.map(\.clef) == [.treble, .bass, .bass, .treble])
        #expect(treble.map(\.step) == [5, 7, 4, 7], "C5 on treble, G3 and D3 on bass, E5 on treble")
        #expect(Music.heads(score).filter { $0.staff == .bass }.map(\.step) == [5, 6, 7], "left hand read in treble clef")
        #expect(s.bars[1].clefChanges == [.treble: .bass])
        #expect(s.clefChanges.map(\.clef) == [.treble], "the change inside bar 3")
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        let clefCells = raster.systems[0].cells.filter { $0.ink == .clef }.map(\.character)
        #expect(clefCells.filter { $0 == "F" }.count == 1 && clefCells.filter { $0 == "G" }.count == 3)
    }

    @Test func keyChangesCancelWithNaturalsAndOpenLaterSystems() throws {
        // D major for two bars, then B♭ major: F♯ and C♯ are cancelled, B♭ and E♭ written.
        var right: [N] = []
        for bar in 0..<8 { right += Music.line([bar < 2 ? 66 : 70, 69, 67, 65], from: Double(bar * 4)) }
        let lesson = Music.lesson(right: right, keys: [(0, 2, false), (8, -2, false)])
        let wide = ScoreLayout.layout(lesson, options: NotationOptions(width: 250))
        #expect(wide.systems.count == 1)
        let bar3 = try #require(wide.systems[0].bars.first { $0.number == 3 })
        #expect(bar3.keyChange == MusicKey(sharps: -2) && bar3.previousKey == MusicKey(sharps: 2))
        let raster = StaffRaster(score: wide, lesson: lesson, density: .full)
        let keyCells = raster.systems[0].cells.filter { $0.ink == .keySignature }.map(\.character)
        #expect(keyCells.filter { $0 == "♮" }.count == 4, "F and C cancelled on both staves")
        #expect(keyCells.filter { $0 == "♭" }.count == 4 && keyCells.filter { $0 == "♯" }.count == 4)
        // Spelled in the new key: B♭ and E♭ need no accidental after the change.
        let heads = Music.heads(wide)
        #expect(heads.filter { $0.tick >= 8 * 480 }.allSatisfy { $0.accidental == nil })
        #expect(heads.filter { $0.tick >= 8 * 480 && $0.pitch == 70 }.allSatisfy { $0.spelling.name == "Bb" })
        // Narrow: a system starting after the change opens in B♭ major.
        let narrow = ScoreLayout.layout(lesson, options: NotationOptions(width: 60))
        #expect(narrow.systems.count > 1)
        for s in narrow.systems {
            #expect(s.key == (s.startTick >= 8 * 480 ? MusicKey(sharps: -2) : MusicKey(sharps: 2)))
        }
    }

    @Test func timeSignatureChanges() throws {
        let right = Music.line([60, 62, 64, 65, 67, 69, 71, 72], length: 1) + Music.line([74, 76, 77, 79, 81, 83], from: 8)
        let lesson = Music.lesson(right: right, timeChanges: [(8, 3, 4)])
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200))
        let bars = score.systems.flatMap(\.bars)
        #expect(bars.map(\.number) == [1, 2, 3, 4])
        #expect(bars[2].timeChange == TimeSignature(numerator: 3, denominatorPower: 2))
        #expect(bars[1].timeChange == nil && bars[3].timeChange == nil)
        let narrow = ScoreLayout.layout(lesson, options: NotationOptions(width: 40))
        #expect(narrow.systems.last?.time.numerator == 3)
    }

    @Test func valuesRestsTiesAndBeams() throws {
        // Bar 1: half, quarter, two eighths. Bar 2: dotted quarter, eighth, half rest.
        // Bar 3: five eighths (a half tied to an eighth), eighth rest, a quarter tied over the bar line.
        let right = [N(pitch: 72, at: 0, length: 2), N(pitch: 74, at: 2, length: 1), N(pitch: 76, at: 3, length: 0.5), N(pitch: 77, at: 3.5, length: 0.5),
                     N(pitch: 79, at: 4, length: 1.5), N(pitch: 81, at: 5.5, length: 0.5),
                     N(pitch: 72, at: 8, length: 2.5), N(pitch: 74, at: 11, length: 2), N(pitch: 72, at: 13, length: 3)]
        let lesson = Music.lesson(right: right)
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200))
        let heads = Music.heads(score, ties: true).filter { $0.staff == .treble }
        let written = heads.map { "\($0.duration.value.name)\(String(repeating: ".", count: $0.duration.dots))\($0.tiedFromPrevious ? "~" : "")" }
        #expect(written == ["half", "quarter", "eighth", "eighth", "quarter.", "eighth", "half", "eighth~", "quarter", "quarter~", "half."])
        #expect(heads.map(\.tiesToNext) == [false, false, false, false, false, false, true, false, true, false, false])
        #expect(heads.filter { $0.tiedFromPrevious }.allSatisfy { $0.accidental == nil && $0.finger == nil })
        let chords = score.systems.flatMap(\.chords).filter { $0.staff == .treble }
        let beamed = chords.filter { $0.beamGroup != nil }
        #expect(beamed.map(\.tick) == [3 * 480, 3 * 480 + 240], "the two eighths of beat 4 share a beam")
        #expect(Set(beamed.compactMap(\.beamGroup)).count == 1)
        let rests = score.systems.flatMap(\.rests)
        let trebleRests = rests.filter { $0.staff == .treble }.map { "\($0.tick / 240):\($0.duration.value.name)" }
        #expect(trebleRests == ["12:half", "21:eighth"])
        #expect(rests.filter { $0.staff == .bass }.allSatisfy { $0.wholeBar }, "an empty staff has whole-bar rests")
        #expect(rests.filter { $0.staff == .bass }.count == 4)
        // Drawn: open heads for the half notes, filled for the rest, a dot, a tie, a beam.
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        #expect(headCell(raster, heads[0], system: 0).character == "○")
        #expect(headCell(raster, heads[1], system: 0).character == "●")
        let inks = Set(raster.systems[0].cells.map(\.ink))
        for ink in [Ink.dot, .tie, .beam, .stem, .rest] { #expect(inks.contains(ink), "\(ink) drawn") }
        #expect(raster.systems[0].cells.contains { $0.character == "╲" || $0.character == "╱" }, "the lone eighth has a flag")
    }

    @Test func fingeringBesideTheHead() throws {
        let lesson = Music.lesson(right: [N(pitch: 64, at: 0, length: 1, finger: 3), N(pitch: 65, at: 1, length: 1, finger: 4)],
                                  left: [N(pitch: 48, at: 0, length: 2, finger: 5)])
        let score = ScoreLayout.layout(lesson)
        let heads = Music.heads(score)
        #expect(heads.map(\.finger) == [3, 5, 4])
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        for h in heads {
            let row = (raster.bottomLineRow[h.staff] ?? 0) - h.step
            let cell = raster.systems[0][h.column + 1, row]
            #expect(cell.ink == .finger && cell.character == Unicode.Scalar(UInt32(0x30 + (h.finger ?? 0))))
        }
        let hidden = ScoreLayout.layout(lesson, options: NotationOptions(showFingering: false))
        #expect(Music.heads(hidden).allSatisfy { $0.finger == nil })
    }

    @Test func spacingIsProportionalToTime() throws {
        let lesson = try Music.builtIn("level4/ode-to-joy.mid")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 120))
        let tpq = Double(score.ticksPerQuarter)
        for s in score.systems {
            for bar in s.bars {
                for chord in s.chords where chord.tick >= bar.startTick && chord.tick < bar.endTick {
                    let expected = Double(bar.contentColumn) + Double(chord.tick - bar.startTick) * score.columnsPerQuarter / tpq
                    #expect(abs(Double(chord.column) - expected) <= 0.5)
                    let at = try #require(score.location(ofTick: chord.tick))
                    #expect(at.system == s.index && abs(at.column - expected) < 1e-9)
                }
                #expect(bar.endColumn - bar.contentColumn == Int((Double(bar.endTick - bar.startTick) * score.columnsPerQuarter / tpq).rounded()))
            }
        }
        // The cursor moves steadily: equal ticks, equal columns, within a system.
        let s0 = score.systems[0]
        let step = 120
        var previous: Double?
        var t = s0.bars[0].startTick
        while t + step <= s0.bars[0].endTick {
            let c = try #require(score.location(ofTick: t)).column
            if let p = previous { #expect(abs((c - p) - Double(step) * score.columnsPerQuarter / tpq) < 1e-9) }
            previous = c
            t += step
        }
    }

    @Test(arguments: [60, 80, 120, 200])
    func systemsHoldWholeBarsWithinTheWidth(width: Int) throws {
        for name in ["level4/ode-to-joy.mid", "level5/fur-elise.mid", "level2/e-flat-major-scale.mid", "level5/bach-prelude-in-c.mid"] {
            let lesson = try Music.builtIn(name)
            let score = ScoreLayout.layout(lesson, options: NotationOptions(width: width))
            #expect(score.systems.flatMap(\.bars).map(\.index) == Array(lesson.bars.bars.indices), "\(name): every bar once, in order")
            for s in score.systems { #expect(s.width <= width, "\(name) at \(width): system \(s.index) is \(s.width) wide") }
            if width >= 80 {
                let full = score.systems.dropLast()
                #expect(full.allSatisfy { $0.bars.filter { $0.number > 0 }.count >= 2 }, "\(name) at \(width): two bars a line")
            }
            // Every lesson note has exactly one first head.
            let firsts = score.systems.flatMap(\.heads).filter { !$0.tiedFromPrevious }.map(\.noteIndex).sorted()
            let expected = lesson.notes.indices.filter { lesson.notes[$0].part.hand != nil && lesson.notes[$0].channel != 9 }
            #expect(firsts == expected)
        }
        let ode = try Music.builtIn("level4/ode-to-joy.mid")
        let narrow = ScoreLayout.layout(ode, options: NotationOptions(width: 80)).systems.count
        let wide = ScoreLayout.layout(ode, options: NotationOptions(width: 200)).systems.count
        #expect(wide < narrow, "a wider terminal takes more bars a line")
    }

    @Test func someBarsOnly() throws {
        let lesson = try Music.builtIn("level4/ode-to-joy.mid")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80, bars: 5...8))
        let bars = score.systems.flatMap(\.bars)
        #expect(bars.map(\.number) == [5, 6, 7, 8])
        let range = (lesson.bars.bar(number: 5)?.startTick ?? 0)..<(lesson.bars.bar(number: 8)?.endTick ?? 0)
        #expect(Music.heads(score).allSatisfy { range.contains($0.tick) })
        #expect(ScoreLayout.layout(lesson, options: NotationOptions(bars: 90...99)).systems.isEmpty)
    }

    @Test func printedBarNumbersComeFromTheScore() {
        let lesson = Music.lesson(right: Music.line([60, 62, 64, 65, 67, 69, 71, 72]), printedBars: [(0, 10), (4, 11)])
        let score = ScoreLayout.layout(lesson)
        #expect(score.systems.flatMap(\.bars).map(\.displayNumber) == [10, 11])
        #expect(score.systems.flatMap(\.bars).map(\.number) == [1, 2])
    }

    @Test func accompanimentOnlyWhenAskedFor() {
        // Track 3 is not a hand: left out unless asked for, then on the staff of its register.
        var lesson = Music.lesson(right: Music.line([72, 74]), left: Music.line([48, 50]))
        lesson.notes.append(LessonNote(pitch: 84, velocity: 80, channel: 2, track: 3, startTick: 0, endTick: 480, part: .accompaniment))
        lesson.notes.append(LessonNote(pitch: 36, velocity: 80, channel: 2, track: 3, startTick: 480, endTick: 960, part: .accompaniment))
        #expect(Music.heads(ScoreLayout.layout(lesson)).count == 4)
        let with = Music.heads(ScoreLayout.layout(lesson, options: NotationOptions(includeAccompaniment: true)))
        #expect(with.count == 6)
        #expect(with.first { $0.pitch == 84 }?.staff == .treble && with.first { $0.pitch == 36 }?.staff == .bass)
        #expect(with.first { $0.pitch == 84 }?.hand == nil)
    }

    @Test func pickupBarAndCompactDensity() throws {
        let lesson = try Music.builtIn("level5/fur-elise.mid")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        #expect(score.systems[0].bars[0].number == 0)
        let full = StaffRaster(score: score, lesson: lesson, density: .full)
        let compact = StaffRaster(score: score, lesson: lesson, density: .compact)
        #expect(compact.systemHeight < full.systemHeight)
        // Compact: a head in a space is a half block over the two rows it lies between.
        let space = try #require(Music.heads(score).first { $0.step % 2 != 0 && !$0.displaced })
        let s = system(of: space, in: score)
        let base = compact.bottomLineRow[space.staff] ?? 0
        let upper = compact.systems[s][space.column, base - (space.step + 1) / 2]
        let lower = compact.systems[s][space.column, base - (space.step - 1) / 2]
        #expect(upper.ink == .head && lower.ink == .head)
        #expect([upper.character, lower.character] == ["▄", "▀"] || [upper.character, lower.character] == ["◡", "◠"] || upper.character == "█" || lower.character == "█")
    }
}

@Suite("Frame marks and pages")
struct MarksTests {
    static let lesson = Music.lesson(right: Music.line([64, 65, 67, 69, 71, 72, 74, 76], length: 1), left: Music.line([48, 43], length: 4))

    @Test func judgementsLightAndHideNotes() throws {
        let lesson = MarksTests.lesson
        let score = ScoreLayout.layout(lesson)
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        let heads = Music.heads(score)
        let e4 = try #require(heads.first { $0.pitch == 64 }), f4 = try #require(heads.first { $0.pitch == 65 })
        let g4 = try #require(heads.first { $0.pitch == 67 }), a4 = try #require(heads.first { $0.pitch == 69 })
        let c3 = try #require(heads.first { $0.pitch == 48 })
        var marks = StaffMarks(cursorTick: 4 * 480 + 10, sounding: [c3.noteIndex],
                               judgements: [e4.noteIndex: .ok, f4.noteIndex: .wrong, g4.noteIndex: .missed])
        func resolved(_ h: PlacedHead) -> (scalar: UInt32, ink: Ink, mark: NoteMark) {
            raster.resolve(headCell(raster, h, system: 0), marks: marks)
        }
        #expect(resolved(e4).mark == .judged(.ok) && resolved(e4).scalar == UInt32(("●" as Unicode.Scalar).value))
        #expect(resolved(f4).mark == .judged(.wrong) && resolved(f4).scalar == 0xD7)
        #expect(resolved(g4).mark == .judged(.missed) && resolved(g4).scalar == 0x25CC)
        #expect(resolved(c3).mark == .lit)
        #expect(resolved(a4).mark == .plain)
        // Memory mode: what starts after the cursor is not drawn (the staff line shows again).
        marks.hideNotesAfterTick = 3 * 480
        #expect(resolved(a4).mark == .plain)
        let b4 = try #require(heads.first { $0.pitch == 71 })
        #expect(resolved(b4).scalar == UInt32(("─" as Unicode.Scalar).value) && resolved(b4).ink == .staffLine, "B4's head gone, its line back")
        #expect(resolved(e4).mark == .judged(.ok), "judged notes stay")
        // Without colour the marks still read: × and ◌ in the text.
        let text = ScoreText.lines(raster: raster, color: false, marks: marks).joined(separator: "\n")
        #expect(text.contains("×") && text.contains("◌") && text.contains("▼"))
        let colored = ScoreText.lines(raster: raster, color: true, marks: marks).joined(separator: "\n")
        #expect(colored.contains("\u{1B}[1;91m×") && colored.contains("\u{1B}[90m◌") && colored.contains("\u{1B}[1;92m●"))
    }

    @Test func theMatchersVerdictsAreMarkedInTheOneVocabulary() {
        let live: [Verdict] = [.early, .onTime, .late, .wrongPitch, .missed, .extra]
        #expect(live.map { VerdictMark(live: $0) } == [.early, .ok, .late, .wrong, .missed, nil])
    }

    @Test func loopBracketAndCursorOnTheTopRow() throws {
        let lesson = MarksTests.lesson
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 120))
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        let marks = StaffMarks(cursorTick: 480, loopBars: 2...2)
        let overlay = raster.overlay(system: 0, marks: marks)
        let bar2 = try #require(score.systems[0].bars.first { $0.number == 2 })
        #expect(overlay.loopColumns == bar2.lineColumn...bar2.endColumn)
        let top = (0..<raster.systems[0].width).map { raster.cell(system: 0, x: $0, y: raster.topRow, marks: marks, overlay: overlay) }
        #expect(top[bar2.lineColumn].character == "┌" && top[bar2.endColumn].character == "┐")
        #expect(top.filter { $0.ink == .loop }.count == bar2.endColumn - bar2.lineColumn + 1)
        let cursor = try #require(overlay.cursorColumn)
        #expect(top[cursor].character == "▼")
        #expect(Double(cursor) == (score.location(ofTick: 480)?.column ?? -1).rounded(.down))
    }

    @Test func pagesTurnByWholeSystems() throws {
        let lesson = try Music.builtIn("level4/ode-to-joy.mid")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let raster = StaffRaster(score: score, lesson: lesson, density: .compact)
        let h = raster.systemHeight
        #expect(score.systems.count >= 4)
        #expect(raster.page(forTick: 0, height: 2 * h + 1) == 0..<2)
        let third = score.systems[2].startTick
        #expect(raster.page(forTick: third, height: 2 * h + 1) == 2..<4)
        #expect(raster.page(forTick: third - 1, height: 2 * h + 1) == 0..<2, "the page stays until its last system ends")
        #expect(raster.page(forTick: third, height: h - 3) == 2..<3, "at least one system, clipped")
        #expect(raster.page(forTick: lesson.endTick + 10_000, height: h) == (score.systems.count - 1)..<score.systems.count)
    }
}

@Suite("Score JSON")
struct ScoreJSONTests {
    @Test func everyNoteWithItsPlace() throws {
        let lesson = try Music.builtIn("level4/ode-to-joy.mid")
        let options = NotationOptions(width: 80)
        let score = ScoreLayout.layout(lesson, options: options)
        let doc = ScoreDocument(score: score, lesson: lesson)
        #expect(doc.notes.count == lesson.notes.count)
        let first = try #require(doc.notes.first { $0.staff == "treble" })
        #expect(first.bar == 1 && first.beat == 0 && first.step == 0 && first.pitch == 64 && first.hand == "right" && first.finger == 3)
        #expect(first.accidental == nil && first.spelling == "E" && first.clef == "treble" && first.value == "quarter")
        let bass = try #require(doc.notes.first { $0.staff == "bass" })
        #expect(bass.pitch == 48 && bass.step == 3 && bass.hand == "left" && bass.value == "whole")
        // Bar 4: E dotted quarter, D eighth on beat 1.5, D half on beat 2.
        let bar4 = doc.notes.filter { $0.bar == 4 && $0.staff == "treble" }
        #expect(bar4.map(\.beat) == [0, 1.5, 2])
        #expect(bar4.map(\.value) == ["quarter", "eighth", "half"] && bar4.map(\.dots) == [1, 0, 0])
        // The column is where the text draws the head.
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        let text = ScoreText.lines(lesson: lesson, options: options, color: false)
        for note in doc.notes.prefix(20) {
            let line = 2 + note.system * (raster.systemHeight + 1) + (raster.bottomLineRow[Staff(rawValue: note.staff) ?? .treble] ?? 0) - note.step
            let chars = Array(text[line].unicodeScalars)
            #expect(note.column < chars.count && ["●", "○"].contains(chars[note.column]), "note \(note.note) at column \(note.column) of line \(line)")
        }
        let json = try doc.jsonText()
        #expect(json.contains("\"accidental\":null") && json.contains("\"finger\":3") && json.contains("\"staff\":\"bass\""))
        let decoded = try JSONDecoder().decode(ScoreDocument.self, from: Data(json.utf8))
        #expect(decoded == doc)
    }

    @Test func accidentalsAsDrawn() throws {
        let lesson = try Music.builtIn("level5/fur-elise.mid")
        let doc = ScoreDocument(score: ScoreLayout.layout(lesson), lesson: lesson)
        // e d♯ e d♯ e B d(♮) c A: the sharp on the first D♯ of each bar, the natural on D.
        let opening = doc.notes.filter { $0.staff == "treble" }.prefix(9)
        #expect(opening.map(\.spelling) == ["E", "D#", "E", "D#", "E", "B", "D", "C", "A"])
        #expect(opening.map { $0.accidental ?? "-" } == ["-", "sharp", "-", "sharp", "-", "-", "natural", "-", "-"])
        #expect(doc.key == "A minor" && doc.time == "3/8")
    }
}
