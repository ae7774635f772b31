#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where time comes from: the real monotonic clock when playing, a virtual one in tests, so
/// scheduling, input timestamps and judging are checked exactly and instantly. Every part of
/// Etude that needs the time (transport, synth dispatch, input, coach) reads one of these.
public protocol TimeSource: AnyObject, Sendable {
    /// Seconds since an arbitrary fixed origin; never goes backwards.
    var now: Double { get }
    /// Blocks (real clock) or jumps (virtual clock) until `now >= time`.
    func sleep(until time: Double)
    /// True when `now` moves by itself (a thread may sleep on it); false for a clock tests move.
    var isRealTime: Bool { get }
    /// Real seconds until `now` has moved on by `seconds` (a clock that follows the learner
    /// runs at their rate).
    func baseSeconds(for seconds: Double) -> Double
}

extension TimeSource {
    public var isRealTime: Bool { false }
    public func baseSeconds(for seconds: Double) -> Double { seconds }
}

/// The real clock: CLOCK_MONOTONIC, unaffected by wall-clock changes, the base of all
/// scheduling. The one place Etude reads it.
public final class MonotonicClock: TimeSource {
    public init() {}

    public var isRealTime: Bool { true }

    public var now: Double { Self.seconds() }

    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    public static func seconds() -> Double {
        Double(nanoseconds()) / 1e9
    }

    public func sleep(until time: Double) {
        // At most a day at a time: a far or infinite `time` must not trap in Int(_:).
        let delta = min(time - now, 86_400)
        guard delta > 0 else { return }
        var ts = timespec(tv_sec: Int(delta), tv_nsec: Int((delta - Double(Int(delta))) * 1_000_000_000))
        var rest = timespec()
        while nanosleep(&ts, &rest) == -1 && errno == EINTR { ts = rest }
    }
}

/// A clock that moves only when told to: tests advance it and check exactly what is due.
public final class VirtualClock: TimeSource, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Double

    public init(now: Double = 0) {
        current = now
    }

    public var now: Double {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Moves the clock to `time`; never backwards (a clock that went back would replay events).
    public func set(_ time: Double) {
        lock.lock()
        current = max(current, time)
        lock.unlock()
    }

    public func advance(by seconds: Double) {
        lock.lock()
        current += max(0, seconds)
        lock.unlock()
    }

    public func sleep(until time: Double) {
        set(time)
    }
}
