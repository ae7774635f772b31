import Terminal

/// What a key asks the practice session to do. The screen turns keys into commands so the key
/// map and the help overlay live side by side; the caller applies them to its transport.
public enum PracticeCommand: Equatable, Sendable {
    case playPause
    case previousBar
    case nextBar
    case restart
    /// `[` / `]`: loop start / end at the current bar.
    case loopStartHere
    case loopEndHere
    case toggleLoop
    /// `+` / `-`: tempo ±5 %.
    case tempoUp
    case tempoDown
    /// `h`: both → right → left.
    case cycleHand
    /// `o`: the other hand plays → quiet → mute.
    case cycleOtherHand
    case toggleMetronome
    case toggleNoteNames
    case toggleHelp
    /// `s`: save the current loop (bars, hand, tempo, other hand) under an automatic name.
    case saveLoop
    /// `L`: the next of the lesson's saved loops (bars, hand, tempo, other hand).
    case recallLoop
    case quit
    /// `M`: watch → wait → play → memory.
    case cycleMode
    /// `W`: after a full run, loop the weakest section at 70 % with the speed trainer on.
    case loopWeakestSection
    /// `r`: save the last pass as played to a .mid file.
    case saveLastPass
    /// Computer-keyboard piano: semitones above the current octave's C (0…12).
    case pianoKey(semitone: Int)
    case octaveDown
    case octaveUp

    /// The piano row: `a w s e d f t g y h u j k` = C C# D D# E F F# G G# A A# B C.
    public static let pianoLetters: [Character] = ["a", "w", "s", "e", "d", "f", "t", "g", "y", "h", "u", "j", "k"]

    /// The command for a key, or nil. With `pianoKeys` on (the playing modes), the piano
    /// letters and `z`/`x` play notes first — `h` is then the A key, not the hand switch.
    public static func command(for key: Key, pianoKeys: Bool = false) -> PracticeCommand? {
        if case .character(let c) = key.code, key.modifiers.isEmpty || key.modifiers == .shift {
            if pianoKeys {
                if let i = pianoLetters.firstIndex(of: c) { return .pianoKey(semitone: i) }
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
            case "s": return .saveLoop
            case "L": return .recallLoop
            case "q": return .quit
            case "M": return .cycleMode
            case "W": return .loopWeakestSection
            case "r": return .saveLastPass
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
