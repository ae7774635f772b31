import Foundation

/// The keys of the one-line `play` and `loop` modes, decoded from `RawStdin`. Callers call
/// `restore()` on every exit path, after all-notes-off.
final class PlayKeys {
    enum Key: Equatable {
        case togglePause, seekBack, seekForward, quit
        /// Ctrl-C typed while the terminal is raw (ISIG off): quit like SIGINT, status 130.
        case interrupt
    }

    private let stdin: RawStdin
    private var pending: [UInt8] = []

    /// nil when stdin is not a terminal (then `play` just plays to the end).
    init?() {
        guard let stdin = RawStdin() else { return nil }
        self.stdin = stdin
    }

    /// Puts the terminal back exactly as it was.
    func restore() { stdin.restore() }

    /// Waits up to `timeoutMs` for input and decodes whatever arrived.
    func read(timeoutMs: Int32) -> [Key] {
        guard let bytes = stdin.read(timeoutMs: timeoutMs) else { return [.quit] }  // terminal hung up
        if bytes.isEmpty { return decode(flushEscape: true) }
        pending += bytes
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
