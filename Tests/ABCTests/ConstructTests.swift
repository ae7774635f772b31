import Testing
import TestSupport
@testable import ABC
import Lesson
import MIDIFile

@Suite("ABC constructs")
struct ConstructTests {
    @Test func pitchesAndOctaves() throws {
        let c = try Compiled(tune("C D E F G A B c d' C, c''"))
        #expect(c.pitches() == [60, 62, 64, 65, 67, 69, 71, 72, 86, 48, 96])
    }

    @Test func lengths() throws {
        let c = try Compiled(tune("C2 D/2 E3/2 F/ G// A3 B4 c1/4", header: "M:4/4\nL:1/8\nK:C"))
        #expect(c.lengths() == [1.0, 0.25, 0.75, 0.25, 0.125, 1.5, 2.0, 0.125])
        #expect(c.onsets() == [0, 1, 1.25, 2, 2.25, 2.375, 3.875, 5.875])
    }

    @Test func defaultUnitLengthFollowsMeter() throws {
        // No L: and M:2/4 (below 3/4) → 1/16; M:3/4 → 1/8.
        let short = try Compiled("X:1\nM:2/4\nK:C\nC D|\n")
        #expect(short.lengths() == [0.25, 0.25])
        let long = try Compiled("X:1\nM:3/4\nK:C\nC D|\n")
        #expect(long.lengths() == [0.5, 0.5])
    }

    @Test func restsAdvanceTime() throws {
        let c = try Compiled(tune("C z D x E z2 F"))
        #expect(c.onsets() == [0, 2, 4, 7])
        #expect(c.pitches() == [60, 62, 64, 65])
    }

    @Test func multiBarRest() throws {
        let c = try Compiled(tune("C4 | Z2 | D4 |"))
        #expect(c.onsets() == [0, 12])
    }

    @Test func accidentalsCarryThroughTheBarOnly() throws {
        let c = try Compiled(tune("^F F =F F | F _B B c' | B"))
        #expect(c.pitches() == [66, 66, 65, 65, 65, 70, 70, 84, 71])
    }

    /// ABC 2.1: an accidental carries to every note of its letter in the rest of the bar, in
    /// every octave (`%%propagate-accidentals pitch`, the default), in its own octave only
    /// (`octave`) or to no other note (`not`).
    @Test func accidentalsPropagateAsTheDirectiveSays() throws {
        let body = "^c c C c' | C c |"
        #expect(try Compiled(tune(body)).pitches() == [73, 73, 61, 85, 60, 72])
        #expect(try Compiled(tune(body, header: "M:4/4\nL:1/4\n%%propagate-accidentals pitch\nK:C")).pitches() == [73, 73, 61, 85, 60, 72])
        #expect(try Compiled(tune(body, header: "M:4/4\nL:1/4\n%%propagate-accidentals octave\nK:C")).pitches() == [73, 73, 60, 84, 60, 72])
        #expect(try Compiled(tune(body, header: "M:4/4\nL:1/4\n%%propagate-accidentals not\nK:C")).pitches() == [73, 72, 60, 84, 60, 72])
        // A directive in the body takes effect from there; the file header's applies to every tune.
        #expect(try Compiled(tune("^c C |\n%%propagate-accidentals octave\n^c C |")).pitches() == [73, 61, 73, 60])
        let file = "%%propagate-accidentals not\n\nX:1\nT:A\nL:1/4\nK:C\n^c c |\n\nX:2\nT:B\nL:1/4\nK:C\n_B B |\n"
        #expect(try Compiled(file, tune: 1).pitches() == [73, 72])
        #expect(try Compiled(file, tune: 2).pitches() == [70, 71])
        // Explicit naturals and key accidentals follow the same rule (K:D has F#, C#).
        #expect(try Compiled(tune("=F f F, |", header: "L:1/4\nK:D")).pitches() == [65, 77, 53])
        #expect(try Compiled(tune("=F f F, |", header: "L:1/4\n%%propagate-accidentals octave\nK:D")).pitches() == [65, 78, 54])
    }

    @Test func unknownPropagationIsAWarning() throws {
        let c = try Compiled(tune("^c C |", header: "L:1/4\n%%propagate-accidentals sideways\nK:C"))
        #expect(c.pitches() == [73, 61])
        #expect(c.warnings.map(\.message) == ["%%propagate-accidentals sideways is not not, octave or pitch; ignored (pitch, the ABC 2.1 default, stays)"])
    }

    @Test func doubleAccidentals() throws {
        let c = try Compiled(tune("^^C __B =C C"))
        #expect(c.pitches() == [62, 69, 60, 60])
    }

    @Test func keySignaturesAndModes() throws {
        #expect(try Compiled(tune("F C G", header: "L:1/4\nK:D")).pitches() == [66, 61, 67])
        #expect(try Compiled(tune("B E A D", header: "L:1/4\nK:Eb")).pitches() == [70, 63, 68, 62])
        #expect(try Compiled(tune("B F", header: "L:1/4\nK:Am")).pitches() == [71, 65])
        #expect(try Compiled(tune("B F", header: "L:1/4\nK:D dorian")).pitches() == [71, 65])
        #expect(try Compiled(tune("F B", header: "L:1/4\nK:G mixolydian")).pitches() == [65, 71])
        #expect(try Compiled(tune("F B", header: "L:1/4\nK:F lydian")).pitches() == [65, 71])
        #expect(try Compiled(tune("D G", header: "L:1/4\nK:E phrygian")).pitches() == [62, 67])
        #expect(try Compiled(tune("F C", header: "L:1/4\nK:B locrian")).pitches() == [65, 60])
        #expect(try Compiled(tune("A E F C", header: "L:1/4\nK:C#m")).pitches() == [69, 64, 66, 61])
        #expect(try Compiled(tune("F C G", header: "L:1/4\nK:F#")).pitches() == [66, 61, 68])
    }

    @Test func keySignatureMetaEvent() throws {
        let c = try Compiled(tune("C", header: "L:1/4\nK:Bbm"))
        let keys = c.file.tracks[0].events.compactMap { e -> KeySignature? in
            if case .keySignature(let k)? = e.kind.meta { return k }
            return nil
        }
        #expect(keys == [KeySignature(sharps: -5, minor: true)])
    }

    @Test func explicitAccidentalsInKey() throws {
        // Harmonic-minor style key: A minor with G sharp.
        let c = try Compiled(tune("G F c", header: "L:1/4\nK:Am ^g"))
        #expect(c.pitches() == [68, 65, 72])
        let exp = try Compiled(tune("F B C", header: "L:1/4\nK:D exp _b"))
        #expect(exp.pitches() == [65, 70, 60])
    }

    @Test func chords() throws {
        let c = try Compiled(tune("[CEG] [F2A2c2] [^CE]/2 E/2"))
        #expect(c.voice().map(\.0) == [60, 64, 67, 65, 69, 72, 61, 64, 64])
        #expect(c.voice().map(\.1) == [0, 0, 0, 1, 1, 1, 3, 3, 3.5])
        #expect(c.voice()[3].2 == 2)
        // The chord's sharp carries to the E after it? No: only C# was altered.
    }

    @Test func chordLengthMultiplier() throws {
        let c = try Compiled(tune("[CE]2 D"))
        #expect(c.onsets() == [0, 0, 2])
        #expect(c.lengths() == [2, 2, 1])
    }

    @Test func tiesJoinNotesAcrossBarLines() throws {
        let c = try Compiled(tune("C2 D2- | D2 E2 | [CE]4- | [CE]2 G2 |"))
        #expect(c.voice().map(\.0) == [60, 62, 64, 60, 64, 67])
        #expect(c.voice().map(\.2) == [2, 4, 2, 6, 6, 2])
    }

    @Test func tieCarriesAccidentalIntoNextBar() throws {
        let c = try Compiled(tune("^F4- | F2 F2 |"))
        #expect(c.voice().map(\.0) == [66, 65])
        #expect(c.voice().map(\.2) == [6, 2])
    }

    @Test func brokenRhythm() throws {
        let c = try Compiled(tune("C>D E<F G>>A B2", header: "L:1/8\nK:C"))
        #expect(c.lengths() == [0.75, 0.25, 0.25, 0.75, 0.875, 0.125, 1])
    }

    @Test func triplets() throws {
        let c = try Compiled(tune("(3CDE F (3C2D2E2", header: "L:1/8\nK:C"))
        let l = c.lengths()
        #expect(abs(l[0] - 1.0 / 3) < 0.01)
        #expect(c.onsets()[3] == 1)
        #expect(c.onsets()[4] == 1.5)
        #expect(c.onsets().last.map { abs($0 - (1.5 + 4.0 / 3)) < 0.01 } == true)
    }

    @Test func generalTuplets() throws {
        // (p:q:r — 3 notes in the time of 2, applied to the next 3 notes.
        let c = try Compiled(tune("(3:2:3 C D E F", header: "L:1/8\nK:C"))
        #expect(c.onsets().last == 1)
        // Duplet: 2 in the time of 3.
        let d = try Compiled(tune("(2CD E", header: "M:6/8\nL:1/8\nK:C"))
        #expect(d.onsets() == [0, 0.75, 1.5])
        // Quintuplet in 4/4: 5 in the time of 2.
        let q = try Compiled(tune("(5CDEFG A", header: "L:1/8\nK:C"))
        #expect(q.onsets().last == 1)
        // (3:2:2 only the next two notes are affected.
        let r = try Compiled(tune("(3:2:2C D E", header: "L:1/4\nK:C"))
        #expect(r.voice().map(\.2).map { ($0 * 1000).rounded() / 1000 } == [0.667, 0.667, 1])
    }

    @Test func repeatsExpandInPlayingOrder() throws {
        let c = try Compiled(tune("|: C D :| E F |"))
        #expect(c.pitches() == [60, 62, 60, 62, 64, 65])
        let implicit = try Compiled(tune("C D :| E F :|"))
        #expect(implicit.pitches() == [60, 62, 60, 62, 64, 65, 64, 65])
        let double = try Compiled(tune("|: C :: D :|"))
        #expect(double.pitches() == [60, 60, 62, 62])
    }

    @Test func firstAndSecondEndings() throws {
        let c = try Compiled(tune("|: C D |1 E F :|2 G A || B"))
        #expect(c.pitches() == [60, 62, 64, 65, 60, 62, 67, 69, 71])
        let brackets = try Compiled(tune("|: C D [1 E F :| [2 G A |] "))
        #expect(brackets.pitches() == [60, 62, 64, 65, 60, 62, 67, 69])
        let three = try Compiled(tune("|: C [1,2 D :| [3 E |]"))
        #expect(three.pitches() == [60, 62, 60, 62, 60, 64])
    }

    @Test func repeatsKeepTimeContinuous() throws {
        let c = try Compiled(tune("|: C2 D2 :|"))
        #expect(c.onsets() == [0, 2, 4, 6])
    }

    @Test func inlineFields() throws {
        let c = try Compiled(tune("F [K:G] F C2 | [M:3/4] [L:1/8] C2 [Q:1/4=60] D2"))
        #expect(c.pitches() == [65, 66, 60, 60, 62])
        #expect(c.lengths() == [1, 1, 2, 1, 1])
        let map = TempoMap(file: c.file)
        #expect(map.bpm(atTick: 0) == 120)
        #expect(map.bpm(atTick: 5 * 480 + 10) == 60)
        let sigs = c.file.tracks[0].events.compactMap { e -> String? in
            if case .timeSignature(let t)? = e.kind.meta { return "\(e.tick):\(t.description)" }
            return nil
        }
        #expect(sigs == ["0:4/4", "1920:3/4"])
    }

    @Test func tempoForms() throws {
        func bpm(_ q: String) throws -> Double {
            TempoMap(file: try Compiled(tune("C", header: "L:1/8\nQ:\(q)\nK:C")).file).bpm(atTick: 0)
        }
        #expect(try bpm("1/4=100") == 100)
        #expect(abs(try bpm("3/8=60") - 90) < 0.001)
        #expect(try bpm("\"Allegro\" 1/2=60") == 120)
        #expect(try bpm("200") == 100)  // bare number counts unit notes (1/8)
    }

    @Test func voicesBecomeHands() throws {
        let abc = """
        X:1
        T:Hands
        M:4/4
        L:1/4
        V:1 name="Piano right"
        V:2 clef=bass
        K:C
        V:1
        c d e f |
        V:2
        C, D, E, F, |
        """
        let c = try Compiled(abc)
        #expect(c.trackNames == ["Right Hand", "Left Hand"])
        #expect(c.pitches(1) == [48, 50, 52, 53])
        #expect(c.onsets(1) == [0, 1, 2, 3])
        let named = try Compiled("X:1\nL:1/4\nK:C\nV:RH\nc\nV:LH\nC\nV:3 name=Alto\nE\n")
        #expect(named.trackNames == ["Right Hand", "Left Hand", "Alto"])
    }

    @Test func partsFollowHeaderOrderAndBecomeMarkers() throws {
        let abc = """
        X:1
        T:Parts
        M:2/4
        L:1/4
        P:ABA
        K:C
        P:A
        C D |
        P:B
        T:Contrast
        E F |
        """
        let c = try Compiled(abc)
        #expect(c.pitches() == [60, 62, 64, 65, 60, 62])
        #expect(c.markers.map(\.text) == ["A", "B: Contrast", "A"])
        #expect(c.markers.map(\.tick) == [0, 960, 1920])
    }

    @Test func partOrderSyntax() throws {
        #expect(try TuneParser.partOrder("A2B(CD)2 E") == ["A", "A", "B", "C", "D", "C", "D", "E"])
        #expect(try TuneParser.partOrder("A.B.A") == ["A", "B", "A"])
    }

    @Test func partsAlignAcrossVoices() throws {
        // The left hand of part A is shorter: part B still starts together in both hands.
        let abc = "X:1\nL:1/4\nM:4/4\nK:C\nP:A\nV:RH\nc d e f|\nV:LH\nC2|\nP:B\nV:RH\ng4|\nV:LH\nG,4|\n"
        let c = try Compiled(abc)
        #expect(c.onsets(0).last == 4)
        #expect(c.onsets(1) == [0, 4])
    }

    @Test func fingeringDecorations() throws {
        let c = try Compiled(tune("!1!C !2!D E !5![CE!3!G]"))
        let fingers = Fingering.fingers(in: c.file)
        let notes = c.notes
        let got = notes.map { Fingering.finger(for: $0, in: fingers) }
        #expect(got == [1, 2, nil, 5, nil, 3])
    }

    @Test func dynamicsSetVelocity() throws {
        let c = try Compiled(tune("C !p! D E !ff! F"))
        #expect(c.notes.map(\.velocity) == [80, 60, 60, 120])
    }

    @Test func commentsAndContinuations() throws {
        let c = try Compiled("X:1 % the first\nT:Comments\n% a comment line\nL:1/4\nK:C % key\nC D \\\nE % done\n")
        #expect(c.pitches() == [60, 62, 64])
    }

    @Test func multipleTunesSelectedByX() throws {
        let abc = "X:1\nT:One\nK:C\nC\n\nX:2\nT:Two\nK:C\nD\n\nX:7\nT:Seven\nK:C\nE\n"
        #expect(try Compiled(abc).pitches() == [60])
        #expect(try Compiled(abc, tune: 2).pitches() == [62])
        #expect(try Compiled(abc, tune: 7).pitches() == [64])
        #expect(ABCImport.tunes(inABCText: abc).map(\.title) == ["One", "Two", "Seven"])
        #expect(throws: ABCError.self) { try Compiled(abc, tune: 3) }
    }

    @Test func metadataBecomesLessonTags() throws {
        let abc = "X:1\nT:Scale\nC:Traditional\n%%etude-level 2\n%%etude-description Two octaves\nK:C\nC\n"
        let tags = LessonTags(file: try Compiled(abc).file)
        #expect(tags.title == "Scale")
        #expect(tags.composer == "Traditional")
        #expect(tags.level == 2)
        #expect(tags.description == "Two octaves")
    }

    @Test func graceNotesArePlayedShortOnOrBeforeTheBeat() throws {
        // L:1/4 here: {g} an appoggiatura on beat 2 (C after it), {/ab} two acciaccaturas
        // before beat 3; a 32nd each (1/8 quarter).
        let c = try Compiled(tune("E {g}C {/ab}D F |"))
        #expect(c.pitches() == [64, 79, 60, 81, 83, 62, 65])
        #expect(c.onsets() == [0, 1, 1.125, 1.75, 1.875, 2, 3])
        #expect(!c.warnings.contains { $0.message.contains("grace") })
        let lesson = Lesson(file: c.file, fileName: "graces.abc")
        #expect(lesson.notes.filter { lesson.isGrace($0) }.map(\.pitch) == [79, 81, 83])
        #expect(lesson.annotations.graces.values.filter { $0 }.count == 2)
    }

    @Test func ornamentsArePlayedOutAndMarked() throws {
        // L:1/4, K:D (F# and C#): a trill on E alternates with F#; a mordent on A dips to G;
        // a turn on B goes B C# B A B; T is a trill too. 32nds (1/8 quarter) each.
        let c = try Compiled(tune("!trill!E !mordent!A !turn!B Tc |", header: "M:4/4\nL:1/4\nK:D"))
        #expect(c.warnings.isEmpty)
        #expect(Array(c.pitches().prefix(6)) == [64, 66, 64, 66, 64, 66] || Array(c.pitches().prefix(7)) == [64, 66, 64, 66, 64, 66, 64])
        let lesson = Lesson(file: c.file, fileName: "ornaments.abc")
        let judged = lesson.notes.filter { !lesson.isAccepted($0) }
        #expect(judged.map(\.pitch) == [64, 69, 71, 73])
        #expect(judged.map(\.startTick) == [0, 480, 960, 1440])
        #expect(lesson.annotations.ornaments.values.map(\.ornament).sorted { $0.rawValue < $1.rawValue } == [.mordent, .trill, .trill, .turn])
        #expect(lesson.annotations.ornaments.values.allSatisfy { $0.ticks == 480 })
        let mordent = lesson.notes.filter { $0.startTick >= 480 && $0.startTick < 960 }.map(\.pitch)
        #expect(mordent == [69, 67, 69])
        let turn = lesson.notes.filter { $0.startTick >= 960 && $0.startTick < 1440 }.map(\.pitch)
        #expect(turn == [71, 73, 71, 69, 71])
    }

    /// ABC 2.1's default symbols M and P are !lowermordent! and !uppermordent!: played as the
    /// named decorations are, no warning.
    @Test func theMAndPSymbolsAreMordents() throws {
        let named = try Compiled(tune("!lowermordent!A !uppermordent!B c d |", header: "M:4/4\nL:1/4\nK:D"))
        let symbols = try Compiled(tune("MA PB c d |", header: "M:4/4\nL:1/4\nK:D"))
        #expect(symbols.warnings.isEmpty, "\(symbols.warnings)")
        #expect(symbols.pitches() == named.pitches() && symbols.onsets() == named.onsets())
        let lesson = Lesson(file: symbols.file, fileName: "mp.abc")
        #expect(lesson.annotations.ornaments.values.map(\.ornament).sorted { $0.rawValue < $1.rawValue } == [.invertedMordent, .mordent])
        #expect(lesson.notes.filter { $0.startTick < 480 }.map(\.pitch) == [69, 67, 69])
    }

    @Test func tremolosRepeatTheNoteTheWrittenOneJudged() throws {
        // !/! in eighths, !//! in sixteenths, !///! in 32nds, over a quarter each (L:1/4).
        let c = try Compiled(tune("!/!C !//!D !///!E F |", header: "M:4/4\nL:1/4\nK:C"))
        #expect(c.warnings.isEmpty, "\(c.warnings)")
        let lesson = Lesson(file: c.file, fileName: "tremolo.abc")
        #expect(lesson.notes.filter { !lesson.isAccepted($0) }.map(\.pitch) == [60, 62, 64, 65])
        #expect(lesson.notes.filter { $0.pitch == 60 }.map(\.startTick) == [0, 240])
        #expect(lesson.notes.filter { $0.pitch == 62 }.map(\.startTick) == [480, 600, 720, 840])
        #expect(lesson.notes.filter { $0.pitch == 64 }.count == 8)
        #expect(lesson.annotations.ornaments.values.map(\.ornament).sorted { $0.rawValue < $1.rawValue } == [.tremolo16, .tremolo32, .tremolo8])
    }

    @Test func twoNoteTremolosAlternateTheWrittenPairJudged() throws {
        // abcm2ps: !trem2! on the second of two half notes (L:1/4): a whole-note tremolo drawn as
        // two whole notes with two beams, so each note alternates with the other in 16ths.
        let c = try Compiled(tune("C2!trem2!E2 |", header: "M:4/4\nL:1/4\nK:C"))
        #expect(c.warnings.isEmpty, "\(c.warnings)")
        let lesson = Lesson(file: c.file, fileName: "trem.abc")
        #expect(lesson.notes.filter { $0.pitch == 60 }.map(\.startTick) == [0, 240, 480, 720, 1080, 1320, 1560, 1800])
        #expect(lesson.notes.filter { $0.pitch == 64 }.map(\.startTick) == [120, 360, 600, 840, 960, 1200, 1440, 1680])
        #expect(lesson.notes.allSatisfy { $0.endTick - $0.startTick == 120 })
        // The written notes are judged; every repeat is accepted, not required.
        let judged = lesson.notes.filter { !lesson.isAccepted($0) }
        #expect(judged.map(\.pitch) == [60, 64])
        #expect(judged.map(\.startTick) == [0, 960])
        #expect(lesson.annotations.ornaments.values.map(\.ornament) == [.alternate16, .alternate16])
    }

    @Test func twoNoteTremoloChordsPairTheirNotesInOrder() throws {
        // Quarter chords drawn as halves, one beam: eighths. C alternates with G, E with B.
        let c = try Compiled(tune("[CE]!trem1![GB] z2 |", header: "M:4/4\nL:1/4\nK:C"))
        #expect(c.warnings.isEmpty, "\(c.warnings)")
        let lesson = Lesson(file: c.file, fileName: "trem.abc")
        let played = lesson.notes.map { "\($0.pitch)@\($0.startTick)" }.sorted()
        #expect(played == ["60@0", "60@720", "64@0", "64@720", "67@240", "67@480", "71@240", "71@480"].sorted())
        #expect(lesson.notes.filter { !lesson.isAccepted($0) }.map { "\($0.pitch)@\($0.startTick)" }.sorted() == ["60@0", "64@0", "67@480", "71@480"])
    }

    @Test func twoNoteTremolosCountTheDrawnHeadsBeams() throws {
        // Sixteenths drawn as eighths (one beam) plus one stroke: two beams, 16ths, which leaves
        // each note as written; eighths (drawn quarters) with !trem3!: 32nds.
        let c = try Compiled(tune("C/4!trem1!E/4 C/!trem3!E/ z3 |", header: "M:4/4\nL:1/4\nK:C"))
        #expect(c.warnings.isEmpty, "\(c.warnings)")
        #expect(c.pitches() == [60, 64, 60, 64, 60, 64, 64, 60, 64, 60])
        #expect(c.onsets() == [0, 0.25, 0.5, 0.625, 0.75, 0.875, 1, 1.125, 1.25, 1.375])
    }

    @Test func aTremoloOffItsPairWarnsAndPlaysAsWritten() throws {
        let c = try Compiled(tune("z !trem2!C D !trem1!E2 |", header: "M:4/4\nL:1/4\nK:C"))
        let text = c.warnings.map(\.message).joined(separator: "\n")
        #expect(text.contains("!trem2!") && text.contains("second of two notes"), "\(text)")
        #expect(text.contains("!trem1!"), "\(text)")
        #expect(!text.contains("not played"), "\(text)")
        #expect(c.pitches() == [60, 62, 64])
    }

    @Test func anArpeggioRollsTheChordUpwards() throws {
        let c = try Compiled(tune("!arpeggio![CEG]2 [CEG]2 |"))
        #expect(c.warnings.isEmpty)
        #expect(c.pitches() == [60, 64, 67, 60, 64, 67])
        #expect(c.onsets() == [0, 0.0625, 0.125, 2, 2, 2])
        let a = Annotations(file: c.file)
        #expect(a.rolls.values.sorted() == [30, 60])
    }

    @Test func dynamicsAreMarkedWhereTheyAreWritten() throws {
        let c = try Compiled(tune("!p!C D !f!E F |"))
        let marks = Annotations(file: c.file).dynamics.values.flatMap { $0 }.map { "\($0.mark)@\($0.tick)" }
        #expect(marks == ["p@0", "f@960"])
    }

    @Test func unsupportedThingsWarnByName() throws {
        let c = try Compiled(tune("\"C\"C !upbow!D ~E & F | G\nw: la la", header: "L:1/4\n%%MIDI program 1\nK:C"))
        let text = c.warnings.map(\.message).joined(separator: "\n")
        #expect(text.contains("chord symbols"))
        #expect(text.contains("!upbow!"))
        #expect(text.contains("\"~\""))
        #expect(text.contains("overlay"))
        #expect(text.contains("lyrics"))
        #expect(text.contains("%%MIDI"))
        #expect(c.pitches() == [60, 62, 64, 67])
    }

    @Test func anacrusisGetsItsOwnTimeSignature() throws {
        let c = try Compiled(tune("G | c2 d2 | e4 |", header: "M:4/4\nL:1/8\nK:C"))
        let sigs = c.file.tracks[0].events.compactMap { e -> String? in
            if case .timeSignature(let t)? = e.kind.meta { return "\(e.tick):\(t.description)" }
            return nil
        }
        #expect(sigs == ["0:1/8", "240:4/4"])
    }

    @Test func errorsPointAtLineAndColumn() throws {
        func err(_ abc: String) -> ABCError? {
            do { _ = try ABCImport.midiFile(fromABCText: abc); return nil } catch { return error }
        }
        let bad = err("X:1\nK:C\nC D @ E\n")
        #expect(bad?.line == 3)
        #expect(bad?.column == 5)
        #expect(bad?.context == "C D @ E")
        #expect(bad?.description == "3:5: unexpected character '@'\n    C D @ E")
        #expect(err("X:1\nK:C\nC [DE\n")?.column == 3)
        #expect(err("X:1\nK:C\nC/0\n")?.message.contains("zero") == true)
        #expect(err("X:1\nK:H\nC\n")?.line == 2)
        #expect(err("X:1\nM:x/4\nK:C\nC\n")?.line == 2)
        #expect(err("X:1\nT:no key\nC D\n")?.message.contains("K:") == true)
        #expect(err("no tunes here")?.line == 0)
        #expect(err("X:1\nK:C\nC ] D\n")?.column == 3)
        #expect(err("X:1\nK:Cfoo\nC\n")?.message.contains("mode") == true)
    }
}

@Suite("ABC robustness")
struct RobustnessTests {
    @Test func fileHeaderAppliesToEveryTune() throws {
        let abc = "% a collection\nL:1/4\nM:3/4\nQ:1/4=60\n\nX:1\nT:One\nK:C\nC D E |\n\nX:2\nT:Two\nL:1/8\nK:C\nC D E |\n"
        #expect(try Compiled(abc).lengths() == [1, 1, 1])
        #expect(try Compiled(abc, tune: 2).lengths() == [0.5, 0.5, 0.5])
        #expect(TempoMap(file: try Compiled(abc).file).bpm(atTick: 0) == 60)
    }

    @Test func fingeringEventsRoundTripAndMalformedOnesAreSkipped() {
        #expect(Fingering.parse(Fingering.event(tick: 5, pitch: 60, finger: 3).kind).map { $0.pitch == 60 && $0.finger == 3 } == true)
        for bad in ["etude:finger=60:6", "etude:finger=128:1", "etude:finger=60", "etude:finger=x:1", "etude:fingers=60:1"] {
            #expect(Fingering.parse(.meta(type: MetaType.text, data: Array(bad.utf8))) == nil, "\(bad)")
        }
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [
            Track(events: [Fingering.event(tick: 0, pitch: 60, finger: 1), MIDIEvent(tick: 0, .noteOn(channel: 0, key: 60, velocity: 90)),
                           MIDIEvent(tick: 0, .meta(type: MetaType.text, data: Array("etude:finger=62:9".utf8)))]),
        ])
        #expect(Fingering.fingers(in: file) == [Fingering.Key(track: 0, tick: 0, pitch: 60): 1])
    }

    @Test func hostileNumbersAreErrorsNotCrashes() {
        let cases = [
            "C/////////////////////////////////////////////////////////////////////",
            "(3:99999999999999999999999 CDE", "[99999999999999999999999 C", "C99999999999999999999",
            "[L:1/99999999999999999999] C", "[Q:1/4=0.0000000001] C", "[M:99999999999/4] C",
            "[V:1 octave=99999999999999999] C", "Z99999", "c''''''''''''''''''''''''''''''''",
        ]
        for body in cases {
            do {
                _ = try ABCImport.midiFile(fromABCText: "X:1\nM:4/4\nL:1/8\nK:C\n\(body)\n")
            } catch {
                #expect(error.line == 5, "\(body): \(error)")
            }
        }
        do {
            _ = try ABCImport.midiFile(fromABCText: "X:1\nP:" + String(repeating: "(", count: 10_000) + "A\nK:C\nC\n")
            Issue.record("deeply nested P: accepted")
        } catch {
            #expect(error.line == 2)
        }
    }

    /// Every lesson with bytes flipped, lines dropped and cut short still gives a file or an
    /// error with a place, never a crash or a hang.
    @Test func mangledLessonsNeverCrash() throws {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed ^= seed << 13
            seed ^= seed >> 7
            seed ^= seed << 17
            return Int(seed % 1_000_000)
        }
        let alphabet = Array("abcdefgABCDEFGz^_=,'/2345()[]|:!+{}<>-\"%&.~xyZ \n")
        for url in Repo.lessonSources().prefix(30) {
            let original = Array(try String(contentsOf: url, encoding: .utf8))
            for _ in 0..<20 {
                var text = original
                for _ in 0..<(1 + next() % 8) where !text.isEmpty {
                    let at = next() % text.count
                    switch next() % 3 {
                    case 0: text[at] = alphabet[next() % alphabet.count]
                    case 1: text.remove(at: at)
                    default: text.insert(alphabet[next() % alphabet.count], at: at)
                    }
                }
                if next() % 4 == 0 { text = Array(text.prefix(next() % (text.count + 1))) }
                do {
                    let (file, _) = try ABCImport.midiFile(fromABCText: String(text))
                    _ = MIDIWriter.write(file)
                } catch {
                    #expect(error.message.isEmpty == false)
                }
            }
        }
    }
}
