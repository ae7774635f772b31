import Judge
import Terminal

/// A judged note's mark on the falling notes after a pass (and in the bar-by-bar review): a
/// glyph in the note's first cell, so the verdict reads without colour (NO_COLOR), and a colour
/// for the whole note. One mark a note: its worst verdict, onset first (`NoteVerdict.worst`).
public enum VerdictMark: String, Sendable, Equatable, Hashable, CaseIterable {
    case ok, early, late, wrong, missed, wrongKeyFirst, short, long, loud, soft

    /// The mark for a note as the ear heard it.
    public init(_ v: NoteVerdict) {
        switch v.worst {
        case "early": self = .early
        case "late": self = .late
        case "wrong": self = .wrong
        case "missed": self = .missed
        case "wrong key first": self = .wrongKeyFirst
        case "short": self = .short
        case "long": self = .long
        case "loud": self = .loud
        case "soft": self = .soft
        default: self = .ok
        }
    }

    /// One cell wide in every terminal: `×` and `◌` are the staff's own marks for wrong and
    /// missed; `.` is cut short as a staccato dot is, `=` held on; `f` too loud, `p` too soft.
    public var glyph: Unicode.Scalar {
        switch self {
        case .ok: return "✓"
        case .early: return "‹"
        case .late: return "›"
        case .wrong: return "×"
        case .missed: return "◌"
        case .wrongKeyFirst: return "x"
        case .short: return "."
        case .long: return "="
        case .loud: return "f"
        case .soft: return "p"
        }
    }

    /// What the glyph means, for the help and the README.
    public var meaning: String {
        switch self {
        case .ok: return "right"
        case .early: return "early"
        case .late: return "late"
        case .wrong: return "wrong key"
        case .missed: return "missed"
        case .wrongKeyFirst: return "right after a wrong key"
        case .short: return "released short"
        case .long: return "held long"
        case .loud: return "too loud"
        case .soft: return "too soft"
        }
    }

    /// "✓ right  ‹ early  › late …": every mark and its meaning on one line.
    public static var legend: String { allCases.map { "\(Character($0.glyph)) \($0.meaning)" }.joined(separator: "  ") }
}

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
