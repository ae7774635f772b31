import Foundation
import Testing
import TestSupport
@testable import ABC
import MIDIFile

/// The first bars of the pieces, written out here note by note from the printed scores, so a
/// slip in the ABC (a wrong octave, a lost accidental) shows up as a failing test.
@Suite("Pieces: first bars")
struct PieceTests {
    /// (note name, onset in beats) of the first `count` notes of a hand, chords low to high.
    static func opening(_ file: String, hand: String, count: Int) throws -> [String] {
        let l = try LessonCase(Repo.lessons.appendingPathComponent(file))
        let tracks = Set(l.compiled.tracks.indices.filter { l.compiled.tracks[$0].name == hand })
        let tpq = Double(ABCImport.ticksPerQuarter)
        return l.notes.filter { tracks.contains($0.track) }
            .sorted { ($0.startTick, $0.pitch) < ($1.startTick, $1.pitch) }
            .prefix(count)
            .map { "\(PitchName.name(Int($0.pitch)))@\(Double($0.startTick) / tpq)" }
    }

    @Test func odeToJoy() throws {
        #expect(try Self.opening("level4/ode-to-joy.abc", hand: "Right Hand", count: 8)
            == ["E4@0.0", "E4@1.0", "F4@2.0", "G4@3.0", "G4@4.0", "F4@5.0", "E4@6.0", "D4@7.0"])
        #expect(try Self.opening("level4/ode-to-joy.abc", hand: "Left Hand", count: 2) == ["C3@0.0", "G3@4.0"])
    }

    @Test func twinkle() throws {
        #expect(try Self.opening("level4/twinkle-twinkle.abc", hand: "Right Hand", count: 7)
            == ["C4@0.0", "C4@1.0", "G4@2.0", "G4@3.0", "A4@4.0", "A4@5.0", "G4@6.0"])
    }

    @Test func greensleeves() throws {
        // Upbeat A, then c2 d e>fe in 6/8.
        #expect(try Self.opening("level4/greensleeves.abc", hand: "Right Hand", count: 6)
            == ["A4@0.0", "C5@0.5", "D5@1.5", "E5@2.0", "F5@2.75", "E5@3.0"])
        #expect(try Self.opening("level4/greensleeves.abc", hand: "Left Hand", count: 1) == ["A2@0.5"])
    }

    @Test func bachPreludeInC() throws {
        // Bar 1: C4 (half) and E4 (from the second sixteenth) in the left hand, G4 C5 E5 twice.
        #expect(try Self.opening("level5/bach-prelude-in-c.abc", hand: "Left Hand", count: 4)
            == ["C4@0.0", "E4@0.25", "C4@2.0", "E4@2.25"])
        #expect(try Self.opening("level5/bach-prelude-in-c.abc", hand: "Right Hand", count: 6)
            == ["G4@0.5", "C5@0.75", "E5@1.0", "G4@1.25", "C5@1.5", "E5@1.75"])
        // Bar 2: D4 in the left hand, A4 D5 F5 in the right.
        let bar2 = try Self.opening("level5/bach-prelude-in-c.abc", hand: "Right Hand", count: 15).suffix(3)
        #expect(Array(bar2) == ["A4@4.5", "D5@4.75", "F5@5.0"])
    }

    @Test func furElise() throws {
        #expect(try Self.opening("level5/fur-elise.abc", hand: "Right Hand", count: 9)
            == ["E5@0.0", "D#5@0.25", "E5@0.5", "D#5@0.75", "E5@1.0", "B4@1.25", "D5@1.5", "C5@1.75", "A4@2.0"])
        #expect(try Self.opening("level5/fur-elise.abc", hand: "Left Hand", count: 3) == ["A2@2.0", "E3@2.25", "A3@2.5"])
        // First ending (bar 8, after the upbeat and seven bars): A held a quarter, then the upbeat.
        let l = try LessonCase(Repo.lessons.appendingPathComponent("level5/fur-elise.abc"))
        let firstEnding = l.notes.first { $0.pitch == 69 && $0.startTick == 11 * ABCImport.ticksPerQuarter }
        #expect(firstEnding?.durationTicks == ABCImport.ticksPerQuarter)
        // The piece's last bar: octave A in the left hand.
        let last = l.notes.filter { l.compiled.tracks[$0.track].name == "Left Hand" }.suffix(2).map(\.pitch).sorted()
        #expect(last == [33, 45])
    }

    @Test func bachHeldNotesKeepTheirLength() throws {
        let l = try LessonCase(Repo.lessons.appendingPathComponent("level5/bach-prelude-in-c.abc"))
        let inner = l.notes.filter { l.compiled.tracks[$0.track].name == "Left Hand" && $0.pitch == 64 }.first
        #expect(inner?.durationTicks == 7 * ABCImport.ticksPerQuarter / 4)
    }

    @Test func frereJacquesIsACanon() throws {
        let rh = try Self.opening("level4/frere-jacques-canon.abc", hand: "Right Hand", count: 4)
        let lh = try Self.opening("level4/frere-jacques-canon.abc", hand: "Left Hand", count: 4)
        #expect(rh == ["C4@0.0", "D4@1.0", "E4@2.0", "C4@3.0"])
        #expect(lh == ["C3@8.0", "D3@9.0", "E3@10.0", "C3@11.0"])
    }

    @Test func jingleBells() throws {
        #expect(try Self.opening("level4/jingle-bells.abc", hand: "Right Hand", count: 11)
            == ["E4@0.0", "E4@1.0", "E4@2.0", "E4@4.0", "E4@5.0", "E4@6.0", "E4@8.0", "G4@9.0", "C4@10.0", "D4@11.5", "E4@12.0"])
    }

    @Test func pachelbelCanon() throws {
        #expect(try Self.opening("level4/pachelbel-canon.abc", hand: "Left Hand", count: 8)
            == ["D3@0.0", "A2@1.0", "B2@2.0", "F#2@3.0", "G2@4.0", "D2@5.0", "G2@6.0", "A2@7.0"])
        #expect(try Self.opening("level4/pachelbel-canon.abc", hand: "Right Hand", count: 4)
            == ["F#5@8.0", "E5@9.0", "D5@10.0", "C#5@11.0"])
    }

    @Test func petzoldMinuet() throws {
        // d2 GABc | d2 G2 G2 over a G major chord and A, then B.
        #expect(try Self.opening("level4/minuet-in-g-petzold.abc", hand: "Right Hand", count: 8)
            == ["D5@0.0", "G4@1.0", "A4@1.5", "B4@2.0", "C5@2.5", "D5@3.0", "G4@4.0", "G4@5.0"])
        #expect(try Self.opening("level4/minuet-in-g-petzold.abc", hand: "Left Hand", count: 5)
            == ["G3@0.0", "B3@0.0", "D4@0.0", "A3@2.0", "B3@3.0"])
    }

    @Test func petzoldMinuetInGMinor() throws {
        // Bb A G | A D D | G, then G A Bb C — over G, F, E flat in the left hand.
        #expect(try Self.opening("level5/minuet-in-g-minor-petzold.abc", hand: "Right Hand", count: 11)
            == ["A#5@0.0", "A5@1.0", "G5@2.0", "A5@3.0", "D5@4.0", "D5@5.0", "G5@6.0", "G4@7.0", "A4@7.5", "A#4@8.0", "C5@8.5"])
        #expect(try Self.opening("level5/minuet-in-g-minor-petzold.abc", hand: "Left Hand", count: 4)
            == ["G3@0.0", "F3@3.0", "D#3@6.0", "D3@9.0"])
    }

    @Test func musetteInD() throws {
        #expect(try Self.opening("level5/musette-in-d.abc", hand: "Right Hand", count: 5)
            == ["A5@0.0", "G5@1.0", "F#5@1.25", "E5@1.5", "D5@1.75"])
        #expect(try Self.opening("level5/musette-in-d.abc", hand: "Left Hand", count: 4)
            == ["D2@0.0", "D3@0.5", "D2@1.0", "D3@1.5"])
        // Da capo: the piece ends with the first half again, on D.
        let l = try LessonCase(Repo.lessons.appendingPathComponent("level5/musette-in-d.abc"))
        #expect(l.markers.map(\.text) == ["A: Drone", "B: Towards A major", "A: Drone"])
    }

    @Test func auClairDeLaLune() throws {
        #expect(try Self.opening("level4/au-clair-de-la-lune.abc", hand: "Right Hand", count: 8)
            == ["C4@0.0", "C4@1.0", "C4@2.0", "D4@3.0", "E4@4.0", "D4@6.0", "C4@8.0", "E4@9.0"])
        let l = try LessonCase(Repo.lessons.appendingPathComponent("level4/au-clair-de-la-lune.abc"))
        #expect(l.markers.map(\.text) == ["A: Au clair de la lune", "A: Au clair de la lune", "B: Ma chandelle est morte", "A: Au clair de la lune"])
    }

    @Test func silentNight() throws {
        // G. A G E. in 6/8: dotted eighth, sixteenth, eighth, dotted quarter.
        #expect(try Self.opening("level4/silent-night.abc", hand: "Right Hand", count: 5)
            == ["G4@0.0", "A4@0.75", "G4@1.0", "E4@1.5", "G4@3.0"])
    }

    @Test func auldLangSyne() throws {
        #expect(try Self.opening("level4/auld-lang-syne.abc", hand: "Right Hand", count: 5)
            == ["C4@0.0", "F4@1.0", "F4@2.5", "F4@3.0", "A4@4.0"])
        #expect(try Self.opening("level4/auld-lang-syne.abc", hand: "Left Hand", count: 1) == ["F2@1.0"])
    }

    @Test func amazingGrace() throws {
        #expect(try Self.opening("level4/amazing-grace.abc", hand: "Right Hand", count: 6)
            == ["D4@0.0", "G4@1.0", "B4@3.0", "G4@3.5", "B4@4.0", "A4@6.0"])
    }
}
