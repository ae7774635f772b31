import Foundation
import Lesson
import MIDIFile
@testable import MusicXML
import Testing
import TestSupport
@testable import Notation

/// Ornaments drawn on the staff: a sign above the note (trill `tr`, mordent `≁`, inverted
/// mordent `∿`, turn `∽`, inverted turn `∾`, shake `≈`), a single-note tremolo's strokes on
/// its stem (`/`, `⫽`, `⫻`), a two-note tremolo's strokes between its two notes.
@Suite("Ornaments and tremolos on the staff")
struct OrnamentNotationTests {
    static func note(_ step: String, _ octave: Int, _ duration: Int, _ type: String, ornament: String = "", timeModification: Bool = false) -> String {
        "<note><pitch><step>\(step)</step><octave>\(octave)</octave></pitch><duration>\(duration)</duration><voice>1</voice><type>\(type)</type>"
            + (timeModification ? "<time-modification><actual-notes>2</actual-notes><normal-notes>1</normal-notes></time-modification>" : "")
            + (ornament.isEmpty ? "" : "<notations><ornaments>\(ornament)</ornaments></notations>") + "</note>"
    }

    /// Where each character of `ink` stands in system 0: character → [(x, y)].
    static func cells(_ raster: StaffRaster, _ ink: Ink) -> [(Unicode.Scalar, x: Int, y: Int)] {
        let s = raster.systems[0]
        return s.cells.indices.filter { s.cells[$0].ink == ink }.map { (s.cells[$0].character, $0 % s.width, $0 / s.width) }
    }

    @Test func ornamentSignsStandAboveTheirNotes() throws {
        // Bar 1: a trill on C5, a mordent on D5, an inverted mordent on E5, a turn on F5;
        // bar 2: an inverted turn on G4, a shake on A4, a plain half B4.
        let lesson = try VoicesAndTremoloNotationTests.lesson(
            Self.note("C", 5, 2, "quarter", ornament: "<trill-mark/>") + Self.note("D", 5, 2, "quarter", ornament: "<mordent/>")
                + Self.note("E", 5, 2, "quarter", ornament: "<inverted-mordent/>") + Self.note("F", 5, 2, "quarter", ornament: "<turn/>")
                + "</measure><measure number=\"2\">"
                + Self.note("G", 4, 2, "quarter", ornament: "<inverted-turn/>") + Self.note("A", 4, 2, "quarter", ornament: "<shake/>")
                + Self.note("B", 4, 4, "half"))
        let layout = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let heads = layout.systems.flatMap(\.heads)
        #expect(heads.map(\.ornament) == [.trill, .mordent, .invertedMordent, .turn, .invertedTurn, .shake, nil])
        for density in [StaffDensity.full, .compact] {
            let raster = StaffRaster(score: layout, lesson: lesson, density: density)
            let marks = Self.cells(raster, .dot)
            #expect(Set(marks.map(\.0)) == ["t", "r", "≁", "∿", "∽", "∾", "≈"], "\(density): \(marks.map(\.0))")
            // Each sign in its note's column, above its head.
            let headCells = Self.cells(raster, .head)
            for sign in ["t", "≁", "∿", "∽", "∾", "≈"] as [Unicode.Scalar] {
                let m = try #require(marks.first { $0.0 == sign }, "\(density): \(sign) drawn")
                let head = try #require(headCells.first { $0.x == m.x }, "\(density): a head under \(sign)")
                #expect(m.y < head.y, "\(density): \(sign) above its head")
            }
        }
    }

    @Test func singleNoteTremoloStrokesCrossTheStem() throws {
        // A half G4 in 32nds (three strokes), a half A4 in eighths (one stroke).
        let lesson = try VoicesAndTremoloNotationTests.lesson(
            Self.note("G", 4, 4, "half", ornament: "<tremolo type=\"single\">3</tremolo>") + Self.note("A", 4, 4, "half", ornament: "<tremolo type=\"single\">1</tremolo>"))
        let layout = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let chords = layout.systems[0].chords
        #expect(layout.systems[0].heads.map(\.ornament) == [.tremolo32, .tremolo8])
        for density in [StaffDensity.full, .compact] {
            let raster = StaffRaster(score: layout, lesson: lesson, density: density)
            let strokes = Self.cells(raster, .beam).sorted { $0.x < $1.x }
            #expect(strokes.map(\.0) == ["⫻", "/"], "\(density): \(strokes.map(\.0))")
            #expect(strokes.map(\.x) == chords.map(\.column), "\(density): on the stems")
            // The stem goes on past the strokes.
            for s in strokes { #expect(raster.systems[0][s.x, s.y - 1].ink == .stem || raster.systems[0][s.x, s.y + 1].ink == .stem) }
        }
    }

    @Test func twoNoteTremoloStrokesStandBetweenTheNotes() throws {
        // MusicXML's two-note tremolo: C5 and E5 written as halves, sounding a quarter each
        // (2:1), two strokes; then a half rest.
        let lesson = try VoicesAndTremoloNotationTests.lesson(
            Self.note("C", 5, 2, "half", ornament: "<tremolo type=\"start\">2</tremolo>", timeModification: true)
                + Self.note("E", 5, 2, "half", ornament: "<tremolo type=\"stop\">2</tremolo>", timeModification: true)
                + "<note><rest/><duration>4</duration><voice>1</voice><type>half</type></note>")
        let layout = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let chords = layout.systems[0].chords
        #expect(chords.count == 2)
        #expect(layout.systems[0].heads.map(\.ornament) == [.alternate16, .alternate16])
        let raster = StaffRaster(score: layout, lesson: lesson, density: .full)
        let strokes = Self.cells(raster, .beam).filter { $0.0 == "⫽" }
        #expect(strokes.count == 1, "one mark for the pair: \(Self.cells(raster, .beam).map(\.0))")
        if let s = strokes.first, chords.count == 2 {
            #expect(s.x > chords[0].column && s.x < chords[1].column, "between the two notes")
        }
    }

    @Test func twoNoteTremolosInARowAreToldApart() throws {
        // Two pairs (C5–E5, D5–F5), each two halves sounding a quarter, one stroke, in one bar:
        // a mark between the notes of each pair, none between the pairs.
        let pair = { (a: String, b: String) in
            Self.note(a, 5, 2, "half", ornament: "<tremolo type=\"start\">1</tremolo>", timeModification: true)
                + Self.note(b, 5, 2, "half", ornament: "<tremolo type=\"stop\">1</tremolo>", timeModification: true)
        }
        let lesson = try VoicesAndTremoloNotationTests.lesson(pair("C", "E") + pair("D", "F"))
        let layout = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let heads = layout.systems[0].heads
        #expect(heads.map(\.ornament) == [.alternate8, .alternate8, .alternate8, .alternate8])
        #expect(heads.map(\.opensTwoNoteTremolo) == [true, false, true, false])
        let chords = layout.systems[0].chords
        let raster = StaffRaster(score: layout, lesson: lesson, density: .full)
        let strokes = Self.cells(raster, .beam).filter { $0.0 == "/" }.map(\.x).sorted()
        #expect(strokes.count == 2, "\(Self.cells(raster, .beam).map(\.0))")
        if strokes.count == 2, chords.count == 4 {
            #expect(strokes[0] > chords[0].column && strokes[0] < chords[1].column)
            #expect(strokes[1] > chords[2].column && strokes[1] < chords[3].column)
        }
    }

    @Test func aSignNeverCutsAnOttavaLineOrIsCutByIt() throws {
        // Trills on C6 and D6 under an 8va line, then a half E5 with a turn.
        let shift = { (type: String) in "<direction placement=\"above\"><direction-type><octave-shift type=\"\(type)\" size=\"8\"/></direction-type></direction>" }
        let lesson = try VoicesAndTremoloNotationTests.lesson(
            shift("down") + Self.note("C", 6, 2, "quarter", ornament: "<trill-mark/>") + Self.note("D", 6, 2, "quarter", ornament: "<trill-mark/>")
                + shift("stop") + Self.note("E", 5, 4, "half", ornament: "<turn/>"))
        let layout = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        #expect(!layout.systems[0].ottavas.isEmpty)
        for density in [StaffDensity.full, .compact] {
            let raster = StaffRaster(score: layout, lesson: lesson, density: density)
            let s = raster.systems[0]
            let ottava = Self.cells(raster, .ottava)
            #expect(String(String.UnicodeScalarView(ottava.prefix(3).map(\.0))) == "8va", "\(density): \(ottava.map(\.0))")
            // Every trill sign whole: its t and r side by side.
            let ts = Self.cells(raster, .dot).filter { $0.0 == "t" }
            #expect(ts.count == 2, "\(density): \(Self.cells(raster, .dot).map(\.0))")
            for t in ts { #expect(s[t.x + 1, t.y].character == "r" && s[t.x + 1, t.y].ink == .dot, "\(density): tr whole") }
            #expect(Self.cells(raster, .dot).contains { $0.0 == "∽" }, "\(density)")
        }
    }

    @Test func aLessonWithNoOrnamentsDrawsNone() {
        let lesson = Music.lesson(right: Music.line([72, 74, 76]))
        let raster = StaffRaster(score: ScoreLayout.layout(lesson), lesson: lesson, density: .full)
        let marks = Set(raster.systems[0].cells.map(\.character))
        #expect(marks.isDisjoint(with: ["≁", "∿", "∽", "∾", "≈", "⫽", "⫻"] as Set<Unicode.Scalar>))
        #expect(ScoreLayout.layout(lesson).systems.flatMap(\.heads).allSatisfy { $0.ornament == nil })
    }
}
