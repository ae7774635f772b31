import Foundation
import GRDB

/// The learner's timing offset on one input device, as `etude calibrate` measured it: judging
/// subtracts `offsetMs` from every time played on that device.
public struct InputOffset: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "inputOffset"
    /// The device as Etude names it: `keys`, `midi:<port name>`, or a device/FIFO path.
    public var device: String
    /// Median of (played − heard) in ms; positive = the learner's keys arrive late.
    public var offsetMs: Double
    public var spreadMs: Double
    /// Counted beats that had a tap.
    public var taps: Int
    public var calibratedAt: Date

    public init(device: String, offsetMs: Double, spreadMs: Double, taps: Int, calibratedAt: Date = Date()) {
        self.device = device
        self.offsetMs = offsetMs
        self.spreadMs = spreadMs
        self.taps = taps
        self.calibratedAt = calibratedAt
    }

    /// Decoded with `try`, refusing figures no calibration stores (an offset of 1e300 or ∞ in
    /// a damaged file): such a row is skipped (`DamagedRows`), never judged with.
    public init(row: Row) throws {
        device = try row.decode(forColumn: "device")
        offsetMs = try row.decode(forColumn: "offsetMs")
        spreadMs = try row.decode(forColumn: "spreadMs")
        taps = try row.decode(forColumn: "taps")
        calibratedAt = try row.decode(forColumn: "calibratedAt")
        guard offsetMs.isFinite, spreadMs.isFinite, abs(offsetMs) <= InputOffset.largestMs, abs(spreadMs) <= InputOffset.largestMs else {
            throw StoreError("\(device): offset \(offsetMs) ms, spread \(spreadMs) ms are out of range")
        }
    }

    /// The largest offset or spread a stored calibration may hold (ms).
    public static let largestMs = 10_000.0
}

/// Calibrated offsets per input device, and notices shown only once.
extension Store {
    /// The offset stored for a device (nil when it was never calibrated).
    public func inputOffset(device: String) throws -> InputOffset? {
        try writer.read { db in try InputOffset.fetchOneDecodable(db, key: device) }
    }

    /// Every stored offset, by device name.
    public func inputOffsets() throws -> [InputOffset] {
        try writer.read { db in try InputOffset.fetchDecodable(db, InputOffset.order(Column("device"))) }
    }

    /// Stores (or replaces) a device's offset.
    public func saveInputOffset(_ offset: InputOffset) throws {
        guard offset.offsetMs.isFinite, offset.spreadMs.isFinite, !offset.device.isEmpty else {
            throw StoreError("an input offset needs a device name and finite figures")
        }
        try writer.write { db in try offset.save(db) }
    }

    /// Forgets a device's offset; false when none was stored.
    @discardableResult
    public func deleteInputOffset(device: String) throws -> Bool {
        try writer.write { db in try InputOffset.deleteOne(db, key: device) }
    }

    /// True once a notice of this name was shown.
    public func wasShown(notice name: String) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT COUNT(*) > 0 FROM shownNotice WHERE name = ?", arguments: [name]) ?? false
        }
    }

    /// Remembers that a notice was shown; true when this call was the first (so two sessions
    /// never both show it).
    @discardableResult
    public func markShown(notice name: String, now: Date = Date()) throws -> Bool {
        try writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO shownNotice (name, shownAt) VALUES (?, ?)", arguments: [name, now])
            return db.changesCount > 0
        }
    }
}
