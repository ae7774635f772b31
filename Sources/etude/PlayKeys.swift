import Foundation

/// The keyboard for `etude play`: raw mode on stdin and a tiny key decoder, in one type so
/// it can be swapped for the Terminal module later. Restores the saved termios on `restore()`
/// (idempotent) — callers do that on every exit path, after all-notes-off.
final class PlayKeys {
    enum Key: Equatable {
        case togglePause, seekBack, seekForward, quit
        /// Ctrl-C typed while the terminal is raw (ISIG off): quit like SIGINT, status 130.
        case interrupt
    }

    private var saved: termios?
    private var pending: [UInt8] = []

    /// nil when stdin is not a terminal (then `play` just plays to the end).
    init?() {
        guard isatty(STDIN_FILENO) != 0 else { return nil }
        var t = termios()
        guard tcgetattr(STDIN_FILENO, &t) == 0 else { return nil }
        saved = t
        var raw = t
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
    }

    deinit { restore() }

    /// Puts the terminal back exactly as it was.
    func restore() {
        guard var t = saved else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &t)
        saved = nil
    }

    /// Waits up to `timeoutMs` for input and decodes whatever arrived.
    func read(timeoutMs: Int32) -> [Key] {
        var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, timeoutMs) > 0 else { return decode(flushEscape: true) }
        var buf = [UInt8](repeating: 0, count: 64)
        let n = Glibc.read(STDIN_FILENO, &buf, buf.count)
        if n == 0 { return [.quit] }  // terminal hung up
        if n > 0 { pending += buf[0..<n] }
        return decode(flushEscape: false)
    }

    private func decode(flushEscape: Bool) -> [Key] {
        var keys: [Key] = []
        var i = 0
        while i < pending.count {
            let b = pending[i]
            if b == 0x1B {
                if i + 2 < pending.count, pending[i + 1] == UInt8(ascii: "[") || pending[i + 1] == UInt8(ascii: "O") {
                    switch pending[i + 2] {
                    case UInt8(ascii: "C"): keys.append(.seekForward)
                    case UInt8(ascii: "D"): keys.append(.seekBack)
                    default: break
                    }
                    i += 3
                    continue
                }
                if i + 1 < pending.count || flushEscape {
                    if i + 1 >= pending.count { keys.append(.quit) }  // lone Esc
                    i += 1
                    continue
                }
                break  // wait for the rest of the sequence
            }
            switch b {
            case UInt8(ascii: " "), UInt8(ascii: "p"): keys.append(.togglePause)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x04: keys.append(.quit)
            case 0x03: keys.append(.interrupt)
            case UInt8(ascii: "h"): keys.append(.seekBack)
            case UInt8(ascii: "l"): keys.append(.seekForward)
            default: break
            }
            i += 1
        }
        pending.removeFirst(i)
        return keys
    }
}
