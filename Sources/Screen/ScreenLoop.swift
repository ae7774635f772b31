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
    public typealias Action = TerminalAction
    public typealias Ending = TerminalEnding

    private let screen: PracticeScreen
    private let loop: TerminalLoop
    private var thread: Thread?
    private var ending: Ending?
    private let finished = NSCondition()

    /// - Parameters:
    ///   - device: a `TerminalSession` (or a fake in tests).
    ///   - depth: colour depth, e.g. `session.colorDepth`.
    ///   - fps: target frames per second (30 is smooth over SSH).
    public init(device: TerminalDevice, depth: ColorDepth, fps: Double = 30, synchronizedOutput: Bool = true) {
        self.screen = PracticeScreen(depth: depth)
        self.loop = TerminalLoop(device: device, depth: depth, fps: fps, synchronizedOutput: synchronizedOutput)
    }

    /// Called with true just before Ctrl-Z suspends the process and with false after `fg`:
    /// a practice session pauses its transport so nothing plays while the learner is away.
    public var onSuspend: ((Bool) -> Void)? {
        get { loop.onSuspend }
        set { loop.onSuspend = newValue }
    }

    /// Asks the loop to end after the current frame (from any thread).
    public func stop() {
        loop.stop()
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

    /// Runs the loop drawing each frame with `frame` (another screen: the staff views): the
    /// terminal's one key/frame loop, `TerminalLoop`.
    public func run(frame render: (inout CellBuffer, TerminalSize) -> Void, onKey: (Key) -> Action) -> Ending {
        loop.run(frame: render, onKey: onKey)
    }
}
