import Terminal

/// Composes the whole practice screen from one `ScreenModel`: pure (model + size → cells), so
/// it is snapshot-tested and benchmarked without a terminal.
///
/// Rows, top to bottom: status (2), timeline (1), falling notes (the rest), keyboard (4), hint
/// or message (1). Below `minimumSize` a "too small" message replaces it all.
public struct PracticeScreen: Sendable {
    public static let minimumSize = TerminalSize(columns: 60, rows: 16)

    public let depth: ColorDepth
    public let theme: Theme

    public init(depth: ColorDepth) {
        self.depth = depth
        self.theme = Theme(depth: depth)
    }

    public func render(_ model: ScreenModel, size: TerminalSize) -> CellBuffer {
        var buffer = CellBuffer(size: size)
        render(model, into: &buffer, size: size)
        return buffer
    }

    /// Renders into an existing buffer (reused between frames to avoid allocation), through
    /// the prelude every full screen shares (below `minimumSize` the "too small" message).
    public func render(_ model: ScreenModel, into buffer: inout CellBuffer, size: TerminalSize) {
        ScreenPrelude.draw(into: &buffer, size: size, minimum: Self.minimumSize, theme: theme) { area, buffer in
            render(model, into: area, buffer: &buffer)
        }
    }

    /// The rows of the screen in `area`: status, timeline, falling notes, keyboard, footer.
    public static func rows(_ area: Rect) -> (status: Rect, timeline: Rect, notes: Rect, keyboard: Rect, footer: Rect) {
        let r = Layout.vertical([.length(StatusBarWidget.height), .length(1), .fill(1), .length(KeyboardWidget.height), .length(1)]).split(area)
        return (r[0], r[1], r[2], r[3], r[4])
    }

    /// Draws the screen into `area` (at least `minimumSize`).
    public func render(_ model: ScreenModel, into area: Rect, buffer: inout CellBuffer) {
        let rows = Self.rows(area)
        StatusBarWidget(theme: theme, status: model.status).render(into: rows.status, buffer: &buffer)
        TimelineWidget(theme: theme, timeline: model.timeline).render(into: rows.timeline, buffer: &buffer)
        let layout = KeyboardLayout(width: area.width, range: model.pitchRange)
        FallingNotesWidget(theme: theme, layout: layout, model: model).render(into: rows.notes, buffer: &buffer)
        KeyboardWidget(theme: theme, layout: layout, state: model.keyboard, showNoteNames: model.showNoteNames,
                       naming: model.noteNaming, learnerKeys: model.learnerKeys).render(into: rows.keyboard, buffer: &buffer)
        Footer(theme: theme, message: model.message, hints: model.hints).render(into: rows.footer, buffer: &buffer)
        PracticeScreen.overlay(model, theme: theme, into: area, buffer: &buffer)
    }

    /// The help or a pass's results over the screen.
    static func overlay(_ model: ScreenModel, theme: Theme, into area: Rect, buffer: inout CellBuffer) {
        switch model.overlay {
        case .help: HelpOverlay(theme: theme, entries: model.helpEntries ?? PracticeKeys.all).render(into: area, buffer: &buffer)
        case .results(let r): ResultsPanel(theme: theme, results: r).render(into: area, buffer: &buffer)
        case nil: break
        }
    }
}
