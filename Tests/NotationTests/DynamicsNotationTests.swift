import Foundation
import Lesson
import MIDIFile
@testable import MusicXML
import Testing
@testable import Notation

/// Dynamic marks as printed: carried as `etude:dynamic` on their staff's track, drawn under the
/// staff where there is room, listed in `score --json`.
@Suite("Dynamics on the staff")
struct DynamicsNotationTests {
    static func lesson() throws -> Lesson {
        func dyn(_ d: String, staff: Int) -> String {
            "<direction placement=\"below\"><direction-type><dynamics><\(d)/></dynamics></direction-type><staff>\(staff)</staff></direction>"
        }
        func note(_ step: String, _ octave: Int, staff: Int) -> String {
            "<note><pitch><step>\(step)</step><octave>\(octave)</octave></pitch><duration>2</duration><type>half</type><staff>\(staff)</staff></note>"
        }
        let xml = """
        <?xml version="1.0"?><score-partwise version="3.1"><part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list>
        <part id="P1"><measure number="1"><attributes><divisions>1</divisions><time><beats>4</beats><beat-type>4</beat-type></time>
        <staves>2</staves><clef number="1"><sign>G</sign><line>2</line></clef><clef number="2"><sign>F</sign><line>4</line></clef></attributes>
        \(dyn("p", staff: 1))\(note("C", 5, staff: 1))\(dyn("mf", staff: 1))\(note("E", 5, staff: 1))<backup><duration>4</duration></backup>
        \(dyn("f", staff: 2))\(note("C", 3, staff: 2))\(note("G", 2, staff: 2))</measure></part></score-partwise>
        """
        return Lesson(file: try MusicXMLImport.midiFile(fromBytes: Array(xml.utf8)).file, fileName: "dynamics.musicxml")
    }

    @Test func placedOnTheirStaffAtTheirBeat() throws {
        let lesson = try Self.lesson()
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let marks = score.systems.flatMap(\.dynamics)
        #expect(marks.map(\.mark) == ["p", "f", "mf"])
        #expect(marks.map(\.staff) == [.treble, .bass, .treble])
        #expect(marks.map(\.tick) == [0, 0, 960])
        let doc = ScoreDocument(score: score, lesson: lesson)
        #expect(doc.dynamics.map { "\($0.mark)@\($0.bar):\($0.beat):\($0.staff)" } == ["p@1:0.0:treble", "f@1:0.0:bass", "mf@1:2.0:treble"])
        #expect(try doc.jsonText().contains("\"dynamics\":[{"))
    }

    @Test(arguments: StaffDensity.allCases)
    func drawnUnderTheStaff(density: StaffDensity) throws {
        let lesson = try Self.lesson()
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let raster = StaffRaster(score: score, lesson: lesson, density: density)
        let s = raster.systems[0]
        for m in score.systems[0].dynamics {
            // Between the staves: under the upper one's bottom line, over the lower one's top line.
            let rows = m.staff == .treble ? Array((raster.lineRow(.treble, step: 0) + 1)...(raster.lineRow(.treble, step: 0) + 6))
                : Array((raster.lineRow(.bass, step: 8) - 6)...(raster.lineRow(.bass, step: 8) - 1))
            let found = rows.contains { y in
                [m.column, m.column + 1, m.column - 1].contains { x in
                    String(String.UnicodeScalarView((0..<m.mark.count).map { s[x + $0, y].character })) == m.mark
                }
            }
            #expect(found, "\(m.mark) under the \(m.staff) staff")
        }
    }
}
