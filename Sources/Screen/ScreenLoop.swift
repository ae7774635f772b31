import Foundation
import Terminal

/// Drives a terminal: renders a `ScreenModel` at a target frame rate, decodes input, hands keys
/// to a handler. Runs on its own thread (`start`) or the caller's (`run`).
///
/// It never touches audio: the model provider must return a snapshot without blocking (copy
/// the transport state under a short lock, or from atomics), and the key handler must only
/// post commands (never wait on the audio thread). Ctrl-C always quits, Ctrl-Z suspends (the
/// terminal is restored; after `fg` everything is redrawn), a resize redraws everything.
///
/// Wiring, in short:
///
///     try TerminalSession.run { session in            // raw mode + alternate screen, restored on every exit
///         let loop = ScreenLoop(device: session, depth: session.colorDepth, fps: 30)
///         let ending = loop.run(model: { practice.snapshotScreenModel() },
///                               onKey: { key in practice.handle(key) })   // .quit ends the loop
///     }
///
/// Nothing else may write to stdout while the session is open (it would corrupt the frame).
public final class ScreenLoop: @unchecked Sendable {
    public enum Action: Sendable { case `continue`, quit }

    public enum Ending: Sendable, Equatable {
        /// The key handler returned `.quit`.
        case quit
        /// Ctrl-C.
        case interrupted
        /// The terminal went away (EOF on input).
        case inputClosed
        /// `stop()` was called.
        case stopped
        /// The terminal session's `SignalWatch` caught SIGINT, SIGTERM or SIGHUP.
        case signalled
    }

    private let device: TerminalDevice
    private let screen: PracticeScreen
    private var writer: FrameWriter
    private let frameInterval: Double
    private let lock = NSLock()
    private var stopRequested = false
    private var thread: Thread?
    private var ending: Ending?
    private let finished = NSCondition()

    /// - Parameters:
    ///   - device: a `TerminalSession` (or a fake in tests).
    ///   - depth: colour depth, e.g. `session.colorDepth`.
    ///   - fps: target frames per second (30 is smooth over SSH).
    public init(device: TerminalDevice, depth: ColorDepth, fps: Double = 30, synchronizedOutput: Bool = true) {
        self.device = device
        self.screen = PracticeScreen(depth: depth)
        self.writer = FrameWriter(depth: depth, synchronizedOutput: synchronizedOutput)
        self.frameInterval = 1.0 / max(1, min(240, fps))
    }

    /// Called with true just before Ctrl-Z suspends the process and with false after `fg`:
    /// a practice session pauses its transport so nothing plays while the learner is away.
    public var onSuspend: ((Bool) -> Void)?

    /// Asks the loop to end after the current frame (from any thread).
    public func stop() {
        lock.lock()
        stopRequested = true
        lock.unlock()
    }

    private var shouldStop: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequested
    }

    /// Runs the loop on a new thread; `wait()` returns how it ended.
    public func start(model: @escaping @Sendable () -> ScreenModel, onKey: @escaping @Sendable (Key) -> Action) {
        let t = Thread { [self] in
            let end = self.run(model: model, onKey: onKey)
            self.finished.lock()
            self.ending = end
            self.finished.broadcast()
            self.finished.unlock()
        }
        t.name = "etude-screen"
        thread = t
        t.start()
    }

    /// Blocks until a loop started with `start` has ended.
    public func wait() -> Ending {
        finished.lock()
        defer { finished.unlock() }
        while ending == nil { finished.wait() }
        return ending ?? .stopped
    }

    /// Runs the loop on the calling thread until the handler quits, Ctrl-C, EOF or `stop()`,
    /// drawing the practice screen from `model`.
    public func run(model: () -> ScreenModel, onKey: (Key) -> Action) -> Ending {
        let screen = self.screen
        return run(frame: { buffer, size in screen.render(model(), into: &buffer, size: size) }, onKey: onKey)
    }

    /// Runs the loop drawing each frame with `frame` (another screen: the staff views).
    public func run(frame render: (inout CellBuffer, TerminalSize) -> Void, onKey: (Key) -> Action) -> Ending {
        var decoder = KeyDecoder()
        var buffer = CellBuffer(size: device.size())
        let clock = ContinuousClock()
        var nextFrame = clock.now
        var lastInput = clock.now
        writer.invalidate()
        func draw() {
            render(&buffer, device.size())
            let bytes = writer.frame(buffer)
            if !bytes.isEmpty { device.write(bytes) }
        }
        draw()
        nextFrame = clock.now.advanced(by: .seconds(frameInterval))
        while true {
            if shouldStop { return .stopped }
            let now = clock.now
            var waitMs = max(0, Int32(((nextFrame - now) / .milliseconds(1)).rounded(.up)))
            if decoder.hasPending && !decoder.isInPaste { waitMs = min(waitMs, Int32(KeyDecoder.escapeTimeoutMilliseconds)) }
            let bytes = device.readInput(timeoutMilliseconds: waitMs)
            let events = device.takeEvents()
            if events.contains(.inputClosed) { return .inputClosed }
            if events.contains(.signalled) { return .signalled }
            if events.contains(.resized) || events.contains(.resumed) { writer.invalidate() }
            var keys: [Key] = []
            if !bytes.isEmpty {
                lastInput = clock.now
                keys = decoder.feed(bytes)
            } else if decoder.hasPending && !decoder.isInPaste,
                      clock.now - lastInput >= .milliseconds(KeyDecoder.escapeTimeoutMilliseconds) {
                keys = decoder.flush()
            }
            var redrawNow = !keys.isEmpty || !events.isEmpty
            for key in keys {
                if key == Key.ctrl("c") { return .interrupted }
                if key == Key.ctrl("z"), let session = device as? TerminalSession {
                    onSuspend?(true)
                    session.suspend()
                    onSuspend?(false)
                    writer.invalidate()
                    redrawNow = true
                    continue
                }
                if onKey(key) == .quit { return .quit }
            }
            if redrawNow || clock.now >= nextFrame {
                draw()
                nextFrame = clock.now.advanced(by: .seconds(frameInterval))
            }
        }
    }
}
