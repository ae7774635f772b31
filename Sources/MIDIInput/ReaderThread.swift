#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A background reader loop that can be asked to stop and joined.
///
/// A self-pipe wakes a reader blocked in `poll` at once, so stopping never waits for a device
/// that is silent, and an idle reader costs no periodic wakeups.
final class ReaderThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var finished = false
    private var stopFlag = false
    private var thread: pthread_t?
    /// Read end: poll it alongside the device; readable means "stop now".
    let wakeFD: Int32
    private let wakeWriteFD: Int32

    init() throws(InputError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw InputError("cannot create a pipe for the input reader: \(String(cString: strerror(errno)))")
        }
        wakeFD = fds[0]
        wakeWriteFD = fds[1]
        _ = fcntl(wakeFD, F_SETFL, fcntl(wakeFD, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(wakeFD)
        close(wakeWriteFD)
    }

    var stopRequested: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopFlag
    }

    /// Runs `body` on a new thread; `body` returns when the source ends or stop is requested.
    func start(_ body: @escaping @Sendable () -> Void) {
        let t = Thread { [self] in
            condition.lock()
            thread = pthread_self()
            condition.broadcast()
            condition.unlock()
            body()
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        t.name = "etude-input"
        t.qualityOfService = .userInteractive
        t.start()
    }

    /// Asks the loop to stop and waits for it, unless called from the reader thread itself.
    func stopAndJoin() {
        condition.lock()
        stopFlag = true
        let onReader = thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        condition.unlock()
        var byte: UInt8 = 1
        _ = write(wakeWriteFD, &byte, 1)
        guard !onReader else { return }
        condition.lock()
        while !finished && thread != nil { condition.wait() }
        condition.unlock()
    }

    /// Waits until the reader has started running (so `stopAndJoin` can join it).
    func waitUntilRunning() {
        condition.lock()
        while thread == nil && !finished { condition.wait() }
        condition.unlock()
    }
}
