import Foundation
import Lesson
import MIDIFile
@testable import MusicXML
import Testing
import TestSupport
@testable import Notation

/// Two voices on one key at once (a unison) are one sounding note but two printed heads: the
/// second voice's is drawn beside the first (`etude:unison`); a tremolo's repeated notes are
/// played, not drawn.
@Suite("Unisons and tremolos on the staff")
struct VoicesAndTremoloNotationTests {
    static func lesson(_ measure: String) throws -> Lesson {
        let xml = """
        <?xml version="1.0"?><score-partwise version="3.1"><part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list>
        <part id="P1"><measure number="1"><attributes><divisions>2</divisions><time><beats>4</beats><beat-type>4</beat-type></time>
        <clef><sign>G</sign><line>2</line></clef></attributes>\(measure)</measure></part></score-partwise>
        """
        return Lesson(file: try MusicXMLImport.midiFile(fromBytes: Array(xml.utf8)).file, fileName: "voices.musicxml")
    }

    static func note(_ step: String, _ octave: Int, _ duration: Int, _ type: String, voice: Int, notations: String = "") -> String {
        "<note><pitch><step>\(step)</step><octave>\(octave)</octave></pitch><duration>\(duration)</duration><voice>\(voice)</voice><type>\(type)</type>"
            + (notations.isEmpty ? "" : "<notations>\(notations)</notations>") + "</note>"
    }

    @Test func aSecondVoicesUnisonHeadIsDrawnBesideTheFirst() throws {
        // Voice 1: a half C5 then a half E5; voice 2: a quarter C5 with it, then D5 and a half G4.
        let measure = Self.note("C", 5, 4, "half", voice: 1) + Self.note("E", 5, 4, "half", voice: 1) + "<backup><duration>8</duration></backup>"
            + Self.note("C", 5, 2, "quarter", voice: 2) + Self.note("D", 5, 2, "quarter", voice: 2) + Self.note("G", 4, 4, "half", voice: 2)
        let lesson = try Self.lesson(measure)
        // One sounding C5, as long as the longer head.
        #expect(lesson.notes.filter { $0.pitch == 72 }.count == 1)
        #expect(lesson.notes.first { $0.pitch == 72 }?.endTick == 960)
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let heads = score.systems.flatMap(\.heads).filter { $0.pitch == 72 }
        #expect(heads.count == 2)
        #expect(Set(heads.map(\.duration.value)) == [.half, .quarter])
        #expect(heads.allSatisfy { $0.tick == 0 && !$0.tiedFromPrevious && !$0.tiesToNext })
        // Side by side, one column apart.
        #expect(heads.filter(\.displaced).count == 1)
        #expect(Set(heads.map(\.column)).count == 2)
        // The annotation survives a transposition with its note.
        let up = lesson.transposed(Transposition(semitones: 2, steps: 1, from: nil))
        #expect(up.annotations.unisons.keys.map(\.pitch) == [74])
    }

    @Test func aTremolosRepeatedNotesAreNotDrawn() throws {
        let measure = Self.note("C", 5, 4, "half", voice: 1, notations: "<ornaments><tremolo>2</tremolo></ornaments>") + Self.note("E", 5, 4, "half", voice: 1)
        let lesson = try Self.lesson(measure)
        #expect(lesson.notes.filter { $0.pitch == 72 }.count == 8)
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let heads = score.systems.flatMap(\.heads)
        #expect(heads.map(\.pitch) == [72, 76])
        #expect(heads.map(\.duration.value) == [.half, .half])
    }
}

/// Tuplets as printed: a bracket where the score prints one, rests inside a tuplet written as
/// its values and counted in its group.
@Suite("Tuplet brackets and rests")
struct TupletBracketNotationTests {
    static func lesson(bracket: String) throws -> Lesson {
        let tm = "<time-modification><actual-notes>3</actual-notes><normal-notes>2</normal-notes></time-modification>"
        func note(_ step: String, _ type: String, _ duration: Int, tuplet: String = "") -> String {
            "<note><pitch><step>\(step)</step><octave>5</octave></pitch><duration>\(duration)</duration><voice>1</voice><type>\(type)</type>\(tm)"
                + (tuplet.isEmpty ? "" : "<notations>\(tuplet)</notations>") + "</note>"
        }
        // Quarter-note triplet C D E (a half), then a triplet eighth rest and two triplet eighths, a quarter G.
        let measure = note("C", "quarter", 2, tuplet: "<tuplet type=\"start\" bracket=\"\(bracket)\"/>") + note("D", "quarter", 2) + note("E", "quarter", 2, tuplet: "<tuplet type=\"stop\"/>")
            + "<note><rest/><duration>1</duration><voice>1</voice><type>eighth</type>\(tm)<notations><tuplet type=\"start\" bracket=\"\(bracket)\"/></notations></note>"
            + note("F", "eighth", 1) + note("A", "eighth", 1, tuplet: "<tuplet type=\"stop\"/>")
            + "<note><pitch><step>G</step><octave>5</octave></pitch><duration>3</duration><voice>1</voice><type>quarter</type></note>"
        let xml = """
        <?xml version="1.0"?><score-partwise version="3.1"><part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list>
        <part id="P1"><measure number="1"><attributes><divisions>3</divisions><time><beats>4</beats><beat-type>4</beat-type></time>
        <clef><sign>G</sign><line>2</line></clef></attributes>\(measure)</measure></part></score-partwise>
        """
        return Lesson(file: try MusicXMLImport.midiFile(fromBytes: Array(xml.utf8)).file, fileName: "tuplets.musicxml")
    }

    @Test func aBracketIsDrawnWhereTheScorePrintsOne() throws {
        var corners: [Bool: Int] = [:]
        for (bracket, drawn) in [("yes", true), ("no", false)] {
            let lesson = try Self.lesson(bracket: bracket)
            let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
            let heads = score.systems.flatMap(\.heads)
            #expect(heads.filter { $0.tuplet != nil }.allSatisfy { $0.tuplet?.bracket == drawn })
            let raster = StaffRaster(score: score, lesson: lesson, density: .full)
            let text = raster.systems.map { s in
                String(String.UnicodeScalarView(s.cells.compactMap { Unicode.Scalar($0.scalar) }))
            }.joined(separator: "\n")
            // (The opening line and a beam have corners of their own: the brackets add two each.)
            corners[drawn] = text.unicodeScalars.filter { "┌┐└┘".unicodeScalars.contains($0) }.count
            #expect(text.contains("3"))
        }
        #expect(corners[true] == (corners[false] ?? 0) + 4, "\(corners)")
    }

    @Test func aLessonWithNoEngravingBracketsItsUnbeamedTuplets() throws {
        // MIDI: a quarter-note triplet (unbeamed: bracketed), then an eighth triplet (beamed: its number on the beam).
        var notes: [MIDIEvent] = [Build.timeSignature(4, 4)]
        for (k, p) in [72, 74, 76].enumerated() { notes += Build.note(p, at: k * 320, length: 320) }
        for (k, p) in [77, 79, 81].enumerated() { notes += Build.note(p, at: 960 + k * 160, length: 160) }
        notes += Build.note(79, at: 1440, length: 480)
        let lesson = Lesson(file: try Build.file([notes]), fileName: "triplets.mid")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let heads = score.systems.flatMap(\.heads)
        #expect(heads.filter { $0.tuplet != nil }.count == 6)
        #expect(heads.allSatisfy { $0.tuplet?.bracket == nil })
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        let text = String(String.UnicodeScalarView(raster.systems[0].cells.compactMap { Unicode.Scalar($0.scalar) }))
        // One dashed bracket (the quarter triplet's), two corners, and two numbers.
        #expect(text.unicodeScalars.filter { $0 == "╌" }.count >= 2)
        #expect(text.unicodeScalars.filter { $0 == "3" }.count == 2, "\(text)")
    }

    @Test func aRestInATupletIsTheTupletsRest() throws {
        let lesson = try Self.lesson(bracket: "yes")
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 80))
        let rests = score.systems.flatMap(\.rests).filter { $0.staff == .treble }
        let tpq = score.ticksPerQuarter
        // One triplet eighth rest at beat 3, and no other rest in the bar.
        #expect(rests.count == 1, "\(rests)")
        #expect(rests.first?.tick == 2 * tpq)
        #expect(rests.first?.duration == NoteDuration(.eighth))
        #expect(rests.first?.tuplet?.actual == 3)
    }
}
