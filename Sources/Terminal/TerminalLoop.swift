#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a terminal loop ended. Every screen and one-line command ends for the same reasons,
/// named the same way.
public enum TerminalEnding: Sendable, Equatable {
    /// The key handler (or the idle step) asked to quit.
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

/// What a key handler tells the loop.
public enum TerminalAction: Sendable { case `continue`, quit }

/// The one place terminal input becomes keys (the only `KeyDecoder` built outside tests): it
/// waits for bytes, holds back a lone Esc until `KeyDecoder.escapeTimeoutMilliseconds` have
/// passed without more (never a bracketed paste, which is delivered whole), ends on Ctrl-C,
/// a hang-up or a caught signal, and suspends on Ctrl-Z (the terminal restored while stopped;
/// `onSuspend` hears it before and after). Every screen, the browser, calibration and the
/// one-line players read their keys through it, so these behave the same everywhere.
public final class KeyInput {
    /// What one wait brought.
    public struct Poll: Sendable {
        /// The keys typed, in order (Ctrl-C and Ctrl-Z are taken out: they are `ending` and a suspend).
        public var keys: [Key]
        /// Resize, resume (also after a Ctrl-Z here), input closed, signalled.
        public var events: TerminalEvents
        /// Set when the loop must end; the keys before it are still in `keys`.
        public var ending: TerminalEnding?
    }

    public let device: TerminalDevice
    private var decoder = KeyDecoder()
    private var lastInput = ContinuousClock.now

    /// Called with true just before Ctrl-Z stops the process and with false after `fg`: a
    /// player pauses so nothing plays while the learner is away.
    public var onSuspend: ((Bool) -> Void)?

    public init(device: TerminalDevice) {
        self.device = device
    }

    /// Waits up to `timeoutMs` (-1: until something happens; shorter while an Esc is held
    /// back) and returns what arrived.
    public func poll(timeoutMs: Int32) -> Poll {
        let escape = Int32(KeyDecoder.escapeTimeoutMilliseconds)
        var wait = timeoutMs
        if decoder.hasPending && !decoder.isInPaste { wait = wait < 0 ? escape : min(wait, escape) }
        let bytes = device.readInput(timeoutMilliseconds: wait)
        var events = device.takeEvents()
        if events.contains(.inputClosed) { return Poll(keys: [], events: events, ending: .inputClosed) }
        if events.contains(.signalled) { return Poll(keys: [], events: events, ending: .signalled) }
        var decoded: [Key] = []
        if !bytes.isEmpty {
            lastInput = .now
            decoded = decoder.feed(bytes)
        } else if decoder.hasPending && !decoder.isInPaste,
                  ContinuousClock.now - lastInput >= .milliseconds(KeyDecoder.escapeTimeoutMilliseconds) {
            decoded = decoder.flush()
        }
        var keys: [Key] = []
        for key in decoded {
            if key == Key.ctrl("c") { return Poll(keys: keys, events: events, ending: .interrupted) }
            if key == Key.ctrl("z") {
                suspend()
                events.insert(.resumed)
                continue
            }
            keys.append(key)
        }
        return Poll(keys: keys, events: events, ending: nil)
    }

    /// Ctrl-Z: stop like a normal job (only a real terminal can; a test's fake just goes on).
    private func suspend() {
        guard let session = device as? TerminalSession else { return }
        onSuspend?(true)
        session.suspend()
        onSuspend?(false)
    }
}

/// The one key/frame loop of every full screen (practice, staff views, browser, calibration):
/// draws a frame at the target rate (and at once after a key, a resize or a resume), reads
/// keys through `KeyInput`, hands them to `onKey`, and runs `onIdle` every turn. A resize or
/// a return from Ctrl-Z redraws everything.
///
/// The frame callback must not block (copy state under a short lock), and the key handler
/// must only post commands. `stop()` may be called from any thread.
public final class TerminalLoop: @unchecked Sendable {
    public let input: KeyInput
    private var writer: FrameWriter
    private let frameInterval: Double
    private let lock = NSLockLike()
    private var stopRequested = false

    /// - Parameters:
    ///   - device: a `TerminalSession` (or a fake in tests).
    ///   - depth: colour depth, e.g. `session.colorDepth`.
    ///   - fps: target frames per second (30 is smooth over SSH).
    public init(device: TerminalDevice, depth: ColorDepth, fps: Double = 30, synchronizedOutput: Bool = true) {
        input = KeyInput(device: device)
        writer = FrameWriter(depth: depth, synchronizedOutput: synchronizedOutput)
        frameInterval = 1.0 / max(1, min(240, fps))
    }

    /// Called with true just before Ctrl-Z suspends the process and with false after `fg`.
    public var onSuspend: ((Bool) -> Void)? {
        get { input.onSuspend }
        set { input.onSuspend = newValue }
    }

    /// Asks the loop to end after the current turn (from any thread).
    public func stop() {
        lock.withLock { stopRequested = true }
    }

    private var shouldStop: Bool { lock.withLock { stopRequested } }

    /// Runs on the calling thread until a key handler or `onIdle` quits, Ctrl-C, a caught
    /// signal, EOF or `stop()`.
    /// - Parameters:
    ///   - frame: draws the whole screen into the buffer at the given size.
    ///   - onKey: each key typed, in order.
    ///   - onIdle: every turn before the wait; `.quit` ends the loop with `.quit`.
    ///   - wake: seconds until something is due (a click to sound), so the wait ends in time;
    ///     nil waits for the next frame.
    public func run(frame render: (inout CellBuffer, TerminalSize) -> Void,
                    onKey: (Key) -> TerminalAction,
                    onIdle: () -> TerminalAction = { .continue },
                    wake: () -> Double? = { nil }) -> TerminalEnding {
        let device = input.device
        var buffer = CellBuffer(size: device.size())
        let clock = ContinuousClock()
        writer.invalidate()
        func draw() {
            render(&buffer, device.size())
            let bytes = writer.frame(buffer)
            if !bytes.isEmpty { device.write(bytes) }
        }
        draw()
        var nextFrame = clock.now.advanced(by: .seconds(frameInterval))
        while true {
            if shouldStop { return .stopped }
            if onIdle() == .quit { return .quit }
            var due = nextFrame
            if let soon = wake(), soon.isFinite { due = min(due, clock.now.advanced(by: .seconds(max(0, soon)))) }
            let waitMs = max(0, Int32(((due - clock.now) / .milliseconds(1)).rounded(.up)))
            let got = input.poll(timeoutMs: waitMs)
            if got.events.contains(.resized) || got.events.contains(.resumed) { writer.invalidate() }
            for key in got.keys where onKey(key) == .quit { return .quit }
            if let ending = got.ending { return ending }
            if !got.keys.isEmpty || !got.events.isEmpty || clock.now >= nextFrame {
                draw()
                nextFrame = clock.now.advanced(by: .seconds(frameInterval))
            }
        }
    }
}

extension Key {
    /// True for text pasted with bracketed paste (text, never a key struck).
    public var isPaste: Bool {
        if case .paste = code { return true }
        return false
    }
}
