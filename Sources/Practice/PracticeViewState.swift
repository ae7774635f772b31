/// What the practice screen shows of its own, apart from the runtime: the help, the note
/// names, the one-line message, the loop marks as shown (`[` before `]`) and the results
/// panel. The front end holds it (`PracticeController.view`); what the runtime wants shown
/// ("the end…", an input's status, a judged pass's panel, the panel put away by a note, the
/// messages and loop marks of the commands it applied, in their turn) reaches it as a
/// `PracticeNotice` (`PracticeSession.takeNotices()`).
public struct PracticeViewState: Equatable, Sendable {
    public var showHelp = false
    public var showNoteNames = false
    /// A short message for the hint line ("loop bars 9–12").
    public var message: String?
    /// The loop marks as the learner set them (`[`, `]`), kept while the loop is off.
    public var loopMarkStart: Int?
    public var loopMarkEnd: Int?
    /// The last judged pass's panel, while it is up.
    public var results: SessionState.Results?
    /// The session's clock time the panel went up (it goes away a few seconds after the next
    /// pass plays on: `PracticeSession.resultsSeconds`).
    public var resultsShownAt: Double?

    public init(showHelp: Bool = false, showNoteNames: Bool = false, message: String? = nil,
                loopMarkStart: Int? = nil, loopMarkEnd: Int? = nil) {
        self.showHelp = showHelp
        self.showNoteNames = showNoteNames
        self.message = message
        self.loopMarkStart = loopMarkStart
        self.loopMarkEnd = loopMarkEnd
    }
}

/// What the runtime hands the front end's view, in order (`PracticeSession.takeNotices()`).
public enum PracticeNotice: Equatable, Sendable {
    /// A line for the status bar.
    case message(String)
    /// A judged pass's results panel, shown at this clock time.
    case results(SessionState.Results, shownAt: Double)
    /// The panel goes away (a note played on, the hold released, a new plan or mode).
    case resultsAway
    /// A learner's command given on another thread (a gesture key): the controller runs it.
    case command(PracticeCommand)
    /// The loop marks as the runtime set them (`[`, `]`, a recalled loop, a new plan).
    case loopMarks(start: Int?, end: Int?)
    /// `n` in its turn: the note names on or off.
    case toggleNoteNames
    /// `s` in its turn: the front end saves this loop (`PracticeController.onSaveLoop`).
    case saveLoop(LoopSnapshot)
    /// `G` in its turn: the guide as now set, for the front end to remember (`onGuide`).
    case guide(Bool)

    /// `view` after this notice.
    public func apply(to view: inout PracticeViewState) {
        switch self {
        case .message(let text): view.message = text
        case .results(let results, let at):
            view.results = results
            view.resultsShownAt = at
        case .resultsAway:
            view.results = nil
        case .loopMarks(let start, let end):
            view.loopMarkStart = start
            view.loopMarkEnd = end
        case .toggleNoteNames:
            view.showNoteNames.toggle()
            view.message = view.showNoteNames ? "note names on" : "note names off"
        case .command, .saveLoop, .guide:
            break  // not the view's: `PracticeController` runs it
        }
    }
}
