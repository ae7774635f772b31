import Foundation
import GRDB

/// A recording's bars as `etude align` found (or the learner tapped) them, kept so the next
/// time is instant. Keyed by the recording's content hash (a moved or renamed file keeps its
/// alignment) and the lesson's; the bars are JSON the Store does not read.
public struct StoredAlignment: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "recordingAlignment"
    /// The recording's content hash (`RecordingIdentity`).
    public var recording: String
    /// The lesson's content hash.
    public var lesson: String
    /// The alignment as JSON.
    public var bars: String
    /// `audio` (found from the sound) or `taps`.
    public var method: String
    public var alignedAt: Date

    public init(recording: String, lesson: String, bars: String, method: String, alignedAt: Date = Date()) {
        self.recording = recording
        self.lesson = lesson
        self.bars = bars
        self.method = method
        self.alignedAt = alignedAt
    }

    /// Decoded with `try`; a row that does not decode is skipped (`DamagedRows`).
    public init(row: Row) throws {
        recording = try row.decode(forColumn: "recording")
        lesson = try row.decode(forColumn: "lesson")
        bars = try row.decode(forColumn: "bars")
        method = try row.decode(forColumn: "method")
        alignedAt = try row.decode(forColumn: "alignedAt")
    }
}

/// Alignments of recordings to lessons.
extension Store {
    /// The alignment stored for this recording and lesson (nil when none is).
    public func alignment(recording: String, lesson: String) throws -> StoredAlignment? {
        try writer.read { db in
            try StoredAlignment.fetchDecodable(db, sql: "SELECT * FROM recordingAlignment WHERE recording = ? AND lesson = ? LIMIT 1",
                                               arguments: [recording, lesson], table: StoredAlignment.databaseTableName).first
        }
    }

    /// Keeps an alignment, replacing the one before for the same recording and lesson.
    public func saveAlignment(_ alignment: StoredAlignment) throws {
        try writer.write { db in try alignment.save(db) }
    }
}
