/// What the practice screen shows of its own, apart from the runtime: the help, the note
/// names, the one-line message and the loop marks being typed (`[` before `]`). The front end
/// holds it (`PracticeController.view`, edited by the learner's keys on the screen's side);
/// `PracticeSession` holds none of it, and a line the runtime wants shown ("the end…", an
/// input's status) reaches it as a notice (`PracticeSession.takeNotices()`).
public struct PracticeViewState: Equatable, Sendable {
    public var showHelp = false
    public var showNoteNames = false
    /// A short message for the hint line ("loop bars 9–12").
    public var message: String?
    /// The loop marks as the learner set them (`[`, `]`), kept while the loop is off.
    public var loopMarkStart: Int?
    public var loopMarkEnd: Int?

    public init(showHelp: Bool = false, showNoteNames: Bool = false, message: String? = nil,
                loopMarkStart: Int? = nil, loopMarkEnd: Int? = nil) {
        self.showHelp = showHelp
        self.showNoteNames = showNoteNames
        self.message = message
        self.loopMarkStart = loopMarkStart
        self.loopMarkEnd = loopMarkEnd
    }
}
