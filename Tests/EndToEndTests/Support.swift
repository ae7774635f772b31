import Foundation
import Testing
import TestSupport

/// What the practice screen shows, read from its text.
enum ScreenText {
    /// "hit N   missed M   wrong W   extra E" from the results panel.
    static func figures(_ screen: String) -> [String: Int]? {
        guard let r = screen.range(of: #"hit \d+ +missed \d+ +wrong \d+ +extra \d+"#, options: .regularExpression) else { return nil }
        let words = screen[r].split(separator: " ")
        var out: [String: Int] = [:]
        var i = 0
        while i + 1 < words.count {
            out[String(words[i])] = Int(words[i + 1])
            i += 2
        }
        return out
    }

    /// The lines of a one-line player's output with the summaries it wrapped between words on
    /// a terminal joined again (a continuation row is indented by two spaces; the indented
    /// `  pass N:` lines are lines of their own).
    static func unwrapped(_ screen: String) -> [String] {
        var out: [String] = []
        for row in screen.split(separator: "\n").map(String.init) {
            if row.hasPrefix("  "), !row.hasPrefix("  pass "), let last = out.last, !last.hasPrefix("  pass ") {
                out[out.count - 1] = last + " " + row.drop { $0 == " " }
            } else {
                out.append(row)
            }
        }
        return out
    }

    /// The bar shown in the status line (`bar 3:2/16`).
    static func bar(in screen: String) -> Int? {
        guard let r = screen.range(of: #"bar (\d+):"#, options: .regularExpression) else { return nil }
        return Int(screen[r].dropFirst(4).dropLast())
    }
}

/// MIDI bytes into a FIFO, as a keyboard on a serial port sends them.
enum MIDIBytes {
    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var b = bytes
        _ = write(fd, &b, b.count)
    }

    /// Bar 1 of the right hand of the Level 1 lessons (C D E F), each note held 0.3 s.
    static func playFirstBar(_ fd: Int32) {
        for pitch: UInt8 in [60, 62, 64, 65] {
            send(fd, [0x90, pitch, 90])
            usleep(300_000)
            send(fd, [0x80, pitch, 0])
        }
    }

    /// Bar 1 of the right hand on the computer keyboard (C D E F = a s d f).
    static func playFirstBar(_ pane: TmuxPane) throws {
        for key in ["a", "s", "d", "f"] {
            try pane.keys(key)
            usleep(300_000)
        }
    }

    /// Runs `etude args…` (stdin not a terminal) and, once it has opened `fifo` for reading,
    /// runs `feed` with the FIFO's write end, then closes it (the input ends) and waits for the exit.
    static func run(_ etude: Etude, _ args: [String], fifo: String, feed: (Int32) -> Void) throws -> ProcessResult {
        let p = try etude.start(args)
        // ENXIO until etude opens the FIFO; gives up if etude exits first (an error before the
        // input opens), so a test never hangs.
        var fd: Int32 = -1
        _ = eventually(60, poll: 10_000) {
            fd = open(fifo, O_WRONLY | O_NONBLOCK)
            return fd >= 0 || !p.isRunning
        }
        if fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            feed(fd)
            close(fd)
        }
        return p.result(timeout: 120)
    }
}
