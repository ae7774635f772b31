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

    /// Renders into an existing buffer (reused between frames to avoid allocation).
    public func render(_ model: ScreenModel, into buffer: inout CellBuffer, size: TerminalSize) {
        buffer.reset(size: size)
        if size.columns < PracticeScreen.minimumSize.columns || size.rows < PracticeScreen.minimumSize.rows {
            TooSmallMessage(theme: theme).draw(into: &buffer, minimum: PracticeScreen.minimumSize)
            return
        }
        let w = size.columns
        let h = size.rows
        StatusBarWidget(theme: theme).draw(into: &buffer, y: 0, width: w, status: model.status)
        TimelineWidget(theme: theme).draw(into: &buffer, y: 2, width: w, timeline: model.timeline)
        let layout = KeyboardLayout(width: w, range: model.pitchRange)
        let keyboardY = h - 1 - KeyboardWidget.height
        let fallTop = 3
        FallingNotesWidget(theme: theme).draw(into: &buffer, x: 0, y: fallTop, width: w, height: keyboardY - fallTop,
                                              layout: layout, model: model)
        KeyboardWidget(theme: theme).draw(into: &buffer, y: keyboardY, layout: layout, state: model.keyboard,
                                          showNoteNames: model.showNoteNames, naming: model.noteNaming, learnerKeys: model.learnerKeys)
        Footer.draw(into: &buffer, y: h - 1, width: w, theme: theme, message: model.message, hints: model.hints)
        switch model.overlay {
        case .help: HelpOverlay(theme: theme, entries: model.helpEntries ?? PracticeKeys.all).draw(into: &buffer)
        case .results(let r): ResultsPanel(theme: theme).draw(into: &buffer, results: r)
        case nil: break
        }
    }
}
