import Foundation
import GRDB

/// The audio buffer Etude learned on one output device (its PulseAudio sink): the size it plays
/// at without gaps and the largest that underran there (nil: none did).
public struct LearnedAudioBuffer: Equatable, Sendable {
    public var milliseconds: Double
    public var floor: Double?

    public init(milliseconds: Double, floor: Double?) {
        self.milliseconds = milliseconds
        self.floor = floor
    }
}

/// What each output device taught, so the next session starts from it instead of finding it again.
extension Store {
    /// What was learned on a device (nil when nothing yet, or a row that is not a size).
    public func audioBuffer(device: String) throws -> LearnedAudioBuffer? {
        let values = try writer.read { db -> [DatabaseValue] in
            guard let row = try Row.fetchOne(db, sql: "SELECT milliseconds, floor FROM audioBuffer WHERE device = ?", arguments: [device]) else {
                return []
            }
            return [row[0], row[1]]
        }
        // Read as values, never trusted: a size that is not a positive number is nothing learned.
        guard values.count == 2, let ms = Double.fromDatabaseValue(values[0]), ms.isFinite, ms > 0 else { return nil }
        var floor: Double?
        if let f = Double.fromDatabaseValue(values[1]), f.isFinite, f > 0 { floor = f }
        return LearnedAudioBuffer(milliseconds: ms, floor: floor)
    }

    /// Stores (or replaces) what was learned on a device.
    public func saveAudioBuffer(_ learned: LearnedAudioBuffer, device: String) throws {
        guard !device.isEmpty, learned.milliseconds.isFinite, learned.milliseconds > 0 else {
            throw StoreError("an audio buffer needs a device and a size")
        }
        try writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO audioBuffer (device, milliseconds, floor, learnedAt) VALUES (?, ?, ?, ?)",
                           arguments: [device, learned.milliseconds, learned.floor, Date()])
        }
    }
}
