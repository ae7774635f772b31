import Notation
import Terminal

/// What the practice screen shows above the status line's hint: `v` cycles through them.
public enum PracticeDisplay: String, Sendable, CaseIterable {
    case fallingNotes = "falling notes"
    case staff
    /// The staff above a keyboard.
    case both = "staff and keyboard"

    /// The view `v` turns to next.
    public var next: PracticeDisplay {
        switch self {
        case .fallingNotes: return .staff
        case .staff: return .both
        case .both: return .fallingNotes
        }
    }
}

/// Where the parts of the practice screen go when it shows the staff: status (2 rows) and
/// timeline on top, the hint at the bottom, the staff between — above the keyboard in `both`.
public struct StaffScreenLayout: Equatable, Sendable {
    public var statusY: Int
    /// Nil when the timeline gave way (a low terminal in the staff-and-keyboard view).
    public var timelineY: Int?
    public var staffY: Int
    public var staffHeight: Int
    /// Columns the staff is laid out for (the screen less a margin each side).
    public var staffWidth: Int
    public var keyboardY: Int?
    public var hintY: Int

    /// Staff only: everything between the timeline and the hint.
    public static func staffOnly(_ size: TerminalSize) -> StaffScreenLayout {
        let r = Layout.vertical([.length(StatusBarWidget.height), .length(1), .fill(1), .length(1)]).split(Rect(size: size))
        return StaffScreenLayout(statusY: r[0].y, timelineY: r[1].y, staffY: r[2].y, staffHeight: r[2].height,
                                 staffWidth: max(1, size.columns - 2), keyboardY: nil, hintY: r[3].y)
    }

    /// Rows below which the staff-and-keyboard view gives way: the timeline goes first (the
    /// status above names the bar), so a grand staff keeps its lines above the keyboard.
    public static let timelineGivesWayBelow = 24

    /// The staff above the keyboard (its four rows just above the hint); on a terminal lower
    /// than `timelineGivesWayBelow` rows the timeline gives way to the staff.
    public static func staffAboveKeyboard(_ size: TerminalSize) -> StaffScreenLayout {
        let timeline = size.rows >= timelineGivesWayBelow
        let r = Layout.vertical([.length(StatusBarWidget.height), .length(timeline ? 1 : 0), .fill(1), .length(KeyboardWidget.height), .length(1)])
            .split(Rect(size: size))
        return StaffScreenLayout(statusY: r[0].y, timelineY: timeline ? r[1].y : nil, staffY: r[2].y, staffHeight: r[2].height,
                                 staffWidth: max(1, size.columns - 2), keyboardY: r[3].y, hintY: r[4].y)
    }

    public static func layout(_ size: TerminalSize, view: PracticeDisplay) -> StaffScreenLayout {
        view == .both ? staffAboveKeyboard(size) : staffOnly(size)
    }
}

/// A page of the grand staff: the systems holding the cursor (pages turn by whole systems),
/// notes coloured by hand while they sound and by judgement once judged (green hit, red wrong,
/// grey missed; × and ◌ mark them without colour), the loop bracketed on the top row, the
/// cursor a column of colour with ▼ over it (reversed cells without colour).
public struct StaffWidget: Widget, Sendable {
    public let theme: Theme
    public let raster: StaffRaster
    public let marks: StaffMarks
    public init(theme: Theme, raster: StaffRaster, marks: StaffMarks) {
        self.theme = theme
        self.raster = raster
        self.marks = marks
    }

    public func render(into area: Rect, buffer: inout CellBuffer) {
        let (x, y, width, height) = (area.x, area.y, area.width, area.height)
        guard width > 0, height > 0, !raster.systems.isEmpty else { return }
        let page = raster.page(forTick: marks.cursorTick, height: height)
        // Rows of a system drawn: all of them, or (taller than the area) a window that keeps
        // every staff line: the rows beyond the staves give way first (ledger room, stems),
        // then the top row of bar numbers; only an area lower than the staves themselves cuts
        // them, from the window centred on them.
        let h = raster.systemHeight
        var rows = Array(0..<h)
        if h > height {
            let top = raster.lineRow(.treble, step: 8), bottom = raster.lineRow(.bass, step: 0)
            let span = bottom - top + 1
            if span + 1 <= height {
                let room = height - 1
                let start = max(1, min(h - room, top - (room - span) / 2))
                rows = [raster.topRow] + Array(start..<(start + room))
            } else if span <= height {
                let start = max(0, min(h - height, top - (height - span) / 2))
                rows = Array(start..<(start + height))
            } else {
                let room = height - 1
                let centre = (top + bottom) / 2
                let start = max(1, min(h - room, centre - room / 2))
                rows = [raster.topRow] + Array(start..<(start + room))
            }
        }
        // A page shorter than the area starts at its top, right under the timeline (centred, a
        // tall terminal showed a third of empty rows above the music); the rows a page leaves
        // are shared out between its systems, so the staff fills the height.
        let perPage = max(1, height / max(1, h))
        let gap = h <= height ? min(h / 2, (height - perPage * h) / perPage) : 0
        var row = y
        for index in page {
            if index != page.lowerBound { row += gap }
            let overlay = raster.overlay(system: index, marks: marks)
            let system = raster.systems[index]
            let columns = min(width, system.width)
            for r in rows {
                guard row < y + height else { return }
                for c in 0..<columns {
                    let cell = raster.cell(system, x: c, y: r, marks: marks, overlay: overlay)
                    buffer.put(x + c, row, cell.character, style(cell))
                }
                row += 1
            }
        }
    }

    /// The one place a staff cell's look is decided for the terminal.
    func style(_ cell: ResolvedCell) -> Style {
        let mono = theme.monochrome
        var style: Style
        switch cell.mark {
        case .judged(let verdict):
            // The glyph tells the verdicts apart without colour; colour says them at a glance.
            switch verdict {
            case .ok:
                style = mono ? Style(attributes: [.bold, .underline]) : Style(fg: StaffWidget.hit, attributes: .bold)
            case .wrong, .wrongKeyFirst:
                style = mono ? Style(attributes: .bold) : Style(fg: theme.color(.wrong), attributes: .bold)
            case .missed:
                style = mono ? Style(attributes: .dim) : Style(fg: StaffWidget.missed)
            case .early, .late:
                style = mono ? Style(attributes: [.bold, .underline]) : Style(fg: theme.verdictColor(verdict), attributes: .bold)
            case .short, .long, .loud, .soft:
                style = mono ? Style(attributes: [.bold, .underline]) : Style(fg: StaffWidget.off, attributes: .bold)
            }
        case .lit:
            let role: NoteRole = cell.hand == .left ? .leftHand : (cell.hand == .right ? .rightHand : .accompaniment)
            style = mono ? Style(attributes: [.bold, .reverse]) : Style(fg: theme.color(role), attributes: .bold)
        case .plain, .hidden:
            switch cell.ink {
            case .staffLine, .ledger:
                style = mono ? Style(attributes: .dim) : Style(fg: StaffWidget.line)
            case .barLine, .brace:
                style = mono ? Style() : Style(fg: StaffWidget.barLine)
            case .barNumber:
                style = mono ? Style(attributes: .dim) : Style(fg: StaffWidget.number)
            case .clef, .keySignature, .timeSignature:
                style = mono ? Style(attributes: .bold) : Style(fg: StaffWidget.ink, attributes: .bold)
            case .head, .accidental, .stem, .beam, .dot, .tie, .rest:
                style = mono ? Style() : Style(fg: StaffWidget.ink)
            case .finger:
                style = mono ? Style(attributes: .dim) : Style(fg: StaffWidget.finger)
            case .ottava:
                style = mono ? Style(attributes: .italic) : Style(fg: StaffWidget.number, attributes: .italic)
            case .loop:
                style = theme.loopLineStyle
            case .cursor:
                style = theme.timelineHead
            case .blank:
                style = Style()
            }
        }
        if cell.cursor, cell.ink != .cursor {
            if mono {
                if cell.mark == .plain, !cell.ink.isNoteInk { style.attributes.insert(.reverse) }
            } else {
                style.bg = StaffWidget.cursorBackground
            }
        }
        return style
    }

    static let line = Color.rgb(110, 110, 122)
    static let barLine = Color.rgb(160, 160, 172)
    static let number = Color.rgb(140, 140, 155)
    static let ink = Color.rgb(230, 230, 235)
    static let finger = Color.rgb(255, 210, 90)
    static let hit = Color.rgb(70, 210, 90)
    static let missed = Color.rgb(120, 120, 120)
    /// A note struck right but held or played off (the ear's verdicts after a pass): violet,
    /// as on the falling notes, apart from early and late's amber.
    static let off = Color.rgb(185, 110, 235)
    static let cursorBackground = Color.rgb(52, 58, 84)
}

/// The practice screen with the staff (`PracticeDisplay.staff`) or the staff above the keyboard
/// (`.both`): the status, timeline and hint as on the falling-notes screen. Pure: model, staff
/// drawing, marks and size in, cells out.
public struct StaffPracticeScreen: Sendable {
    public let depth: ColorDepth
    public let theme: Theme

    public init(depth: ColorDepth) {
        self.depth = depth
        theme = Theme(depth: depth)
    }

    /// The staff area a size gives: lay the score out for `staffWidth` and pick its density for
    /// `staffHeight` (`StaffCache.raster(width:height:)`).
    public static func staffArea(_ size: TerminalSize, view: PracticeDisplay) -> (width: Int, height: Int) {
        let l = StaffScreenLayout.layout(size, view: view)
        return (l.staffWidth, l.staffHeight)
    }

    public func render(_ model: ScreenModel, staff: StaffRaster, marks: StaffMarks, view: PracticeDisplay,
                       into buffer: inout CellBuffer, size: TerminalSize) {
        ScreenPrelude.draw(into: &buffer, size: size, minimum: PracticeScreen.minimumSize, theme: theme) { area, buffer in
            render(model, staff: staff, marks: marks, view: view, into: area, buffer: &buffer)
        }
    }

    /// Draws the screen into `area` (at least `PracticeScreen.minimumSize`).
    public func render(_ model: ScreenModel, staff: StaffRaster, marks: StaffMarks, view: PracticeDisplay,
                       into area: Rect, buffer: inout CellBuffer) {
        let layout = StaffScreenLayout.layout(area.size, view: view)
        let w = area.width
        func row(_ y: Int, _ height: Int = 1) -> Rect { Rect(x: area.x, y: area.y + y, width: w, height: height) }
        StatusBarWidget(theme: theme, status: model.status).render(into: row(layout.statusY, StatusBarWidget.height), buffer: &buffer)
        if let ty = layout.timelineY { TimelineWidget(theme: theme, timeline: model.timeline).render(into: row(ty), buffer: &buffer) }
        StaffWidget(theme: theme, raster: staff, marks: marks)
            .render(into: Rect(x: area.x + 1, y: area.y + layout.staffY, width: layout.staffWidth, height: layout.staffHeight), buffer: &buffer)
        if let ky = layout.keyboardY {
            let keys = KeyboardLayout(width: w, range: model.pitchRange)
            KeyboardWidget(theme: theme, layout: keys, state: model.keyboard, showNoteNames: model.showNoteNames,
                           naming: model.noteNaming, learnerKeys: model.learnerKeys).render(into: row(ky, KeyboardWidget.height), buffer: &buffer)
        }
        Footer(theme: theme, message: model.message, hints: model.hints).render(into: row(layout.hintY), buffer: &buffer)
        PracticeScreen.overlay(model, theme: theme, into: area, buffer: &buffer)
    }
}
