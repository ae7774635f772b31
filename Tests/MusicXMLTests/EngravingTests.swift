import Foundation
import Testing
import MIDIFile
import Lesson
@testable import MusicXML

/// What a score says about how it is engraved that the staff draws as written: ottava lines
/// (`<octave-shift>`) and clef variants.
@Suite struct EngravingTests {
    static func shift(_ type: String, size: Int = 8) -> String {
        "<direction placement=\"above\"><direction-type><octave-shift type=\"\(type)\" size=\"\(size)\"/></direction-type></direction>"
    }

    @Test func octaveShiftsBecomeOttavaAnnotationsWhereTheyStandAndStop() throws {
        // 8va over C6 D6, stopped before E6; then 8vb (type "up") over the next bar's C3, 15ma over its D7.
        let xml = Score.partwise([
            Self.shift("down") + Score.note("C6") + Score.note("D6") + Self.shift("stop") + Score.note("E6") + Score.note("F6"),
            Self.shift("up") + Score.note("C3", 2) + Self.shift("stop") + Self.shift("down", size: 15) + Score.note("D7", 2) + Self.shift("stop"),
        ])
        let lesson = try Read.lesson(xml)
        let q = lesson.ticksPerQuarter
        let lines = lesson.annotations.ottavas.values.flatMap { $0 }.map { [$0.tick, $0.octaves] }
        #expect(lines == [[0, 1], [2 * q, 0], [4 * q, -1], [6 * q, 0], [6 * q, 2], [8 * q, 0]])
        #expect(MusicXML.ScoreReader.ottava(type: "continue", size: "8") == nil)
    }

    @Test func aScoreWithoutOctaveShiftsHasNoOttava() throws {
        let lesson = try Read.lesson(Score.partwise([Score.bar("C7", "D7", "E7", "F7")]))
        #expect(lesson.annotations.ottavas.isEmpty)
    }

    @Test func theFrenchViolinClefIsItsOwnClef() throws {
        let xml = Score.partwise([Score.bar("G4", "A4", "B4", "C5")], extraAttributes: "<clef><sign>G</sign><line>1</line></clef>")
        let lesson = try Read.lesson(xml)
        #expect(lesson.annotations.clefs.values.flatMap { $0 }.map(\.clef) == [.french])
        #expect(Clef.french.bottomLineDiatonic == 4 * 7 + 4, "G4 on the bottom line")
        // A G clef on line 2 stays the treble clef.
        let treble = try Read.lesson(Score.partwise([Score.bar("G4", "A4", "B4", "C5")], extraAttributes: "<clef><sign>G</sign><line>2</line></clef>"))
        #expect(treble.annotations.clefs.values.flatMap { $0 }.map(\.clef) == [.treble])
    }

    @Test func anOttavaAnnotationReadsBackAndRefusesNonsense() {
        for n in -2...2 {
            let e = Annotation.ottava(n).event(tick: 0)
            #expect(Annotation(e.kind) == .ottava(n))
        }
        #expect(Annotation(Annotation.ottava(0).event(tick: 0).kind).map { if case .ottava = $0 { true } else { false } } == true)
        let bad = MIDIEvent(tick: 0, .meta(type: MetaType.text, data: Array("etude:ottava=9".utf8)))
        #expect(Annotation(bad.kind) == nil)
    }
}
