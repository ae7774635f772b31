/// What the screen needs from a terminal: write bytes, know the size, read input, and learn
/// about resizes and resumes. The real one is `TerminalSession`; tests use a fake that
/// captures bytes and has a fixed size.
public protocol TerminalDevice: AnyObject {
    /// Current size in cells.
    func size() -> TerminalSize
    /// Writes bytes fully (retrying partial writes).
    func write(_ bytes: [UInt8])
    /// Waits up to `timeoutMilliseconds` (-1: forever) for input; returns what arrived (maybe
    /// nothing). Returns early, with no bytes, when a resize or resume happened.
    func readInput(timeoutMilliseconds: Int32) -> [UInt8]
    /// Events since the last call (resize, resume after Ctrl-Z): the caller redraws fully.
    func takeEvents() -> TerminalEvents
}

/// Things that happened to the terminal outside the program's control.
public struct TerminalEvents: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// SIGWINCH: the size changed.
    public static let resized = TerminalEvents(rawValue: 1)
    /// SIGCONT after a suspend: the screen was left and re-entered, redraw everything.
    public static let resumed = TerminalEvents(rawValue: 2)
    /// The terminal went away (EOF/hangup on input): the program should end.
    public static let inputClosed = TerminalEvents(rawValue: 4)
    /// The session's `SignalWatch` caught SIGINT, SIGTERM or SIGHUP: the program should end
    /// through its cleanup (the watch says which signal).
    public static let signalled = TerminalEvents(rawValue: 8)
}

/// The escape sequences used to enter and leave the full-screen mode.
public enum TerminalSequences {
    /// Alternate screen, hidden cursor, bracketed paste on, cleared.
    public static let enter: [UInt8] = Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?2004h\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8)
    /// CAN (aborts any sequence a signal interrupted mid-write), synchronized output off,
    /// attributes reset, bracketed paste off, cursor shown, main screen back.
    public static let leave: [UInt8] = Array("\u{18}\u{1B}[?2026l\u{1B}[0m\u{1B}[?2004l\u{1B}[?25h\u{1B}[?1049l".utf8)
    /// Bracketed paste on and off alone: the one-line commands (line mode) take a paste as
    /// text too, as the full screens do, so a pasted `q` does not quit.
    public static let pasteOn: [UInt8] = Array("\u{1B}[?2004h".utf8)
    public static let pasteOff: [UInt8] = Array("\u{1B}[?2004l".utf8)
}
