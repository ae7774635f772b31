import Foundation
import GRDB

/// A choice a learner makes per lesson and Etude remembers until they say otherwise: one row
/// per lesson in its own table, `(lessonID, <column>, updatedAt)`. `--transpose`, `--follow`
/// and `--guide` are each one of these, read and saved by the same two functions.
struct LessonMemory<Value: DatabaseValueConvertible & StatementColumnConvertible>: Sendable {
    let table: String
    let column: String

    /// The transposition as typed: `+2`, `D`, `C:D` (migration v10).
    static var transpose: LessonMemory<String> { .init(table: "lessonTranspose", column: "transpose") }
    /// Whether Etude's part follows the learner's tempo (v13).
    static var follow: LessonMemory<Bool> { .init(table: "lessonFollow", column: "follow") }
    /// Whether the learner hears their own part (v13).
    static var guide: LessonMemory<Bool> { .init(table: "lessonGuide", column: "guide") }
}

extension Store {
    /// What the learner last chose for a lesson, nil when they never said.
    func remembered<Value>(_ memory: LessonMemory<Value>, lessonID: String) throws -> Value? {
        try writer.read { db in
            try Value.fetchOne(db, sql: "SELECT \(memory.column) FROM \(memory.table) WHERE lessonID = ?", arguments: [lessonID])
        }
    }

    /// Remembers a choice for a lesson; nil forgets it.
    func remember<Value>(_ memory: LessonMemory<Value>, lessonID: String, _ value: Value?, now: Date = Date()) throws {
        try writer.write { db in
            if let value {
                try db.execute(sql: "INSERT OR REPLACE INTO \(memory.table) (lessonID, \(memory.column), updatedAt) VALUES (?, ?, ?)",
                               arguments: [lessonID, value, now])
            } else {
                try db.execute(sql: "DELETE FROM \(memory.table) WHERE lessonID = ?", arguments: [lessonID])
            }
        }
    }
}

/// The learner's keyboard on one input device (`--keys 61`, `--range C2-C7`), and whether a
/// hand that fits it by octaves is moved (`--fit octave`).
public struct KeyboardSetting: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "keyboardRange"
    /// The device as Etude names it (see `inputOffset`): `keys`, `midi:<port name>`, a path.
    public var device: String
    /// `61` or `C2-C7`, as typed.
    public var keyRange: String
    public var fitOctave: Bool
    public var updatedAt: Date

    public init(device: String, keyRange: String, fitOctave: Bool, updatedAt: Date = Date()) {
        self.device = device
        self.keyRange = keyRange
        self.fitOctave = fitOctave
        self.updatedAt = updatedAt
    }
}

extension Store {
    /// Whether the learner last asked Etude to follow them in a lesson, if they ever said.
    public func follow(lessonID: String) throws -> Bool? {
        try remembered(.follow, lessonID: lessonID)
    }

    /// Remembers `--follow` / `--no-follow` for a lesson.
    public func saveFollow(lessonID: String, _ on: Bool) throws {
        try remember(.follow, lessonID: lessonID, on)
    }

    /// The transposition remembered for a lesson, if any.
    public func transpose(lessonID: String) throws -> String? {
        try remembered(.transpose, lessonID: lessonID)
    }

    /// Remembers a lesson's transposition; nil forgets it.
    public func saveTranspose(lessonID: String, _ text: String?) throws {
        try remember(.transpose, lessonID: lessonID, text)
    }

    /// The keyboard stored for a device, if any.
    public func keyboard(device: String) throws -> KeyboardSetting? {
        try writer.read { db in try KeyboardSetting.fetchOne(db, key: device) }
    }

    /// Remembers a device's keyboard; nil forgets it (the full 88 keys again).
    public func saveKeyboard(device: String, _ setting: KeyboardSetting?) throws {
        try writer.write { db in
            if let setting { try setting.save(db) } else { _ = try KeyboardSetting.deleteOne(db, key: device) }
        }
    }
}
