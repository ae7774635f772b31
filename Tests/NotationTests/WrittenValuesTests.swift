import Foundation
import Lesson
import MIDIFile
import MusicXML
import Testing
@testable import Notation

private typealias N = Music.N

/// A one-part piano score: measures of `<note>`s (4/4, `divisions` per quarter).
private func score(_ measures: [String], divisions: Int) -> Lesson? {
    var body = ""
    for (i, m) in measures.enumerated() {
        body += "<measure number=\"\(i + 1)\">"
        if i == 0 {
            body += "<attributes><divisions>\(divisions)</divisions><key><fifths>0</fifths></key><time><beats>4</beats><beat-type>4</beat-type></time><clef><sign>G</sign><line>2</line></clef></attributes>"
        }
        body += m + "</measure>"
    }
    let xml = "<?xml version=\"1.0\"?><score-partwise version=\"4.0\"><part-list><score-part id=\"P1\"><part-name>Piano</part-name></score-part></part-list><part id=\"P1\">\(body)</part></score-partwise>"
    guard let file = try? MusicXMLImport.midiFile(fromXML: Array(xml.utf8)).file else { return nil }
    return Lesson(file: file, fileName: "test.musicxml")
}

/// `<note>` with a pitch, duration, type and what else the test needs.
private func note(_ step: String, _ octave: Int, _ duration: Int, _ type: String, dots: Int = 0, triplet: Bool = false,
                  tie: String? = nil, staccato: Bool = false, articulations: [String] = [], fermata: Bool = false) -> String {
    var s = "<note><pitch><step>\(step)</step><octave>\(octave)</octave></pitch><duration>\(duration)</duration>"
    if let tie { s += "<tie type=\"\(tie)\"/>" }
    s += "<voice>1</voice><type>\(type)</type>" + String(repeating: "<dot/>", count: dots)
    if triplet { s += "<time-modification><actual-notes>3</actual-notes><normal-notes>2</normal-notes></time-modification>" }
    var notations = ""
    if let tie { notations += "<tied type=\"\(tie)\"/>" }
    let marks = (staccato ? ["staccato"] : []) + articulations
    if !marks.isEmpty { notations += "<articulations>" + marks.map { "<\($0)/>" }.joined() + "</articulations>" }
    if fermata { notations += "<fermata type=\"upright\"/>" }
    if !notations.isEmpty { s += "<notations>\(notations)</notations>" }
    return s + "</note>"
}

private func rest(_ duration: Int, _ type: String) -> String {
    "<note><rest/><duration>\(duration)</duration><voice>1</voice><type>\(type)</type></note>"
}

private func written(_ heads: [PlacedHead]) -> [String] {
    heads.map { h in
        "\(h.duration.value.name)\(String(repeating: ".", count: h.duration.dots))\(h.tuplet.map { "/\($0.actual)" } ?? "")\(h.tiedFromPrevious ? "~" : "")"
    }
}

/// Note values as written: a score's own (tuplets, ties, dots, short values, staccato notes at
/// their written length), and triplets found in a MIDI file's timing.
@Suite("Written values")
struct WrittenValuesTests {
    @Test func aScoresTiesTupletsDotsAndShortValuesAreDrawnAsPrinted() throws {
        // Bar 1 (24 divisions a quarter): triplet eighths C D E, a sixteenth F tied to an
        // eighth F (a syncopation), a sixteenth G, a half A.
        // Bar 2: a dotted quarter B, two 32nds C D, a sixteenth E, then a staccato half G.
        let lesson = try #require(score([
            note("C", 5, 8, "eighth", triplet: true) + note("D", 5, 8, "eighth", triplet: true) + note("E", 5, 8, "eighth", triplet: true)
                + note("F", 5, 6, "16th", tie: "start") + note("F", 5, 12, "eighth", tie: "stop") + note("G", 5, 6, "16th") + note("A", 5, 48, "half"),
            note("B", 4, 36, "quarter", dots: 1) + note("C", 5, 3, "32nd") + note("D", 5, 3, "32nd") + note("E", 5, 6, "16th")
                + note("G", 4, 48, "half", staccato: true),
        ], divisions: 24))
        let layout = ScoreLayout.layout(lesson, options: NotationOptions(width: 200))
        let heads = Music.heads(layout, ties: true).filter { $0.staff == .treble }
        #expect(written(heads) == ["eighth/3", "eighth/3", "eighth/3", "16th", "eighth~", "16th", "half",
                                   "quarter.", "32nd", "32nd", "16th", "half"])
        #expect(heads.map(\.tiesToNext) == [false, false, false, true, false, false, false, false, false, false, false, false])
        // The triplet is beamed and numbered; the staccato half leaves no rest behind it.
        let chords = layout.systems[0].chords.filter { $0.staff == .treble }
        #expect(Set(chords.prefix(3).compactMap(\.beamGroup)).count == 1)
        #expect(layout.systems[0].rests.filter { $0.staff == .treble }.isEmpty, "\(layout.systems[0].rests)")
        let raster = StaffRaster(score: layout, lesson: lesson, density: .full)
        let cells = raster.systems[0].cells
        #expect(cells.contains { $0.character == "3" && $0.ink == .beam }, "the triplet's 3 on its beam")
        // And in `score --json`.
        let doc = ScoreDocument(score: layout, lesson: lesson)
        #expect(doc.notes.prefix(3).map(\.tuplet) == ["3:2", "3:2", "3:2"])
        #expect(doc.notes.first { $0.spelling == "F" }?.ties == 1)
    }

    @Test func articulationsAndFermatasAreDrawnAndListed() throws {
        // A staccato C, an accented D, a tenuto E, a marcato F | a whole G with a fermata.
        let lesson = try #require(score([
            note("C", 5, 1, "quarter", staccato: true) + note("D", 5, 1, "quarter", articulations: ["accent"])
                + note("E", 5, 1, "quarter", articulations: ["tenuto"]) + note("F", 4, 1, "quarter", articulations: ["strong-accent"]),
            note("G", 4, 4, "whole", fermata: true),
        ], divisions: 1))
        let layout = ScoreLayout.layout(lesson, options: NotationOptions(width: 120))
        let doc = ScoreDocument(score: layout, lesson: lesson)
        #expect(doc.notes.map(\.articulations) == [["staccato"], ["accent"], ["tenuto"], ["marcato"], ["fermata"]])
        #expect(doc.notes.first?.value == "quarter", "a staccato quarter is still a quarter")
        // Every mark where the full staff has room; the compact one draws those it has rows for
        // (the tenuto over E5 would need a row above the system).
        let drawn = { (density: StaffDensity) in
            Set(StaffRaster(score: layout, lesson: lesson, density: density).systems[0].cells.filter { $0.ink == .dot }.map(\.character))
        }
        #expect(drawn(.full) == ["∙", ">", "–", "^", "⌒"])
        #expect(drawn(.compact).isSuperset(of: ["∙", ">", "^", "⌒"]), "\(drawn(.compact))")
        // A MIDI lesson has none.
        #expect(ScoreDocument(score: ScoreLayout.layout(Music.lesson(right: Music.line([72]))), lesson: Music.lesson(right: Music.line([72])))
                    .notes.allSatisfy { $0.articulations.isEmpty })
    }

    @Test func tripletsInAMIDIFileAreWrittenAsTriplets() {
        // Three notes a third of a quarter each, then a quarter: an eighth triplet and a quarter.
        let third = 1.0 / 3
        let right = [N(pitch: 72, at: 0, length: third), N(pitch: 74, at: third, length: third), N(pitch: 76, at: 2 * third, length: third),
                     N(pitch: 77, at: 1, length: 1), N(pitch: 79, at: 2, length: 2)]
        let layout = ScoreLayout.layout(Music.lesson(right: right), options: NotationOptions(width: 200))
        let heads = Music.heads(layout, ties: true).filter { $0.staff == .treble }
        #expect(written(heads) == ["eighth/3", "eighth/3", "eighth/3", "quarter", "half"])
        let raster = StaffRaster(score: layout, lesson: Music.lesson(right: right), density: .compact)
        #expect(raster.systems[0].cells.contains { $0.character == "3" && $0.ink == .beam })
    }

    @Test func writtenValueAnnotationRoundTrips() throws {
        let v = WrittenValue(value: 3, dots: 1, actual: 3, normal: 2, ticks: 240)
        #expect(v.text == "240:3.:3/2")
        #expect(WrittenValue(text: v.text) == v)
        #expect(Annotation(Annotation.value(pitch: 60, v).event(tick: 0).kind) == .value(pitch: 60, v))
        #expect(WrittenValue(text: "0:3") == nil && WrittenValue(text: "240:9") == nil && WrittenValue(text: "240:3:0/2") == nil)
    }
}
