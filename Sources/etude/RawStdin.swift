import Foundation

/// Stdin in raw mode for the one-line commands (`play --no-screen`, `loop`, `record`, `quiz`):
/// no echo, no line buffering, Ctrl-C arrives as a byte. Restores the saved termios on
/// `restore()` (idempotent) and in deinit, so every exit path leaves the terminal as it was.
final class RawStdin {
    private var saved: termios?

    /// nil when stdin is not a terminal (callers then read no keys).
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

    /// Bytes that arrive within `timeoutMs`: empty on timeout, nil when the terminal hung up.
    func read(timeoutMs: Int32) -> [UInt8]? {
        var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, max(0, timeoutMs)) > 0 else { return [] }
        var buf = [UInt8](repeating: 0, count: 64)
        let n = Glibc.read(STDIN_FILENO, &buf, buf.count)
        return n > 0 ? Array(buf[0..<n]) : nil
    }
}
