#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// SIGINT, SIGTERM and SIGHUP turned into a flag (and a wake-up for a waiting terminal), so a
/// program that plays sound ends through its own cleanup — all notes off, the history written,
/// the terminal restored — instead of dying mid-note. The one place Etude catches them; a
/// `TerminalSession` opened with a watch leaves these three signals to it.
///
/// Only one watch runs at a time (signal dispositions are process-wide); `stop()` (or the end
/// of the watch) gives them back to the default action.
public final class SignalWatch: @unchecked Sendable {
    public static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private let lock = NSLockLike()
    private var first: Int32?
    private var sources: [DispatchSourceSignal] = []
    private var wakers: [Int: @Sendable () -> Void] = [:]
    private var nextWaker = 0

    public init() {
        // A parent may have started us with these blocked (Foundation's Process does): unblock.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in Self.signals { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for sig in Self.signals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in self?.caught(sig) }
            source.resume()
            sources.append(source)
        }
    }

    deinit { stop() }

    /// The first signal received (nil while none).
    public var received: Int32? { lock.withLock { first } }

    /// The exit status a signal calls for (128 + its number), nil while none.
    public var exitStatus: Int32? { received.map { 128 + $0 } }

    /// Runs `wake` when a signal arrives (a terminal session uses it to end its wait) until
    /// `removeWaker` is called with the returned token.
    @discardableResult
    public func onSignal(_ wake: @escaping @Sendable () -> Void) -> Int {
        lock.withLock {
            nextWaker += 1
            wakers[nextWaker] = wake
            return nextWaker
        }
    }

    public func removeWaker(_ token: Int) {
        lock.withLock { _ = wakers.removeValue(forKey: token) }
    }

    /// Gives the signals back to their default action.
    public func stop() {
        let s = lock.withLock { () -> [DispatchSourceSignal] in
            let s = sources
            sources = []
            wakers = [:]
            return s
        }
        guard !s.isEmpty else { return }
        for source in s { source.cancel() }
        for sig in Self.signals { signal(sig, SIG_DFL) }
    }

    private func caught(_ sig: Int32) {
        let wake = lock.withLock { () -> [@Sendable () -> Void] in
            if first == nil { first = sig }
            return Array(wakers.values)
        }
        for w in wake { w() }
    }
}

/// A pthread mutex (Terminal does not import Foundation).
final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
