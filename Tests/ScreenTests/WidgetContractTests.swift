import Judge
import Testing
import Terminal
@testable import Screen

/// The one widget contract (`Widget.render(into: Rect, buffer:)`): a widget draws only inside
/// the area it is given, and the same wherever the area is — so screens compose widgets by
/// splitting rectangles (`Layout`) and nothing else.
@Suite("Widget contract")
struct WidgetContractTests {
    static let theme = Theme(depth: .truecolor)

    /// Each widget of the screens, with the area size it is drawn at.
    static func widgets() -> [(name: String, widget: any Widget, size: TerminalSize)] {
        let model = Fixture.model()
        let layout = KeyboardLayout(width: 80, range: model.pitchRange)
        let results = ResultsInfo(title: "Pass 3 — bars 9–12",
                                  figures: ScoreFigures(hit: 6, missed: 1, wrong: 1, extra: 0, accuracy: 75, score: 70))
        return [
            ("status", StatusBarWidget(theme: theme, status: model.status), TerminalSize(columns: 80, rows: 2)),
            ("timeline", TimelineWidget(theme: theme, timeline: model.timeline), TerminalSize(columns: 80, rows: 1)),
            ("falling notes", FallingNotesWidget(theme: theme, layout: layout, model: model), TerminalSize(columns: 80, rows: 16)),
            ("keyboard", KeyboardWidget(theme: theme, layout: layout, state: model.keyboard, showNoteNames: true, naming: .scientific,
                                        learnerKeys: 48...72), TerminalSize(columns: 80, rows: KeyboardWidget.height)),
            ("footer", Footer(theme: theme, message: nil, hints: Footer.controls), TerminalSize(columns: 80, rows: 1)),
            ("footer with a message", Footer(theme: theme, message: String(repeating: "a long message ", count: 10), hints: []),
             TerminalSize(columns: 60, rows: 1)),
            ("header", HeaderBar(theme: theme, title: "Etude — lessons", aside: "silent (no audio)", right: "all  ·  level any"),
             TerminalSize(columns: 60, rows: 1)),
            ("help", HelpOverlay(theme: theme), TerminalSize(columns: 80, rows: 24)),
            ("help, short", HelpOverlay(theme: theme), TerminalSize(columns: 60, rows: 16)),
            ("results", ResultsPanel(theme: theme, results: results), TerminalSize(columns: 80, rows: 24)),
            ("too small", TooSmallMessage(theme: theme, minimum: PracticeScreen.minimumSize), TerminalSize(columns: 50, rows: 12)),
        ]
    }

    @Test func everyWidgetDrawsOnlyInItsAreaAndTheSameWherever() {
        for (name, widget, size) in Self.widgets() {
            var alone = CellBuffer(size: size)
            widget.render(into: Rect(size: size), buffer: &alone)
            #expect(alone.plainText().contains(where: { $0 != " " && $0 != "\n" }), "\(name) drew something")
            let (dx, dy) = (7, 4)
            var inside = CellBuffer(size: TerminalSize(columns: size.columns + 2 * dx, rows: size.rows + 2 * dy))
            let area = Rect(x: dx, y: dy, width: size.columns, height: size.rows)
            widget.render(into: area, buffer: &inside)
            var outside: [String] = []
            var moved: [String] = []
            for y in 0..<inside.height {
                for x in 0..<inside.width {
                    let cell = inside[x, y]
                    if x >= area.x && x < area.right && y >= area.y && y < area.bottom {
                        if cell != alone[x - dx, y - dy] { moved.append("\(x - dx),\(y - dy)") }
                    } else if cell != Cell.blank {
                        outside.append("\(x),\(y)")
                    }
                }
            }
            #expect(outside.isEmpty, "\(name) drew outside its area at \(outside.prefix(5))")
            #expect(moved.isEmpty, "\(name) drew differently when moved, at \(moved.prefix(5))")
        }
    }

    /// The screens are made of the widgets in rows split by `Layout`: what the practice screen
    /// shows is exactly the widgets drawn into its rows.
    @Test(arguments: [TerminalSize(columns: 60, rows: 20), TerminalSize(columns: 80, rows: 24), TerminalSize(columns: 200, rows: 50)])
    func thePracticeScreenIsItsWidgetsInItsRows(_ size: TerminalSize) {
        let model = Fixture.model()
        let whole = PracticeScreen(depth: .truecolor).render(model, size: size)
        let rows = PracticeScreen.rows(Rect(size: size))
        #expect(rows.status.height == 2 && rows.timeline.height == 1 && rows.keyboard.height == 4 && rows.footer.height == 1)
        #expect(rows.notes.height == size.rows - 8 && rows.footer.y == size.rows - 1)
        var parts = CellBuffer(size: size)
        let layout = KeyboardLayout(width: size.columns, range: model.pitchRange)
        StatusBarWidget(theme: Self.theme, status: model.status).render(into: rows.status, buffer: &parts)
        TimelineWidget(theme: Self.theme, timeline: model.timeline).render(into: rows.timeline, buffer: &parts)
        FallingNotesWidget(theme: Self.theme, layout: layout, model: model).render(into: rows.notes, buffer: &parts)
        KeyboardWidget(theme: Self.theme, layout: layout, state: model.keyboard, showNoteNames: model.showNoteNames,
                       naming: model.noteNaming, learnerKeys: model.learnerKeys).render(into: rows.keyboard, buffer: &parts)
        Footer(theme: Self.theme, message: model.message, hints: model.hints).render(into: rows.footer, buffer: &parts)
        #expect(parts == whole)
    }
}
