import Foundation
import GRDB

/// Rows of a damaged or hand-edited database that do not decode (a `startedAt` of
/// 'garbage-date', 1e300 where a count belongs, an infinite offset) are left out of what
/// commands read: never a trap in GRDB's row subscripts, never a raw SQL error. Each is counted
/// per table (once, however often it is read) and the count reported once per process
/// (`Store.damagedRowsNotice()`), so one bad row costs the learner that row only.
enum DamagedRows {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var rows: [String: Set<String>] = [:]
    nonisolated(unsafe) private static var reported = 0

    static func note(table: String, row: Row) {
        let key = row.description
        lock.lock()
        rows[table, default: []].insert(key)
        lock.unlock()
    }

    /// "2 rows of pass, 1 of inputOffset" for the rows noted since the last call, or nil.
    static func takeNew() -> String? {
        lock.lock()
        defer { lock.unlock() }
        let total = rows.values.reduce(0) { $0 + $1.count }
        guard total > reported else { return nil }
        reported = total
        return rows.keys.sorted().map { t in "\(rows[t]?.count ?? 0) in \(t)" }.joined(separator: ", ")
    }
}

extension FetchableRecord {
    /// Every row of `request` that decodes (`init(row:)` with `try`) and is `valid` (its numbers
    /// in their ranges); the others are skipped and noted in `DamagedRows` under `table`.
    static func fetchDecodable(_ db: Database, _ request: some FetchRequest, table: String,
                               valid: (Self) -> Bool = { _ in true }) throws -> [Self] {
        var out: [Self] = []
        let cursor = try Row.fetchCursor(db, request)
        while let row = try cursor.next() {
            do {
                let record = try Self(row: row)
                if valid(record) { out.append(record) } else { DamagedRows.note(table: table, row: row) }
            } catch {
                DamagedRows.note(table: table, row: row)
            }
        }
        return out
    }

    /// `fetchDecodable` for an SQL query.
    static func fetchDecodable(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments(),
                               table: String) throws -> [Self] {
        try fetchDecodable(db, SQLRequest<Row>(sql: sql, arguments: arguments), table: table)
    }
}

extension FetchableRecord where Self: TableRecord {
    /// `fetchDecodable` noting damaged rows under the record's own table.
    static func fetchDecodable(_ db: Database, _ request: some FetchRequest, valid: (Self) -> Bool = { _ in true }) throws -> [Self] {
        try fetchDecodable(db, request, table: databaseTableName, valid: valid)
    }

    /// The row with a primary key, nil when there is none or it does not decode (noted).
    static func fetchOneDecodable(_ db: Database, key: some DatabaseValueConvertible) throws -> Self? {
        try fetchDecodable(db, filter(key: key).limit(1)).first
    }
}

extension Store {
    /// One line when rows were left out because they do not decode (once per process, then
    /// again only for new ones), nil otherwise.
    public static func damagedRowsNotice() -> String? {
        DamagedRows.takeNew().map {
            "the database holds rows Etude cannot read (\($0); a damaged or hand-edited value): they were left out, the rest is intact"
        }
    }
}

extension PassRecord {
    /// The longest one pass is taken to last (a day): a stored 1e308 or 5,000 hours is damage.
    static let longestSeconds = 86_400.0

    /// Whether every number of the pass is one Etude could have stored (a finite duration of at
    /// most a day, a tempo of 1–1000 %, scores 0–100, bars up to a million): a hand-edited or
    /// damaged row (a score of 1e308) is skipped and reported, never summed into the stats.
    var isSane: Bool {
        func percent(_ v: Double?) -> Bool { v.map { $0.isFinite && (0...100).contains($0) } ?? true }
        func bar(_ b: Int?) -> Bool { b.map { (-1...1_000_000).contains($0) } ?? true }
        return durationSeconds.isFinite && (0...Self.longestSeconds).contains(durationSeconds) && (1...1000).contains(tempoPercent)
            && percent(score) && percent(figures?.accuracy) && bar(firstBar) && bar(lastBar)
    }
}
