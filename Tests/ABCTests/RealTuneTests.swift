import Foundation
import Testing
import TestSupport
@testable import ABC
import MIDIFile

/// Odds of tunes found in the wild: decorations Etude does not know, user-defined symbols,
/// ABC 2.0 syntax. Each is skipped with a warning, never an error, and the notes around it kept.
@Suite("ABC: decorations and symbols from real tunes")
struct DecorationTests {
    @Test func userDefinedSymbolsStandForTheirDecoration() throws {
        let c = try Compiled(tune("T C W D h E F |", header: "M:4/4\nL:1/4\nU:T=!upbow!\nU: W = !4!\nU:h=+f+\nK:C"))
        #expect(c.pitches() == [60, 62, 64, 65])
        #expect(c.warnings.map(\.message) == ["decoration !upbow! (symbol T of U:) not played, ignored"])
        // W is finger 4 on D, h is forte from E on.
        #expect(Annotations(file: c.file).fingers.values.sorted() == [4])
        #expect(Annotations(file: c.file).fingers.keys.map(\.pitch) == [62])
        let velocities = c.file.tracks[1].events.compactMap { e -> UInt8? in
            if case .noteOn(_, _, let v) = e.kind, v > 0 { return v }
            return nil
        }
        #expect(velocities == [80, 80, 105, 105])
    }

    @Test func aSymbolNoFieldDefinesIsSkipped() throws {
        let c = try Compiled(tune("C W D k E |"))
        #expect(c.pitches() == [60, 62, 64])
        #expect(c.warnings.map(\.message) == [
            "symbol \"W\" has no meaning (no U: field defines it), ignored",
            "symbol \"k\" has no meaning (no U: field defines it), ignored",
        ])
    }

    @Test func aUserSymbolReplacesTheDefaultMeaning() throws {
        // ~ is a roll by default; here it is fingering 2.
        let c = try Compiled(tune("~C D |", header: "M:4/4\nL:1/4\nU:~=!2!\nK:C"))
        #expect(c.warnings.isEmpty)
        #expect(Annotations(file: c.file).fingers.map(\.value) == [2])
    }

    @Test func userSymbolsInChordsAndInTheBody() throws {
        let c = try Compiled(tune("C |\nU:n=!5!\n[C n G] |"))
        #expect(c.warnings.isEmpty)
        #expect(Annotations(file: c.file).fingers.keys.map(\.pitch) == [67])
    }

    @Test func malformedUserSymbolsAreWarnings() throws {
        let c = try Compiled(tune("C D |", header: "M:4/4\nL:1/4\nU:XY=!trill!\nU:T\nU:a=!trill!\nK:C"))
        #expect(c.pitches() == [60, 62])
        #expect(c.warnings.map(\.message) == [
            "U: XY=!trill! does not define a symbol (~, H–W or h–w = !decoration!), ignored",
            "U: T does not define a symbol (~, H–W or h–w = !decoration!), ignored",
            "U: a=!trill! does not define a symbol (~, H–W or h–w = !decoration!), ignored",
        ])
    }

    @Test func unknownDecorationsInBothSyntaxes() throws {
        let c = try Compiled(tune("!wiggle!C +upbow+D !D.S.!E +4+F | !crescendo(!G !<(!A !>)!B c |"))
        #expect(c.pitches() == [60, 62, 64, 65, 67, 69, 71, 72])
        #expect(c.warnings.map(\.message) == [
            "decoration !wiggle! not played, ignored",
            "decoration !upbow! not played, ignored",
            "decoration !D.S.! not played, ignored",
        ])
        // Hairpins are read (drawn, and heard: see SpanMarkTests), not warned about.
        #expect(Annotations(file: c.file).hairpins.values.flatMap { $0.map(\.hairpin) } == [.crescendo, .crescendo, .stop])
        // +4+ is fingering in the old syntax.
        #expect(Annotations(file: c.file).fingers.keys.map(\.pitch) == [65])
    }

    /// ABC 2.0 used `!` as a line break: a `!` that closes no decoration name is skipped.
    @Test func loneExclamationMarkIsALineBreak() throws {
        let c = try Compiled(tune("C D ! E F | G ! A B c |"))
        #expect(c.pitches() == [60, 62, 64, 65, 67, 69, 71, 72])
        #expect(c.warnings.map(\.message) == ["! with no decoration name closing it (an ABC 2.0 line break?), ignored"])
        let plus = try Compiled(tune("C D + E F |"))
        #expect(plus.pitches() == [60, 62, 64, 65])
        #expect(plus.warnings.map(\.message) == ["+ with no decoration name closing it (an ABC 2.0 line break?), ignored"])
    }

    @Test func decorationNamesReachTheTerminalWithoutControlBytes() throws {
        let c = try Compiled(tune("!bad\u{1B}]0;x\u{07}!C |"))
        #expect(c.warnings.count == 1)
        #expect(c.warnings.allSatisfy { !$0.message.unicodeScalars.contains { $0.value < 0x20 } })
    }
}

/// Tunes saved on Windows (CR LF) or old Macs (CR) read as the same lines.
@Suite("ABC: line endings")
struct LineEndingTests {
    @Test(arguments: ["\n", "\r\n", "\r"])
    func everyLineEndingReadsTheSame(ending: String) throws {
        let text = ["X:1", "T:Ends", "M:4/4", "L:1/4", "K:G", "G A B c |", "d e f g |", ""].joined(separator: ending)
        let c = try Compiled(text)
        #expect(c.pitches() == [67, 69, 71, 72, 74, 76, 78, 79])
        #expect(c.warnings.isEmpty)
        #expect(ABCImport.tunes(inABCText: text).map(\.title) == ["Ends"])
    }

    @Test func errorsKeepTheirLineNumbers() throws {
        do {
            _ = try Compiled("X:1\r\nK:C\r\nC D\r\nE @ F\r\n")
            Issue.record("expected an error")
        } catch let error as ABCError {
            #expect(error.line == 4)
            #expect(error.column == 3)
            #expect(error.context == "E @ F")
        }
    }
}

/// `etude:spell=<pitch>:<name>` for every note, as the tune writes it.
@Suite("ABC: spelling")
struct SpellingTests {
    /// (pitch, spelling) of voice `v`'s notes in time order.
    static func spelled(_ c: Compiled, voice v: Int = 0) -> [String] {
        let spellings = Annotations(file: c.file).spellings
        return c.notes.filter { $0.track == v + 1 }
            .sorted { ($0.startTick, $0.pitch) < ($1.startTick, $1.pitch) }
            .map { n in
                let s = spellings[Annotations.Key(track: n.track, tick: n.startTick, pitch: Int(n.pitch))]
                return "\(n.pitch):\(s?.name ?? "?")"
            }
    }

    @Test func accidentalsAndKeySignatures() throws {
        #expect(Self.spelled(try Compiled(tune("^F _G =F ^^F __B ^B _C |"))) ==
                ["66:F#", "66:Gb", "65:F", "67:Fx", "69:Bbb", "72:B#", "59:Cb"])
        #expect(Self.spelled(try Compiled(tune("B =B E F |", header: "L:1/4\nK:Bb"))) == ["70:Bb", "71:B", "63:Eb", "65:F"])
        #expect(Self.spelled(try Compiled(tune("F C G _E |", header: "L:1/4\nK:D"))) == ["66:F#", "61:C#", "67:G", "63:Eb"])
        // A mode's key: D dorian has no sharps or flats; E minor has F#.
        #expect(Self.spelled(try Compiled(tune("F B |", header: "L:1/4\nK:D dor"))) == ["65:F", "71:B"])
        #expect(Self.spelled(try Compiled(tune("F B |", header: "L:1/4\nK:Em"))) == ["66:F#", "71:B"])
        // Explicit key accidentals.
        #expect(Self.spelled(try Compiled(tune("F B |", header: "L:1/4\nK:C exp _b ^f"))) == ["66:F#", "70:Bb"])
    }

    @Test func barAccidentalsAndTies() throws {
        // ^F carries to the end of the bar (every octave), not past it; a tie carries it over.
        #expect(Self.spelled(try Compiled(tune("^F F f | F ^G- | G G |"))) ==
                ["66:F#", "66:F#", "78:F#", "65:F", "68:G#", "67:G"])
        // The note tied into the next bar is one note (68 held), spelled as written first.
        let tied = try Compiled(tune("^G2- | G2 |"))
        #expect(Self.spelled(tied) == ["68:G#"])
        #expect(tied.lengths() == [4])
    }

    @Test func chordsAndKeyChanges() throws {
        #expect(Self.spelled(try Compiled(tune("[CEG] [^ce_g] | [K:Ab] [ACE] |"))) ==
                ["60:C", "64:E", "67:G", "73:C#", "76:E", "78:Gb", "60:C", "63:Eb", "68:Ab"])
    }

    /// Beside the fingering: same track, same tick, before the note-on.
    @Test func annotationSitsBesideTheFingeringBeforeTheNoteOn() throws {
        let c = try Compiled(tune("!1!^F !3!A |"))
        let events = c.file.tracks[1].events.filter { $0.tick == 0 }.map { e -> String in
            if case .meta(MetaType.text, let d) = e.kind { return String(decoding: d, as: UTF8.self) }
            if case .noteOn(_, let k, let v) = e.kind, v > 0 { return "on \(k)" }
            return e.kind.name
        }
        #expect(events == ["meta", "programChange", "etude:finger=66:1", "etude:spell=66:F#", "on 66"])
        let second = c.file.tracks[1].events.filter { $0.tick == 480 }.map { e -> String in
            if case .meta(MetaType.text, let d) = e.kind { return String(decoding: d, as: UTF8.self) }
            if case .noteOn(_, let k, let v) = e.kind { return v > 0 ? "on \(k)" : "off \(k)" }
            if case .noteOff(_, let k, _) = e.kind { return "off \(k)" }
            return e.kind.name
        }
        #expect(second == ["off 66", "etude:finger=69:3", "etude:spell=69:A", "on 69"])
    }

    @Test func everyNoteOfEveryLessonIsSpelled() throws {
        for url in Repo.lessonSources() {
            let text = try String(contentsOf: url, encoding: .utf8)
            let c = try Compiled(text)
            let spellings = Annotations(file: c.file).spellings
            for n in c.notes {
                let s = spellings[Annotations.Key(track: n.track, tick: n.startTick, pitch: Int(n.pitch))]
                #expect(s?.octave(forPitch: Int(n.pitch)) != nil, "\(url.lastPathComponent): note \(n.pitch) at \(n.startTick)")
            }
        }
    }
}

/// Import time grows with the tune's length, not its square (issue 16): the timing is in
/// `make bench` (`etude-bench abc`); here a big tune's output is checked to be right.
@Suite("ABC: big tunes")
struct BigTuneTests {
    @Test func tenThousandBarsReadAsWritten() throws {
        // One part, 2,500 lines of 4 bars, each bar C D E F with the line's accidental.
        var text = "X:1\nT:Big\nM:4/4\nL:1/4\nK:C\n"
        for line in 0..<2500 {
            let acc = ["", "^", "_", "="][line % 4]
            text += String(repeating: "\(acc)C D E F|", count: 4) + "\n"
        }
        let c = try Compiled(text)
        #expect(c.notes.count == 40_000)
        let pitches = c.pitches()
        for line in stride(from: 0, to: 2500, by: 499) {
            let c4 = [60, 61, 59, 60][line % 4]
            #expect(Array(pitches[(line * 16)..<(line * 16 + 4)]) == [c4, 62, 64, 65])
        }
        #expect(c.onsets().last == Double(40_000 - 1))
        #expect(c.warnings.isEmpty)
    }
}
