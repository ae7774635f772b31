#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MIDIFile

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

    public static func out(_ text: String) {
        write(Array(text.utf8), to: STDOUT_FILENO)
    }

    public static func error(_ line: String) {
        write(Array((line + "\n").utf8), to: STDERR_FILENO)
    }

    /// Writes to stderr without a newline (progress lines).
    public static func errorPart(_ text: String) {
        write(Array(text.utf8), to: STDERR_FILENO)
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
