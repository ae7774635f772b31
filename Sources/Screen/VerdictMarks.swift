import Judge
import Terminal

// `VerdictMark` (Judge) is a judged note's mark on the falling notes after a pass (and in the
// bar-by-bar review): its glyph in the note's first cell, so the verdict reads without colour
// (NO_COLOR), and here its colour for the whole note.

extension Theme {
    /// A verdict's colour: green right, amber early or late, red wrong, grey missed, violet for a
    /// note struck right but held or played off.
    func verdictColor(_ mark: VerdictMark) -> Color {
        switch mark {
        case .ok: return .rgb(70, 190, 110)
        case .early, .late: return .rgb(235, 190, 50)
        case .wrong, .wrongKeyFirst: return .rgb(225, 55, 55)
        case .missed: return .rgb(115, 115, 125)
        case .short, .long, .loud, .soft: return .rgb(185, 110, 235)
        }
    }
}
