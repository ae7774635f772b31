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
