import Foundation
import GRDB

/// Whether Etude sounds what the learner plays on one input device (`--echo on|off`): off for
/// a digital piano that sounds itself, so nothing is heard twice.
extension Store {
    /// The choice stored for a device (nil when none was made yet).
    public func inputEcho(device: String) throws -> Bool? {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT echo FROM inputEcho WHERE device = ?", arguments: [device])
        }
    }

    /// Stores (or replaces) a device's choice.
    public func saveInputEcho(_ echo: Bool, device: String) throws {
        guard !device.isEmpty else { throw StoreError("an echo choice needs a device name") }
        try writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO inputEcho (device, echo, chosenAt) VALUES (?, ?, ?)",
                           arguments: [device, echo, Date()])
        }
    }
}
