@testable import FrontEnd
import Practice
import Screen
import Terminal
import Testing

@Suite("PracticeCommand key map")
struct PracticeCommandTests {
    /// Every control of the issue, decoded from the bytes a terminal sends.
    @Test func everyControlKey() {
        let cases: [(String, PracticeCommand)] = [
            (" ", .playPause), ("\u{1B}[D", .previousBar), ("\u{1B}[C", .nextBar), ("\u{1B}OD", .previousBar),
            ("\u{1B}[H", .restart), ("\u{1B}[1~", .restart), ("[", .loopStartHere), ("]", .loopEndHere),
            ("l", .toggleLoop), ("+", .tempoUp), ("=", .tempoUp), ("-", .tempoDown), ("h", .cycleHand),
            ("o", .cycleOtherHand), ("m", .toggleMetronome), ("n", .toggleNoteNames), ("?", .toggleHelp),
            ("q", .quit),
        ]
        for (bytes, expected) in cases {
            var d = KeyDecoder()
            let keys = d.feed(Array(bytes.utf8)) + d.flush()
            #expect(keys.count == 1)
            #expect(keys.first.flatMap { PracticeKeyMap.command(for: $0) } == expected, "\(bytes.debugDescription)")
        }
        var d = KeyDecoder()
        #expect(d.feed([0x1B]).isEmpty)
        #expect(d.flush().map { PracticeKeyMap.command(for: $0) } == [.quit], "Esc alone quits")
        #expect(PracticeKeyMap.command(for: .ctrl("q")) == nil)
        #expect(PracticeKeyMap.command(for: Key(.left, .ctrl)) == nil)
    }

    @Test func pianoKeysOnlyInPlayingModes() {
        let semitones = PracticeCommand.pianoLetters.map { PracticeKeyMap.command(for: Key($0), pianoKeys: true) }
        #expect(semitones == (0...12).map { .pianoKey(semitone: $0) })
        #expect(PracticeKeyMap.command(for: Key("z"), pianoKeys: true) == .octaveDown)
        #expect(PracticeKeyMap.command(for: Key("x"), pianoKeys: true) == .octaveUp)
        #expect(PracticeKeyMap.command(for: Key("a")) == nil)
        #expect(PracticeKeyMap.command(for: Key("h")) == .cycleHand)
        #expect(PracticeKeyMap.command(for: Key(" "), pianoKeys: true) == .playPause)
    }

    /// The help overlay names a key for every command.
    @Test func helpCoversEveryCommand() {
        let listed = (PracticeKeys.controls + PracticeKeys.piano).map(\.keys).joined(separator: " ")
        for k in ["space", "←", "→", "Home", "[", "]", "l", "+", "-", "h", "o", "m", "n", "?", "q", "Esc", "z", "x"] + PracticeCommand.pianoLetters.map(String.init) {
            #expect(listed.contains(k), "help lists \(k)")
        }
    }
}
