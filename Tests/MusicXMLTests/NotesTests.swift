import Foundation
import Testing
import MIDIFile
import Lesson
@testable import MusicXML

/// The music of a measure: durations, chords, voices, ties, tuplets, grace notes, staves.
@Suite struct NotesTests {
    @Test func quarterNotesInOneBar() throws {
        let xml = Score.partwise([Score.bar("C4", "D4", "E4", "F4")])
        let notes = try Read.notes(xml)
        #expect(notes.map(\.pitch) == [60, 62, 64, 65])
        #expect(notes.map(\.onset) == [0, 1, 2, 3])
        let f = try Read.file(xml).file
        #expect(f.format == 1)
        #expect(f.ticksPerQuarter == 480)
        #expect(f.tracks.count == 2)
        #expect(f.tracks[1].name == "Piano")
    }

    @Test func divisionsScaleDurationsAndChangeMidPiece() throws {
        // divisions 4: a dotted eighth (3) and a sixteenth (1); then divisions change to 2.
        let xml = Score.partwise([
            Score.note("C4", 3) + Score.note("D4", 1) + Score.note("E4", 8) + Score.note("F4", 4),
            "<attributes><divisions>2</divisions></attributes>" + Score.note("G4", 2) + Score.note("A4", 6),
        ], divisions: 4)
        #expect(try Read.onsets(xml) == [0, 0.75, 1, 3, 4, 5])
    }

    @Test func chordsStartTogetherAndDoNotAdvance() throws {
        let xml = Score.partwise([Score.note("C4", 2) + Score.note("E4", 2, chord: true) + Score.note("G4", 2, chord: true) + Score.note("D4", 2)])
        let notes = try Read.notes(xml)
        #expect(notes.map(\.pitch) == [60, 64, 67, 62])
        #expect(notes.map(\.onset) == [0, 0, 0, 2])
    }

    @Test func backupAndForwardPlaceVoices() throws {
        // Voice 1: half notes; backup; voice 2: a quarter rest by <forward>, then quarters.
        let m = Score.note("E5", 2, voice: 1) + Score.note("D5", 2, voice: 1) + Score.backup(4)
            + Score.forward(1) + Score.note("C4", 1, voice: 2) + Score.note("B3", 1, voice: 2) + Score.note("A3", 1, voice: 2)
        let notes = try Read.notes(Score.partwise([m]))
        #expect(notes.map(\.onset) == [0, 1, 2, 2, 3])
        #expect(notes.map(\.pitch) == [76, 60, 59, 74, 57])
    }

    @Test func tiesMergeAcrossTheBarLine() throws {
        let start = "<tie type=\"start\"/>", stop = "<tie type=\"stop\"/>"
        let xml = Score.partwise([
            Score.note("C4", 3) + Score.note("G4", 1, extra: start),
            Score.note("G4", 2, extra: stop + start) + Score.note("G4", 2, extra: stop),
        ])
        let f = try Read.file(xml).file
        let notes = NotePairing.notes(in: f).notes.sorted { $0.startTick < $1.startTick }
        #expect(notes.count == 2)
        #expect(notes[1].pitch == 67)
        #expect(notes[1].startTick == 3 * 480)
        #expect(notes[1].endTick == 8 * 480)
    }

    @Test func tiedNotationsAloneAlsoMerge() throws {
        let xml = Score.partwise([Score.note("E4", 2, notations: "<tied type=\"start\"/>") + Score.note("E4", 2, notations: "<tied type=\"stop\"/>")])
        let notes = NotePairing.notes(in: try Read.file(xml).file).notes
        #expect(notes.count == 1)
        #expect(notes[0].endTick - notes[0].startTick == 4 * 480)
    }

    @Test func tupletsAndDotsFromDurations() throws {
        // divisions 6: eighth triplet = 2 each, dotted quarter = 9, eighth = 3.
        let triplet = "<time-modification><actual-notes>3</actual-notes><normal-notes>2</normal-notes></time-modification>"
        let m = Score.note("C4", 2, extra: triplet) + Score.note("D4", 2, extra: triplet) + Score.note("E4", 2, extra: triplet)
            + Score.note("F4", 9, extra: "<dot/>") + Score.note("G4", 3) + Score.note("A4", 6)
        let thirds = try Read.onsets(Score.partwise([m], divisions: 6)).map { Int(($0 * 6).rounded()) }
        #expect(thirds == [0, 2, 4, 6, 15, 18])
        // Exact ticks: 480 is a multiple of 6.
        let f = try Read.file(Score.partwise([m], divisions: 6)).file
        #expect(NotePairing.notes(in: f).notes.map(\.startTick).sorted() == [0, 160, 320, 480, 1200, 1440])
    }

    @Test func durationFromTypeWhenMissing() throws {
        let m = "<note><pitch><step>C</step><octave>4</octave></pitch><type>half</type><dot/></note>"
            + "<note><pitch><step>D</step><octave>4</octave></pitch><type>quarter</type></note>"
        #expect(try Read.onsets(Score.partwise([m])) == [0, 3])
    }

    @Test func graceNotesArePlayedShortBeforeOrOnTheBeatAsWritten() throws {
        // Bar 2: an acciaccatura (slashed) before D4, an appoggiatura (unslashed) before F4.
        let slash = "<note><grace slash=\"yes\"/><pitch><step>C</step><octave>4</octave></pitch><type>eighth</type></note>"
        let onBeat = "<note><grace/><pitch><step>G</step><octave>4</octave></pitch><type>16th</type></note>"
        let xml = Score.partwise([Score.bar("C4", "D4", "E4", "F4"),
                                  slash + Score.note("D4", 1) + Score.note("E4", 1) + onBeat + Score.note("F4", 1, type: "quarter") + Score.note("G4", 1)])
        let r = try Read.file(xml)
        #expect(!r.warnings.contains { $0.message.contains("grace") })
        let notes = try Read.notes(xml)
        // Nothing left out: ten notes, each grace a 32nd (1/8 quarter).
        #expect(notes.map(\.pitch) == [60, 62, 64, 65, 60, 62, 64, 67, 65, 67])
        #expect(notes.map(\.onset) == [0, 1, 2, 3, 3.875, 4, 5, 6, 6.125, 7])
        let lesson = try Read.lesson(xml)
        #expect(lesson.notes.filter { lesson.isGrace($0) }.map(\.pitch) == [60, 67])
        #expect(lesson.annotations.graces.values.sorted { !$0 && $1 } == [false, true])
        // The main note after an appoggiatura is written a quarter from the beat: the head it
        // sounds as lasts the rest of it.
        let f4 = try #require(lesson.notes.first { $0.pitch == 65 && $0.startTick > 2000 })
        let v = try #require(lesson.annotations.values[Annotations.Key(track: f4.track, tick: f4.startTick, pitch: 65)])
        #expect(v.value == 2 && v.ticks == 480 - 60)
        #expect(Read.texts(r.file, track: 1).contains("etude:grace=60:slash") && Read.texts(r.file, track: 1).contains("etude:grace=67:on"))
    }

    @Test func ornamentsArePlayedOutTheNoteOnTheBeatJudged() throws {
        // K: 2 sharps. A trill on E4 (with F#4), a mordent on A4 (G4), a turn on B4 (C#5, A4).
        let orn = { (o: String) in "<ornaments><\(o)/></ornaments>" }
        let xml = Score.partwise([Score.note("E4", 1, notations: orn("trill-mark"), type: "quarter") + Score.note("A4", 1, notations: orn("mordent"), type: "quarter")
                                  + Score.note("B4", 1, notations: orn("turn"), type: "quarter") + Score.note("D5", 1, type: "quarter")],
                                 extraAttributes: "<key><fifths>2</fifths></key>")
        let r = try Read.file(xml)
        #expect(!r.warnings.contains { $0.message.contains("trill") || $0.message.contains("mordent") || $0.message.contains("turn") })
        let lesson = try Read.lesson(xml)
        let judged = lesson.notes.filter { !lesson.isAccepted($0) }
        #expect(judged.map(\.pitch) == [64, 69, 71, 74])
        #expect(judged.map(\.startTick) == [0, 480, 960, 1440])
        #expect(lesson.notes.filter { $0.startTick < 480 }.map(\.pitch) == [64, 66, 64, 66, 64, 66, 64])
        #expect(lesson.notes.filter { $0.startTick >= 480 && $0.startTick < 960 }.map(\.pitch) == [69, 67, 69])
        #expect(lesson.notes.filter { $0.startTick >= 960 && $0.startTick < 1440 }.map(\.pitch) == [71, 73, 71, 69, 71])
        #expect(lesson.annotations.ornaments.count == 3 && lesson.annotations.ornaments.values.allSatisfy { $0.ticks == 480 })
    }

    @Test func tremolosAndShakesArePlayedTheWrittenNotesJudged() throws {
        let orn = { (o: String) in "<ornaments>\(o)</ornaments>" }
        let half = "<time-modification><actual-notes>2</actual-notes><normal-notes>1</normal-notes></time-modification>"
        // A quarter C4 in sixteenths (two strokes), a shake on E4, then C4 ⇄ G4 over a half
        // (two half notes, each sounding a quarter, two strokes).
        let xml = Score.partwise([Score.note("C4", 1, notations: orn("<tremolo type=\"single\">2</tremolo>"), type: "quarter")
                                  + Score.note("E4", 1, notations: orn("<shake/>"), type: "quarter")
                                  + Score.note("C4", 1, extra: half, notations: orn("<tremolo type=\"start\">2</tremolo>"), type: "half")
                                  + Score.note("G4", 1, extra: half, notations: orn("<tremolo type=\"stop\">2</tremolo>"), type: "half")])
        let r = try Read.file(xml)
        #expect(!r.warnings.contains { $0.message.contains("tremolo") || $0.message.contains("shake") }, "\(r.warnings)")
        let lesson = try Read.lesson(xml)
        let judged = lesson.notes.filter { !lesson.isAccepted($0) }
        #expect(judged.map(\.pitch) == [60, 64, 60, 67])
        #expect(judged.map(\.startTick) == [0, 480, 960, 1440])
        #expect(lesson.notes.filter { $0.startTick < 480 }.map(\.startTick) == [0, 120, 240, 360])
        #expect(lesson.notes.filter { $0.startTick < 480 }.allSatisfy { $0.pitch == 60 })
        #expect(lesson.notes.filter { $0.startTick >= 480 && $0.startTick < 960 }.map(\.pitch) == [64, 65, 64, 65, 64, 65, 64])
        #expect(lesson.notes.filter { $0.startTick >= 960 && $0.startTick < 1440 }.map(\.pitch) == [60, 67, 60, 67])
        #expect(lesson.notes.filter { $0.startTick >= 1440 }.map(\.pitch) == [67, 60, 67, 60])
        #expect(lesson.annotations.ornaments.values.map(\.ornament.rawValue).sorted() == ["alternate16", "alternate16", "shake", "tremolo16"])
    }

    @Test func anArpeggiatedChordIsRolledUpwardsAndWrittenAsOneChord() throws {
        let arp = "<arpeggiate/>"
        let xml = Score.partwise([Score.note("C4", 2, notations: arp, type: "half") + Score.note("E4", 2, chord: true, notations: arp, type: "half")
                                  + Score.note("G4", 2, chord: true, notations: arp, type: "half") + Score.note("C5", 2, type: "half")])
        #expect(!(try Read.file(xml)).warnings.contains { $0.message.contains("arpeggio") })
        #expect(try Read.onsets(xml) == [0, 0.0625, 0.125, 2])
        let lesson = try Read.lesson(xml)
        #expect(lesson.annotations.rolls.values.sorted() == [30, 60])
        // Each rolled head is written as long as the chord's half note, less its delay.
        let g4 = try #require(lesson.notes.first { $0.pitch == 67 })
        #expect(lesson.annotations.values[Annotations.Key(track: g4.track, tick: g4.startTick, pitch: 67)]?.ticks == 960 - 60)
    }

    @Test func anAcciaccaturaAtTheVeryStartIsStruckWithItsNote() throws {
        let grace = "<note><grace slash=\"yes\"/><pitch><step>B</step><octave>3</octave></pitch><type>eighth</type></note>"
        let xml = Score.partwise([grace + Score.bar("C4", "D4", "E4", "F4")])
        #expect(try Read.pitches(xml) == [59, 60, 62, 64, 65])
        #expect(try Read.onsets(xml) == [0, 0, 1, 2, 3])
    }

    @Test func gracesWithNoNoteAfterThemInTheirVoiceEndItsLastNote() throws {
        // A trill's two-note ending written as graces after the last note of voice 1.
        let g = { (step: String) in "<note><grace slash=\"yes\"/><pitch><step>\(step)</step><octave>4</octave></pitch><type>16th</type></note>" }
        let xml = Score.partwise([Score.note("E4", 4) + g("D") + g("E") + Score.backup(4) + Score.note("C3", 4, voice: 2),
                                  Score.note("C4", 4)])
        let notes = try Read.notes(xml)
        #expect(notes.map(\.pitch).sorted() == [48, 60, 62, 64, 64])
        #expect(notes.first { $0.pitch == 62 }?.onset == 3.75)
    }

    @Test func restsTakeTime() throws {
        let xml = Score.partwise([Score.rest(1) + Score.note("C4", 1) + Score.rest(1) + Score.note("D4", 1)])
        #expect(try Read.onsets(xml) == [1, 3])
    }

    @Test func cueNotesAreNotPlayed() throws {
        let cue = "<note><cue/><pitch><step>A</step><octave>5</octave></pitch><duration>2</duration></note>"
        let xml = Score.partwise([cue + Score.note("C4", 2)])
        #expect(try Read.notes(xml).map(\.pitch) == [60])
        #expect(try Read.onsets(xml) == [2])
    }

    @Test func twoStavesMakeTwoTracksTaggedRightAndLeft() throws {
        let m = Score.note("E5", 4, staff: 1) + Score.backup(4) + Score.note("C3", 4, staff: 2)
        let xml = Score.partwise([m], staves: 2, extraAttributes: "<clef number=\"1\"><sign>G</sign><line>2</line></clef><clef number=\"2\"><sign>F</sign><line>4</line></clef>")
        let f = try Read.file(xml).file
        #expect(f.tracks.count == 3)
        let a = Annotations(file: f)
        #expect(a.hands == [1: .right, 2: .left])
        #expect(a.clefs[1]?.map(\.clef) == [.treble])
        #expect(a.clefs[2]?.map(\.clef) == [.bass])
        let lesson = Lesson(file: f)
        #expect(lesson.notes.first { $0.pitch == 76 }?.part == .hand(.right))
        #expect(lesson.notes.first { $0.pitch == 48 }?.part == .hand(.left))
    }

    @Test func aNoteOnStaffTwoGoesToTheLeftHandWhateverItsVoice() throws {
        // A high note printed on staff 2 in voice 1 (cross-staff): still the left hand.
        let m = Score.note("C5", 2, staff: 1, voice: 1) + Score.note("G4", 2, staff: 2, voice: 1) + Score.backup(4) + Score.note("C3", 4, staff: 2, voice: 5)
        let lesson = try Read.lesson(Score.partwise([m], staves: 2))
        #expect(lesson.notes.first { $0.pitch == 67 }?.part == .hand(.left))
        #expect(lesson.notes.first { $0.pitch == 72 }?.part == .hand(.right))
        #expect(lesson.handAssignment.method == .staves)
    }

    @Test func staccatoHalvesTheSoundingLength() throws {
        let m = Score.note("C4", 2, notations: "<articulations><staccato/></articulations>") + Score.note("D4", 2, notations: "<articulations><staccatissimo/></articulations>")
        let notes = NotePairing.notes(in: try Read.file(Score.partwise([m])).file).notes.sorted { $0.startTick < $1.startTick }
        #expect(notes.map { $0.endTick - $0.startTick } == [480, 240])
        #expect(notes.map(\.startTick) == [0, 960])
    }

    @Test func unpitchedPartsAreLeftOutWithANote() throws {
        let parts = "<score-part id=\"P1\"><part-name>Piano</part-name></score-part><score-part id=\"P2\"><part-name>Drums</part-name></score-part>"
        var xml = Score.partwise([Score.bar("C4", "D4", "E4", "F4")], parts: parts)
        let drums = "<part id=\"P2\"><measure number=\"1\"><attributes><divisions>1</divisions><clef><sign>percussion</sign></clef></attributes>"
            + "<note><unpitched><display-step>C</display-step><display-octave>5</display-octave></unpitched><duration>4</duration></note></measure></part>"
        xml = xml.replacingOccurrences(of: "</score-partwise>", with: drums + "</score-partwise>")
        let r = try Read.file(xml)
        #expect(r.file.tracks.count == 2)
        #expect(r.warnings.contains { $0.message.contains("\"Drums\" is a percussion part") })
    }

    @Test func unisonOfTwoVoicesSoundsOnce() throws {
        let m = Score.note("C4", 4, voice: 1) + Score.backup(4) + Score.note("C4", 2, voice: 2) + Score.note("C4", 2, voice: 2)
        let notes = NotePairing.notes(in: try Read.file(Score.partwise([m])).file)
        #expect(notes.notes.map(\.startTick) == [0, 960])
        #expect(notes.warnings.isEmpty)
    }
}
