import Clocks
import Foundation
import Lesson
import MIDIFile
import Synchronization
import Synth

/// Owns a lesson `Transport` (a value) and everything the caller confines to it, and plays it
/// in real time from one thread, the owner, as swift-nio confines a channel to its event loop:
/// it sleeps until the transport's next event on the monotonic clock, sends synth messages to
/// the sound output and hands every event (notes, beats, passes, tempo, finished) to
/// `onEvents`; with `onTick` it also calls that every `tickInterval` seconds, paused or not, so
/// judging moves on its own clock, never on the screen's frames.
///
/// Other threads never touch what it owns: they put work in its inbox. `post` hands work over
/// without waiting (a practice session's mailbox is drained that way); `perform` (a transport
/// command) and `run` (any work on the owner's state) wait for the owner to do it and return
/// its result (tests, and callers that are not a screen). Called on the owner itself (from
/// inside `onEvents` or `onTick`), they run at once. Everyone reads `transport`: an immutable
/// copy published after every change, under a lock of its own (a reader never waits for the
/// runner's inbox).
///
/// Before `start()` the thread that made it owns it (setting up is single-threaded); after
/// `stop()` the thread that stopped it does. Made with `manual:` (a `VirtualClock` in tests) it
/// starts no thread: the caller owns it and `advance(to:)` plays what is due, in the same order
/// and under the same rules.
///
/// Two locks: `inbox`, an `NSCondition` guarding the queued work and the thread's flags (never
/// held while work runs or events are delivered), and the published copy's `Mutex`, held only
/// to copy it.
public final class TransportRunner: @unchecked Sendable {
    /// The transport as of its last change (a copy: reading it never races the owner).
    public var transport: Transport { published.withLock { $0 } }
    public let clock: any TimeSource
    /// What the ticks are timed by: real seconds, even while a followed clock waits.
    private let tickClock: any TimeSource
    private let output: any SoundOutput
    private let onEvents: @Sendable ([TimedEvent]) -> Void
    private let onTick: (@Sendable (Double) -> Void)?
    /// How often `onTick` runs.
    public let tickInterval: Double
    /// Guards `jobs`, `phase`, the counters and the thread's sleep.
    private let inbox = NSCondition()
    private var jobs: [() -> Void] = []
    /// Work taken from the inbox so far and work done (a waiting caller's ticket is done when
    /// `done` reaches it).
    private var queued = 0
    private var done = 0
    /// The transport itself: the owner's alone.
    private var owned: Transport
    private let published: Mutex<Transport>
    private let manual: Bool
    private enum Phase { case unstarted, running, stopping, stopped }
    private var phase = Phase.unstarted
    private var finished = false
    /// The owner thread while it runs (work from it runs at once).
    private var ownerThread: pthread_t?
    /// The same, readable without the lock (0: no thread owns it; whoever holds the runner does;
    /// `starting`: the thread is on its way, so nobody does).
    private let ownerID = Atomic<UInt>(0)
    private static let starting = UInt.max
    private let exited = DispatchSemaphore(value: 0)

    /// `transport` must have been made with `clock`, a real-time clock (`isRealTime`): the
    /// monotonic clock, or a `FollowedClock` over it (`tickClock` then its base, so the ticks
    /// go on while the music waits for the learner).
    public init(transport: Transport, clock: any TimeSource, tickClock: (any TimeSource)? = nil, output: any SoundOutput,
                tickInterval: Double = 0.02,
                onEvents: @escaping @Sendable ([TimedEvent]) -> Void = { _ in },
                onTick: (@Sendable (Double) -> Void)? = nil) {
        owned = transport
        published = Mutex(transport)
        self.clock = clock
        self.tickClock = tickClock ?? clock
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
        published = Mutex(transport)
        clock = transport.clock
        tickClock = transport.clock
        self.output = output
        self.onEvents = onEvents
        onTick = nil
        tickInterval = 1
        manual = true
    }

    /// Starts the owner thread and the transport.
    public func start() {
        guard !manual else {
            perform { $0.play() }
            return
        }
        inbox.lock()
        guard phase == .unstarted else { inbox.unlock(); return }
        inbox.unlock()
        // Still the caller's until the thread starts: the music starts here, without waiting
        // for the thread to take its first turn.
        advance(events: owned.play())
        inbox.lock()
        phase = .running
        // Nobody's until the thread names itself (the caller gave it up here).
        ownerID.store(Self.starting, ordering: .releasing)
        inbox.unlock()
        let thread = Thread { [self] in loop() }
        thread.name = "etude-transport"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Runs a transport command (play, pause, seek, tempo, loop, hands…) on the owner and
    /// delivers the events it returns; returns when it is done (its error thrown here).
    public func perform<E: Error>(_ command: (inout Transport) throws(E) -> [TimedEvent]) throws(E) {
        let outcome: Result<Void, E> = run {
            do throws(E) {
                let events = try command(&owned)
                publish()
                deliver(events)
                return .success(())
            } catch {
                publish()
                return .failure(error)
            }
        }
        try outcome.get()
    }

    /// Runs `body` on the owner, in order with the music and the other work, and returns its
    /// result: the way to read or change what the caller confined to the owner.
    public func run<T>(_ body: () -> T) -> T {
        inbox.lock()
        guard phase == .running || phase == .stopping, !isOwnerThread else {
            inbox.unlock()
            return body()
        }
        return withoutActuallyEscaping(body) { escaping -> T in
            var result: T?
            jobs.append { result = escaping() }
            queued += 1
            let ticket = queued
            inbox.broadcast()
            while done < ticket { inbox.wait() }
            inbox.unlock()
            // The owner ran it before `done` passed the ticket (the lock orders the write).
            guard let result else { preconditionFailure("the owner skipped a job") }
            return result
        }
    }

    /// Hands `body` to the owner without waiting (a played note from the input thread); after
    /// `stop()` it is dropped, before `start()` it runs at once.
    public func post(_ body: @escaping @Sendable () -> Void) {
        inbox.lock()
        switch phase {
        case .running where !isOwnerThread:
            jobs.append(body)
            queued += 1
            inbox.broadcast()
            inbox.unlock()
        case .stopping, .stopped:
            inbox.unlock()
        default:
            inbox.unlock()
            body()
        }
    }

    /// Plays what is due at `now` (a manual runner's step; the thread does this by itself).
    public func advance(to now: Double) {
        advance(events: owned.advance(to: now))
    }

    private func advance(events: [TimedEvent]) {
        publish()
        deliver(events)
    }

    /// True once the transport played its last pass.
    public var isFinished: Bool {
        inbox.lock()
        defer { inbox.unlock() }
        return finished
    }

    /// Blocks until the transport finishes or `stop()` is called; false on timeout.
    public func waitUntilFinished(timeout: Double? = nil) -> Bool {
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        inbox.lock()
        defer { inbox.unlock() }
        while !finished && phase != .stopping && phase != .stopped {
            if let deadline {
                if !inbox.wait(until: deadline) { return finished }
            } else {
                inbox.wait()
            }
        }
        return finished
    }

    /// Stops the thread (the work already in the inbox done first) and silences everything
    /// (all notes off); the caller owns what the runner owned from then on. Safe to call twice.
    public func stop() {
        inbox.lock()
        let wasRunning = phase == .running
        if phase == .running { phase = .stopping }
        if phase == .unstarted { phase = .stopped }
        inbox.broadcast()
        inbox.unlock()
        if wasRunning { exited.wait() }
        let silence = owned.stop()
        publish()
        // A manual runner delivers the note-offs (as a command would); the thread's are
        // covered by all notes off.
        if manual { deliver(silence) }
        output.allNotesOff()
    }

    private var isOwnerThread: Bool {
        guard let ownerThread else { return false }
        return pthread_equal(ownerThread, pthread_self()) != 0
    }

    /// True on the thread that owns what the runner confines: its own thread while it runs,
    /// any thread before `start()` and after `stop()` (the caller owns it then). What swift-nio's
    /// `NIOLoopBound` checks before every access, read without a lock.
    public var isOnOwner: Bool {
        let owner = ownerID.load(ordering: .acquiring)
        return owner == 0 || pthread_equal(pthread_t(owner), pthread_self()) != 0
    }

    private func publish() {
        let copy = owned
        published.withLock { $0 = copy }
    }

    /// Note-ons of the lesson due before this time are not sounded (the owner's; set when a
    /// followed clock jumps ahead with the learner, so the music skipped is not played at once).
    private var skippingBefore: Double?

    /// The lesson's notes due before `time` are skipped, not played at once (on the owner).
    public func skipNoteOns(before time: Double) {
        skippingBefore = max(skippingBefore ?? time, time)
    }

    /// The real second (the tick clock's: monotonic for a runner with a thread) of the music's
    /// clock time `time`: the same for the monotonic clock, through the warp for a clock that
    /// follows the learner.
    private func realSeconds(of time: Double) -> Double {
        tickClock.now + clock.baseSeconds(for: time - clock.now)
    }

    private func deliver(_ events: [TimedEvent]) {
        guard !events.isEmpty else { return }
        var ended = false
        for e in events {
            switch e.event {
            case .synth(.noteOn(_, _, let velocity)) where velocity > 0 && e.time < (skippingBefore ?? -.infinity):
                continue
            // Stamped with the real second it is due: on JACK it is played at that time's frame.
            case .synth(let message): output.send(message, at: realSeconds(of: e.time))
            case .guide(let message): output.sendGuide(message)
            case .finished: ended = true
            default: break
            }
        }
        onEvents(events)
        if ended {
            inbox.lock()
            finished = true
            inbox.broadcast()
            inbox.unlock()
        }
    }

    /// Runs the inbox's work (called with `inbox` held; returns with it held).
    private func drainInbox() {
        while !jobs.isEmpty {
            let batch = jobs
            jobs.removeAll()
            inbox.unlock()
            for job in batch { job() }
            inbox.lock()
            done += batch.count
            inbox.broadcast()
        }
    }

    private func loop() {
        inbox.lock()
        ownerThread = pthread_self()
        ownerID.store(UInt(pthread_self()), ordering: .releasing)
        var nextTick = tickClock.now
        while phase == .running {
            if !jobs.isEmpty {
                drainInbox()
                continue
            }
            let now = clock.now
            let tickNow = tickClock.now
            if let onTick, tickNow >= nextTick {
                inbox.unlock()
                onTick(now)
                inbox.lock()
                nextTick = tickNow + tickInterval
                continue
            }
            let next = owned.nextEventTime()
            // Both in real seconds from now: the music's clock may run at the learner's rate.
            let eventWait = next.map { clock.baseSeconds(for: $0 - now) }
            let tickWait = onTick == nil ? nil : nextTick - tickNow
            guard let wait = [eventWait, tickWait].compactMap({ $0 }).min() else {
                inbox.wait()  // paused, stopped or finished: wait for work
                continue
            }
            if wait > 0.002 {
                // Sleep most of the way on the condition (work in the inbox wakes it), the
                // last couple of milliseconds on the clock itself for precision.
                _ = inbox.wait(until: Date(timeIntervalSinceNow: wait - 0.0015))
                continue
            }
            guard let next, let eventWait, eventWait <= (tickWait ?? .infinity) else {
                // The tick comes first: sleep to it, the top of the loop runs it.
                inbox.unlock()
                if wait > 0 { tickClock.sleep(until: nextTick) }
                inbox.lock()
                continue
            }
            inbox.unlock()
            if wait > 0 { clock.sleep(until: next) }
            advance(to: clock.now)
            inbox.lock()
        }
        // Work handed in before the stop is done (no caller is left waiting).
        drainInbox()
        phase = .stopped
        ownerThread = nil
        ownerID.store(0, ordering: .releasing)
        inbox.broadcast()
        inbox.unlock()
        exited.signal()
    }
}
