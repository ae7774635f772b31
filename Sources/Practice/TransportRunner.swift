import Clocks
import Foundation
import Lesson
import MIDIFile
import Synth

/// Owns a lesson `Transport` (a value) and plays it in real time from a dedicated thread:
/// sleeps until the transport's next event on the monotonic clock, sends synth messages to the
/// sound output and hands every event (notes, beats, passes, tempo, finished) to `onEvents` for
/// the judge or status line. With `onTick` it also calls that every `tickInterval` seconds,
/// paused or not, so judging (notes missed while nothing is played) moves on its own clock,
/// never on the screen's frames. Commands from other threads go through `perform`, which
/// applies them to the owned value and wakes the thread so a pause, seek or tempo change
/// applies at once, never after a stale sleep. Other threads read `transport`: an immutable
/// copy published after every change.
///
/// Made with `manual:` (a `VirtualClock` in tests) it starts no thread: `advance(to:)` plays
/// what is due, in the same order and under the same rules.
public final class TransportRunner: @unchecked Sendable {
    /// The transport as of its last change (a copy: reading it never races the owner).
    public var transport: Transport {
        condition.lock()
        defer { condition.unlock() }
        return published
    }
    public let clock: any TimeSource
    private let output: any SoundOutput
    private let onEvents: @Sendable ([TimedEvent]) -> Void
    private let onTick: (@Sendable (Double) -> Void)?
    /// How often `onTick` runs.
    public let tickInterval: Double
    /// Guards `published`, the thread's flags and its sleep; `owned` changes only with it held.
    private let condition = NSCondition()
    /// Held while a batch of events is produced and delivered (by the thread or a command), so
    /// listeners see them in the transport's order: a command's events (a tempo change, a jump)
    /// never arrive after the first events that follow it. Recursive: a listener may issue a
    /// command (wait mode pauses) from inside a delivery. Taken before `condition`, never after.
    private let delivery = NSRecursiveLock()
    /// The transport itself: changed only with `delivery` and `condition` held.
    private var owned: Transport
    private var published: Transport
    private let manual: Bool
    private var stopping = false
    private var finished = false
    private let exited = DispatchSemaphore(value: 0)
    private var started = false

    /// `transport` must have been made with `clock`.
    public init(transport: Transport, clock: MonotonicClock, output: any SoundOutput, tickInterval: Double = 0.02,
                onEvents: @escaping @Sendable ([TimedEvent]) -> Void = { _ in },
                onTick: (@Sendable (Double) -> Void)? = nil) {
        owned = transport
        published = transport
        self.clock = clock
        self.output = output
        self.onEvents = onEvents
        self.onTick = onTick
        self.tickInterval = max(0.001, tickInterval)
        manual = false
    }

    /// A runner without a thread, on any clock: the caller plays what is due with `advance(to:)`.
    public init(manual transport: Transport, output: any SoundOutput,
                onEvents: @escaping @Sendable ([TimedEvent]) -> Void = { _ in }) {
        owned = transport
        published = transport
        clock = transport.clock
        self.output = output
        self.onEvents = onEvents
        onTick = nil
        tickInterval = 1
        manual = true
    }

    /// Starts the dispatch thread and the transport.
    public func start() {
        guard !manual else {
            perform { $0.play() }
            return
        }
        condition.lock()
        guard !started else { condition.unlock(); return }
        started = true
        condition.unlock()
        let thread = Thread { [self] in loop() }
        thread.name = "etude-transport"
        thread.qualityOfService = .userInteractive
        thread.start()
        perform { $0.play() }
    }

    /// Runs a transport command (play, pause, seek, tempo, loop, hands…) and delivers the
    /// events it returns, then wakes the dispatch thread to re-plan its sleep.
    public func perform<E: Error>(_ command: (inout Transport) throws(E) -> [TimedEvent]) throws(E) {
        delivery.lock()
        defer { delivery.unlock() }
        condition.lock()
        let events: [TimedEvent]
        do {
            events = try command(&owned)
        } catch {
            published = owned
            condition.unlock()
            throw error
        }
        published = owned
        condition.signal()
        condition.unlock()
        deliver(events)
    }

    /// Plays what is due at `now` (a manual runner's step; the thread does this by itself).
    public func advance(to now: Double) {
        delivery.lock()
        defer { delivery.unlock() }
        condition.lock()
        let events = owned.advance(to: now)
        published = owned
        condition.unlock()
        deliver(events)
    }

    /// True once the transport played its last pass.
    public var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return finished
    }

    /// Blocks until the transport finishes or `stop()` is called; false on timeout.
    public func waitUntilFinished(timeout: Double? = nil) -> Bool {
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        condition.lock()
        defer { condition.unlock() }
        while !finished && !stopping {
            if let deadline {
                if !condition.wait(until: deadline) { return finished }
            } else {
                condition.wait()
            }
        }
        return finished
    }

    /// Stops the thread and silences everything (all notes off): safe to call twice.
    public func stop() {
        condition.lock()
        let wasRunning = started && !stopping
        stopping = true
        condition.broadcast()
        condition.unlock()
        if wasRunning { exited.wait() }
        delivery.lock()
        condition.lock()
        let silence = owned.stop()
        published = owned
        condition.unlock()
        // A manual runner delivers the note-offs (as a command would); the thread's are
        // covered by all notes off.
        if manual { deliver(silence) }
        delivery.unlock()
        output.allNotesOff()
    }

    private func deliver(_ events: [TimedEvent]) {
        guard !events.isEmpty else { return }
        var done = false
        for e in events {
            switch e.event {
            case .synth(let message): output.send(message)
            case .finished: done = true
            default: break
            }
        }
        onEvents(events)
        if done {
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
    }

    private func loop() {
        condition.lock()
        var nextTick = clock.now
        while !stopping {
            let now = clock.now
            if let onTick, now >= nextTick {
                condition.unlock()
                delivery.lock()
                onTick(now)
                delivery.unlock()
                condition.lock()
                nextTick = now + tickInterval
                continue
            }
            let next = owned.nextEventTime()
            let wake = onTick == nil ? next : min(next ?? .infinity, nextTick)
            guard let wake else {
                condition.wait()  // paused, stopped or finished: wait for a command
                continue
            }
            let wait = wake - now
            if wait > 0.002 {
                // Sleep most of the way on the condition (a command wakes it), the last
                // couple of milliseconds on the clock itself for precision.
                _ = condition.wait(until: Date(timeIntervalSinceNow: wait - 0.0015))
                continue
            }
            guard let next, next <= wake else {
                // The tick comes first: sleep to it, the top of the loop runs it.
                condition.unlock()
                if wait > 0 { clock.sleep(until: wake) }
                condition.lock()
                continue
            }
            condition.unlock()
            if wait > 0 { clock.sleep(until: next) }
            advance(to: clock.now)
            condition.lock()
        }
        condition.unlock()
        exited.signal()
    }
}
