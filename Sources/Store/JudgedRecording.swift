import Foundation
import GRDB

/// A recording `etude judge` has stored, by its content: the SHA-256 of its bytes with the
/// settings it was judged by (lesson, hands, bars, tempo, keys). Judging the same file the same
/// way again prints the judgement but stores no second pass, so the history and the best score
/// count a performance once however often it is looked at.
extension Store {
    /// The key of a recording's bytes judged with `settings` (any text naming them).
    public static func judgedRecordingKey(bytes: [UInt8], settings: String) -> String {
        SHA256.hex(bytes + [0] + Array(settings.utf8))
    }

    /// The pass stored for a recording already judged so (nil when it is new).
    public func judgedPass(key: String) throws -> Int64? {
        try writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT passID FROM judgedRecording WHERE key = ?", arguments: [key])
        }
    }

    /// Remembers that the recording with `key` is stored as pass `passID`.
    public func rememberJudged(key: String, passID: Int64) throws {
        try writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO judgedRecording (key, passID) VALUES (?, ?)", arguments: [key, passID])
        }
    }
}
