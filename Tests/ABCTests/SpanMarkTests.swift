import Foundation
import MIDIFile
import Testing
@testable import ABC

/// ABC hairpins (`!<(!` `!<)!` `!>(!` `!>)!`, `!crescendo(!`…) and slurs `(` `)` carried as
/// `etude:hairpin` and `etude:slur` at their notes, drawn by the staff; the sound is unchanged.
@Suite struct SpanMarkTests {
    @Test func hairpinsAndSlursAtTheirNotes() throws {
        let abc = "X:1\nT:Spans\nM:4/4\nL:1/4\nK:C\n!p!!<(!(C D E F) | !>(!G A B !>)!c | !crescendo(!C D !crescendo)!E z |]\n"
        let read = try ABCImport.midiFile(fromABCText: abc)
        #expect(read.warnings.isEmpty, "\(read.warnings)")
        let a = Annotations(file: read.file)
        let hairpins = a.hairpins.values.flatMap { $0 }.map { "\($0.hairpin.rawValue)@\($0.tick)" }
        #expect(hairpins == ["cresc@0", "dim@1920", "stop@3360", "cresc@3840", "stop@4800"])
        let slurs = a.slurs.values.flatMap { $0 }.map { "\($0.start ? "(" : ")")@\($0.tick)" }
        #expect(slurs == ["(@0", ")@1440"])
        // The notes are those of the tune without the marks; the hairpins shape their loudness:
        // rising under the crescendo from p, falling under the diminuendo.
        let plain = try ABCImport.midiFile(fromABCText: "X:1\nT:Spans\nM:4/4\nL:1/4\nK:C\n!p!C D E F | G A B c | C D E z |]\n")
        func notes(_ f: MIDIFile) -> [(tick: Int, key: UInt8, velocity: UInt8)] {
            f.tracks.flatMap { $0.events }.compactMap { e in
                if case .noteOn(_, let k, let v) = e.kind { return (e.tick, k, v) }
                return nil
            }
        }
        #expect(notes(read.file).map { "\($0.tick):\($0.key)" } == notes(plain.file).map { "\($0.tick):\($0.key)" })
        let v = notes(read.file).map { Int($0.velocity) }
        #expect(v[0] == Int(notes(plain.file)[0].velocity) && v[0] < v[1] && v[1] < v[2] && v[2] < v[3], "\(v)")
        #expect(v[4] > v[5] && v[5] > v[6], "\(v)")
    }
}
