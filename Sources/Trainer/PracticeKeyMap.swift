import Practice
import Terminal

/// The practice screen's keys: which key asks for which `PracticeCommand`. Lives beside the
/// terminal wiring; the help overlay (`PracticeKeys` in Screen) lists the same keys.
public enum PracticeKeyMap {
    /// The command for a key, or nil. With `pianoKeys` on (the playing modes on the computer
    /// keyboard), the piano letters and `z`/`x` play notes first — `h` is then the A key, not
    /// the hand switch.
    public static func command(for key: Key, pianoKeys: Bool = false) -> PracticeCommand? {
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
