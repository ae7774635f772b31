import Foundation
import MIDIFile
import Reports
import Store

/// `etude library add|remove|rescan|list` and `etude fav add|remove|list`: the catalogue's
/// folders and the starred lessons, each command's output as text; the command line only
/// parses the options.
public enum LibraryActions {
    /// "3 added, 1 updated, … removed", then each file that could not be read.
    static func summary(_ r: ScanReport) -> String {
        var out = "\(r.added) added, \(r.updated) updated, \(r.unchanged) unchanged, \(r.removed) removed"
        if !r.failures.isEmpty { out += ", \(r.failures.count) unreadable" }
        out += "\n"
        for f in r.failures { out += "  skipped \(safe(f.path)): \(safe(f.message))\n" }
        return out
    }

    /// Adds a folder (searched recursively) and scans it.
    public static func addFolder(_ folder: String, library: Library) throws -> String {
        try library.withStore(scan: false) { summary(try $0.addFolder(folder)) }
    }

    /// Removes a folder (history, favourites and loops are kept).
    public static func removeFolder(_ folder: String, library: Library) throws -> String {
        try library.withStore(scan: false) { s in
            guard try s.removeFolder(folder) else { throw EtudeFailure("\(folder) is not in the library; see `etude library list`") }
            return "Removed \(folder)\n"
        }
    }

    /// Re-reads new and changed files in every folder and the built-in lessons.
    public static func rescan(library: Library) throws -> String {
        try library.withStore(scan: false) { summary(try $0.rescan(builtinDirectory: BuiltinLessons.directory())) }
    }

    /// The database, the built-in lessons and the added folders.
    public static func show(library: Library) throws -> String {
        try library.withStore(scan: false) { s in
            var out = "Database:  \(s.path ?? "(memory)") (schema \(try s.schemaVersion() ?? "-"))\n"
            out += "Built-in:  \(BuiltinLessons.directory() ?? "(not found; set ETUDE_LESSONS)")\n"
            let folders = try s.libraryFolders()
            out += "Folders:   \(folders.isEmpty ? "none (add one with `etude library add DIR`)" : "")\n"
            for f in folders { out += "  \(TextDecoding.sanitize(f.path))\n" }
            return out
        }
    }

    /// Stars a lesson.
    public static func addFavourite(_ lesson: String, library: Library) throws -> String {
        try library.withStore { s in
            let l = try s.resolveLesson(lesson)
            try s.addFavourite(l.lesson.id)
            return "★ \(l.lesson.title)\n"
        }
    }

    /// Unstars a lesson; one line when it was not starred.
    public static func removeFavourite(_ lesson: String, library: Library) throws -> String {
        try library.withStore { s in
            let l = try s.resolveLesson(lesson)
            guard try s.removeFavourite(l.lesson.id) else {
                throw EtudeFailure("\(l.lesson.title) is not a favourite; `etude fav list` shows them")
            }
            return "Unstarred \(l.lesson.title)\n"
        }
    }

    /// The starred lessons, one line each, or a JSON array.
    public static func favourites(json: Bool, library: Library) throws -> String {
        try library.withStore { s in
            let rows = try s.favourites()
            if json { return JSONOutput.array(rows.map(ListingRecord.init)) }
            return rows.isEmpty ? "No favourites yet: `etude fav add LESSON`.\n" : rows.map(Listing.line).joined(separator: "\n") + "\n"
        }
    }
}
