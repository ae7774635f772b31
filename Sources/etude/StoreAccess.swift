import ArgumentParser
import Foundation
import MIDIFile
import Store
import Synchronization
import Trainer

/// `--db PATH` for every command that uses the database (else `$ETUDE_DB`, else the XDG path).
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: ArgumentHelp("The database file (default: $ETUDE_DB or $XDG_DATA_HOME/etude/etude.sqlite).", valueName: "path"))
    var db: String?
}

extension StoreOptions {
    /// The library this command's `--db` names: one per process (its store opened once, by
    /// whatever needs it first, and passed on from here), as GRDB's `AppDatabase` is.
    var library: Library {
        Self.process.withLock { slot in
            if let made = slot, made.databaseOverride == db { return made }
            let made = Library(databaseOverride: db)
            slot = made
            return made
        }
    }

    /// The process's library, made the first time a command asks for it.
    private static let process = Mutex<Library?>(nil)
}
