import Testing
import Terminal
@testable import Screen

/// The on-screen keyboard draws the learner's own keyboard (`--keys`, `--range`): the keys it
/// lacks greyed, ░ without colour.
@Suite("Learner's keys")
struct LearnerKeysTests {
    @Test func keysOffTheLearnersKeyboardAreGreyed() {
        let layout = KeyboardLayout(width: 120, range: nil)  // all 88
        for depth in [ColorDepth.none, .truecolor] {
            var b = CellBuffer(size: TerminalSize(columns: 120, rows: KeyboardWidget.height))
            KeyboardWidget(theme: Theme(depth: depth), layout: layout, state: KeyboardState(),
                           showNoteNames: false, naming: .scientific, learnerKeys: 36...96).render(into: Rect(size: b.size), buffer: &b)
            let c2 = layout.whiteColumns(36)!.lowerBound, b1 = layout.whiteColumns(35)!.lowerBound, d7 = layout.whiteColumns(98)!.lowerBound
            if depth == .none {
                let shade = Unicode.Scalar("░").value
                #expect(b[b1, 2].scalar == shade && b[d7, 2].scalar == shade)
                #expect(b[c2, 2].scalar == Unicode.Scalar(" ").value)
            } else {
                #expect(b[b1, 2].bg == Theme.offWhiteKey && b[d7, 2].bg == Theme.offWhiteKey)
                #expect(b[c2, 2].bg == Theme.whiteKey)
            }
        }
    }
}
