import Foundation
import Judge

/// `--report FILE`: each finished pass as one JSON line, appended as the front end takes it
/// from the session's outbox (never on the runner thread: Practice writes no file).
public final class PassReportAppender: @unchecked Sendable {
    public let path: String
    private let handle: FileHandle
    private let lock = NSLock()

    /// Opens the file to append to (created when missing, never truncated: the lines already
    /// there stay) through `OutputFile`, which first refuses `inputs` (the lesson, the SoundFont,
    /// the input device), the database, a folder, a device or a FIFO; a one-line message then.
    public init(path: String, inputs: [String] = []) throws(PracticeFileError) {
        self.path = path
        do {
            handle = try OutputFile.openForAppend(path, inputs: inputs, option: "--report")
        } catch {
            throw PracticeFileError((error as? EtudeFailure)?.message ?? "--report \(safe(path)): cannot write it; check the folder exists and is writable")
        }
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
        // A name nothing has (not even a dangling symlink): a saved pass never writes over one.
        var st = stat()
        while lstat(path, &st) == 0 {
            path = (directory as NSString).appendingPathComponent("etude-pass-\(formatter.string(from: now))-\(n).mid")
            n += 1
        }
        // Through the one writer: a temporary file renamed into place, never the database.
        do {
            try OutputFile.write(bytes, to: path, inputs: [], option: "--save-dir")
        } catch {
            return "could not write \(safe(path)): " + ((error as? EtudeFailure)?.message ?? "check the folder exists and is writable (--save-dir)")
        }
        return "saved the last pass to \(path)"
    }
}
