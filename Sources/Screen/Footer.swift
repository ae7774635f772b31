import Terminal

/// The bottom line of the practice screens and the browser: a message or the key hints on the left, and the
/// keys that must never vanish — `? help` and `q quit` — always on the right, whatever the
/// width. Hints are dropped from the end when they do not fit; a long message is cut with `…`.
public struct Footer: Widget, Sendable {
    public let theme: Theme
    public let message: String?
    public let hints: [String]
    public let essentials: [String]

    public init(theme: Theme, message: String?, hints: [String], essentials: [String] = Footer.essentials) {
        self.theme = theme
        self.message = message
        self.hints = hints
        self.essentials = essentials
    }

    /// Always shown.
    public static let essentials = ["? help", "q quit"]

    /// The hints when the learner's keys are the usual controls.
    public static let controls = ["space play/pause", "←/→ bar", "[ ] loop", "+/- tempo", "h hand", "v view", "M mode"]

    /// The hints when the computer keyboard plays notes: which letters are notes, and how the
    /// commands those letters shadow are still reached.
    public static let pianoKeys = ["notes: a w s e d f t g y h u j k", "z x octave", "Alt+key or F2–F10: commands", "space play/pause"]

    /// The text of the left part and of the right part for `width` columns.
    public static func parts(width: Int, message: String?, hints: [String], essentials: [String] = essentials) -> (left: String, right: String) {
        let right = essentials.joined(separator: "  ·  ")
        let room = max(0, width - 2 - CellBuffer.width(of: right) - 3)
        if let message, !message.isEmpty {
            return (CellBuffer.cut(message, width: room), right)
        }
        var left = ""
        for h in hints {
            let next = left.isEmpty ? h : left + "  ·  " + h
            guard CellBuffer.width(of: next) <= room else { break }
            left = next
        }
        return (left, right)
    }

    /// Draws the footer on the top row of `area`.
    public func render(into area: Rect, buffer: inout CellBuffer) {
        let (y, width) = (area.y, area.width)
        let (left, right) = Footer.parts(width: width, message: message, hints: hints, essentials: essentials)
        let hasMessage = message.map { !$0.isEmpty } ?? false
        buffer.text(left, x: area.x + 1, y: y, style: hasMessage ? theme.messageStyle : theme.hintStyle, maxWidth: max(0, width - 2))
        let rw = CellBuffer.width(of: right)
        buffer.text(right, x: area.x + max(1, width - 1 - rw), y: y, style: theme.hintStyle, maxWidth: rw)
    }
}
