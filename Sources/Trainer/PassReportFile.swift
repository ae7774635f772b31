import Foundation
import Judge

/// `--report FILE`: each finished pass as one JSON line, appended as the front end takes it
/// from the session's outbox (never on the runner thread: Practice writes no file).
public final class PassReportAppender: @unchecked Sendable {
    public let path: String
    private let handle: FileHandle
    private let lock = NSLock()

    /// Creates (or truncates) the file; throws a one-line message when it cannot be written.
    public init(path: String) throws(PracticeFileError) {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let h = FileHandle(forWritingAtPath: path) else {
            throw PracticeFileError("cannot write the report file \(path); check the folder exists and is writable")
        }
        handle = h
    }

    /// Writes one line and flushes it, so a script reading the file sees each pass at once.
    public func append(_ report: PassReport) {
        lock.lock()
        defer { lock.unlock() }
        // A full disk loses this line, never the session (the throwing write cannot trap).
        try? handle.write(contentsOf: Data((report.json() + "\n").utf8))
        try? handle.synchronize()
    }

    public func close() {
        lock.lock()
        defer { lock.unlock() }
        try? handle.close()
    }
}

/// A file Etude could not write: one line naming it and the fix.
public struct PracticeFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// `r` on the practice screen: the last pass as played, written as `etude-pass-<date>.mid`.
public enum PassFile {
    /// Writes `bytes` in `directory` (a new name when one exists); returns the message to show.
    @Sendable public static func save(_ bytes: [UInt8], in directory: String, now: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        var path = (directory as NSString).appendingPathComponent("etude-pass-\(formatter.string(from: now)).mid")
        var n = 2
        while FileManager.default.fileExists(atPath: path) {
            path = (directory as NSString).appendingPathComponent("etude-pass-\(formatter.string(from: now))-\(n).mid")
            n += 1
        }
        // Through a temporary file renamed into place: a failure leaves no partial file.
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            return "could not write \(path): check the folder exists and is writable (--save-dir)"
        }
        return "saved the last pass to \(path)"
    }
}
