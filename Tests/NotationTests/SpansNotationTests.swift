import Foundation
import Lesson
import MIDIFile
@testable import MusicXML
import Testing
@testable import Notation

/// Hairpins, slurs and pedal marks: read from MusicXML (`<wedge>`, `<slur>`, `<pedal>`) and a
/// MIDI file's CC64 (ABC's in ABCTests and end to end), placed at their columns, drawn where there is room
/// and listed in `score --json`.
@Suite("Hairpins, slurs and pedal marks on the staff")
struct SpansNotationTests {
    static func lesson() throws -> Lesson {
        func note(_ step: String, _ octave: Int, staff: Int, slur: String? = nil) -> String {
            let notations = slur.map { "<notations><slur number=\"1\" type=\"\($0)\"/></notations>" } ?? ""
            return "<note><pitch><step>\(step)</step><octave>\(octave)</octave></pitch><duration>1</duration><type>quarter</type><staff>\(staff)</staff>\(notations)</note>"
        }
        func direction(_ body: String, staff: Int) -> String {
            "<direction placement=\"below\"><direction-type>\(body)</direction-type><staff>\(staff)</staff></direction>"
        }
        let xml = """
        <?xml version="1.0"?><score-partwise version="3.1"><part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list>
        <part id="P1"><measure number="1"><attributes><divisions>1</divisions><time><beats>4</beats><beat-type>4</beat-type></time>
        <staves>2</staves><clef number="1"><sign>G</sign><line>2</line></clef><clef number="2"><sign>F</sign><line>4</line></clef></attributes>
        \(direction("<dynamics><p/></dynamics>", staff: 1))\(direction("<wedge type=\"crescendo\"/>", staff: 1))
        \(note("C", 5, staff: 1, slur: "start"))\(note("D", 5, staff: 1))\(note("E", 5, staff: 1))\(note("F", 5, staff: 1, slur: "stop"))
        <backup><duration>4</duration></backup>
        \(direction("<pedal type=\"start\"/>", staff: 2))\(note("C", 3, staff: 2))\(note("E", 3, staff: 2))
        \(direction("<pedal type=\"change\"/>", staff: 2))\(note("G", 3, staff: 2))\(note("C", 3, staff: 2))
        </measure><measure number="2">
        \(direction("<wedge type=\"stop\"/>", staff: 1))\(direction("<dynamics><f/></dynamics>", staff: 1))
        \(note("G", 5, staff: 1))\(note("E", 5, staff: 1))\(note("C", 5, staff: 1))\(note("C", 5, staff: 1))
        <backup><duration>4</duration></backup>
        \(note("C", 3, staff: 2))\(direction("<pedal type=\"stop\"/>", staff: 2))\(note("E", 3, staff: 2))\(note("G", 3, staff: 2))\(note("C", 3, staff: 2))
        </measure></part></score-partwise>
        """
        return Lesson(file: try MusicXMLImport.midiFile(fromBytes: Array(xml.utf8)).file, fileName: "spans.musicxml")
    }

    @Test func readPlacedAndListed() throws {
        let lesson = try Self.lesson()
        #expect(lesson.annotations.hairpins.values.flatMap { $0.map(\.hairpin) } == [.crescendo, .stop])
        #expect(lesson.annotations.slurs.values.flatMap { $0.map(\.start) } == [true, false])
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 120))
        let spans = score.systems.flatMap(\.spans)
        #expect(spans.map(\.kind) == [.crescendo, .pedal, .slur])
        #expect(spans.map(\.staff) == [.treble, .bass, .treble])
        #expect(spans.map(\.startTick) == [0, 0, 0])
        #expect(spans.map(\.endTick) == [1920, 2400, 1440])
        let pedal = try #require(spans.first { $0.kind == .pedal })
        #expect(pedal.changes.count == 1)
        let doc = ScoreDocument(score: score, lesson: lesson)
        #expect(doc.spans.map { "\($0.kind)@\($0.bar):\($0.beat)-\($0.endBar):\($0.endBeat):\($0.staff)" }
            == ["crescendo@1:0.0-2:0.0:treble", "pedal@1:0.0-2:1.0:bass", "slur@1:0.0-1:3.0:treble"])
        #expect(try doc.jsonText().contains("\"spans\":[{"))
    }

    /// Every character of a system as rows of text.
    static func rows(_ s: StaffRaster.SystemRaster, height: Int) -> [String] {
        (0..<height).map { y in String(String.UnicodeScalarView((0..<s.width).map { s[$0, y].character })) }
    }

    @Test func drawnInCellsAtFullDensity() throws {
        let lesson = try Self.lesson()
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 120))
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        let rows = Self.rows(raster.systems[0], height: raster.systemHeight)
        let text = rows.joined(separator: "\n")
        let crescendo = try #require(score.systems[0].spans.first { $0.kind == .crescendo })
        // The hairpin opens just after the p it starts with, between the staves.
        let between = (raster.lineRow(.treble, step: 0) + 1)..<raster.lineRow(.bass, step: 8)
        #expect(between.contains { y in rows[y].contains("p <─") }, "\(text)")
        #expect(crescendo.toColumn > crescendo.fromColumn + 4)
        // The slur over the treble notes (or under them when above has no room).
        #expect(text.contains("╭") && text.contains("╮") || text.contains("╰") && text.contains("╯"), "\(text)")
        // The pedal in its own row under the lower staff: Ped, the change, the release.
        let last = rows[raster.systemHeight - 1]
        #expect(last.contains("Ped") && last.contains("∧") && last.contains("┘"), "\(text)")
        #expect(raster.systemHeight - 1 > raster.lineRow(.bass, step: 0))
    }

    @Test func compactStaffWritesTheHairpinAsAWord() throws {
        let lesson = try Self.lesson()
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let raster = StaffRaster(score: score, lesson: lesson, density: .compact)
        let text = Self.rows(raster.systems[0], height: raster.systemHeight).joined(separator: "\n")
        #expect(text.contains("cresc."), "\(text)")
        // No row is added to the compact staff for pedal marks.
        let without = StaffRaster(score: ScoreLayout.layout(try DynamicsNotationTests.lesson(), options: NotationOptions(width: 80)),
                                  lesson: try DynamicsNotationTests.lesson(), density: .compact)
        #expect(raster.systemHeight <= without.systemHeight + 1)
    }

    @Test func aMIDILessonsSustainPedalIsMarked() throws {
        var events: [MIDIEvent] = [MIDIEvent(tick: 0, .controlChange(channel: 0, controller: 64, value: 127))]
        for (i, p) in [60, 64, 67, 72].enumerated() {
            events.append(MIDIEvent(tick: i * 480, .noteOn(channel: 0, key: UInt8(p), velocity: 80)))
            events.append(MIDIEvent(tick: i * 480 + 470, .noteOff(channel: 0, key: UInt8(p), velocity: 0)))
        }
        events.append(MIDIEvent(tick: 1900, .controlChange(channel: 0, controller: 64, value: 0)))
        events.append(MIDIEvent(tick: 1920, .meta(type: MetaType.endOfTrack, data: [])))
        let lesson = Lesson(file: MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)]), fileName: "pedal.mid")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let pedals = score.systems.flatMap(\.spans).filter { $0.kind == .pedal }
        #expect(pedals.map(\.startTick) == [0] && pedals.map(\.endTick) == [1900])
    }
}
