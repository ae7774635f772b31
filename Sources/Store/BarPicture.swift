import Foundation
import GRDB

/// One bar of one judged pass (`passBar`), or of the lesson over its recent passes: how many
/// notes it asked for and how many of them went wrong (onset, release or loudness).
public struct BarFaults: Equatable, Sendable, Codable {
    /// The performed bar number (what loops and `--bars` count).
    public var bar: Int
    /// The bar as printed ("9", "12@2").
    public var label: String
    public var notes: Int
    public var faults: Int
    /// Passes the figures come from (1 for one pass).
    public var passes: Int

    public init(bar: Int, label: String, notes: Int, faults: Int, passes: Int = 1) {
        self.bar = bar
        self.label = label
        self.notes = notes
        self.faults = faults
        self.passes = passes
    }

    /// Share of the bar's notes that went wrong, 0…1.
    public var faultRate: Double { notes > 0 ? Double(faults) / Double(notes) : 0 }
}

extension Store {
    /// Stores a judged pass's bars (the pass row must exist).
    public func recordBars(passID: Int64, _ bars: [BarFaults]) throws {
        try writer.write { db in
            for b in bars {
                try db.execute(sql: "INSERT OR REPLACE INTO passBar (passID, bar, label, notes, faults) VALUES (?, ?, ?, ?, ?)",
                               arguments: [passID, b.bar, b.label, b.notes, b.faults])
            }
        }
    }

    /// The lesson's per-bar picture over its last `passes` judged passes that stored bars: each
    /// bar's notes and faults summed, in bar order.
    public func barPicture(lessonID: String, passes: Int = 20) throws -> [BarFaults] {
        try writer.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT b.bar, MIN(b.label) AS label, SUM(b.notes) AS notes, SUM(b.faults) AS faults, COUNT(*) AS passes
                FROM passBar b
                WHERE b.passID IN (
                    SELECT p.id FROM pass p WHERE p.lessonID = ? AND EXISTS (SELECT 1 FROM passBar x WHERE x.passID = p.id)
                    ORDER BY p.startedAt DESC, p.id DESC LIMIT ?)
                GROUP BY b.bar ORDER BY b.bar
                """, arguments: [lessonID, max(1, passes)])
            return rows.map { r in
                BarFaults(bar: r["bar"] ?? 0, label: r["label"] ?? "", notes: r["notes"] ?? 0, faults: r["faults"] ?? 0, passes: r["passes"] ?? 0)
            }
        }
    }
}

extension Store {
    /// Stores a pass and its bars in one transaction, waiting at most `busyTimeout` seconds for
    /// another process's lock (not the store's 15 s), so a caller that retries off the screen
    /// (the practice effects) can give up in time and keep the pass elsewhere. A lock that
    /// lasts throws an error `isLocked` recognises; nothing is half stored.
    @discardableResult
    public func recordPass(_ pass: PassRecord, bars: [BarFaults], busyTimeout: TimeInterval) throws -> Int64 {
        try quickly(busyTimeout) { db in
            var p = pass
            p.id = nil
            try p.insert(db)
            let id = p.id ?? db.lastInsertedRowID
            for b in bars {
                try db.execute(sql: "INSERT OR REPLACE INTO passBar (passID, bar, label, notes, faults) VALUES (?, ?, ?, ?, ?)",
                               arguments: [id, b.bar, b.label, b.notes, b.faults])
            }
            return id
        }
    }

    /// `saveResume` waiting at most `busyTimeout` seconds for another process's lock.
    public func saveResume(_ state: ResumeState, busyTimeout: TimeInterval) throws {
        try quickly(busyTimeout) { db in
            var s = state
            s.id = 1
            try s.save(db)
        }
    }

    /// True when `error` is another connection's lock outlasting the wait (`SQLITE_BUSY`,
    /// `SQLITE_LOCKED`): worth trying again later, unlike the other failures.
    public static func isLocked(_ error: Error) -> Bool {
        guard let e = error as? DatabaseError else { return false }
        return e.resultCode == .SQLITE_BUSY || e.resultCode == .SQLITE_LOCKED
    }

    /// One immediate transaction with its own busy timeout, the store's restored after.
    private func quickly<T>(_ busyTimeout: TimeInterval, _ body: (Database) throws -> T) throws -> T {
        let ms = Int((min(max(0, busyTimeout), Store.busyTimeout) * 1000).rounded())
        return try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA busy_timeout = \(ms)")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Int(Store.busyTimeout * 1000))") }
            var out: T?
            try db.inTransaction(.immediate) {
                out = try body(db)
                return .commit
            }
            guard let out else { throw StoreError("the write did not run") }
            return out
        }
    }
}
