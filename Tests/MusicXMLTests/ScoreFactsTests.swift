import Foundation
import Testing
import MIDIFile
import Lesson
@testable import MusicXML

/// What the score says beyond the notes: title, parts, fingering, spelling, signatures, clefs,
/// transposition, tempo, dynamics, pedal, sections.
@Suite struct ScoreFactsTests {
    @Test func tagNamesMatchTheirCases() {
        #expect(Tag.names.count == Tag.allCases.count)
        #expect(Tag.scorePartwise.name == "score-partwise")
        #expect(Tag.percussion.name == "percussion")
        #expect(Tag.voice.name == "voice")
        #expect(Tag.beatUnitDot.name == "beat-unit-dot")
    }

    @Test func titleComposerAndPartNames() throws {
        let header = "<work><work-title>Sonatina</work-title></work><movement-title>Allegro</movement-title><identification><creator type=\"composer\">M. Clementi</creator></identification>"
        let xml = Score.partwise([Score.bar("C4", "D4", "E4", "F4")], parts: "<score-part id=\"P1\"><part-name>Klavier</part-name></score-part>", header: header)
        let f = try Read.file(xml).file
        let tags = LessonTags(file: f)
        #expect(tags.title == "Sonatina: Allegro")
        #expect(tags.composer == "M. Clementi")
        #expect(f.tracks[1].name == "Klavier")
        let lesson = Lesson(file: f, fileName: "x.musicxml")
        #expect(lesson.title == "Sonatina: Allegro")
        #expect(lesson.composer == "M. Clementi")
    }

    /// A score titled only on its first page (`<credit>`, as MuseScore and many editors write
    /// it) is titled so, not by its file name (issue 39: `maple_leaf_rag`).
    @Test func aTitlePrintedOnlyInCreditsTitlesTheLesson() throws {
        func title(_ header: String) throws -> String {
            let xml = Score.partwise([Score.bar("C4", "D4", "E4", "F4")], header: header)
            return Lesson(file: try Read.file(xml).file, fileName: "maple_leaf_rag.musicxml").title
        }
        let credits = """
            <credit page="1"><credit-words font-size="10" justify="right">Scott Joplin</credit-words></credit>
            <credit page="1"><credit-words font-size="24" justify="center">Maple Leaf
            Rag</credit-words></credit>
            <credit page="1"><credit-type>rights</credit-type><credit-words font-size="30">© 1899</credit-words></credit>
            <credit page="2"><credit-words font-size="40">Page two</credit-words></credit>
            """
        #expect(try title(credits) == "Maple Leaf Rag")
        // A credit typed "title" wins over a larger one.
        #expect(try title(credits + "<credit page=\"1\"><credit-type>title</credit-type><credit-words font-size=\"12\">The Rag</credit-words></credit>") == "The Rag")
        // A work title wins over every credit; no title at all is the file name.
        #expect(try title("<work><work-title>Rag</work-title></work>" + credits) == "Rag")
        #expect(try title("") == "maple_leaf_rag")
    }

    @Test func etudeCatalogueFieldsFileTheScoreUnderItsLevel() throws {
        let fields = "<miscellaneous><miscellaneous-field name=\"etude-level\">3</miscellaneous-field>"
            + "<miscellaneous-field name=\"etude-description\">  A study\u{9B}2J in C. </miscellaneous-field>"
            + "<miscellaneous-field name=\"other\">x</miscellaneous-field></miscellaneous>"
        let header = "<work><work-title>Study</work-title></work><identification>\(fields)</identification>"
        let tags = LessonTags(file: try Read.file(Score.partwise([Score.bar("C4", "D4", "E4", "F4")], header: header)).file)
        #expect(tags.level == 3)
        #expect(tags.description?.contains("\u{9B}") == false, "no control byte from the file: \(tags.description ?? "")")
        #expect(tags.description?.hasPrefix("A study") == true)
        // A level that is no whole number in range is left out, not guessed.
        let bad = header.replacingOccurrences(of: ">3<", with: ">three<")
        #expect(LessonTags(file: try Read.file(Score.partwise([Score.bar("C4", "D4", "E4", "F4")], header: bad)).file).level == nil)
    }

    @Test func fingeringReachesTheLesson() throws {
        let m = Score.note("C4", 1, notations: "<technical><fingering>1</fingering></technical>")
            + Score.note("E4", 1, notations: "<technical><fingering>3</fingering></technical>")
            + Score.note("G4", 1, notations: "<technical><fingering alternate=\"yes\">4</fingering><fingering>5</fingering></technical>")
            + Score.note("C5", 1)
        let lesson = try Read.lesson(Score.partwise([m]))
        #expect(lesson.notes.map { lesson.finger(of: $0) } == [1, 3, 5, nil])
    }

    @Test func spellingIsTheWrittenOne() throws {
        let m = Score.note("Db4", 1) + Score.note("C#4", 1) + Score.note("E#4", 1) + Score.note("Cbb5", 1)
        let lesson = try Read.lesson(Score.partwise([m]))
        #expect(lesson.notes.map(\.pitch) == [61, 61, 65, 70])
        #expect(lesson.notes.map { lesson.spelling(of: $0)?.name } == ["Db", "C#", "E#", "Cbb"])
    }

    @Test func transposingPartSoundsAtConcertPitchSpelledForIt() throws {
        // B-flat clarinet: written D5 sounds C5; written F#4 sounds E4.
        let transpose = "<transpose><diatonic>-1</diatonic><chromatic>-2</chromatic></transpose>"
        let xml = Score.partwise([Score.note("D5", 2) + Score.note("F#4", 2)], extraAttributes: transpose)
        let lesson = try Read.lesson(xml)
        #expect(lesson.notes.map(\.pitch) == [72, 64])
        let byPitch = Dictionary(uniqueKeysWithValues: lesson.notes.map { (Int($0.pitch), lesson.spelling(of: $0)?.name) })
        #expect(byPitch[72] == "C")
        #expect(byPitch[64] == "E")
    }

    @Test func octaveTransposingPartKeepsItsSpelling() throws {
        let transpose = "<transpose><diatonic>0</diatonic><chromatic>0</chromatic><octave-change>-1</octave-change></transpose>"
        let lesson = try Read.lesson(Score.partwise([Score.note("Bb4", 4)], extraAttributes: transpose))
        #expect(lesson.notes.map(\.pitch) == [58])
        #expect(lesson.spelling(of: lesson.notes[0])?.name == "Bb")
    }

    @Test func keyAndTimeSignaturesAndTheirChanges() throws {
        let xml = Score.partwise([
            Score.bar("C4", "D4", "E4", "F4"),
            "<attributes><key><fifths>-3</fifths><mode>minor</mode></key><time><beats>6</beats><beat-type>8</beat-type></time></attributes>" + Score.note("C4", 3),
        ])
        let lesson = try Read.lesson(xml)
        #expect(lesson.keySignatures.map(\.value) == [KeySignature(sharps: 0, minor: false), KeySignature(sharps: -3, minor: true)])
        #expect(lesson.keySignatures.map(\.tick) == [0, 1920])
        #expect(lesson.timeSignatures.last?.value.numerator == 6)
        #expect(lesson.timeSignatures.last?.value.denominator == 8)
        #expect(lesson.bars.bars[1].beatTicks == 720)
    }

    /// Chopin's Op. 10 No. 4 writes four sharps and `<mode>minor</mode>`: C♯ minor, not E major.
    /// A key without `<mode>` keeps an earlier one's, else the music's bass note decides.
    @Test func aKeysModeComesFromTheScoreOrElseFromTheMusic() throws {
        func key(_ fifths: Int, mode: String?, _ measures: [String]) throws -> [String] {
            let attributes = "<attributes><key><fifths>\(fifths)</fifths>\(mode.map { "<mode>\($0)</mode>" } ?? "")</key></attributes>"
            let xml = Score.partwise([attributes + measures[0]] + measures.dropFirst())
            return try Read.lesson(xml).keySignatures.map(\.value.name)
        }
        #expect(try key(4, mode: "minor", [Score.bar("C#4", "E4", "G#4", "E4")]).last == "C# minor")
        #expect(try key(4, mode: " minor ", [Score.bar("E4", "G#4", "B4", "E4")]).last == "C# minor")
        #expect(try key(4, mode: nil, [Score.bar("C#3", "E4", "G#4", "E4"), Score.bar("G#3", "B3", "D#4", "C#3")]).last == "C# minor")
        #expect(try key(4, mode: nil, [Score.bar("E3", "G#4", "B4", "E4"), Score.bar("B3", "D#4", "F#4", "E3")]).last == "E major")
        #expect(try key(4, mode: "major", [Score.bar("C#3", "E4", "G#4", "C#3")]).last == "E major")
        // Restated without a mode, a key keeps the mode it had.
        let again = "<attributes><key><fifths>4</fifths></key></attributes>"
        let restated = try key(4, mode: "minor", [Score.bar("E3", "G#4", "B4", "E4"), again + Score.bar("E3", "G#4", "B4", "E3")])
        #expect(restated.last == "C# minor" && !restated.contains("E major"), "\(restated)")
    }

    @Test func clefChangesAreAnnotatedWhereTheyHappen() throws {
        let xml = Score.partwise([
            Score.bar("C4", "D4", "E4", "F4"),
            Score.note("C3", 2) + "<attributes><clef><sign>F</sign><line>4</line></clef></attributes>" + Score.note("D3", 2),
        ], extraAttributes: "<clef><sign>G</sign><line>2</line></clef>")
        let a = Annotations(file: try Read.file(xml).file)
        #expect(a.clefs[1]?.map(\.clef) == [.treble, .bass])
        #expect(a.clefs[1]?.map(\.tick) == [0, 1920 + 960])
    }

    @Test func tempoFromSoundAndFromMetronomeMarks() throws {
        let sound = "<direction><direction-type><words>Allegro</words></direction-type><sound tempo=\"132\"/></direction>"
        let metronome = "<direction><direction-type><metronome><beat-unit>quarter</beat-unit><beat-unit-dot/><per-minute>60</per-minute></metronome></direction-type></direction>"
        let xml = Score.partwise([sound + Score.bar("C4", "D4", "E4", "F4"), metronome + Score.note("G4", 4)])
        let lesson = try Read.lesson(xml)
        #expect(abs(lesson.tempoMap.bpm(atTick: 0) - 132) < 0.01)
        #expect(abs(lesson.tempoMap.bpm(atTick: 1920) - 90) < 0.01)
    }

    @Test func noTempoMeans120() throws {
        #expect(abs(try Read.lesson(Score.partwise([Score.bar("C4", "D4", "E4", "F4")])).tempoMap.bpm(atTick: 0) - 120) < 0.01)
    }

    @Test func dynamicsSetVelocities() throws {
        let p = "<direction><direction-type><dynamics><p/></dynamics></direction-type></direction>"
        let f = "<direction><direction-type><dynamics><f/></dynamics></direction-type><sound dynamics=\"106.67\"/></direction>"
        let xml = Score.partwise([Score.note("C4", 1) + p + Score.note("D4", 1) + f + Score.note("E4", 1) + "<note dynamics=\"50\"><pitch><step>F</step><octave>4</octave></pitch><duration>1</duration></note>"])
        let lesson = try Read.lesson(xml)
        #expect(lesson.notes.map(\.velocity) == [80, 49, 96, 45])
    }

    @Test func dynamicsApplyToBothStavesFromWhereTheyStand() throws {
        // The mark is written under staff 2, after staff 1's notes in the document.
        let m = Score.note("C5", 2, staff: 1) + Score.note("D5", 2, staff: 1) + Score.backup(4)
            + "<direction><direction-type><dynamics><pp/></dynamics></direction-type><staff>2</staff></direction>" + Score.note("C3", 4, staff: 2)
        let lesson = try Read.lesson(Score.partwise([m], staves: 2))
        #expect(lesson.notes.map(\.velocity) == [36, 36, 36])
    }

    @Test func pedalMarksBecomeSustain() throws {
        let down = "<direction><direction-type><pedal type=\"start\"/></direction-type></direction>"
        let up = "<direction><direction-type><pedal type=\"stop\"/></direction-type></direction>"
        let xml = Score.partwise([down + Score.note("C4", 2) + up + Score.note("D4", 2)])
        let lesson = try Read.lesson(xml)
        let cc = lesson.channelEvents.compactMap { e -> (Int, UInt8)? in
            if case .controlChange(_, 64, let v) = e.kind { return (e.tick, v) }
            return nil
        }
        #expect(cc.map(\.0) == [0, 960])
        #expect(cc.map(\.1) == [127, 0])
    }

    @Test func programFromMidiInstrumentElsePiano() throws {
        let parts = "<score-part id=\"P1\"><part-name>Strings</part-name><midi-instrument id=\"I1\"><midi-channel>1</midi-channel><midi-program>49</midi-program></midi-instrument></score-part>"
        let f = try Read.file(Score.partwise([Score.bar("C4", "D4", "E4", "F4")], parts: parts)).file
        #expect(f.tracks[1].events.contains { $0.kind == .programChange(channel: 0, program: 48) })
        let piano = try Read.file(Score.partwise([Score.bar("C4", "D4", "E4", "F4")])).file
        #expect(piano.tracks[1].events.contains { $0.kind == .programChange(channel: 0, program: 0) })
    }

    @Test func rehearsalMarksAndSectionWordsBecomeSections() throws {
        let a = "<direction><direction-type><rehearsal>A</rehearsal></direction-type></direction>"
        let trio = "<direction><direction-type><words>Trio</words></direction-type></direction>"
        let allegro = "<direction><direction-type><words>Allegro</words></direction-type></direction>"
        let xml = Score.partwise([a + Score.note("C4", 4), Score.note("D4", 4), trio + allegro + Score.note("E4", 4), Score.note("F4", 4)])
        let lesson = try Read.lesson(xml)
        #expect(lesson.markers.map(\.value) == ["A", "Trio"])
        #expect(lesson.sections.map(\.name) == ["A", "Trio"])
        #expect(lesson.sections.map(\.firstBar) == [1, 3])
    }

    @Test func notPlayedElementsAreNamedOnceAndStrictRefuses() throws {
        // (Trills, mordents, turns, arpeggios, shakes and tremolos are played now; delayed turns are not.)
        let m = Score.note("C4", 2, notations: "<ornaments><delayed-turn/></ornaments>") + Score.note("D4", 2, notations: "<fermata/>")
            + "<harmony><root><root-step>C</root-step></root><kind>major</kind></harmony>" + Score.note("E4", 2, notations: "<ornaments><delayed-turn/></ornaments>")
        let xml = Score.partwise([m, Score.note("F4", 4)])
        let r = try Read.file(xml)
        let w = r.warnings.filter { $0.message.hasPrefix("not played as written") }
        #expect(w.count == 1)
        #expect(w.first?.message.contains("delayed turns (2)") == true)
        #expect(w.first?.message.contains("fermatas (1)") == true)
        #expect(w.first?.message.contains("chord symbols (1)") == true)
        #expect(throws: MusicXMLError.self) { try Read.file(xml, strict: true) }
        #expect(throws: Never.self) { try Read.file(Score.partwise([Score.bar("C4", "D4", "E4", "F4")]), strict: true) }
    }

    @Test func timewiseScoresReadAsPartwise() throws {
        let xml = """
        <?xml version="1.0"?>
        <score-timewise version="3.1">
        <part-list><score-part id="P1"><part-name>RH</part-name></score-part><score-part id="P2"><part-name>LH</part-name></score-part></part-list>
        <measure number="1">
          <part id="P1"><attributes><divisions>1</divisions><time><beats>2</beats><beat-type>4</beat-type></time></attributes>\(Score.note("E5", 1))\(Score.note("D5", 1))</part>
          <part id="P2"><attributes><divisions>1</divisions></attributes>\(Score.note("C3", 2))</part>
        </measure>
        <measure number="2">
          <part id="P1">\(Score.note("C5", 2))</part>
          <part id="P2">\(Score.note("G2", 2))</part>
        </measure>
        </score-timewise>
        """
        let notes = try Read.notes(xml)
        #expect(notes.map(\.pitch) == [48, 76, 74, 43, 72])
        #expect(notes.map(\.onset) == [0, 0, 1, 2, 2])
        #expect(try Read.lesson(xml).bars.bars.map(\.printed) == [1, 2])
    }

    @Test func olderVersionsRead() throws {
        for v in ["2.0", "3.0", "3.1", "4.0"] {
            let xml = Score.partwise([Score.bar("C4", "D4", "E4", "F4")]).replacingOccurrences(of: "version=\"4.0\"", with: "version=\"\(v)\"")
            #expect(try Read.pitches(xml) == [60, 62, 64, 65])
        }
    }

    @Test func sniffingTellsScoresFromOtherXML() {
        #expect(MusicXMLImport.isMusicXML(Array(Score.partwise([Score.note("C4")]).utf8)))
        #expect(MusicXMLImport.isMusicXML(Array("<?xml version=\"1.0\"?>\n<!-- x -->\n<score-timewise/>".utf8)))
        #expect(!MusicXMLImport.isMusicXML(Array("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)))
        #expect(!MusicXMLImport.isMusicXML(Array("MThd".utf8)))
        #expect(MusicXMLImport.rootElement(of: Array("<?xml version=\"1.0\"?><opus/>".utf8)) == "opus")
    }

    @Test func utf16ScoresRead() throws {
        let xml = Score.partwise([Score.bar("C4", "D4", "E4", "F4")]).replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"UTF-16\"")
        var bytes: [UInt8] = [0xFF, 0xFE]
        for u in xml.utf16 { bytes += [UInt8(u & 0xFF), UInt8(u >> 8)] }
        #expect(MusicXMLImport.isMusicXML(bytes))
        let f = try MusicXMLImport.midiFile(fromXML: bytes).file
        #expect(NotePairing.notes(in: f).notes.count == 4)
    }
}
