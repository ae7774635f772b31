import Foundation
import GRDB

/// A routine as the library keeps it: a name and its entries as one JSON text (entries are
/// always read and written whole). The routine model and its rules live with the application
/// (App); the Store only keeps them.
public struct StoredRoutine: Equatable, Sendable {
    public var name: String
    /// The entries, a JSON array.
    public var entries: String

    public init(name: String, entries: String) {
        self.name = name
        self.entries = entries
    }
}

/// A routine row.
struct RoutineRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "routine"
    var id: Int64?
    var name: String
    var entries: String
    var createdAt: Date
    var updatedAt: Date

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension Store {
    /// Creates or replaces the routine of that name.
    public func saveStoredRoutine(_ routine: StoredRoutine, now: Date = Date()) throws {
        let name = routine.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw StoreError("a routine needs a name") }
        try writer.write { db in
            if var old = try RoutineRecord.filter(Column("name") == name).fetchOne(db) {
                old.entries = routine.entries
                old.updatedAt = now
                try old.update(db)
            } else {
                var r = RoutineRecord(id: nil, name: name, entries: routine.entries, createdAt: now, updatedAt: now)
                try r.insert(db)
            }
        }
    }

    public func storedRoutine(named name: String) throws -> StoredRoutine? {
        try writer.read { db in
            try RoutineRecord.fetchDecodable(db, RoutineRecord.filter(Column("name") == name)).first.map { StoredRoutine(name: $0.name, entries: $0.entries) }
        }
    }

    public func storedRoutines() throws -> [StoredRoutine] {
        try writer.read { db in
            try RoutineRecord.fetchDecodable(db, RoutineRecord.order(Column("name").collating(.nocase))).map { StoredRoutine(name: $0.name, entries: $0.entries) }
        }
    }

    @discardableResult
    public func deleteRoutine(named name: String) throws -> Bool {
        try writer.write { db in try RoutineRecord.filter(Column("name") == name).deleteAll(db) > 0 }
    }

    public func renameRoutine(_ name: String, to newName: String) throws {
        try writer.write { db in
            guard var r = try RoutineRecord.filter(Column("name") == name).fetchOne(db) else {
                throw StoreError("no routine named \(name); see `etude routine list`")
            }
            if try RoutineRecord.filter(Column("name") == newName).fetchCount(db) > 0 {
                throw StoreError("a routine named \(newName) already exists")
            }
            r.name = newName
            try r.update(db)
        }
    }
}
