import ArgumentParser
import Foundation
import LessonLibrary
import MIDIFile
import Store

/// `--db PATH` for every command that uses the database (else `$ETUDE_DB`, else the XDG path).
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: ArgumentHelp("The database file (default: $ETUDE_DB or $XDG_DATA_HOME/etude/etude.sqlite).", valueName: "path"))
    var db: String?
}

extension StoreOptions {
    /// The library this command's `--db` names: the process's one (its store opened once, by
    /// whatever needs it first, and passed on from here).
    var library: Library { Library.process(databaseOverride: db) }
}
