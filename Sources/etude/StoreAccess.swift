import ArgumentParser
import Foundation
import MIDIFile
import Store
import Trainer

/// `--db PATH` for every command that uses the database (else `$ETUDE_DB`, else the XDG path).
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: ArgumentHelp("The database file (default: $ETUDE_DB or $XDG_DATA_HOME/etude/etude.sqlite).", valueName: "path"))
    var db: String?
}

extension StoreOptions {
    /// The library this command's `--db` names.
    var library: Library { Library(databaseOverride: db) }
}

enum StoreCLI {
    /// One listing as JSON (used by list, fav list, resume).
    static func json(_ l: LessonListing, into j: inout JSONText) {
        let s = l.lesson
        j.raw("{\"id\":"); j.string(s.id)
        j.raw(",\"title\":"); j.string(s.title)
        j.raw(",\"composer\":"); if let c = s.composer { j.string(c) } else { j.raw("null") }
        j.raw(",\"level\":"); if let v = s.level { j.number(v) } else { j.raw("null") }
        j.raw(",\"description\":"); if let d = s.description { j.string(d) } else { j.raw("null") }
        j.raw(",\"durationSeconds\":"); j.number((s.durationSeconds * 1000).rounded() / 1000)
        j.raw(",\"hands\":"); j.number(s.hands)
        j.raw(",\"key\":"); if let k = s.keyName { j.string(k) } else { j.raw("null") }
        j.raw(",\"timeSignature\":"); if let t = s.timeSignature { j.string(t) } else { j.raw("null") }
        j.raw(",\"tempoBPM\":"); if let t = s.tempoBPM { j.number(t) } else { j.raw("null") }
        j.raw(",\"noteCount\":"); j.number(s.noteCount)
        j.raw(",\"path\":"); if let p = l.path { j.string(p) } else { j.raw("null") }
        j.raw(",\"favourite\":"); j.raw(l.isFavourite ? "true" : "false")
        j.raw(",\"bestScore\":"); if let b = l.bestScore { j.number(b) } else { j.raw("null") }
        j.raw(",\"lastPractised\":"); if let d = l.lastPractised { j.string(Listing.isoDate(d)) } else { j.raw("null") }
        j.raw(",\"passes\":"); j.number(l.passes)
        j.raw("}")
    }
}
