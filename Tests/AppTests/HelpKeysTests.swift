@testable import FrontEnd
import Practice
import Screen
import Terminal
import Testing

/// The `?` help names keys; each must give the command its line says, on its letter, on the
/// F-key the line names, and (the letters) on Alt while the computer keyboard plays notes.
@Suite("help keys do what the help says")
struct HelpKeysTests {
    /// What each help line promises, by its keys column. A new line without a row here fails:
    /// whoever adds a key says here what it does.
    static let promised: [String: [PracticeCommand]] = [
        "space": [.playPause], "← →": [.previousBar, .nextBar], "g N Enter": [.goToBar], "Home": [.restart],
        "[  ]": [.loopStartHere, .loopEndHere], "l": [.toggleLoop], "s": [.saveLoop], "L": [.recallLoop],
        "+  -": [.tempoUp, .tempoDown], "h": [.cycleHand], "o": [.cycleOtherHand], "m": [.toggleMetronome],
        "n": [.toggleNoteNames], "v": [.cycleView], "?": [.toggleHelp], "q  Esc": [.quit, .quit],
        "M  F": [.cycleMode, .toggleFollow], "W  G": [.loopWeakestSection, .toggleGuide], "r  Enter": [.saveLastPass],  // Enter: the review (PassReview), front end only
    ]

    static func keys(_ column: String) -> [Key] {
        column.split(separator: " ").compactMap { token -> Key? in
            switch token {
            case "space": return Key(" ")
            case "←": return Key(.left)
            case "→": return Key(.right)
            case "Home": return Key(.home)
            case "Esc": return Key(.escape)
            case "N", "Enter": return nil  // the number typed after `g`
            default: return token.count == 1 ? Key(Character(String(token))) : nil
            }
        }
    }

    @Test func everyControlLineGivesItsCommandOnItsKeysAndItsFunctionKey() throws {
        for entry in PracticeKeys.controls + PracticeKeys.modes {
            let expected = try #require(Self.promised[entry.keys], "the help line \(entry.keys) has no promise in this test")
            let keys = Self.keys(entry.keys)
            #expect(keys.count == expected.count, "\(entry.keys)")
            for (key, command) in zip(keys, expected) {
                #expect(PracticeKeyMap.command(for: key) == command, "\(entry.keys): \(key)")
                if case .character(let c) = key.code, c.isLetter {
                    // Alt+letter: the same command while letters are notes.
                    #expect(PracticeKeyMap.command(for: Key(.character(c), .alt), pianoKeys: true) == command, "Alt+\(c)")
                }
            }
            // "(F4)" in the line: that function key gives the line's (first) command in every mode.
            if let open = entry.action.range(of: "(F"), let n = Int(entry.action[open.upperBound...].prefix { $0.isNumber }) {
                for piano in [false, true] {
                    #expect(PracticeKeyMap.command(for: Key(.function(n)), pianoKeys: piano) == expected.first, "F\(n) for \(entry.keys)")
                }
            }
        }
        // Every function key the key map knows is named in the help.
        let named = (PracticeKeys.controls + PracticeKeys.modes).map(\.action).joined()
        for n in PracticeKeyMap.functionKeys.keys { #expect(named.contains("(F\(n))"), "F\(n) is in the help") }
    }

    @Test func thePianoLinesPlayNotes() {
        let letters = Self.keys(PracticeKeys.piano[0].keys)
        #expect(letters.map { PracticeKeyMap.command(for: $0, pianoKeys: true) } == (0...12).map { .pianoKey(semitone: $0) })
        #expect(Self.keys(PracticeKeys.piano[1].keys).map { PracticeKeyMap.command(for: $0, pianoKeys: true) } == [.octaveDown, .octaveUp])
    }

    @Test func theBarPromptTypesANumberAndGoesOnEnter() {
        var prompt = BarPrompt()
        for c in "4x0" { #expect(prompt.key(Key(c)) == .typing) }
        #expect(prompt.typed == "40", "a letter (a piano key) types nothing")
        #expect(prompt.message.hasPrefix("go to bar: 40"))
        #expect(prompt.key(Key(.backspace)) == .typing && prompt.typed == "4")
        for c in "0@2" { _ = prompt.key(Key(c)) }
        #expect(prompt.key(Key(.enter)) == .go("40@2"))
        var empty = BarPrompt()
        #expect(empty.key(Key(.enter)) == .cancel)
        var esc = BarPrompt()
        _ = esc.key(Key("7"))
        #expect(esc.key(Key(.escape)) == .cancel)
    }
}
