import Judge
import Terminal

/// The calibration screen as plain values: the beats clicked so far, where each tap landed,
/// and the result once it is there. FrontEnd builds it from a running calibration.
public struct CalibrationModel: Equatable, Sendable {
    /// The device calibrated, as the learner reads it ("the computer keyboard").
    public var device: String
    public var bpm: Double
    public var beats: Int
    /// Beats at the start that only count the learner in.
    public var countIn: Int
    /// Beats clicked so far.
    public var clicked: Int
    /// A click sounded a moment ago: the beat lamp is lit.
    public var flash: Bool
    /// The last click's tap may still come (less than half a beat since it).
    public var awaitingTap: Bool
    /// Where each beat's tap landed (ms after its click; negative = before), by beat index.
    public var tapsMs: [Int: Double]
    /// The last tap's beat index, drawn brighter.
    public var lastTap: Int?
    /// Half a beat in ms: the farthest a tap may land from its click and still count.
    public var halfBeatMs: Double
    /// The result's lines once the last beat is over (empty while it runs).
    public var result: [String]
    /// The result was refused (drawn as a warning).
    public var refused: Bool
    /// The keys line at the bottom.
    public var footer: String

    public init(device: String, bpm: Double, beats: Int, countIn: Int, clicked: Int = 0, flash: Bool = false,
                awaitingTap: Bool = false, tapsMs: [Int: Double] = [:], lastTap: Int? = nil, halfBeatMs: Double,
                result: [String] = [], refused: Bool = false, footer: String) {
        self.device = device
        self.bpm = bpm
        self.beats = beats
        self.countIn = countIn
        self.clicked = clicked
        self.flash = flash
        self.awaitingTap = awaitingTap
        self.tapsMs = tapsMs
        self.lastTap = lastTap
        self.halfBeatMs = halfBeatMs
        self.result = result
        self.refused = refused
        self.footer = footer
    }

    /// "count-in 2/4", "beat 7/16", or "done" once the result is there.
    public var beatText: String {
        if !result.isEmpty { return "done" }
        if clicked == 0 { return "get ready" }
        if clicked <= countIn { return "count-in \(clicked)/\(countIn)" }
        return "beat \(clicked)/\(beats)"
    }

    /// What to do now, in one line.
    public var instruction: String {
        if !result.isEmpty { return "" }
        if clicked < countIn { return "Listen to the clicks; from beat \(countIn + 1) play any key exactly with each one" }
        return "Play any key exactly with each click"
    }
}

/// Draws the calibration screen: a status line, the beat lamp and counter, one mark per beat,
/// a scale from early to late with every tap on it, the instruction or the result, the keys.
/// Pure: model + size → cells.
public struct CalibrationScreen: Sendable {
    public static let minimumSize = TerminalSize(columns: 40, rows: 14)
    public let theme: Theme

    public init(depth: ColorDepth) { theme = Theme(depth: depth) }

    public func render(_ model: CalibrationModel, size: TerminalSize) -> CellBuffer {
        var buffer = CellBuffer(size: size)
        render(model, into: &buffer, size: size)
        return buffer
    }

    public func render(_ model: CalibrationModel, into buffer: inout CellBuffer, size: TerminalSize) {
        ScreenPrelude.draw(into: &buffer, size: size, minimum: Self.minimumSize, theme: theme) { area, buffer in
            render(model, into: area, buffer: &buffer)
        }
    }

    /// Draws the calibration screen into `area` (the whole terminal, at least `minimumSize`).
    public func render(_ model: CalibrationModel, into area: Rect, buffer: inout CellBuffer) {
        let w = area.width, h = area.height
        HeaderBar(theme: theme, title: "Etude — timing calibration · \(model.device)", right: "♩=\(Int(model.bpm.rounded()))")
            .render(into: area.row(0), buffer: &buffer)
        let top = max(2, (h - 12) / 2)
        drawLamp(model, into: &buffer, y: top, width: w)
        centred(model.beatText, y: top + 4, style: Style(attributes: .bold), into: &buffer)
        drawBeats(model, into: &buffer, y: top + 6, width: w)
        drawScale(model, into: &buffer, y: top + 8, width: w)
        if model.result.isEmpty {
            centred(model.instruction, y: top + 11, style: theme.messageStyle, into: &buffer)
        } else {
            for (i, line) in model.result.enumerated() {
                centred(line, y: top + 11 + i, style: i == 0 ? Style(attributes: .bold) : (model.refused ? theme.messageStyle : Style()),
                        into: &buffer)
            }
        }
        buffer.text(model.footer, x: 1, y: h - 1, style: theme.hintStyle, maxWidth: w - 2)
    }

    func centred(_ text: String, y: Int, style: Style, into buffer: inout CellBuffer) {
        guard y < buffer.height - 1 else { return }
        let tw = CellBuffer.width(of: safe(text))
        buffer.text(text, x: max(1, (buffer.width - tw) / 2), y: y, style: style, maxWidth: buffer.width - 2)
    }

    /// A lamp 9 cells wide and 3 high: lit on the click, an outline between clicks.
    func drawLamp(_ model: CalibrationModel, into buffer: inout CellBuffer, y: Int, width: Int) {
        let x = (width - 9) / 2
        let accent = model.clicked > 0 && (model.clicked - 1) % 4 == 0
        let lit = theme.monochrome ? Style(attributes: .bold) : Style(fg: accent ? .rgb(255, 210, 90) : .rgb(66, 135, 245))
        for row in 0..<3 {
            for col in 0..<9 {
                let edge = row == 0 || row == 2 || col == 0 || col == 8
                if model.flash {
                    buffer.put(x + col, y + row, "█", lit)
                } else if edge {
                    buffer.put(x + col, y + row, row == 0 ? (col == 0 ? "┌" : col == 8 ? "┐" : "─")
                               : row == 2 ? (col == 0 ? "└" : col == 8 ? "┘" : "─") : "│", theme.hintStyle)
                }
            }
        }
    }

    /// One mark per beat: · to come, ○ counted in (or its tap still due), ● tapped, × passed without a tap.
    func drawBeats(_ model: CalibrationModel, into buffer: inout CellBuffer, y: Int, width: Int) {
        var marks: [(Unicode.Scalar, Style)] = []
        for i in 0..<model.beats {
            let tapped = model.tapsMs[i] != nil
            if i >= model.clicked {
                marks.append(("·", theme.hintStyle))
            } else if !tapped && model.awaitingTap && i == model.clicked - 1 {
                marks.append(("○", Style(attributes: .bold)))
            } else if i < model.countIn {
                marks.append((tapped ? "●" : "○", theme.hintStyle))
            } else {
                marks.append(tapped ? ("●", i == model.lastTap ? theme.messageStyle : Style(attributes: .bold))
                                    : ("×", theme.monochrome ? Style(attributes: .dim) : Style(fg: .rgb(225, 55, 55))))
            }
            if i == model.countIn - 1 { marks.append(("│", theme.hintStyle)) }
        }
        let span = marks.count * 2 - 1
        guard span < width - 2 else { return }
        var x = (width - span) / 2
        for (glyph, style) in marks {
            buffer.put(x, y, glyph, style)
            x += 2
        }
    }

    /// early ───┼─── late, the taps on it (half a beat each way), the click at the centre.
    func drawScale(_ model: CalibrationModel, into buffer: inout CellBuffer, y: Int, width: Int) {
        let half = min(30, (width - 20) / 2)
        guard half >= 5 else { return }
        let centre = width / 2
        buffer.text(VerdictMark.early.word, x: centre - half - 6, y: y, style: theme.hintStyle, maxWidth: 5)
        buffer.text(VerdictMark.late.word, x: centre + half + 2, y: y, style: theme.hintStyle, maxWidth: 4)
        for x in (centre - half)...(centre + half) { buffer.put(x, y, "─", theme.timelineTrack) }
        buffer.put(centre, y, "┼", theme.timelineHead)
        let scale = Double(half) / max(1, model.halfBeatMs)
        for (beat, ms) in model.tapsMs.sorted(by: { $0.key < $1.key }) where ms.isFinite {
            let x = centre + Int((ms * scale).rounded())
            guard x >= centre - half, x <= centre + half else { continue }
            let last = beat == model.lastTap
            let counted = beat >= model.countIn
            buffer.put(x, y, "●", last ? theme.messageStyle : counted ? Style(attributes: .bold) : theme.hintStyle)
        }
        let label = "−\(Int(model.halfBeatMs.rounded())) ms"
        buffer.text(label, x: centre - half, y: y + 1, style: theme.hintStyle, maxWidth: 12)
        buffer.text("0", x: centre, y: y + 1, style: theme.hintStyle, maxWidth: 1)
        let right = "+\(Int(model.halfBeatMs.rounded())) ms"
        buffer.text(right, x: centre + half + 1 - CellBuffer.width(of: right), y: y + 1, style: theme.hintStyle, maxWidth: 12)
    }
}
