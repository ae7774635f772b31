/// What the learner asks of a practice session, whatever the key or input that said it: the
/// controller applies it to the transport and the coach. (The terminal's key map lives with the
/// terminal wiring, in FrontEnd.)
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
    /// `v`: falling notes → staff → staff above the keyboard (the screen's own choice).
    case cycleView
    /// `s`: save the current loop (bars, hand, tempo, other hand) under an automatic name.
    case saveLoop
    /// `L`: the next of the lesson's saved loops (bars, hand, tempo, other hand).
    case recallLoop
    case quit
    /// `M`: watch → wait → play → memory.
    case cycleMode
    /// `G`: the guide on / off: the learner's own part heard quietly on the synth while they
    /// play (`--guide`).
    case toggleGuide
    /// `W`: after a full run, loop the weakest section at 70 % with the speed trainer on.
    case loopWeakestSection
    /// `r`: save the last pass as played to a .mid file.
    case saveLastPass
    /// `g`: go to a bar; the screen asks for its number (`PracticeController.goToBar`).
    case goToBar
    /// Computer-keyboard piano: semitones above the current octave's C (0…12).
    case pianoKey(semitone: Int)
    case octaveDown
    case octaveUp
    /// `F`: Etude's part follows the learner's tempo, or keeps the lesson's (play and memory mode).
    case toggleFollow

    /// The piano row: `a w s e d f t g y h u j k` = C C# D D# E F F# G G# A A# B C.
    public static let pianoLetters: [Character] = ["a", "w", "s", "e", "d", "f", "t", "g", "y", "h", "u", "j", "k"]
}
