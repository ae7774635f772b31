import Terminal

/// One lesson as the browser lists it. Plain values (dates already formatted by the caller),
/// so the Screen module needs no database and the widget stays a pure function.
public struct BrowserRow: Equatable, Sendable {
    public var id: String
    public var title: String
    public var composer: String?
    public var level: Int?
    public var durationSeconds: Double
    public var favourite: Bool
    public var bestScore: Double?
    /// "2026-11-21" or nil when never practised.
    public var lastPractised: String?
    /// The file to open; nil when the file went missing.
    public var path: String?
    /// Where the lesson stands on the method's path (nil: not started, or not graded).
    public var mark: Mark?

    /// The status mark (drawn in the margin before the star): mastered, in progress, or the one
    /// `etude next` names.
    public enum Mark: String, Equatable, Sendable {
        case mastered = "✓"
        case inProgress = "…"
        case next = "▸"
    }

    public init(id: String, title: String, composer: String? = nil, level: Int? = nil, durationSeconds: Double, favourite: Bool = false,
                bestScore: Double? = nil, lastPractised: String? = nil, path: String? = nil, mark: Mark? = nil) {
        self.id = id
        self.title = title
        self.composer = composer
        self.level = level
        self.durationSeconds = durationSeconds
        self.favourite = favourite
        self.bestScore = bestScore
        self.lastPractised = lastPractised
        self.path = path
        self.mark = mark
    }
}

/// A box over the list: the key help, or text such as a lesson's stats or the routines.
public enum BrowserOverlay: Equatable, Sendable {
    case help
    case text(title: String, lines: [String])
    /// The routines to pick one from: ↑ ↓ choose, Enter runs it.
    case routines([RoutineChoice], selected: Int)
    /// Enter on a lesson: how to practise it (mode and hand) before the screen opens.
    case practise(PractiseChoice)
}

/// One routine as the browser's routines box lists it.
/// The choice Enter offers on a lesson: a mode (← →) and a hand (↑ ↓), starting from what the
/// learner chose for it last time.
public struct PractiseChoice: Equatable, Sendable {
    public static let modes = ["watch", "wait", "play", "memory"]
    public static let hands = ["both", "right", "left"]
    public static let modeHelp = ["listen and look", "it waits for each chord", "real time, scored", "play, notes hidden"]

    public var row: BrowserRow
    public var mode: Int
    public var hand: Int

    public init(row: BrowserRow, mode: String = "watch", hand: String = "both") {
        self.row = row
        self.mode = Self.modes.firstIndex(of: mode) ?? 0
        self.hand = Self.hands.firstIndex(of: hand) ?? 0
    }

    public var modeName: String { Self.modes[mode] }
    public var handName: String { Self.hands[hand] }
}

public struct RoutineChoice: Equatable, Sendable {
    public var name: String
    /// e.g. "3 entries, about 12 min".
    public var summary: String

    public init(name: String, summary: String) {
        self.name = name
        self.summary = summary
    }
}

/// What a key asks the browser's controller to do (the model already changed itself).
public enum BrowserAction: Equatable, Sendable {
    case none
    /// Query or filters changed: fetch the rows again.
    case refresh
    /// Enter on a lesson: the app offers the choice (with what was chosen last time).
    case open(BrowserRow)
    /// Enter in the choice: practise the lesson in this mode with this hand.
    case practise(BrowserRow, mode: String, hand: String)
    case resume
    case toggleFavourite(BrowserRow)
    case stats(BrowserRow)
    case routines
    /// F7: the learner's instrument, chosen once (`etude setup`'s questions).
    case instrument
    /// Enter on a routine in the routines box.
    case runRoutine(String)
    case quit
}

/// The browser's keys, as the help and the footer list them. Letters type into the search,
/// so commands live on Ctrl keys and function keys.
public enum BrowserKeys {
    public static let entries: [PracticeKeys.Entry] = [
        PracticeKeys.Entry(keys: "type", action: "search (Backspace deletes, Ctrl-U clears)"),
        PracticeKeys.Entry(keys: "↑ ↓ PgUp PgDn Home End", action: "move"),
        PracticeKeys.Entry(keys: "Enter", action: "practise: choose mode and hand (or resume)"),
        PracticeKeys.Entry(keys: "Tab  F2", action: "filter: all / favourites"),
        PracticeKeys.Entry(keys: "Ctrl-L  F3", action: "filter: level any / 1 / 2 / …"),
        PracticeKeys.Entry(keys: "Ctrl-F  F4", action: "favourite on / off (★)"),
        PracticeKeys.Entry(keys: "Ctrl-S  F5", action: "stats of the lesson"),
        PracticeKeys.Entry(keys: "Ctrl-R  F6", action: "routines (Enter runs one)"),
        PracticeKeys.Entry(keys: "F7", action: "your instrument (etude setup)"),
        PracticeKeys.Entry(keys: "?  F1", action: "this help (? while the search is empty)"),
        PracticeKeys.Entry(keys: "✓ … ▸", action: "mastered / in progress / next (etude next)"),
        PracticeKeys.Entry(keys: "Esc", action: "clear the search, then quit"),
        PracticeKeys.Entry(keys: "Ctrl-Q  F10  Ctrl-C", action: "quit"),
    ]

    /// The browser's keys that never vanish (typing searches, so quitting is Esc, not q).
    public static let essentials = ["? help", "Esc quit"]
    /// The other hints, most useful first: `Footer` drops them from the end.
    public static let hints = ["Enter practise", "Tab favourites", "^L level", "^F ★", "^S stats", "^R routines"]
}

/// Everything the lesson browser shows, and its key handling: a value, so it is tested
/// without a terminal or a database.
public struct BrowserModel: Equatable, Sendable {
    public var query = ""
    public var favouritesOnly = false
    public var level: Int?
    /// Levels the level filter cycles through (from the catalogue).
    public var levels: [Int] = []
    public var rows: [BrowserRow] = []
    /// "Resume: Minuet bar 9, right hand, 80%" — shown as the first entry when present.
    public var resume: String?
    /// Index into the entries: the resume line (when present) is entry 0, then the rows.
    public var selected = 0
    /// First entry shown (scrolling).
    public var top = 0
    public var overlay: BrowserOverlay?
    /// A one-line notice in the footer (e.g. "★ added").
    public var message: String?
    /// No audio device: the header says lessons will play silently.
    public var silent = false

    public init(rows: [BrowserRow] = [], resume: String? = nil, levels: [Int] = []) {
        self.rows = rows
        self.resume = resume
        self.levels = levels
    }

    public var entryCount: Int { rows.count + (resume == nil ? 0 : 1) }
    public var isResumeSelected: Bool { resume != nil && selected == 0 }

    /// The lesson under the cursor (nil on the resume line or an empty list).
    public var selectedRow: BrowserRow? {
        let i = selected - (resume == nil ? 0 : 1)
        return rows.indices.contains(i) ? rows[i] : nil
    }

    /// Puts the cursor back on a lesson after the rows were fetched again (a ★ may reorder them).
    public mutating func select(id: String) {
        if let i = rows.firstIndex(where: { $0.id == id }) { selected = i + (resume == nil ? 0 : 1) }
    }

    /// Puts the cursor on the ▸ lesson `etude next` names (the browser opens there: the lesson
    /// to practise is the one most often chosen); it stays where it was when no row has it.
    public mutating func selectNext() {
        if let row = rows.first(where: { $0.mark == .next }) { select(id: row.id) }
    }

    /// Keeps the cursor on the list and in view after rows changed.
    public mutating func clamp(visibleRows: Int) {
        selected = max(0, min(selected, entryCount - 1))
        let page = max(1, visibleRows)
        if selected < top { top = selected }
        if selected >= top + page { top = selected - page + 1 }
        top = max(0, min(top, max(0, entryCount - page)))
    }

    /// Applies a key. `visibleRows` is the list height (for PgUp/PgDn).
    public mutating func handle(_ key: Key, visibleRows: Int) -> BrowserAction {
        let page = max(1, visibleRows)
        if case .routines(let choices, let at)? = overlay, !choices.isEmpty {
            switch key.code {
            case .up: overlay = .routines(choices, selected: max(0, at - 1)); return .none
            case .down: overlay = .routines(choices, selected: min(choices.count - 1, at + 1)); return .none
            case .enter:
                overlay = nil
                return .runRoutine(choices[min(max(0, at), choices.count - 1)].name)
            default: break
            }
        }
        if case .practise(var choice)? = overlay {
            switch key.code {
            case .left: choice.mode = (choice.mode + PractiseChoice.modes.count - 1) % PractiseChoice.modes.count
            case .right, .tab: choice.mode = (choice.mode + 1) % PractiseChoice.modes.count
            case .up: choice.hand = (choice.hand + PractiseChoice.hands.count - 1) % PractiseChoice.hands.count
            case .down: choice.hand = (choice.hand + 1) % PractiseChoice.hands.count
            case .enter:
                overlay = nil
                return .practise(choice.row, mode: choice.modeName, hand: choice.handName)
            default:
                overlay = nil
                if key == Key.ctrl("q") || key.code == .function(10) { return .quit }
                return .none
            }
            overlay = .practise(choice)
            return .none
        }
        if overlay != nil {
            overlay = nil
            if key == Key.ctrl("q") || key.code == .function(10) { return .quit }
            return .none
        }
        message = nil
        switch key.code {
        case .up: selected -= 1
        case .down: selected += 1
        case .pageUp: selected -= page
        case .pageDown: selected += page
        case .home: selected = 0
        case .end: selected = entryCount - 1
        case .enter:
            if isResumeSelected { return .resume }
            if let row = selectedRow { return .open(row) }
            return .none
        case .tab, .function(2):
            favouritesOnly.toggle()
            selected = 0
            return .refresh
        case .function(3): return cycleLevel()
        case .function(4): return onLesson { .toggleFavourite($0) }
        case .function(5): return onLesson { .stats($0) }
        case .function(6): return .routines
        case .function(7): return .instrument
        case .function(1):
            overlay = .help
            return .none
        case .function(10): return .quit
        case .escape:
            if query.isEmpty { return .quit }
            query = ""
            selected = 0
            return .refresh
        case .backspace:
            guard !query.isEmpty else { return .none }
            query.removeLast()
            selected = 0
            return .refresh
        case .paste(let text):
            let clean = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
            guard !clean.isEmpty else { return .none }
            query += clean
            selected = 0
            return .refresh
        case .character(let c):
            if key.modifiers.contains(.ctrl) {
                switch c {
                case "l": return cycleLevel()
                case "f": return onLesson { .toggleFavourite($0) }
                case "s": return onLesson { .stats($0) }
                case "r": return .routines
                case "q": return .quit
                case "u":
                    guard !query.isEmpty else { return .none }
                    query = ""
                    selected = 0
                    return .refresh
                default: return .none
                }
            }
            if key.modifiers.contains(.alt) { return .none }
            if c == "?" && query.isEmpty {
                overlay = .help
                return .none
            }
            query.append(c)
            selected = 0
            return .refresh
        default:
            return .none
        }
        clamp(visibleRows: page)
        return .none
    }

    /// A lesson's key (favourite, stats) on the resume line or an empty list: says so.
    private mutating func onLesson(_ action: (BrowserRow) -> BrowserAction) -> BrowserAction {
        guard let row = selectedRow else {
            message = "move to a lesson first (↑ ↓): that key works on the lesson under the cursor"
            return .none
        }
        return action(row)
    }

    private mutating func cycleLevel() -> BrowserAction {
        let all = levels.sorted()
        if let level, let i = all.firstIndex(of: level), i + 1 < all.count {
            self.level = all[i + 1]
        } else if level == nil, let first = all.first {
            level = first
        } else {
            level = nil
        }
        selected = 0
        return .refresh
    }
}

/// Draws the lesson browser: header with filters, search line, column titles, the list
/// (resume line first), footer; overlays on top. Pure: model + size → cells.
public struct BrowserScreen: Sendable {
    public static let minimumSize = TerminalSize(columns: 40, rows: 8)
    public let theme: Theme

    public init(depth: ColorDepth) { theme = Theme(depth: depth) }

    /// Rows the list has at a terminal height (header 3 lines, footer 1).
    public static func listHeight(rows: Int) -> Int { max(1, rows - 4) }

    public func render(_ model: BrowserModel, size: TerminalSize) -> CellBuffer {
        var buffer = CellBuffer(size: size)
        render(model, into: &buffer, size: size)
        return buffer
    }

    static func duration(_ s: Double) -> String {
        guard s.isFinite, s >= 0, s < 1e7 else { return "–" }
        let t = Int(s.rounded())
        return "\(t / 60):" + (t % 60 < 10 ? "0" : "") + "\(t % 60)"
    }

    static func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
        let w = CellBuffer.width(of: s)
        if w >= n { return s }
        let fill = String(repeating: " ", count: n - w)
        return right ? fill + s : s + fill
    }

    public func render(_ model: BrowserModel, into buffer: inout CellBuffer, size: TerminalSize) {
        ScreenPrelude.draw(into: &buffer, size: size, minimum: Self.minimumSize, theme: theme) { area, buffer in
            render(model, into: area, buffer: &buffer)
        }
    }

    /// Draws the browser into `area` (the whole terminal, at least `minimumSize`).
    public func render(_ model: BrowserModel, into area: Rect, buffer: inout CellBuffer) {
        let w = area.width, h = area.height
        // Header; "silent" before the filters would be covered: cut, never dropped.
        let filters = "\(model.favouritesOnly ? "★ favourites" : "all")  ·  level \(model.level.map(String.init) ?? "any")  ·  \(model.rows.count) lesson\(model.rows.count == 1 ? "" : "s")"
        HeaderBar(theme: theme, title: "Etude — lessons", aside: model.silent ? StatusBarWidget.silentWords : nil, right: filters)
            .render(into: area.row(0), buffer: &buffer)
        // Search line
        let label = "Search: "
        buffer.text(label, x: 1, y: 1, style: theme.hintStyle, maxWidth: w - 2)
        let qx = 1 + CellBuffer.width(of: label)
        let qUsed = buffer.text(model.query, x: qx, y: 1, style: Style(attributes: .bold), maxWidth: max(0, w - qx - 2))
        buffer.put(qx + qUsed, 1, "▏", Style(attributes: .bold))
        // Columns: star 2 | title flex | level 5 | time 6 | best 5 | last 11
        let fixed = 2 + 5 + 6 + 5 + 11 + 5
        let titleWidth = max(8, w - 2 - fixed)
        func line(star: String, title: String, level: String, time: String, best: String, last: String) -> String {
            Self.pad(star, 2) + Self.pad(title, titleWidth) + " " + Self.pad(level, 5, right: true) + " "
                + Self.pad(time, 6, right: true) + " " + Self.pad(best, 5, right: true) + "  " + Self.pad(last, 11)
        }
        buffer.text(line(star: "★", title: "Title", level: "Level", time: "Time", best: "Best", last: "Practised"),
                    x: 1, y: 2, style: theme.hintStyle, maxWidth: w - 2)
        // List
        let listTop = 3
        let listHeight = Self.listHeight(rows: h)
        var m = model
        m.clamp(visibleRows: listHeight)
        if m.entryCount == 0 {
            let empty = model.query.isEmpty && !model.favouritesOnly && model.level == nil
                ? "No lessons in the catalogue: add a folder with `etude library add DIR`."
                : "No lesson matches. Backspace edits the search, Tab/Ctrl-L change the filters."
            buffer.text(empty, x: 2, y: listTop + 1, style: theme.messageStyle, maxWidth: w - 4)
        }
        for i in 0..<listHeight {
            let entry = m.top + i
            guard entry < m.entryCount else { break }
            let y = listTop + i
            let selected = entry == m.selected
            let style = selected ? (theme.monochrome ? Style(attributes: .reverse) : theme.statusStyle) : Style()
            if selected { buffer.fill(x: 0, y: y, width: w, height: 1, Cell(" ", style)) }
            if let resume = m.resume, entry == 0 {
                buffer.text("↻ " + resume, x: 1, y: y, style: selected ? style : theme.messageStyle, maxWidth: w - 2)
                continue
            }
            let index = entry - (m.resume == nil ? 0 : 1)
            let r = m.rows[index]
            let neighbours = [index - 1, index + 1].filter { m.rows.indices.contains($0) }.map { m.rows[$0] }
            let title = BrowserTitle.fit(r, beside: neighbours, width: titleWidth - 1)
            let text = line(star: r.favourite ? "★" : " ", title: title,
                            level: r.level.map { "L\($0)" } ?? "–", time: Self.duration(r.durationSeconds),
                            best: r.bestScore.flatMap { $0.isFinite && abs($0) < 1e9 ? String(Int($0.rounded())) : nil } ?? "–",
                            last: r.lastPractised ?? "never")
            buffer.text(text, x: 1, y: y, style: style, maxWidth: w - 2)
            // The method's mark in the margin before the star: ✓ mastered, … in progress, ▸ next.
            if let mark = r.mark?.rawValue.unicodeScalars.first { buffer.put(0, y, mark, style) }
        }
        // Footer
        Footer(theme: theme, message: model.message, hints: BrowserKeys.hints, essentials: BrowserKeys.essentials)
            .render(into: area.row(h - 1), buffer: &buffer)
        switch model.overlay {
        case .help?: drawHelp(into: &buffer)
        case .text(let title, let lines)?: drawText(title: title, lines: lines, into: &buffer)
        case .routines(let choices, let selected)?: drawRoutines(choices, selected: selected, into: &buffer)
        case .practise(let choice)?: drawChoice(choice, into: &buffer)
        case nil: break
        }
    }

    func drawHelp(into buffer: inout CellBuffer) {
        let entries = BrowserKeys.entries
        let keyWidth = entries.map { CellBuffer.width(of: $0.keys) }.max() ?? 0
        let lineWidth = entries.map { keyWidth + 2 + CellBuffer.width(of: $0.action) }.max() ?? 0
        let boxWidth = min(buffer.width, lineWidth + 4)
        let boxHeight = min(buffer.height, entries.count + 2)
        let (bx, by) = PanelBox.draw(into: &buffer, area: Rect(size: buffer.size), theme: theme, title: "Keys", width: boxWidth, height: boxHeight)
        for (i, e) in entries.enumerated() {
            let y = by + 1 + i
            guard y < by + boxHeight - 1 else { break }
            buffer.text(e.keys, x: bx + 2, y: y, style: theme.panelKey, maxWidth: boxWidth - 4)
            buffer.text(e.action, x: bx + 2 + keyWidth + 2, y: y, style: theme.panelStyle, maxWidth: max(0, boxWidth - 6 - keyWidth))
        }
    }

    func drawRoutines(_ choices: [RoutineChoice], selected: Int, into buffer: inout CellBuffer) {
        let hint = "↑ ↓ choose · Enter runs it · any other key closes"
        let nameWidth = choices.map { CellBuffer.width(of: safe($0.name)) }.max() ?? 0
        let lineWidth = choices.map { nameWidth + 3 + CellBuffer.width(of: $0.summary) }.max() ?? 0
        let width = min(buffer.width, max(CellBuffer.width(of: hint), lineWidth) + 4)
        let height = min(buffer.height, choices.count + 4)
        let (bx, by) = PanelBox.draw(into: &buffer, area: Rect(size: buffer.size), theme: theme, title: "Routines", width: width, height: height)
        // Keep the chosen one in view when the box is shorter than the list.
        let rows = max(1, height - 4)
        let top = min(max(0, selected - rows + 1), max(0, choices.count - rows))
        for i in 0..<rows {
            let index = top + i
            guard index < choices.count else { break }
            let y = by + 1 + i
            let chosen = index == selected
            let style = chosen ? (theme.monochrome ? Style(attributes: .reverse) : theme.statusStyle) : theme.panelStyle
            if chosen { buffer.fill(x: bx + 1, y: y, width: width - 2, height: 1, Cell(" ", style)) }
            let c = choices[index]
            buffer.text(safe(c.name), x: bx + 2, y: y, style: chosen ? style : theme.panelKey, maxWidth: width - 4)
            buffer.text(c.summary, x: bx + 2 + nameWidth + 3, y: y, style: style, maxWidth: max(0, width - 7 - nameWidth))
        }
        buffer.text(hint, x: bx + 2, y: by + height - 2, style: theme.panelStyle, maxWidth: width - 4)
    }

    func drawChoice(_ c: PractiseChoice, into buffer: inout CellBuffer) {
        func row(_ options: [String], _ at: Int) -> String {
            options.enumerated().map { $0.offset == at ? "[\($0.element)]" : " \($0.element) " }.joined(separator: " ")
        }
        let lines = [
            "mode  " + row(PractiseChoice.modes, c.mode),
            "      " + PractiseChoice.modeHelp[c.mode],
            "hand  " + row(PractiseChoice.hands, c.hand),
            "",
            "← → mode · ↑ ↓ hand · Enter starts · Esc back",
        ]
        let title = "Practise " + CellBuffer.cut(safe(c.row.title), width: max(10, buffer.width - 16))
        let width = min(buffer.width, max(CellBuffer.width(of: title) + 6, (lines.map { CellBuffer.width(of: $0) }.max() ?? 0) + 4))
        let height = min(buffer.height, lines.count + 2)
        let (bx, by) = PanelBox.draw(into: &buffer, area: Rect(size: buffer.size), theme: theme, title: title, width: width, height: height)
        for (i, l) in lines.enumerated() {
            let y = by + 1 + i
            guard y < by + height - 1 else { break }
            buffer.text(l, x: bx + 2, y: y, style: i == 1 || i == 4 ? theme.hintStyle : theme.panelStyle, maxWidth: width - 4)
        }
    }

    func drawText(title: String, lines: [String], into buffer: inout CellBuffer) {
        let shown = lines + ["", "any key closes"]
        let width = min(buffer.width, max(30, (shown.map { CellBuffer.width(of: safe($0)) }.max() ?? 0) + 4))
        let height = min(buffer.height, shown.count + 2)
        let (bx, by) = PanelBox.draw(into: &buffer, area: Rect(size: buffer.size), theme: theme, title: title, width: width, height: height)
        for (i, l) in shown.enumerated() {
            let y = by + 1 + i
            guard y < by + height - 1 else { break }
            buffer.text(l, x: bx + 2, y: y, style: theme.panelStyle, maxWidth: width - 4)
        }
    }
}

/// A lesson's title in the browser's title column. When it does not fit, what tells it apart
/// from the rows around it is kept: a composer they share goes first, then a composer of its
/// own is shortened, then the start the titles share (`A minor five-finger…: contrary motion`),
/// and only then the end is cut.
public enum BrowserTitle {
    public static func fit(_ row: BrowserRow, beside neighbours: [BrowserRow], width: Int) -> String {
        let title = safe(row.title)
        let missing = row.path == nil ? " (missing)" : ""
        var composer = row.composer.map { " — " + safe($0) } ?? ""
        func fits(_ s: String) -> Bool { CellBuffer.width(of: s) <= width }
        if fits(title + composer + missing) { return title + composer + missing }
        let shared = row.composer != nil && neighbours.contains { $0.composer == row.composer }
        if shared { composer = "" }
        if fits(title + composer + missing) { return title + composer + missing }
        // A composer of its own is shortened while the whole title still fits beside a few letters of it.
        let titleWidth = CellBuffer.width(of: title + missing)
        if !composer.isEmpty, titleWidth + 3 + 6 <= width {
            return title + CellBuffer.cut(composer, width: width - titleWidth) + missing
        }
        let room = width - CellBuffer.width(of: missing)
        let others = neighbours.map { safe($0.title) }
        let cut = elided(title, room: room, beside: others)
        // The key ("in G major") is what a pianist looks for: when the cut loses it, words the
        // neighbours share go instead.
        if let key = keyWords(title), !cut.contains(key), let kept = keepingKey(title, room: room, beside: others) {
            return kept + missing
        }
        return cut + missing
    }

    /// The key a title names ("G major" in "Minuet in G major,", "A minor" in "A minor scale");
    /// nil when it names none.
    static func keyWords(_ title: String) -> String? {
        let words = title.split(separator: " ").map(String.init)
        guard let i = keyIndex(words) else { return nil }
        return words[i] + " " + String(words[i + 1].filter(\.isLetter))
    }

    /// Index of the note letter of a key in `words` ("G" of "G major,"), nil when none.
    static func keyIndex(_ words: [String]) -> Int? {
        func bare(_ w: String) -> String { String(w.filter { $0.isLetter || $0 == "♯" || $0 == "♭" || $0 == "#" }) }
        for i in words.indices.dropLast() {
            let letter = bare(words[i]), mode = bare(words[i + 1]).lowercased()
            guard mode == "major" || mode == "minor", let first = letter.first, "ABCDEFG".contains(first),
                  letter.count == 1 || ["♯", "♭", "#", "b"].contains(String(letter.dropFirst())) else { continue }
            return i
        }
        return nil
    }

    /// `title` in `room` columns keeping its first word, its key and the words that tell it
    /// from `others`; the words the neighbours share go from the end first, each run of them
    /// shown as `…`. Nil when even that does not fit.
    static func keepingKey(_ title: String, room: Int, beside others: [String]) -> String? {
        let words = title.split(separator: " ").map(String.init)
        guard let k = keyIndex(words) else { return nil }
        // 2: never dropped (the first word, the key); 1: tells it apart; 0: shared, dropped first.
        let theirs = others.map { Set($0.split(separator: " ").map(String.init)) }
        let rank = words.indices.map { i -> Int in
            if i == 0 || i == k || i == k + 1 || (i == k - 1 && words[i] == "in") { return 2 }
            return theirs.contains { !$0.contains(words[i]) } ? 1 : 0
        }
        let keyTells = [k, k + 1].contains { i in theirs.contains { !$0.contains(words[i]) } }
        var dropped = [Bool](repeating: false, count: words.count)
        func render() -> String {
            var out = ""
            var i = 0
            while i < words.count {
                if dropped[i] {
                    while i < words.count, dropped[i] { i += 1 }
                    out += i == words.count ? "…" : (out.isEmpty ? "… " : " … ")
                    continue
                }
                if !out.isEmpty, !out.hasSuffix(" ") { out += " " }
                out += words[i]
                i += 1
            }
            return out
        }
        var text = render()
        while CellBuffer.width(of: text) > room {
            // Words that tell it apart go too only when the key itself does (G major beside G minor).
            guard let i = words.indices.last(where: { rank[$0] == 0 && !dropped[$0] })
                    ?? (keyTells ? words.indices.last(where: { rank[$0] == 1 && !dropped[$0] }) : nil) else { return nil }
            dropped[i] = true
            text = render()
        }
        return text
    }

    /// `title` in `room` columns, keeping the part after the start it shares with `others`.
    static func elided(_ title: String, room: Int, beside others: [String]) -> String {
        guard room > 1 else { return "" }
        let characters = Array(title)
        let shared = others.map { commonStart(characters, Array($0)) }.max() ?? 0
        // Back to where a word (or its separator, such as ": ") begins.
        var start = min(shared, characters.count)
        while start > 0, characters[start - 1].isLetter || characters[start - 1].isNumber { start -= 1 }
        while start > 0, characters[start - 1] == " " || characters[start - 1] == ":" || characters[start - 1] == "," { start -= 1 }
        let tail = String(characters[start...])
        let tailWidth = CellBuffer.width(of: tail)
        let head = room - tailWidth - 1
        // Nothing shared, or too little room for any of the shared start: cut the end.
        guard start > 0, head >= 4 else {
            return start > 0 ? "…" + CellBuffer.cut(tail, width: room - 1) : CellBuffer.cut(title, width: room)
        }
        var out = ""
        var used = 0
        for ch in characters[..<start] {
            let w = CellBuffer.width(of: String(ch))
            if used + w > head { break }
            out.append(ch)
            used += w
        }
        // Never cut inside a word: back to the end of the last whole one.
        if out.count < start, let next = characters.dropFirst(out.count).first, next.isLetter || next.isNumber {
            while let last = out.last, last.isLetter || last.isNumber || last == "-" { out.removeLast() }
        }
        while let last = out.last, last == " " || last == "," || last == ":" { out.removeLast() }
        return out + "…" + tail
    }

    static func commonStart(_ a: [Character], _ b: [Character]) -> Int {
        var i = 0
        while i < a.count, i < b.count, a[i] == b[i] { i += 1 }
        return i
    }
}
