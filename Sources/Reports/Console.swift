#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MIDIFile
import Terminal

/// A failure the user can fix: printed by the command line as one `etude: …` line, with this
/// exit status.
public struct EtudeFailure: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var exitCode: Int32

    public init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}

/// Writing to the standard streams, every byte accounted for: a write that fails (a full disk,
/// a closed pipe) ends Etude with a one-line error, or silently with status 141 when the reader
/// of a pipe went away (`etude list | head -1`), never with a trap.
public enum Console {
    /// Status for a closed pipe, as a shell reports a process killed by SIGPIPE.
    public static let brokenPipeStatus: Int32 = 128 + SIGPIPE

    /// Text for stdout, lines ending in newlines. Whatever the caller built it from, no control
    /// character reaches the terminal (`safe`, keeping the newlines); JSON escapes its own.
    public static func out(_ text: String) {
        write(Array(clean(text, lineBreaks: true).utf8), to: STDOUT_FILENO)
    }

    /// One line for stderr (the newline is added), cleaned as `out` cleans, no word in it longer
    /// than `longestWord` (`shortened`: a 5,000-digit argument is not echoed whole), and on a
    /// terminal wrapped between words to its width, so no word breaks at its edge.
    public static func error(_ line: String) {
        var text = shortened(clean(line, lineBreaks: false))
        if isatty(STDERR_FILENO) != 0, let columns = TerminalSize.of(STDERR_FILENO)?.columns, CellBuffer.width(of: text) >= columns {
            text = CellBuffer.wrap(text, width: columns - 1, indent: "  ").joined(separator: "\n")
        }
        write(Array((text + "\n").utf8), to: STDERR_FILENO)
    }

    /// Characters of one word (a run without spaces) an error line shows whole.
    public static let longestWord = 120

    /// `line` with every word longer than `longestWord` cut in its middle: its start and end
    /// stay (a path's folder and file name), "…(5,000 characters)…" between them.
    public static func shortened(_ line: String) -> String {
        guard line.count > longestWord else { return line }
        return line.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            guard word.count > longestWord else { return String(word) }
            let keep = (longestWord - 24) / 2
            return "\(word.prefix(keep))…(\(word.count) characters)…\(word.suffix(keep))"
        }.joined(separator: " ")
    }

    /// A status line redrawn in place on stdout: `\r`, the cleaned text, erase to the end of
    /// the line (and a newline when `final`, so the next output starts below it).
    public static func statusLine(_ text: String, final: Bool = false) {
        write(Array(("\r" + clean(text, lineBreaks: false) + "\u{1B}[K" + (final ? "\n" : "")).utf8), to: STDOUT_FILENO)
    }

    /// Erases the status line on stdout (`\r`, erase to the end of the line).
    public static func clearStatusLine() {
        write(Array("\r\u{1B}[K".utf8), to: STDOUT_FILENO)
    }

    /// A progress line redrawn in place on stderr (as `statusLine`, without a newline ever).
    public static func progress(_ text: String) {
        write(Array(("\r" + clean(text, lineBreaks: false) + "\u{1B}[K").utf8), to: STDERR_FILENO)
    }

    /// Erases the progress line on stderr.
    public static func clearProgress() {
        write(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO)
    }

    private static func clean(_ text: String, lineBreaks: Bool) -> String {
        TextDecoding.isClean(text, allowingLineBreaks: lineBreaks) ? text : TextDecoding.sanitize(text, keepingLineBreaks: lineBreaks)
    }

    /// Writes all bytes; on failure ends the process as described above.
    public static func write(_ bytes: [UInt8], to fd: Int32) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buf in Glibc.write(fd, buf.baseAddress.map { $0 + done }, bytes.count - done) }
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                fail(errno, fd: fd)
            }
        }
    }

    private static func fail(_ code: Int32, fd: Int32) -> Never {
        if code == EPIPE { exit(brokenPipeStatus) }
        if fd != STDERR_FILENO {
            let line = "etude: cannot write the output: \(String(cString: strerror(code))); check where it goes (disk space, the pipe)\n"
            _ = line.withCString { Glibc.write(STDERR_FILENO, $0, strlen($0)) }
        }
        exit(74)  // EX_IOERR
    }
}

/// The one way text from a file, the database, a path or the user reaches the terminal: see
/// `TextDecoding.sanitize` (control characters removed, bidi overrides neutralised).
public func safe(_ text: String) -> String { TextDecoding.sanitize(text) }
