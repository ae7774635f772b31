import Foundation
import GRDB

/// The audio buffer Etude learned on one output device (its PulseAudio sink): the size it
/// plays at without gaps and the largest that underran there, so the next session starts from
/// it instead of finding it again.
extension Store {
    /// What was learned on a device (nil when nothing yet, or a row that is not a size).
    public func audioBuffer(device: String) throws -> (milliseconds: Double, floor: Double?)? {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT milliseconds, floor FROM audioBuffer WHERE device = ?", arguments: [device]),
                  let ms = Double.fromDatabaseValue(row["milliseconds"]), ms.isFinite, ms > 0 else { return nil }
            let floor = Double.fromDatabaseValue(row["floor"]).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
            return (ms, floor)
        }
    }

    /// Stores (or replaces) what was learned on a device.
    public func saveAudioBuffer(milliseconds: Double, floor: Double?, device: String) throws {
        guard !device.isEmpty, milliseconds.isFinite, milliseconds > 0 else { throw StoreError("an audio buffer needs a device and a size") }
        try writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO audioBuffer (device, milliseconds, floor, learnedAt) VALUES (?, ?, ?, ?)",
                           arguments: [device, milliseconds, floor, Date()])
        }
    }
}
