import Terminal

/// Upcoming notes falling toward their keys: the bottom row is "now", the top row is
/// `lookaheadSeconds` ahead. A note's height is its duration; bar lines (with bar numbers) and
/// the loop's start/end are drawn across; the loop's extent is marked at both edges.
public struct FallingNotesWidget: Widget, Sendable {
    public let theme: Theme
    /// The keyboard the notes fall onto (its columns count from the area's left edge).
    public let layout: KeyboardLayout
    public let model: ScreenModel
    public init(theme: Theme, layout: KeyboardLayout, model: ScreenModel) {
        self.theme = theme
        self.layout = layout
        self.model = model
    }

    public func render(into area: Rect, buffer: inout CellBuffer) {
        let (x, y, width, height) = (area.x, area.y, area.width, area.height)
        guard height > 0, width >= 3 else { return }
        // Times come from files and arithmetic: anything not finite is dropped, never trapped on.
        let lookahead = model.lookaheadSeconds.isFinite ? min(3600, max(0.1, model.lookaheadSeconds)) : 3
        let dt = lookahead / Double(height)
        /// Screen row for a time (seconds from now), nil when outside the view.
        func row(_ t: Double) -> Int? {
            guard t >= 0, t < lookahead else { return nil }
            return y + height - 1 - min(height - 1, Int(t / dt))
        }
        // Loop extent at both edges.
        if model.loopStartSeconds != nil || model.loopEndSeconds != nil {
            let a = max(0, model.loopStartSeconds ?? -1)
            let b = min(lookahead, model.loopEndSeconds ?? lookahead)
            if a < b, a.isFinite, b.isFinite {
                let top = row(b) ?? y
                let bottom = row(a) ?? (y + height - 1)
                if top <= bottom {
                    for r in top...bottom {
                        buffer.put(x, r, "┃", theme.loopLineStyle)
                        buffer.put(x + width - 1, r, "┃", theme.loopLineStyle)
                    }
                }
            }
        }
        for line in model.barLines {
            guard let r = row(line.seconds) else { continue }
            // Colour: a faint band of spaces (1 byte a cell when it moves); mono: a dim rule.
            let glyph: Unicode.Scalar = theme.monochrome ? "─" : " "
            for c in (x + 1)..<(x + width - 1) { buffer.put(c, r, glyph, theme.barLineStyle) }
            buffer.text(line.label, x: x + 1, y: r, style: theme.barNumberStyle, maxWidth: 4)
        }
        let loopMarks = [(model.loopStartSeconds, "loop ▼"), (model.loopEndSeconds, "loop ▲")]
        for (t, _) in loopMarks {
            guard let t, let r = row(t) else { continue }
            for c in (x + 1)..<(x + width - 1) { buffer.put(c, r, "═", theme.loopLineStyle) }
        }
        let mono = theme.monochrome
        // Notes are drawn in half rows (`▄` a lower half, `▀` an upper one), so a note's lower
        // edge meets the keyboard line at its time, never before: half row k is covered from
        // k × dt/2 seconds ahead, and a note starting `start` ahead begins at half row
        // ⌈start ÷ dt/2⌉. A note followed at once by another of its key ends half a row short,
        // so repeated notes stay apart. Without colour, a half row at a note's top is drawn as
        // a whole cell of its hand's glyph (which tells the hands apart); one at its foot stays
        // a half block, so the note never looks due early.
        let half = dt / 2
        var startsByKey: [Int: [Double]] = [:]
        for note in model.notes where note.start.isFinite { startsByKey[note.pitch, default: []].append(note.start) }
        for note in model.notes {
            guard note.end > 0, note.start < lookahead, !note.start.isNaN, !note.end.isNaN,
                  let cols = layout.noteColumns(note.pitch) else { continue }
            let halves = 2 * height
            let p0 = min(halves - 1, max(0, Int((max(0, note.start) / half).rounded(.up))))
            let top = Int((min(note.end, lookahead + half) / half).rounded(.up))
            let repeated = startsByKey[note.pitch]?.contains { $0 > note.start && abs($0 - note.end) < half } ?? false
            let p1 = min(halves, max(p0 + 1, top - (repeated && top - p0 >= 2 ? 1 : 0)))   // half rows [p0, p1)
            let fill = note.verdict.map { theme.verdictColor($0) } ?? theme.color(note.role)
            let style: Style = mono ? Style() : Style(bg: fill)
            let glyph: Unicode.Scalar = mono ? theme.glyph(note.role) : " "
            let halfStyle: Style = mono ? Style() : Style(fg: fill)
            var firstFull: Int?
            for r in (p0 / 2)...((p1 - 1) / 2) {
                let lower = p0 <= 2 * r && 2 * r < p1
                let upper = p0 <= 2 * r + 1 && 2 * r + 1 < p1
                let sy = y + height - 1 - r
                if lower && upper {
                    for c in cols { buffer.put(x + c, sy, glyph, style) }
                    if firstFull == nil { firstFull = r }
                } else if lower && mono && !repeated {
                    for c in cols { buffer.put(x + c, sy, glyph, style) }
                } else if lower || upper {
                    for c in cols { buffer.put(x + c, sy, lower ? "▄" : "▀", halfStyle) }
                }
            }
            // The verdict's glyph (or the finger) on the note's first whole row: it reads
            // without colour.
            let markRow = firstFull ?? p0 / 2
            if let v = note.verdict, note.start >= 0 {
                let sy = y + height - 1 - markRow
                let vstyle = mono ? Style(attributes: [.reverse, .bold]) : Style(fg: .rgb(0, 0, 0), bg: fill, attributes: .bold)
                buffer.put(x + cols.lowerBound, sy, v.glyph, vstyle)
            } else if model.showFingers, let f = note.finger, (1...5).contains(f), note.start >= 0,
               let digit = Unicode.Scalar(UInt32(0x30 + f)) {
                let sy = y + height - 1 - markRow
                let fstyle = mono ? Style(attributes: [.reverse, .bold]) : Style(fg: .rgb(0, 0, 0), bg: theme.color(note.role), attributes: .bold)
                buffer.put(x + cols.lowerBound, sy, digit, fstyle)
            }
        }
        // The loop's labels last, so no note falling through them cuts a letter out.
        for (t, label) in loopMarks {
            guard let t, let r = row(t) else { continue }
            buffer.text(label, x: x + width - 8, y: r, style: theme.loopLineStyle, maxWidth: 7)
        }
    }
}

/// Title, play state, bar:beat / bars, tempo (and %), then hand, other hand, loop, metronome
/// and mode on a second line.
public struct StatusBarWidget: Widget, Sendable {
    public static let height = 2
    /// What every screen and status line says when no audio device opened (the stderr notice,
    /// once per process, names `etude render` for hearing the lesson as a WAV).
    public static let silentWords = "silent (no audio)"
    /// Before the title when no audio device opened.
    public static let silentMarker = silentWords + " · "
    public let theme: Theme
    public let status: StatusInfo
    public init(theme: Theme, status: StatusInfo) {
        self.theme = theme
        self.status = status
    }

    public static func firstLineRight(_ s: StatusInfo) -> String {
        let bpm = s.bpm.isFinite && abs(s.bpm) < 1e9 ? String(Int(s.bpm.rounded())) : "–"
        let position = s.countIn.map { "\($0) → bar \(s.barLabel ?? String(s.bar))" }
            ?? "bar \(s.barLabel ?? String(s.bar)):\(s.beat)"
        return "\(position)/\(s.barsLabel ?? String(s.bars))  \(s.beatSymbol)=\(bpm) (\(s.tempoPercent)%)"
    }

    /// The second line for `width` columns: nothing cut, the parts giving way in a set order —
    /// narrower separators first, then the other hand, the metronome and the loop drop out;
    /// the hand and the mode (what the learner is doing) always stay.
    public static func secondLine(_ s: StatusInfo, width: Int) -> String {
        let full = secondLine(s)
        if CellBuffer.width(of: full) <= width { return full }
        var parts = full.components(separatedBy: "  ·  ")
        var line = parts.joined(separator: " · ")
        // Give way: other hand, metronome, loop (the parts between the hand and the mode).
        for prefix in ["other:", "metronome", "loop", "pass"] where CellBuffer.width(of: line) > width {
            parts.removeAll { $0.hasPrefix(prefix) }
            line = parts.joined(separator: " · ")
        }
        if CellBuffer.width(of: line) > width { line = parts.map { $0.replacingOccurrences(of: ": ", with: " ") }.joined(separator: " · ") }
        return line
    }

    public static func secondLine(_ s: StatusInfo) -> String {
        var parts = ["hand: \(s.hand)", "other: \(s.otherHand)"]
        if let loop = s.loop {
            let range = loop.label
            parts.append(loop.enabled ? "loop \(range) ×\(loop.pass)" : "loop \(range) off")
        } else {
            parts.append(s.pass > 1 ? "pass \(s.pass)" : "loop off")
        }
        parts.append("metronome \(s.metronome ? "on" : "off")")
        parts.append("mode: \(s.mode)")
        return parts.joined(separator: "  ·  ")
    }

    /// Two rows from the top of `area`.
    public func render(into area: Rect, buffer: inout CellBuffer) {
        let (s, y, width) = (status, area.y, area.width)
        buffer.fill(x: area.x, y: y, width: width, height: min(2, area.height), Cell(" ", theme.statusStyle))
        let right = StatusBarWidget.firstLineRight(s)
        let rightWidth = CellBuffer.width(of: right)
        let icon: String = s.playing ? "▶ " : s.waiting != nil ? "▷ " : "■ "
        var x = 1 + buffer.text(icon, x: area.x + 1, y: y, style: theme.statusAccent, maxWidth: 2)
        if s.silent {
            // Said where the learner looks, not only once on stderr.
            x += buffer.text(StatusBarWidget.silentMarker, x: area.x + x, y: y, style: theme.messageStyle, maxWidth: max(0, width - rightWidth - 4 - x))
        }
        if let listening = s.listening {
            // The microphone's honest limit (issue 30), first: it says why notes are not heard.
            x += buffer.text(listening + " · ", x: area.x + x, y: y, style: theme.messageStyle, maxWidth: max(0, width - rightWidth - 4 - x))
        }
        if let echo = s.echo {
            // Whether Etude sounds the learner's notes (issue 24), before the title so 80 columns keep it.
            x += buffer.text(echo + " · ", x: area.x + x, y: y, style: theme.statusStyle, maxWidth: max(0, width - rightWidth - 4 - x))
        }
        if s.following {
            // Etude keeps the learner's tempo (issue 37): said where 80 columns keep it.
            let follow = s.followingByEarMs.map { "follow by ear +\($0) ms" } ?? "follow"
            x += buffer.text(follow + " · ", x: area.x + x, y: y, style: theme.statusStyle, maxWidth: max(0, width - rightWidth - 4 - x))
        }
        let titleRoom = max(0, width - rightWidth - 3 - x)
        buffer.text(s.title.isEmpty ? "Etude" : s.title, x: area.x + x, y: y, style: theme.statusAccent, maxWidth: titleRoom)
        buffer.text(right, x: area.x + max(1, width - rightWidth - 1), y: y, style: theme.statusStyle, maxWidth: width - 2)
        buffer.text(StatusBarWidget.secondLine(s, width: width - 2), x: area.x + 1, y: y + 1, style: theme.statusStyle, maxWidth: width - 2)
    }
}

/// One row: the piece from start to end, the part played, the loop region, the position.
public struct TimelineWidget: Widget, Sendable {
    public let theme: Theme
    public let timeline: TimelineInfo
    public init(theme: Theme, timeline: TimelineInfo) {
        self.theme = theme
        self.timeline = timeline
    }

    /// The top row of `area`.
    public func render(into area: Rect, buffer: inout CellBuffer) {
        let (t, y, width) = (timeline, area.y, area.width)
        let x0 = area.x + 1
        let w = max(1, width - 2)
        let length = t.length.isFinite ? max(t.length, 0.000_001) : 1
        func col(_ v: Double) -> Int {
            let f = (v / length) * Double(w - 1) + 0.5
            guard f.isFinite else { return x0 }
            return x0 + min(w - 1, max(0, Int(min(max(f, -1), Double(w)))))
        }
        let head = col(t.position)
        for c in x0..<(x0 + w) {
            buffer.put(c, y, c < head ? "━" : "─", c < head ? theme.timelineDone : theme.timelineTrack)
        }
        if let a = t.loopStart, let b = t.loopEnd, b > a {
            let ca = col(a), cb = col(b)
            let style = t.loopEnabled ? theme.timelineLoop : theme.timelineTrack
            if cb > ca + 1 { for c in (ca + 1)..<cb { buffer.restyle(c, y) { $0 = style } } }
            buffer.put(ca, y, "[", style)
            buffer.put(cb, y, "]", style)
        } else {
            if let a = t.loopStart { buffer.put(col(a), y, "[", theme.timelineLoop) }
            if let b = t.loopEnd { buffer.put(col(b), y, "]", theme.timelineLoop) }
        }
        buffer.put(head, y, "●", theme.timelineHead)
    }
}
