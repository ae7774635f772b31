import Foundation
import Lesson
import MIDIFile
@testable import MusicXML
import Testing
@testable import Notation

/// Grace notes on the staff: drawn small just left of the note they lead to (slashed for an
/// acciaccatura), in that note's clef, and listed in `score --json` as grace notes.
@Suite("Grace notes on the staff")
struct GraceNotationTests {
    /// Bar 1: D5 (acciaccatura) before E5; bar 2: B4 (appoggiatura) before a C5 half note.
    static func lesson() throws -> Lesson {
        func note(_ step: String, _ octave: Int, _ type: String, _ duration: Int?, grace: String? = nil) -> String {
            "<note>" + (grace.map { "<grace slash=\"\($0)\"/>" } ?? "") + "<pitch><step>\(step)</step><octave>\(octave)</octave></pitch>"
                + (duration.map { "<duration>\($0)</duration>" } ?? "") + "<type>\(type)</type></note>"
        }
        let xml = """
        <?xml version="1.0"?><score-partwise version="3.1"><part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list>
        <part id="P1"><measure number="1"><attributes><divisions>1</divisions><time><beats>4</beats><beat-type>4</beat-type></time>
        <staves>2</staves><clef number="1"><sign>G</sign><line>2</line></clef><clef number="2"><sign>F</sign><line>4</line></clef></attributes>
        \(note("C", 5, "quarter", 1))\(note("D", 5, "eighth", nil, grace: "yes"))\(note("E", 5, "quarter", 1))\(note("G", 5, "half", 2))</measure>
        <measure number="2">\(note("B", 4, "16th", nil, grace: "no"))\(note("C", 5, "half", 2))\(note("C", 5, "half", 2))</measure></part></score-partwise>
        """
        let file = try MusicXMLImport.midiFile(fromBytes: Array(xml.utf8)).file
        return Lesson(file: file, fileName: "graces.musicxml")
    }

    @Test func gracesStandLeftOfTheirNoteOnItsStaffStep() throws {
        let lesson = try Self.lesson()
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let graces = score.systems.flatMap(\.graces)
        #expect(graces.map(\.pitch) == [74, 71])
        #expect(graces.map(\.grace) == [true, false])
        // Treble clef: D5 on the fourth line (step 6), B4 on the middle line (step 4).
        #expect(graces.map(\.step) == [6, 4])
        let heads = score.systems.flatMap(\.heads)
        for g in graces {
            // The note it leads to: E5 in bar 1, the C5 on bar 2's downbeat (written on the beat).
            let main = try #require(heads.first { $0.tick >= g.tick && $0.staff == g.staff })
            #expect(g.column < main.column)
            #expect(main.pitch == (g.pitch == 74 ? 76 : 72))
        }
        let c5 = try #require(heads.first { $0.pitch == 72 && $0.barIndex == 1 })
        #expect(c5.tick == lesson.bars.bars[1].startTick && c5.duration == NoteDuration(.half))
        // Bar 2's rhythm is as written: no rest, no tie for the appoggiatura's 32nd.
        #expect(!score.systems.flatMap(\.rests).contains { $0.staff == .treble })
        #expect(!heads.contains { $0.tiesToNext })
    }

    @Test(arguments: StaffDensity.allCases)
    func gracesAreDrawnSmall(density: StaffDensity) throws {
        let lesson = try Self.lesson()
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let raster = StaffRaster(score: score, lesson: lesson, density: density)
        var glyphs = Set<Character>()
        for (k, s) in raster.systems.enumerated() {
            for g in score.systems[k].graces {
                for y in 0..<raster.systemHeight where s[g.column, y].ink == .head { glyphs.insert(Character(s[g.column, y].character)) }
            }
        }
        // Both sit on lines (a row of their own at either density): small heads, slashed or not.
        #expect(glyphs == ["ø", "•"])
    }

    @Test func scoreJSONListsThemAsGraceNotes() throws {
        let lesson = try Self.lesson()
        let doc = ScoreDocument(score: ScoreLayout.layout(lesson, options: NotationOptions(width: 80)), lesson: lesson)
        #expect(doc.notes.filter { $0.grace != nil }.map { "\($0.spelling)\($0.grace ?? "")" } == ["Dacciaccatura", "Bappoggiatura"])
        #expect(doc.notes.filter { $0.grace == nil }.count == 5)
        let text = try doc.jsonText()
        #expect(text.contains("\"grace\":\"acciaccatura\"") && text.contains("\"grace\":null"))
    }

    @Test func aRolledChordIsDrawnAsOneChordAndOrnamentNotesAreNotDrawn() throws {
        let xml = """
        <?xml version="1.0"?><score-partwise version="3.1"><part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list>
        <part id="P1"><measure number="1"><attributes><divisions>1</divisions><time><beats>4</beats><beat-type>4</beat-type></time>
        <staves>2</staves><clef number="1"><sign>G</sign><line>2</line></clef><clef number="2"><sign>F</sign><line>4</line></clef></attributes>
        <note><pitch><step>C</step><octave>5</octave></pitch><duration>2</duration><type>half</type><notations><arpeggiate/></notations></note>
        <note><chord/><pitch><step>E</step><octave>5</octave></pitch><duration>2</duration><type>half</type><notations><arpeggiate/></notations></note>
        <note><pitch><step>G</step><octave>5</octave></pitch><duration>2</duration><type>half</type><notations><ornaments><trill-mark/></ornaments></notations></note>
        </measure></part></score-partwise>
        """
        let lesson = Lesson(file: try MusicXMLImport.midiFile(fromBytes: Array(xml.utf8)).file, fileName: "roll.musicxml")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let treble = score.systems.flatMap(\.chords).filter { $0.staff == .treble }
        #expect(treble.map(\.tick) == [0, 960])
        #expect(treble.map(\.duration) == [NoteDuration(.half), NoteDuration(.half)])
        let heads = score.systems.flatMap(\.heads).filter { $0.staff == .treble }
        #expect(heads.map(\.pitch) == [72, 76, 79])
        #expect(!heads.contains { $0.tiesToNext })
    }

    @Test func transposingMovesTheGraceNotesWithTheirNotes() throws {
        let lesson = try Self.lesson()
        let up = lesson.transposed(Transposition(semitones: 2, steps: 1, from: nil))
        #expect(up.notes.filter { up.isGrace($0) }.map(\.pitch) == [76, 73])
        let graces = ScoreLayout.layout(up, options: NotationOptions(width: 80)).systems.flatMap(\.graces)
        #expect(graces.map(\.pitch) == [76, 73] && graces.map(\.grace) == [true, false])
    }
}
