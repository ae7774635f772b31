import Foundation
import Reports
import Store

/// One practice pass as the history stores it: its row and, judged, its bars.
public struct SpooledPass: Codable, Equatable, Sendable {
    public var record: PassRecord
    public var bars: [BarFaults]

    public init(record: PassRecord, bars: [BarFaults]) {
        self.record = record
        self.bars = bars
    }
}

/// Passes kept beside the database while another program held it locked longer than a
/// practice session lasted (issue 40 point 5): one JSON line each in `<database>.spool`,
/// written through `OutputFile` (appended, never truncated), and stored by the next run that
/// opens the library (`Library.openStore`), with one line each time saying so.
public enum PassSpool {
    /// The spool beside a database.
    public static func path(forDatabase database: String) -> String { database + ".spool" }

    /// A spool larger than this is not read (a few thousand passes; a bigger file is not ours).
    public static let maxBytes = 4 << 20

    /// Appends `passes` to the spool beside `database`; one line for the learner, or the
    /// one-line reason it could not be written (then the passes are lost, and that is said).
    public static func keep(_ passes: [SpooledPass], database: String) -> String {
        let spool = path(forDatabase: database)
        let count = passes.count == 1 ? "1 pass" : "\(passes.count) passes"
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var text = ""
            for p in passes { text += String(decoding: try encoder.encode(p), as: UTF8.self) + "\n" }
            let handle = try OutputFile.openForAppend(spool, inputs: [], option: "the pass spool")
            defer { try? handle.close() }
            try handle.write(contentsOf: Data(text.utf8))
            try handle.synchronize()
        } catch {
            let why = (error as? EtudeFailure)?.message ?? "\(error)"
            return "\(safe(database)) stayed locked by another program and \(count) could not be kept: \(why)"
        }
        return "\(safe(database)) stayed locked by another program: \(count) kept in \(safe(spool)), stored the next time Etude opens the library"
    }

    /// Stores the passes a spool beside `store`'s database holds, then removes it: the line to
    /// say, or nil when there is none. A spool still locked out is left for the next run.
    public static func storeKept(in store: Store) -> String? {
        guard let database = store.path, store.readOnlyReason == nil else { return nil }
        let spool = path(forDatabase: database)
        var st = stat()
        guard lstat(spool, &st) == 0 else { return nil }
        guard st.st_mode & S_IFMT == S_IFREG else { return "\(safe(spool)) is not a regular file; the passes it should keep were not read" }
        guard Int(st.st_size) <= maxBytes else {
            return "\(safe(spool)) is larger than \(maxBytes >> 20) MB and not read; move it aside"
        }
        // Claimed by renaming it, so two runs opening the library at once never store it twice.
        let claimed = spool + ".storing-\(getpid())"
        guard rename(spool, claimed) == 0 else { return nil }
        defer { unlink(claimed) }
        guard let data = FileManager.default.contents(atPath: claimed) else { return "\(safe(spool)) could not be read" }
        let decoder = JSONDecoder()
        var stored = 0
        var unreadable = 0
        var left: [SpooledPass] = []
        for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            guard let pass = try? decoder.decode(SpooledPass.self, from: Data(line)) else {
                unreadable += 1
                continue
            }
            if !left.isEmpty {
                left.append(pass)
                continue
            }
            do {
                try store.recordPass(pass.record, bars: pass.bars, busyTimeout: 2)
                stored += 1
            } catch {
                left.append(pass)  // locked again (or refused): kept for the next run
            }
        }
        var parts: [String] = []
        if stored > 0 {
            parts.append("stored \(stored == 1 ? "1 practice pass" : "\(stored) practice passes") kept in \(safe(spool)) while the library was locked")
        }
        if !left.isEmpty {
            _ = keep(left, database: database)
            parts.append("\(left.count == 1 ? "1 pass" : "\(left.count) passes") still waiting in \(safe(spool)) (the library is locked)")
        }
        if unreadable > 0 { parts.append("\(unreadable) unreadable line\(unreadable == 1 ? "" : "s") in it skipped") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
