import Foundation
import Testing
import MIDIFile
import Lesson
import TestSupport
@testable import MusicXML

/// Repeats, endings, jumps and printed bar numbers: the performance and its bar map.
@Suite struct FormTests {
    static let forward = "<barline location=\"left\"><bar-style>heavy-light</bar-style><repeat direction=\"forward\"/></barline>"
    static let backward = "<barline location=\"right\"><bar-style>light-heavy</bar-style><repeat direction=\"backward\"/></barline>"
    static func ending(_ n: String, start: Bool = true, stop: String? = nil) -> String {
        var s = ""
        if start { s += "<barline location=\"left\"><ending number=\"\(n)\" type=\"start\"/></barline>" }
        if let stop { s += "<barline location=\"right\"><ending number=\"\(n)\" type=\"\(stop)\"/>\(stop == "stop" ? "<repeat direction=\"backward\"/>" : "")</barline>" }
        return s
    }

    /// One whole note per measure: bar k plays MIDI pitch 59 + k, so the performance is
    /// readable from the pitches.
    static func whole(_ k: Int) -> String { Score.note(["C", "D", "E", "F", "G", "A", "B"][k % 7] + String(4 + k / 7), 4) }

    /// Pitches in playing order → written measure numbers (1-based) they came from.
    static func measures(_ xml: String) throws -> [Int] {
        let letters = ["C": 0, "D": 1, "E": 2, "F": 3, "G": 4, "A": 5, "B": 6]
        let semis = [0, 2, 4, 5, 7, 9, 11]
        return try Read.pitches(xml).map { p in
            let octave = p / 12 - 1, pc = p % 12
            let letter = semis.firstIndex(of: pc) ?? 0
            _ = letters
            return (octave - 4) * 7 + letter + 1
        }
    }

    @Test func simpleRepeatPlaysTwice() throws {
        let xml = Score.partwise([Self.whole(0), Self.forward + Self.whole(1), Self.whole(2) + Self.backward, Self.whole(3)])
        #expect(try Self.measures(xml) == [1, 2, 3, 2, 3, 4])
        let lesson = try Read.lesson(xml)
        #expect(lesson.bars.bars.map(\.printed) == [1, 2, 3, 2, 3, 4])
        #expect(lesson.bars.bars.map(\.pass) == [1, 1, 1, 2, 2, 1])
        #expect(lesson.bars.bars.map(\.number) == [1, 2, 3, 4, 5, 6])
    }

    @Test func backwardRepeatWithoutForwardGoesToTheStart() throws {
        let xml = Score.partwise([Self.whole(0), Self.whole(1) + Self.backward, Self.whole(2)])
        #expect(try Self.measures(xml) == [1, 2, 1, 2, 3])
    }

    @Test func repeatTimesAttribute() throws {
        let three = "<barline location=\"right\"><repeat direction=\"backward\" times=\"3\"/></barline>"
        let xml = Score.partwise([Self.whole(0) + three, Self.whole(1)])
        #expect(try Self.measures(xml) == [1, 1, 1, 2])
    }

    @Test func firstAndSecondEndings() throws {
        let xml = Score.partwise([
            Self.forward + Self.whole(0),
            Self.whole(1),
            Self.ending("1", stop: "stop") + Self.whole(2),
            Self.ending("2", stop: "discontinue") + Self.whole(3),
            Self.whole(4),
        ])
        #expect(try Self.measures(xml) == [1, 2, 3, 1, 2, 4, 5])
        let bars = try Read.lesson(xml).bars
        #expect(bars.bars.map(\.printed) == [1, 2, 3, 1, 2, 4, 5])
        #expect(bars.label(ofRange: 4...6) == "1–4@2")
    }

    @Test func endingsOneTwoThenThree() throws {
        let xml = Score.partwise([
            Self.whole(0),
            Self.ending("1, 2", stop: "stop") + Self.whole(1),
            Self.ending("3", stop: "discontinue") + Self.whole(2),
        ])
        #expect(try Self.measures(xml) == [1, 2, 1, 2, 1, 3])
    }

    @Test func multiMeasureEndings() throws {
        let xml = Score.partwise([
            Self.whole(0),
            Self.ending("1") + Self.whole(1),
            Self.whole(2) + "<barline location=\"right\"><ending number=\"1\" type=\"stop\"/><repeat direction=\"backward\"/></barline>",
            Self.ending("2") + Self.whole(3),
            Self.whole(4) + "<barline location=\"right\"><ending number=\"2\" type=\"discontinue\"/></barline>",
            Self.whole(5),
        ])
        #expect(try Self.measures(xml) == [1, 2, 3, 1, 4, 5, 6])
    }

    @Test func daCapoAlFineBySoundAttributes() throws {
        let fine = "<direction><direction-type><words>Fine</words></direction-type><sound fine=\"yes\"/></direction>"
        let dc = "<direction><direction-type><words>D.C. al Fine</words></direction-type><sound dacapo=\"yes\"/></direction>"
        let xml = Score.partwise([Self.whole(0), Self.whole(1) + fine, Self.whole(2), Self.whole(3) + dc])
        #expect(try Self.measures(xml) == [1, 2, 3, 4, 1, 2])
    }

    @Test func daCapoAlFineByWordsAlone() throws {
        let fine = "<direction><direction-type><words>Fine</words></direction-type></direction>"
        let dc = "<direction><direction-type><words>D. C. al Fine</words></direction-type></direction>"
        let xml = Score.partwise([Self.whole(0), Self.whole(1) + fine, Self.whole(2) + dc])
        #expect(try Self.measures(xml) == [1, 2, 3, 1, 2])
    }

    @Test func dalSegnoAlCoda() throws {
        let segno = "<direction><direction-type><segno/></direction-type><sound segno=\"s1\"/></direction>"
        let toCoda = "<direction><direction-type><words>To Coda</words></direction-type><sound tocoda=\"c1\"/></direction>"
        let ds = "<direction><direction-type><words>D.S. al Coda</words></direction-type><sound dalsegno=\"s1\"/></direction>"
        let coda = "<direction><direction-type><coda/></direction-type><sound coda=\"c1\"/></direction>"
        let xml = Score.partwise([Self.whole(0), segno + Self.whole(1), Self.whole(2) + toCoda, Self.whole(3) + ds, coda + Self.whole(4), Self.whole(5)])
        #expect(try Self.measures(xml) == [1, 2, 3, 4, 2, 3, 5, 6])
    }

    @Test func dalSegnoAlCodaBySymbolsAndWords() throws {
        let segno = "<direction><direction-type><segno/></direction-type></direction>"
        let toCoda = "<direction><direction-type><coda/></direction-type></direction>"
        let ds = "<direction><direction-type><words>D.S. al Coda</words></direction-type></direction>"
        let coda = "<direction><direction-type><coda/></direction-type></direction>"
        let xml = Score.partwise([Self.whole(0), segno + Self.whole(1), Self.whole(2) + toCoda, Self.whole(3) + ds, coda + Self.whole(4)])
        #expect(try Self.measures(xml) == [1, 2, 3, 4, 2, 3, 5])
    }

    @Test func repeatsAreNotTakenAfterADaCapo() throws {
        let dc = "<direction><direction-type><words>D.C.</words></direction-type><sound dacapo=\"yes\"/></direction>"
        let xml = Score.partwise([
            Self.whole(0),
            Self.ending("1", stop: "stop") + Self.whole(1),
            Self.ending("2", stop: "discontinue") + Self.whole(2) + dc,
        ])
        #expect(try Self.measures(xml) == [1, 2, 1, 3, 1, 3])
    }

    @Test func pickupIsBarZeroAndBeatsCountToTheEnd() throws {
        let xml = Score.partwise([Score.note("G4", 1), Self.whole(0), Self.whole(1)], numbers: ["0", "1", "2"])
        let lesson = try Read.lesson(xml)
        #expect(lesson.bars.hasPickup)
        #expect(lesson.bars.bars.map(\.printed) == [0, 1, 2])
        #expect(lesson.bars.bars.map(\.number) == [0, 1, 2])
        #expect(lesson.bars.bars[0].lengthTicks == 480)
        #expect(lesson.bars.position(atTick: 0) == Position(bar: 0, beat: 4))
        #expect(lesson.bars.bars[1].startTick == 480)
    }

    @Test func implicitFirstMeasureIsThePickupWhateverItsNumber() throws {
        var xml = Score.partwise([Score.note("G4", 1), Self.whole(0)], numbers: ["1", "1"])
        xml = xml.replacingOccurrences(of: "<measure number=\"1\"><attributes>", with: "<measure number=\"1\" implicit=\"yes\"><attributes>")
        #expect(try Read.lesson(xml).bars.bars.map(\.printed) == [0, 1])
    }

    @Test func aBarSplitAtARepeatIsOneBar() throws {
        // Bar 4 is written as 3 beats before the repeat sign and 1 beat (implicit) after it.
        var xml = Score.partwise([
            Self.forward + Self.whole(0), Self.whole(1), Self.whole(2),
            Score.note("F4", 3) + Self.backward,
            Score.note("G4", 1),
            Self.whole(5),
        ], numbers: ["1", "2", "3", "4", "X1", "5"])
        xml = xml.replacingOccurrences(of: "<measure number=\"X1\">", with: "<measure number=\"X1\" implicit=\"yes\">")
        let lesson = try Read.lesson(xml)
        #expect(lesson.bars.bars.map(\.printed) == [1, 2, 3, 4, 1, 2, 3, 4, 5])
        let second4 = lesson.bars.bars[7]
        #expect(second4.pass == 2)
        #expect(second4.lengthTicks == 4 * 480)
        #expect(lesson.bars.bars[3].lengthTicks == 3 * 480)
    }

    /// Fuzzing found a score whose only endings were numbered 18 and 2 with no repeat before
    /// them: no pass reaches either, so nothing was played and the lesson had no bar lines.
    @Test func endingsNoPassReachesArePlayedAsWrittenWithAWarning() throws {
        let xml = Score.partwise([
            Self.ending("18", stop: "stop") + Self.whole(0),
            Self.ending("2", stop: "discontinue") + Self.whole(1),
        ])
        let r = try Read.file(xml)
        #expect(try Self.measures(xml) == [1, 2])
        #expect(Lesson(file: r.file).bars.bars.map(\.printed) == [1, 2])
        #expect(r.warnings.contains { $0.message.contains("played as written") })
        // A lone second ending after playable bars is still skipped as before.
        #expect(try Self.measures(Score.partwise([Self.whole(0), Self.ending("2", stop: "discontinue") + Self.whole(1)])) == [1])
        // The fuzzer's own input: bar lines and notes now.
        let found = try [UInt8](Data(contentsOf: Repo.root.appendingPathComponent("Fuzz/musicxml-seeds/regression-endings-play-nothing.musicxml")))
        let file = try MusicXMLImport.midiFile(fromXML: found).file
        #expect(!Annotations(file: file).bars.isEmpty)
        #expect(!Lesson(file: file).notes.isEmpty)
    }

    @Test func nonNumericNumbersCountOnWithAWarning() throws {
        let xml = Score.partwise([Self.whole(0), Self.whole(1), Self.whole(2)], numbers: ["1", "A", "3"])
        let r = try Read.file(xml)
        #expect(Lesson(file: r.file).bars.bars.map(\.printed) == [1, 2, 3])
        #expect(r.warnings.contains { $0.message.contains("\"A\"") })
    }

    @Test func multiMeasureRestExpandsWhenItsBarsAreLeftOut() throws {
        let rest = "<attributes><measure-style><multiple-rest>4</multiple-rest></measure-style></attributes><note><rest measure=\"yes\"/><duration>4</duration></note>"
        let xml = Score.partwise([Self.whole(0), rest, Self.whole(1)], numbers: ["1", "2", "6"])
        let lesson = try Read.lesson(xml)
        #expect(lesson.bars.bars.map(\.printed) == [1, 2, 3, 4, 5, 6])
        #expect(try Read.onsets(xml) == [0, 20])
    }

    @Test func multiMeasureRestWithItsBarsWrittenIsReadAsWritten() throws {
        let style = "<attributes><measure-style><multiple-rest>2</multiple-rest></measure-style></attributes>"
        let rest = "<note><rest measure=\"yes\"/><duration>4</duration></note>"
        let xml = Score.partwise([Self.whole(0), style + rest, rest, Self.whole(1)])
        #expect(try Read.lesson(xml).bars.bars.map(\.printed) == [1, 2, 3, 4])
        #expect(try Read.onsets(xml) == [0, 12])
    }

    @Test func timeSignatureChangesMakeBarsOfTheirLength() throws {
        let xml = Score.partwise([Self.whole(0), "<attributes><time><beats>3</beats><beat-type>4</beat-type></time></attributes>" + Score.note("D4", 3), Score.note("E4", 3)])
        let lesson = try Read.lesson(xml)
        #expect(lesson.bars.bars.map(\.lengthTicks) == [1920, 1440, 1440])
        #expect(lesson.bars.bars[1].signature.numerator == 3)
        #expect(lesson.timeSignatures.map(\.tick) == [0, 1920])
    }

    @Test func hugeRepeatCountsAreBounded() throws {
        var limits = MusicXMLLimits()
        limits.maxPerformedBars = 50
        let many = "<barline location=\"right\"><repeat direction=\"backward\" times=\"64\"/></barline>"
        let xml = Score.partwise([Self.whole(0) + many, Self.whole(1) + many])
        #expect(throws: MusicXMLError.self) { try MusicXMLImport.midiFile(fromXML: Array(xml.utf8), limits: limits) }
        // Within bounds it plays them all.
        #expect(try Self.measures(xml).count == 128)
    }
}
