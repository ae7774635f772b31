import MIDIFile
import Terminal

/// Colours and glyphs for one colour depth. In monochrome (NO_COLOR, TERM=dumb) meaning is
/// carried by characters and attributes only, so every distinction survives without colour.
public struct Theme: Sendable {
    public let monochrome: Bool

    public init(depth: ColorDepth) {
        monochrome = depth == .none
    }

    // Keyboard
    static let whiteKey = Color.rgb(226, 226, 220)
    static let blackKey = Color.rgb(28, 28, 32)
    /// Keys the learner's keyboard does not have (`--keys`, `--range`).
    static let offWhiteKey = Color.rgb(120, 120, 126)
    static let offBlackKey = Color.rgb(70, 70, 76)
    static let keyEdge = Color.rgb(120, 120, 120)
    static let keyLabel = Color.rgb(90, 90, 90)

    /// Bright colour for a role (white keys, falling notes).
    func color(_ role: NoteRole) -> Color {
        switch role {
        case .rightHand: return .rgb(66, 135, 245)
        case .leftHand: return .rgb(60, 200, 80)
        case .accompaniment: return .rgb(120, 110, 150)
        case .learner: return .rgb(245, 180, 40)
        case .wrong: return .rgb(225, 55, 55)
        }
    }

    /// Darker colour for a role (lit black keys, so they still read as black keys).
    func darkColor(_ role: NoteRole) -> Color {
        switch role {
        case .rightHand: return .rgb(30, 70, 160)
        case .leftHand: return .rgb(30, 110, 50)
        case .accompaniment: return .rgb(70, 62, 95)
        case .learner: return .rgb(170, 110, 10)
        case .wrong: return .rgb(150, 25, 25)
        }
    }

    /// Monochrome fill glyph per role (keys and falling notes).
    func glyph(_ role: NoteRole) -> Unicode.Scalar {
        switch role {
        case .rightHand: return "▓"
        case .leftHand: return "▒"
        case .accompaniment: return "░"
        case .learner: return "●"
        case .wrong: return "×"
        }
    }

    /// Letter naming a role (lit white keys in monochrome, legends).
    func letter(_ role: NoteRole) -> Unicode.Scalar {
        switch role {
        case .rightHand: return "R"
        case .leftHand: return "L"
        case .accompaniment: return "a"
        case .learner: return "P"
        case .wrong: return "X"
        }
    }

    // Chrome
    var statusStyle: Style { monochrome ? Style(attributes: .reverse) : Style(fg: .rgb(235, 235, 240), bg: .rgb(40, 46, 66)) }
    var statusAccent: Style { monochrome ? Style(attributes: [.reverse, .bold]) : Style(fg: .rgb(255, 210, 90), bg: .rgb(40, 46, 66), attributes: .bold) }
    var loopColor: Color { .rgb(0, 190, 200) }
    var barLineStyle: Style { monochrome ? Style(attributes: .dim) : Style(bg: .rgb(38, 38, 48)) }
    var barNumberStyle: Style { monochrome ? Style(attributes: .dim) : Style(fg: .rgb(140, 140, 155), bg: .rgb(38, 38, 48)) }
    var loopLineStyle: Style { monochrome ? Style(attributes: .bold) : Style(fg: loopColor, attributes: .bold) }
    var hintStyle: Style { monochrome ? Style(attributes: .dim) : Style(fg: .rgb(150, 150, 160)) }
    var messageStyle: Style { monochrome ? Style(attributes: .bold) : Style(fg: .rgb(255, 210, 90), attributes: .bold) }
    var panelStyle: Style { monochrome ? Style() : Style(fg: .rgb(230, 230, 235), bg: .rgb(30, 34, 48)) }
    var panelTitle: Style { monochrome ? Style(attributes: .bold) : Style(fg: .rgb(255, 210, 90), bg: .rgb(30, 34, 48), attributes: .bold) }
    var panelKey: Style { monochrome ? Style(attributes: .bold) : Style(fg: .rgb(120, 200, 255), bg: .rgb(30, 34, 48), attributes: .bold) }
    var timelineTrack: Style { monochrome ? Style(attributes: .dim) : Style(fg: .rgb(80, 80, 95)) }
    var timelineDone: Style { monochrome ? Style() : Style(fg: .rgb(150, 150, 170)) }
    var timelineLoop: Style { monochrome ? Style(attributes: .bold) : Style(fg: loopColor) }
    var timelineHead: Style { monochrome ? Style(attributes: .bold) : Style(fg: .rgb(255, 210, 90), attributes: .bold) }
}

/// Every piece of text drawn comes through here: a MIDI file's track name or marker cannot
/// carry an escape sequence to the terminal.
@inline(__always) func safe(_ text: String) -> String { TextDecoding.sanitize(text) }

extension CellBuffer {
    /// Writes sanitized text, shortened by `CellBuffer.cut`'s rule (never mid-word) when it
    /// does not fit.
    @discardableResult
    mutating func text(_ s: String, x: Int, y: Int, style: Style, maxWidth: Int) -> Int {
        guard maxWidth > 0 else { return 0 }
        let clean = safe(s)
        return write(CellBuffer.cut(clean, width: maxWidth), x: x, y: y, style: style, maxWidth: maxWidth)
    }
}
