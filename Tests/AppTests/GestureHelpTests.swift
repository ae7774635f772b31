@testable import Devices
import Screen
import Testing

/// `--gestures` in the `?` help: their keys and commands in one line, in place of the computer
/// keyboard's piano keys (the learner plays an instrument), so the help still fits 80×24.
struct GestureHelpTests {
    @Test func theGestureKeysAreOneHelpLineInsteadOfThePianoKeys() throws {
        #expect(Gestures.standard.helpEntry == PracticeKeys.Entry(keys: "A0 B0 C1 D1 E1", action: "instrument: restart, pause, slower, faster, loop"))
        let own = try #require(try Gestures.Setting(parsing: "faster=C8,restart=A0").gestures)
        #expect(own.helpEntry == PracticeKeys.Entry(keys: "A0 C8", action: "instrument: restart, faster"))
        let (s, _, _, _) = try PlayingModesTests().make(.wait)
        #expect(s.snapshot().helpEntries == nil, "without gestures the usual help")
        s.display.gestureHelp = Gestures.standard.helpEntry
        #expect(s.snapshot().helpEntries == PracticeKeys.controls + [Gestures.standard.helpEntry] + PracticeKeys.modes)
    }
}
