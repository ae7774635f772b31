import Foundation
import Reports
import Screen
import Terminal

/// Keys and signals for the one-line commands (`play --no-screen`, `loop`, `record`, `quiz`,
/// `routine run`): the terminal in line mode (raw keys, no echo, output as usual) read through
/// the same `KeyInput` as the screens (Esc timeout, paste, Ctrl-C, Ctrl-Z, resize alike), and
/// SIGINT/SIGTERM/SIGHUP caught so the command ends through its cleanup. Without a terminal on
/// stdin it reads no keys and still catches the signals.
public final class LineKeys: @unchecked Sendable {
    public let signals: SignalWatch
    private var session: TerminalSession?
    private var input: KeyInput?

    /// Called with true just before Ctrl-Z stops the process and with false after `fg`: a
    /// player pauses so nothing plays while the learner is away (space resumes).
    public var onSuspend: ((Bool) -> Void)? {
        didSet { input?.onSuspend = onSuspend }
    }

    /// - Parameter signals: a watch already running (a routine keeps one across its entries).
    public init(signals: SignalWatch? = nil) {
        self.signals = signals ?? ScreenHost.signalWatch()
        ownsWatch = signals == nil
        openTerminal()
    }

    private let ownsWatch: Bool

    private func openTerminal() {
        session = ScreenHost.lineSession(signals: signals)
        input = session.map { KeyInput(device: $0) }
        input?.onSuspend = onSuspend
    }

    /// Gives the terminal back (a full screen is about to take it); the signals stay caught.
    public func pauseTerminal() {
        session?.close()
        session = nil
        input = nil
    }

    /// Takes the terminal again after `pauseTerminal`.
    public func resumeTerminal() {
        if session == nil { openTerminal() }
    }

    deinit { close() }

    /// True when keys come from a terminal.
    public var isTerminal: Bool { session != nil }

    /// The exit status a caught signal calls for (nil while none).
    public var signalStatus: Int32? { signals.exitStatus }

    /// Keys that arrive within `timeoutMs` (a lone Esc after its timeout; Ctrl-C last when
    /// typed); nil when the terminal hung up or a signal arrived (the caller ends).
    public func read(timeoutMs: Int32) -> [Key]? {
        guard signals.received == nil else { return nil }
        guard let input else {
            if timeoutMs > 0 { usleep(UInt32(timeoutMs) * 1000) }
            return signals.received == nil ? [] : nil
        }
        let got = input.poll(timeoutMs: timeoutMs)
        switch got.ending {
        case .inputClosed?, .signalled?: return nil
        case .interrupted?: return got.keys + [Key.ctrl("c")]
        case .quit?, .stopped?, nil: return got.keys
        }
    }

    /// Puts the terminal back as it was and (when this owns the watch) the signals to their
    /// defaults; safe to call twice.
    public func close() {
        session?.close()
        session = nil
        input = nil
        if ownsWatch { signals.stop() }
    }
}

/// The one-line commands' common keys.
public enum LineCommand: Equatable, Sendable {
    case togglePause, back, forward, quit, interrupt
    /// A printable character (the computer-keyboard piano in `record` and `quiz`).
    case character(Character)

    public init?(_ key: Key) {
        if key == Key.ctrl("c") { self = .interrupt; return }
        if key == Key.ctrl("d") { self = .quit; return }
        switch key.code {
        case .escape: self = .quit
        case .left: self = .back
        case .right: self = .forward
        case .character(let c) where key.modifiers.isEmpty || key.modifiers == .shift:
            switch c {
            case "q", "Q": self = .quit
            case " ": self = .togglePause
            default: self = .character(c)
            }
        default: return nil
        }
    }
}

extension LineKeys {
    /// A player's loop: every `timeoutMs` (or at a key) `step` gets the commands typed, in
    /// order, and says whether to go on. Ends at q or Esc (0), Ctrl-C (130), a signal (128 + n)
    /// or the input gone (0), with that status; 0 when `step` ends it.
    public func run(everyMs timeoutMs: Int32, _ step: ([LineCommand]) -> Bool) -> Int32 {
        while true {
            guard let pressed = read(timeoutMs: timeoutMs) else { return signalStatus ?? 0 }
            var commands: [LineCommand] = []
            for key in pressed {
                switch LineCommand(key) {
                case .quit?: return 0
                case .interrupt?: return 130
                case let command?: commands.append(command)
                case nil: break
                }
            }
            if !step(commands) { return 0 }
        }
    }
}

/// A status line redrawn in place on a terminal (`\r`, erase to the end of the line).
public final class StatusLine: @unchecked Sendable {
    private var last = ""
    private let onTerminal: Bool

    public init(onTerminal: Bool = isatty(STDOUT_FILENO) != 0) {
        self.onTerminal = onTerminal
    }

    /// Shows `line` if it changed (nothing when not on a terminal).
    public func show(_ line: String) {
        guard onTerminal, line != last else { return }
        last = line
        // One row, always: a line that wrapped could not be redrawn in place (`\r` goes back
        // to the start of its last row only), so it is cut to the terminal's width.
        let columns = TerminalSize.of(STDOUT_FILENO)?.columns ?? 80
        Console.statusLine(CellBuffer.cut(line, width: columns - 1))
    }

    /// Ends the line so what follows starts on its own.
    public func finish() {
        if onTerminal && !last.isEmpty { Console.out("\n") }
        last = ""
    }

    /// Clears the line (a countdown that ended).
    public func clear() {
        if onTerminal && !last.isEmpty { Console.clearStatusLine() }
        last = ""
    }

    /// A status of a title and what follows it in the terminal's width: the title is what is
    /// cut, so the clock and the keys stay in view.
    public static func fitted(_ title: String, _ rest: String, onTerminal: Bool = isatty(STDOUT_FILENO) != 0) -> String {
        guard onTerminal else { return title + rest }
        let columns = (TerminalSize.of(STDOUT_FILENO)?.columns ?? 80) - 1
        return CellBuffer.cut(title, width: max(8, columns - CellBuffer.width(of: rest))) + rest
    }

    /// Rows of a line that stays (a summary, a quiz answer): on a terminal wrapped at spaces
    /// to its width, so no word breaks across two rows; elsewhere the line as it is.
    public static func rows(_ text: String, onTerminal: Bool = isatty(STDOUT_FILENO) != 0) -> [String] {
        guard onTerminal else { return [text] }
        let columns = TerminalSize.of(STDOUT_FILENO)?.columns ?? 80
        return CellBuffer.wrap(text, width: columns - 1, indent: "  ")
    }

    /// Prints a line that stays, wrapped as `rows` says.
    public static func keep(_ text: String) {
        for row in rows(text) { Console.out(row + "\n") }
    }

    /// Prints lines (each ending in a newline), each wrapped as `rows` says: a report such as
    /// `etude info` whose long fields would otherwise break mid-word at the terminal's edge.
    public static func keepAll(_ text: String) {
        guard isatty(STDOUT_FILENO) != 0 else { return Console.out(text) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if text.hasSuffix("\n") { lines.removeLast() }
        for line in lines { keep(String(line)) }
    }

    /// `m:ss`.
    public static func clock(_ s: Double) -> String {
        let t = s.isFinite ? Int(max(0, min(s, 1e9))) : 0
        return "\(t / 60):\(String(format: "%02d", t % 60))"
    }
}
