import Foundation
import GRDB

/// The transposition a learner last chose for a lesson (`--transpose`), as typed: `+2`, `D`,
/// `C:D`. Practice, play, loop and routines open the lesson in it until `--transpose 0`.
public struct LessonTranspose: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "lessonTranspose"
    public var lessonID: String
    public var transpose: String
    public var updatedAt: Date

    public init(lessonID: String, transpose: String, updatedAt: Date = Date()) {
        self.lessonID = lessonID
        self.transpose = transpose
        self.updatedAt = updatedAt
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

/// Whether Etude's part follows the learner's tempo in a lesson (`--follow`, `--no-follow`).
public struct LessonFollow: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "lessonFollow"
    public var lessonID: String
    public var follow: Bool
    public var updatedAt: Date

    public init(lessonID: String, follow: Bool, updatedAt: Date = Date()) {
        self.lessonID = lessonID
        self.follow = follow
        self.updatedAt = updatedAt
    }
}

extension Store {
    /// Whether the learner last asked Etude to follow them in a lesson, if they ever said.
    public func follow(lessonID: String) throws -> Bool? {
        try writer.read { db in try LessonFollow.fetchOne(db, key: lessonID)?.follow }
    }

    /// Remembers `--follow` / `--no-follow` for a lesson.
    public func saveFollow(lessonID: String, _ on: Bool) throws {
        try writer.write { db in try LessonFollow(lessonID: lessonID, follow: on).save(db) }
    }

    /// The transposition remembered for a lesson, if any.
    public func transpose(lessonID: String) throws -> String? {
        try writer.read { db in try LessonTranspose.fetchOne(db, key: lessonID)?.transpose }
    }

    /// Remembers a lesson's transposition; nil forgets it.
    public func saveTranspose(lessonID: String, _ text: String?) throws {
        try writer.write { db in
            if let text { try LessonTranspose(lessonID: lessonID, transpose: text).save(db) } else { _ = try LessonTranspose.deleteOne(db, key: lessonID) }
        }
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
