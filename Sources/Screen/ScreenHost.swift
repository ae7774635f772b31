#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Terminal

/// One full screen as the host runs it: its model is its own state; it draws that state into
/// an area of the cell buffer and turns a key into an action. Everything else a full screen
/// needs — signals, raw mode and the alternate screen, the key/frame loop, Ctrl-Z, resizes, the
/// "too small" message — is the `ScreenHost`'s, written once for every screen.
public protocol FullScreen: AnyObject {
    /// Below this size the host shows `TooSmallMessage` instead of `render`.
    var minimumSize: TerminalSize { get }
    /// Draws the screen into `area` (the whole terminal, already cleared).
    func render(into area: Rect, buffer: inout CellBuffer)
    /// One key typed; `.quit` ends the screen. A thrown error ends it too and leaves `run`.
    func key(_ key: Key) throws -> TerminalAction
    /// Every turn of the loop, before the wait: work that is due (a click, a finished pass).
    func idle() throws -> TerminalAction
    /// Seconds until something is due, so the wait ends in time; nil waits for the next frame.
    func wake() -> Double?
    /// True just before Ctrl-Z stops the process, false after `fg`.
    func suspend(_ suspending: Bool)
    /// Before each frame, drawn or not: the work due every frame, and whether the terminal is
    /// at least `minimumSize` (a screen that plays music pauses while it is not).
    func willDraw(fits: Bool)
    /// Once, as the screen closes (every way: a key, Ctrl-C, a signal, an error), before the
    /// terminal is restored: all notes off here.
    func close()
}

extension FullScreen {
    public func idle() throws -> TerminalAction { .continue }
    public func wake() -> Double? { nil }
    public func suspend(_ suspending: Bool) {}
    public func willDraw(fits: Bool) {}
    public func close() {}
}

/// How a hosted screen ended, and the exit status it calls for.
public struct ScreenEnd: Sendable, Equatable {
    public var ending: TerminalEnding
    /// SIGINT, SIGTERM or SIGHUP caught while it ran.
    public var signal: Int32?

    public init(ending: TerminalEnding, signal: Int32? = nil) {
        self.ending = ending
        self.signal = signal
    }

    /// 128 + a caught signal, 130 for Ctrl-C, else 0.
    public var exitStatus: Int32 {
        if let signal { return 128 + signal }
        return ending == .interrupted ? 130 : 0
    }
}

/// The one host of every full screen (the browser, calibration, the practice and routine
/// screens): it sets up the signals (`SignalWatch`: SIGINT, SIGTERM, SIGHUP end the screen
/// through its cleanup; SIGWINCH redraws at the new size; SIGTSTP and Ctrl-Z restore the
/// terminal while stopped), takes the terminal (`TerminalSession`: raw mode and the alternate
/// screen, restored on every way out), runs the key/frame loop (`TerminalLoop`) and draws the
/// "too small" prelude. This file is the only place a terminal session or a signal watch is
/// made (`lineSession` and `signalWatch` serve the one-line commands' `LineKeys`).
///
///     let end = try ScreenHost.run { host in MyScreen(depth: host.depth) }
///
/// Nothing else may write to stdout while a screen is up (it would corrupt the frame).
public final class ScreenHost: @unchecked Sendable {
    /// The colour depth of the terminal (from the environment).
    public let depth: ColorDepth
    /// The watch the screen ends on (nil on a fake terminal).
    public let signals: SignalWatch?
    private let device: TerminalDevice
    private let loop: TerminalLoop

    init(device: TerminalDevice, depth: ColorDepth, signals: SignalWatch?, fps: Double, synchronizedOutput: Bool) {
        self.device = device
        self.depth = depth
        self.signals = signals
        loop = TerminalLoop(device: device, depth: depth, fps: fps, synchronizedOutput: synchronizedOutput)
    }

    /// The terminal's size now.
    public func size() -> TerminalSize { device.size() }

    /// Ends the screen after the current turn (from any thread); it ends as `.stopped`.
    public func stop() { loop.stop() }

    /// Runs a full screen on the process's terminal until it quits, Ctrl-C, a signal, the
    /// terminal going away or `stop()`. `make` builds the screen once the terminal is taken
    /// (it may start the music: the screen is up). The terminal is restored however it ends.
    /// - Parameter signals: a watch already running (a routine keeps one across its entries);
    ///   nil: the host's own, given back as it returns.
    public static func run<S: FullScreen>(signals watch: SignalWatch? = nil, fps: Double = 30,
                                          _ make: (ScreenHost) throws -> S) throws -> ScreenEnd {
        let signals = watch ?? SignalWatch()
        defer { if watch == nil { signals.stop() } }
        let session = try TerminalSession(mode: .fullScreen, signals: signals)
        defer { session.close() }
        return try run(device: session, depth: session.colorDepth, signals: signals, fps: fps, make)
    }

    /// Runs a full screen on `device` (a fake terminal in tests): the loop, the prelude and the
    /// signal check, without taking a real terminal.
    public static func run<S: FullScreen>(device: TerminalDevice, depth: ColorDepth, signals: SignalWatch? = nil,
                                          fps: Double = 30, synchronizedOutput: Bool = true,
                                          _ make: (ScreenHost) throws -> S) throws -> ScreenEnd {
        let host = ScreenHost(device: device, depth: depth, signals: signals, fps: fps, synchronizedOutput: synchronizedOutput)
        let screen = try make(host)
        return try host.drive(screen)
    }

    private func drive(_ screen: some FullScreen) throws -> ScreenEnd {
        var closed = false
        defer { if !closed { screen.close() } }
        var failure: Error?
        let theme = Theme(depth: depth)
        loop.onSuspend = { screen.suspend($0) }
        let signals = self.signals
        let ending = loop.run(frame: { buffer, size in
            screen.willDraw(fits: Rect(size: size).fits(screen.minimumSize))
            ScreenPrelude.draw(into: &buffer, size: size, minimum: screen.minimumSize, theme: theme) { area, buffer in
                screen.render(into: area, buffer: &buffer)
            }
        }, onKey: { key in
            do { return try screen.key(key) } catch {
                failure = error
                return .quit
            }
        }, onIdle: {
            if signals?.received != nil { return .quit }
            do { return try screen.idle() } catch {
                failure = error
                return .quit
            }
        }, wake: { screen.wake() })
        loop.onSuspend = nil  // the loop no longer holds the screen
        closed = true
        screen.close()
        if let failure { throw failure }
        let signal = signals?.received
        return ScreenEnd(ending: signal != nil ? .signalled : ending, signal: signal)
    }

    /// A watch for commands without a full screen (`LineKeys`, a routine across its entries).
    public static func signalWatch() -> SignalWatch { SignalWatch() }

    /// The terminal in line mode for the one-line commands (`LineKeys`): keys one by one, no
    /// echo; nil when stdin is not a terminal.
    public static func lineSession(signals: SignalWatch) -> TerminalSession? {
        isatty(STDIN_FILENO) == 1 ? try? TerminalSession(mode: .line, signals: signals) : nil
    }
}

/// What every full screen starts with, written once: the buffer cleared to the terminal's
/// size, and below the screen's minimum the "too small" message instead of the screen. The
/// host and the pure `render(_:size:)` of each screen (snapshots, benchmarks) both draw
/// through it.
public enum ScreenPrelude {
    public static func draw(into buffer: inout CellBuffer, size: TerminalSize, minimum: TerminalSize, theme: Theme,
                            _ body: (Rect, inout CellBuffer) -> Void) {
        buffer.reset(size: size)
        let area = Rect(size: size)
        guard area.fits(minimum) else {
            TooSmallMessage(theme: theme, minimum: minimum).render(into: area, buffer: &buffer)
            return
        }
        body(area, &buffer)
    }
}

/// The top line of a full screen: the title on the status colour at the left, an aside after
/// it (cut, never dropped), and a note on the right while there is room for it.
public struct HeaderBar: Widget, Sendable {
    public var theme: Theme
    public var title: String
    /// Said in the message colour just after the title ("silent (no audio)").
    public var aside: String?
    /// Right-aligned ("♩=60", the filters), dropped when the title needs the room.
    public var right: String?

    public init(theme: Theme, title: String, aside: String? = nil, right: String? = nil) {
        self.theme = theme
        self.title = title
        self.aside = aside
        self.right = right
    }

    public func render(into area: Rect, buffer: inout CellBuffer) {
        let w = area.width
        guard w > 0, area.height > 0 else { return }
        buffer.fill(x: area.x, y: area.y, width: w, height: 1, Cell(" ", theme.statusStyle))
        let used = buffer.text(title, x: area.x + 1, y: area.y, style: theme.statusAccent, maxWidth: w - 2)
        let rw = right.map { CellBuffer.width(of: $0) } ?? 0
        let rightFits = right != nil && used + rw + 4 < w
        if let right, rightFits {
            buffer.text(right, x: area.x + w - 1 - rw, y: area.y, style: theme.statusStyle, maxWidth: rw)
        }
        if let aside {
            let room = w - 1 - (rightFits ? rw + 2 : 0) - (1 + used + 2)
            buffer.text(aside, x: area.x + 1 + used + 2, y: area.y, style: theme.messageStyle, maxWidth: max(0, room))
        }
    }
}
