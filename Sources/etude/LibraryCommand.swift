import ArgumentParser
import Reports
import Store

struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Manage the folders whose lessons are in the catalogue.",
        discussion: """
        Lessons are known by their content, so a moved or renamed file keeps its favourite, loops and history.

        Examples:
          etude library add ~/Music/lessons
          etude library list
          etude library rescan
        """,
        subcommands: [Add.self, Remove.self, Rescan.self, List.self],
        defaultSubcommand: List.self
    )

    static func summary(_ r: ScanReport) -> String {
        var out = "\(r.added) added, \(r.updated) updated, \(r.unchanged) unchanged, \(r.removed) removed"
        if !r.failures.isEmpty { out += ", \(r.failures.count) unreadable" }
        out += "\n"
        for f in r.failures { out += "  skipped \(safe(f.path)): \(safe(f.message))\n" }
        return out
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a folder (searched recursively) and scan it.")
        @Argument(help: "The folder.") var folder: String
        @OptionGroup var store: StoreOptions
        // An empty name is no folder (it would be the current one): name it.
        func validate() throws { if folder.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("name the folder to add, e.g. etude library add ~/Music/lessons (or . for this one)") } }
        func run() throws {
            try store.library.withStore(scan: false) { s in
                Console.out(LibraryCommand.summary(try s.addFolder(folder)))
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a folder (history, favourites and loops are kept).")
        @Argument(help: "The folder.") var folder: String
        @OptionGroup var store: StoreOptions
        func validate() throws { if folder.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("name the folder to remove (see `etude library list`)") } }
        func run() throws {
            try store.library.withStore(scan: false) { s in
                guard try s.removeFolder(folder) else {
                    throw EtudeFailure("\(folder) is not in the library; see `etude library list`")
                }
                Console.out("Removed \(folder)\n")
            }
        }
    }

    struct Rescan: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-read new and changed files in every folder.")
        @OptionGroup var store: StoreOptions
        func run() throws {
            try store.library.withStore(scan: false) { s in
                Console.out(LibraryCommand.summary(try s.rescan(builtinDirectory: BuiltinLessons.directory())))
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the database, the built-in lessons and the added folders.")
        @OptionGroup var store: StoreOptions
        func run() throws {
            try store.library.withStore(scan: false) { s in
                var out = "Database:  \(s.path ?? "(memory)") (schema \(try s.schemaVersion() ?? "-"))\n"
                out += "Built-in:  \(BuiltinLessons.directory() ?? "(not found; set ETUDE_LESSONS)")\n"
                let folders = try s.libraryFolders()
                out += "Folders:   \(folders.isEmpty ? "none (add one with `etude library add DIR`)" : "")\n"
                for f in folders { out += "  \(TextDecoding.sanitize(f.path))\n" }
                Console.out(out)
            }
        }
    }
}
import MIDIFile
