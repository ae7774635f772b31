@testable import App
import Foundation
import Lesson
import Testing

/// A routine entry's `transpose=`: read like `--transpose`, kept through the routine file, said
/// on the paper list, and refused in one line naming the entry's field.
@Suite struct RoutineTransposeTests {
    @Test func anEntryKeepsItsTransposition() throws {
        let (entry, _) = try RoutineEntry.parseSpec("lesson=Ode to Joy;transpose=+2;mode=wait")
        #expect(entry.transpose?.text == "+2")
        #expect(entry.text(title: "Ode to Joy").contains("transposed +2"))
        let back = try JSONDecoder().decode(RoutineEntry.self, from: JSONEncoder().encode(entry))
        #expect(back.transpose?.text == "+2" && back.problem == nil)
        #expect(try RoutineEntry.parseSpec("lesson=x;transpose=bb").entry.transpose?.text == "Bb")
        #expect(try RoutineEntry.parseSpec("lesson=x;transpose=F#m").entry.transpose?.text == "F#m")
        #expect(try RoutineEntry.parseSpec("lesson=x").entry.transpose == nil)
    }

    @Test func aBadTranspositionNamesTheField() {
        do {
            _ = try RoutineEntry.parseSpec("lesson=x;transpose=30")
            Issue.record("accepted")
        } catch {
            #expect((error as? RoutineError)?.message == "entry \"lesson=x;transpose=30\": transpose=30: give semitones from −24 to +24, or a key, e.g. transpose=+2")
        }
    }
}
