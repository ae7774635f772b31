import Practice
import Terminal

/// The practice screen's keys: which key asks for which `PracticeCommand`. Lives beside the
/// terminal wiring; the help overlay (`PracticeKeys` in Screen) lists the same keys.
///
/// While the computer keyboard plays notes, its piano letters (`a w s e d f t g y h u j k`, `z`
/// `x`) are notes, so every command also has a key that is never a note: Alt with the command's
/// letter (Alt-h for the hand), or a function key — F2 hand, F3 other hand, F4 save loop,
/// F5 next saved loop, F6 mode, F7 metronome, F8 note names, F9 weakest section, F10 go to
/// bar, F11 follow, F12 the guide (F1 is help).
public enum PracticeKeyMap {
    /// The function keys and the commands they give, in every mode.
    public static let functionKeys: [Int: PracticeCommand] = [
        1: .toggleHelp, 2: .cycleHand, 3: .cycleOtherHand, 4: .saveLoop, 5: .recallLoop,
        6: .cycleMode, 7: .toggleMetronome, 8: .toggleNoteNames, 9: .loopWeakestSection, 10: .goToBar, 11: .toggleFollow,
        12: .toggleGuide,
    ]

    /// The command for a key, or nil. With `pianoKeys` on (the playing modes on the computer
    /// keyboard), the piano letters and `z`/`x` play notes first — `h` is then the A key, not
    /// the hand switch (Alt-h and F2 still switch hands).
    public static func command(for key: Key, pianoKeys: Bool = false) -> PracticeCommand? {
        if case .function(let n) = key.code, key.modifiers.isEmpty { return functionKeys[n] }
        if case .character(let c) = key.code, key.modifiers == .alt || key.modifiers == [.alt, .shift] {
            // Alt with a command's letter: the command even when the letter is a note.
            return command(for: Key(.character(c)), pianoKeys: false)
        }
        if case .character(let c) = key.code, key.modifiers.isEmpty || key.modifiers == .shift {
            if pianoKeys {
                if let i = PracticeCommand.pianoLetters.firstIndex(of: c) { return .pianoKey(semitone: i) }
                if c == "z" { return .octaveDown }
                if c == "x" { return .octaveUp }
            }
            switch c {
            case " ": return .playPause
            case "[": return .loopStartHere
            case "]": return .loopEndHere
            case "l": return .toggleLoop
            case "+", "=": return .tempoUp
            case "-", "_": return .tempoDown
            case "h": return .cycleHand
            case "o": return .cycleOtherHand
            case "m": return .toggleMetronome
            case "n": return .toggleNoteNames
            case "?": return .toggleHelp
            case "v": return .cycleView
            case "s": return .saveLoop
            case "L": return .recallLoop
            case "q": return .quit
            case "M": return .cycleMode
            case "W": return .loopWeakestSection
            case "G": return .toggleGuide
            case "r": return .saveLastPass
            case "g": return .goToBar
            case "F": return .toggleFollow
            default: return nil
            }
        }
        guard key.modifiers.isEmpty else { return nil }
        switch key.code {
        case .left: return .previousBar
        case .right: return .nextBar
        case .home: return .restart
        case .escape: return .quit
        default: return nil
        }
    }
}

/// `g`, a bar number, Enter: the practice screen's way to a bar (40 of a 144-bar rag without
/// 39 presses of →). While it is open, digits (and `@` for a repeat's second time) type the
/// number, Backspace takes one back, Enter goes, Esc or an empty Enter cancels; no other key
/// acts, so a piano letter cannot slip through as a command.
public struct BarPrompt: Equatable, Sendable {
    public private(set) var typed = ""

    public init() {}

    public enum Step: Equatable, Sendable {
        case typing
        case cancel
        case go(String)
    }

    public mutating func key(_ key: Key) -> Step {
        switch key.code {
        case .character(let c) where (c.isASCII && c.isNumber) || c == "@" || c == "-":
            if typed.count < 12 { typed.append(c) }
            return .typing
        case .backspace:
            if !typed.isEmpty { typed.removeLast() }
            return .typing
        case .enter:
            return typed.isEmpty ? .cancel : .go(typed)
        case .escape:
            return .cancel
        default:
            if key == Key.ctrl("c") { return .cancel }
            return .typing
        }
    }

    /// The status line while typing.
    public var message: String { "go to bar: \(typed)_   (Enter goes, Esc cancels)" }
}
