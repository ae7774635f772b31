import Clocks
import Foundation
import MIDIFile

/// Something that hands out timed messages: a whole file, or the lesson engine's transport
/// through an adapter. Only ever called by the dispatcher, under its lock.
public protocol ScheduledSource: AnyObject, SendableMetatype {
    /// Time in seconds of the next message, nil when nothing is left.
    func nextEventTime() -> Double?
    /// Every message due at or before `seconds`, in order, consumed.
    func advance(to seconds: Double) -> [MIDIEvent.Kind]
    /// Repositions; returns controller/program state to resend (no notes).
    func seek(to seconds: Double) -> [MIDIEvent.Kind]
    /// Total length in seconds (the end of the file, after the last note-off).
    var duration: Double { get }
    /// Quarter-note BPM at a time, for the status line.
    func bpm(at seconds: Double) -> Double
}

/// A `ScheduledSource` over a `MessageSchedule` (plain file playback).
public final class ScheduleCursor: ScheduledSource {
    public let schedule: MessageSchedule
    private var index = 0

    public init(_ schedule: MessageSchedule) { self.schedule = schedule }

    public func nextEventTime() -> Double? {
        index < schedule.messages.count ? schedule.messages[index].seconds : nil
    }

    public func advance(to seconds: Double) -> [MIDIEvent.Kind] {
        var out: [MIDIEvent.Kind] = []
        while index < schedule.messages.count && schedule.messages[index].seconds <= seconds {
            out.append(schedule.messages[index].message)
            index += 1
        }
        return out
    }

    public func seek(to seconds: Double) -> [MIDIEvent.Kind] {
        index = schedule.firstIndex(atOrAfter: seconds)
        return schedule.chase(to: seconds)
    }

    public var duration: Double { schedule.duration }
    public func bpm(at seconds: Double) -> Double { schedule.bpm(atSeconds: seconds) }
}

/// Dispatches a source's messages to a `SoundOutput` from a dedicated thread, sleeping until
/// absolute CLOCK_MONOTONIC deadlines (a condition variable bound to the monotonic clock, so
/// pause/seek/stop wake it at once). Every pause, seek and stop sends all-notes-off first.
public final class EventDispatcher<Source: ScheduledSource>: @unchecked Sendable {
    private let source: Source
    private let output: any SoundOutput
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var thread: Thread?
    private let finishedSemaphore = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    // Guarded by `mutex`.
    private var running = false
    private var stopping = false
    private var paused = false
    private var finished = false
    /// Source position at `anchorNanos` (monotonic).
    private var anchorPosition = 0.0
    private var anchorNanos: UInt64 = 0
    private var lateness: [Int64] = []
    private var realtime = false
    /// Bumped by pause/resume/seek/stop so a final sleep knows its deadline may be stale.
    private var generation = 0
    /// How long before a deadline the thread switches from the condition wait to clock_nanosleep.
    static var finalSleepNanos: UInt64 { 2_000_000 }
    /// Keep dispatch lateness samples (ns) for the benchmark.
    public var recordLateness = false

    public init(source: Source, output: any SoundOutput) {
        self.source = source
        self.output = output
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        stop()
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Starts playback at `position` seconds (chasing controller state there).
    public func start(at position: Double = 0) {
        locked {
            guard !running else { return }
            running = true
            let chase = source.seek(to: position)
            for m in chase { output.send(m) }
            anchorPosition = position
            anchorNanos = MonotonicClock.nanoseconds()
        }
        let t = Thread { [self] in self.loop() }
        t.name = "etude-dispatch"
        t.qualityOfService = .userInteractive
        thread = t
        t.start()
    }

    private func loop() {
        raiseThreadPriority()
        pthread_mutex_lock(mutex)
        while !stopping {
            if paused || finished {
                pthread_cond_wait(cond, mutex)
                continue
            }
            let next = source.nextEventTime() ?? source.duration
            let deadline = deadlineNanos(for: next)
            let now = MonotonicClock.nanoseconds()
            if now + Self.finalSleepNanos < deadline {
                // Far away: wait on the condition (pause/seek/stop wake it) until shortly before.
                let wake = deadline - Self.finalSleepNanos
                var ts = timespec(tv_sec: Int(wake / 1_000_000_000), tv_nsec: Int(wake % 1_000_000_000))
                pthread_cond_timedwait(cond, mutex, &ts)
                continue  // re-check: woken early by pause/seek/stop, or the wake time passed
            }
            if now < deadline {
                // The last stretch: clock_nanosleep to the absolute deadline without the lock,
                // then re-check that no pause/seek/stop happened meanwhile.
                let seen = generation
                pthread_mutex_unlock(mutex)
                var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
                pthread_mutex_lock(mutex)
                if generation != seen || stopping { continue }
            }
            let dispatchedAt = max(now, MonotonicClock.nanoseconds())
            if source.nextEventTime() == nil {
                finished = true
                finishedSemaphore.signal()
                continue
            }
            if recordLateness { lateness.append(Int64(dispatchedAt) - Int64(deadline)) }
            // Stamped with their due time: an output on JACK plays them at its frame.
            let due = Double(deadline) / 1e9
            for m in source.advance(to: next) { output.send(m, at: due) }
        }
        pthread_mutex_unlock(mutex)
        exited.signal()
    }

    private func deadlineNanos(for position: Double) -> UInt64 {
        let delta = max(0, position - anchorPosition)
        return anchorNanos + UInt64(delta * 1e9)
    }

    private func raiseThreadPriority() {
        var param = sched_param()
        param.sched_priority = 10
        // Real-time priority is a bonus (needs privileges); failure keeps normal priority.
        let ok = pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &param) == 0
        pthread_mutex_lock(mutex)
        realtime = ok
        pthread_mutex_unlock(mutex)
    }

    private func currentPosition() -> Double {
        if paused || !running { return anchorPosition }
        let now = MonotonicClock.nanoseconds()
        return min(source.duration, anchorPosition + Double(now - anchorNanos) / 1e9)
    }

    /// Position in seconds (clamped to the duration).
    public var position: Double { locked { currentPosition() } }
    public var duration: Double { locked { source.duration } }
    public var bpm: Double { locked { source.bpm(at: currentPosition()) } }
    public var isPaused: Bool { locked { paused } }
    public var isFinished: Bool { locked { finished } }

    public func pause() {
        locked {
            guard !paused else { return }
            anchorPosition = currentPosition()
            paused = true
            generation += 1
            output.allNotesOff()
            pthread_cond_broadcast(cond)
        }
    }

    public func resume() {
        locked {
            guard paused else { return }
            paused = false
            generation += 1
            anchorNanos = MonotonicClock.nanoseconds()
            pthread_cond_broadcast(cond)
        }
    }

    public func togglePause() {
        if isPaused { resume() } else { pause() }
    }

    /// Jumps to `seconds` (clamped to 0…duration): notes off, controller state chased.
    public func seek(to seconds: Double) {
        locked {
            let target = min(max(0, seconds), source.duration)
            output.allNotesOff()
            for m in source.seek(to: target) { output.send(m) }
            anchorPosition = target
            anchorNanos = MonotonicClock.nanoseconds()
            finished = false
            generation += 1
            pthread_cond_broadcast(cond)
        }
    }

    public func seek(by delta: Double) {
        let p = position
        seek(to: p + delta)
    }

    /// Blocks until the source is exhausted and its duration has elapsed, or `timeout` passes.
    /// Returns true when finished.
    public func waitUntilFinished(timeout: Double? = nil) -> Bool {
        let end = timeout.map { DispatchTime.now() + $0 }
        while !isFinished {
            if let end {
                if finishedSemaphore.wait(timeout: end) == .timedOut { return isFinished }
            } else {
                finishedSemaphore.wait()
            }
        }
        return true
    }

    /// Stops the thread (joining it) and sends all-notes-off. Safe to call more than once.
    public func stop() {
        let t: Thread? = locked {
            guard running else { return nil }
            stopping = true
            generation += 1
            pthread_cond_broadcast(cond)
            return thread
        }
        if t != nil { exited.wait() }
        locked {
            if running { output.allNotesOff() }
            running = false
            thread = nil
        }
    }

    /// True when the dispatch thread got SCHED_FIFO (real-time) priority.
    public var hasRealtimePriority: Bool { locked { realtime } }

    /// Dispatch lateness samples in nanoseconds (only with `recordLateness`).
    public var latenessSamples: [Int64] { locked { lateness } }
}
