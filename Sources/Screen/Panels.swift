import Judge
import Terminal

/// The keys of the practice screen, as the help overlay lists them. Kept as data so the help
/// and the key handling the caller writes can be checked against each other.
public enum PracticeKeys {
    public struct Entry: Sendable, Equatable {
        public let keys: String
        public let action: String
        /// An entry a command adds (e.g. `--gestures`' keys on the instrument).
        public init(keys: String, action: String) {
            self.keys = keys
            self.action = action
        }
    }

    public static let controls: [Entry] = [
        Entry(keys: "space", action: "play / pause"),
        Entry(keys: "← →", action: "previous / next bar"),
        Entry(keys: "g N Enter", action: "go to bar N (F10)"),
        Entry(keys: "Home", action: "restart"),
        Entry(keys: "[  ]", action: "loop start / end here"),
        Entry(keys: "l", action: "loop on / off"),
        Entry(keys: "s", action: "save this loop (F4)"),
        Entry(keys: "L", action: "next saved loop (F5)"),
        Entry(keys: "+  -", action: "tempo +5 % / −5 %"),
        Entry(keys: "h", action: "hand: both / right / left (F2)"),
        Entry(keys: "o", action: "other hand: play / quiet / mute (F3)"),
        Entry(keys: "m", action: "metronome on / off (F7)"),
        Entry(keys: "n", action: "note names on / off (F8)"),
        Entry(keys: "v", action: "view: falling notes / staff / both"),
        Entry(keys: "?", action: "this help (F1)"),
        Entry(keys: "q  Esc", action: "quit"),
    ]

    public static let piano: [Entry] = [
        Entry(keys: "a w s e d f t g y h u j k", action: "piano C … C (play modes)"),
        Entry(keys: "z  x", action: "piano octave down / up"),
        Entry(keys: "Alt+key  F-key", action: "a command while letters are notes"),
    ]

    /// The playing modes' keys (listed last: a short terminal shows the controls first).
    public static let modes: [Entry] = [
        Entry(keys: "M  F", action: "mode (F6) / follow my tempo (F11)"),
        Entry(keys: "W  G", action: "loop the weakest section (F9) / guide (F12)"),
        Entry(keys: "r  Enter", action: "last pass: save as .mid / review"),
    ]

    /// What the help lists on the practice screen.
    public static let all = controls + piano + modes

    /// The review of a pass (Enter on the results panel): its keys, then what each mark means.
    public static let review: [Entry] = [
        Entry(keys: "→  n", action: "next bar"),
        Entry(keys: "←  p", action: "previous bar"),
        Entry(keys: "Home", action: "first bar with a mistake"),
        Entry(keys: "v", action: "view: falling notes / staff / both"),
        Entry(keys: "Esc  Enter", action: "back to the results"),
        Entry(keys: "q", action: "quit"),
    ] + VerdictMark.allCases.map { Entry(keys: String(Character($0.glyph)), action: $0.meaning) }

    /// The same screen as a step of `etude routine run`: → moves to the next entry and q ends
    /// the routine.
    public static let inRoutine: [Entry] = controls.flatMap { e -> [Entry] in
        switch e.keys {
        case "← →": return [Entry(keys: "←", action: "previous bar"), Entry(keys: "→", action: "next routine entry")]
        case "q  Esc": return [Entry(keys: "q  Esc", action: "end the routine")]
        default: return [e]
        }
    } + piano + modes
}

/// A framed box centred in an area, filled with the panel style.
struct PanelBox {
    static func draw(into buffer: inout CellBuffer, area: Rect, theme: Theme, title: String, width: Int, height: Int) -> (x: Int, y: Int) {
        let w = max(2, min(width, area.width))
        let h = max(2, min(height, area.height))
        let x = area.x + max(0, (area.width - w) / 2)
        let y = area.y + max(0, (area.height - h) / 2)
        let style = theme.panelStyle
        buffer.fill(x: x, y: y, width: w, height: h, Cell(" ", style))
        for c in (x + 1)..<(x + w - 1) {
            buffer.put(c, y, "─", style)
            buffer.put(c, y + h - 1, "─", style)
        }
        for r in (y + 1)..<(y + h - 1) {
            buffer.put(x, r, "│", style)
            buffer.put(x + w - 1, r, "│", style)
        }
        buffer.put(x, y, "┌", style)
        buffer.put(x + w - 1, y, "┐", style)
        buffer.put(x, y + h - 1, "└", style)
        buffer.put(x + w - 1, y + h - 1, "┘", style)
        let t = " \(title) "
        let tw = CellBuffer.width(of: t)
        buffer.text(t, x: x + max(1, (w - tw) / 2), y: y, style: theme.panelTitle, maxWidth: w - 2)
        return (x, y)
    }
}

/// `?`: every key in one box (two columns when the terminal is short).
public struct HelpOverlay: Widget, Sendable {
    public let theme: Theme
    public let entries: [PracticeKeys.Entry]
    public init(theme: Theme, entries: [PracticeKeys.Entry] = PracticeKeys.all) {
        self.theme = theme
        self.entries = entries
    }

    /// A box centred in `area`.
    public func render(into area: Rect, buffer: inout CellBuffer) {
        // When the entries do not fit one under the other, they go in two columns (a short
        // terminal still lists every key, q included).
        let rowsAvailable = max(1, area.height - 2)
        let columns = entries.count > rowsAvailable ? 2 : 1
        let perColumn = (entries.count + columns - 1) / columns
        let groups = stride(from: 0, to: entries.count, by: perColumn).map { Array(entries[$0..<min(entries.count, $0 + perColumn)]) }
        // In each column the key column is as wide as its widest control key; a longer key (the
        // piano row) pushes only its own description right.
        func keyWidth(_ g: [PracticeKeys.Entry]) -> Int {
            g.filter { !PracticeKeys.piano.contains($0) }.map { CellBuffer.width(of: $0.keys) }.max() ?? 0
        }
        func actionOffset(_ e: PracticeKeys.Entry, _ kw: Int) -> Int { max(kw, CellBuffer.width(of: e.keys)) + 2 }
        let widths = groups.map { g in g.map { actionOffset($0, keyWidth(g)) + CellBuffer.width(of: $0.action) }.max() ?? 0 }
        let gap = 3
        let lineWidth = widths.reduce(0, +) + gap * (groups.count - 1)
        let boxWidth = min(area.width, lineWidth + 4)
        let boxHeight = min(area.height, perColumn + 2)
        let (bx, by) = PanelBox.draw(into: &buffer, area: area, theme: theme, title: "Keys", width: boxWidth, height: boxHeight)
        var x = bx + 2
        for (g, group) in groups.enumerated() {
            let kw = keyWidth(group)
            let room = max(0, bx + boxWidth - 2 - x)
            for (i, e) in group.enumerated() {
                let y = by + 1 + i
                guard y < by + boxHeight - 1 else { break }
                buffer.text(e.keys, x: x, y: y, style: theme.panelKey, maxWidth: room)
                buffer.text(e.action, x: x + actionOffset(e, kw), y: y, style: theme.panelStyle,
                            maxWidth: max(0, room - actionOffset(e, kw)))
            }
            x += widths[g] + gap
        }
        let footer = " any key closes this help "
        let fw = CellBuffer.width(of: footer)
        buffer.text(footer, x: bx + max(1, (boxWidth - fw) / 2), y: by + boxHeight - 1, style: theme.panelStyle, maxWidth: boxWidth - 2)
    }
}

/// The end of a pass: hits, misses, wrong and extra notes, accuracy, timing, score.
public struct ResultsPanel: Widget, Sendable {
    public let theme: Theme
    public let results: ResultsInfo
    public init(theme: Theme, results: ResultsInfo) {
        self.theme = theme
        self.results = results
    }

    public static func lines(_ r: ResultsInfo) -> [String] {
        let f = r.figures
        if let perChord = r.secondsPerChord {
            // Wait mode: the music waited for every chord, so timing means nothing here.
            var lines = [
                "hit \(f.hit)   missed \(f.missed)   wrong \(f.wrong)   extra \(f.extra)",
                "accuracy \(formatted(f.accuracy, decimals: 1)) %",
                "time per chord \(formatted(perChord, decimals: 1)) s",
            ]
            if let ear = r.earLine { lines.append(ear) }
            lines += r.review
            lines.append("score \(formatted(f.score, decimals: 0))")
            return lines
        }
        var lines = [
            "hit \(f.hit)   missed \(f.missed)   wrong \(f.wrong)   extra \(f.extra)",
            "accuracy \(formatted(f.accuracy, decimals: 1)) %",
        ]
        if let ear = r.earLine { lines.append(ear) }
        if let tempo = r.tempoLine { lines.append(tempo) }
        if let (mean, sd) = f.timing {
            var t = "timing \(mean >= 0 ? "+" : "−")\(formatted(abs(mean), decimals: 0)) ms"
            t += " ± \(formatted(sd, decimals: 0)) ms"
            t += " (\(TimingLean(meanMs: mean).word))"
            lines.append(t)
        }
        if r.offsetMs.isFinite, r.offsetMs.rounded() != 0 {
            lines.append("input offset \(formatted(r.offsetMs, decimals: 0)) ms applied")
        }
        if let hint = r.timingHint { lines.append(hint) }
        lines += r.review
        lines.append("score \(formatted(f.score, decimals: 0))")
        if let next = r.speedTrainer { lines.append(next) }
        return lines
    }

    static func formatted(_ v: Double, decimals: Int) -> String {
        guard v.isFinite, abs(v) < 1e12 else { return "–" }
        if decimals == 0 { return String(Int(v.rounded())) }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let n = Int((v * scale).rounded())
        let whole = n / Int(scale)
        var frac = String(abs(n % Int(scale)))
        while frac.count < decimals { frac = "0" + frac }
        return "\(whole).\(frac)"
    }

    /// A box centred in `area`.
    public func render(into area: Rect, buffer: inout CellBuffer) {
        let lines = ResultsPanel.lines(results) + [""] + (results.reviewKey.map { ["\($0) reviews the pass bar by bar"] } ?? []) + ["any key continues"]
        let w = (lines.map { CellBuffer.width(of: $0) }.max() ?? 20) + 6
        let (bx, by) = PanelBox.draw(into: &buffer, area: area, theme: theme, title: results.title, width: max(w, 30), height: lines.count + 2)
        for (i, l) in lines.enumerated() {
            let scoreRow = lines.count - 3 - (results.speedTrainer == nil ? 0 : 1) - (results.reviewKey == nil ? 0 : 1)
            buffer.text(l, x: bx + 3, y: by + 1 + i, style: i == scoreRow ? theme.panelTitle : theme.panelStyle, maxWidth: max(w, 30) - 4)
        }
    }
}

/// Shown instead of the practice screen while the terminal is too small.
public struct TooSmallMessage: Widget, Sendable {
    public let theme: Theme
    /// The size the screen needs.
    public let minimum: TerminalSize
    public init(theme: Theme, minimum: TerminalSize) {
        self.theme = theme
        self.minimum = minimum
    }

    public static func lines(size: TerminalSize, minimum: TerminalSize) -> [String] {
        [
            "Terminal too small: \(size.columns)×\(size.rows)",
            "need at least \(minimum.columns)×\(minimum.rows)",
            "enlarge the window to continue",
            "(q quits)",
        ]
    }

    public func render(into area: Rect, buffer: inout CellBuffer) {
        let lines = TooSmallMessage.lines(size: area.size, minimum: minimum)
        let top = area.y + max(0, (area.height - lines.count) / 2)
        for (i, l) in lines.enumerated() {
            let w = CellBuffer.width(of: l)
            buffer.text(l, x: area.x + max(0, (area.width - w) / 2), y: top + i, style: i == 0 ? theme.messageStyle : Style(), maxWidth: area.width)
        }
    }
}
