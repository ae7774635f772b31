import ArgumentParser
import LessonLibrary
import Reports

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

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a folder (searched recursively) and scan it.")
        @Argument(help: "The folder.") var folder: String
        @OptionGroup var store: StoreOptions
        // An empty name is no folder (it would be the current one): name it.
        func validate() throws { if folder.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("name the folder to add, e.g. etude library add ~/Music/lessons (or . for this one)") } }
        func run() throws { Console.out(try LibraryActions.addFolder(folder, library: store.library)) }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a folder (history, favourites and loops are kept).")
        @Argument(help: "The folder.") var folder: String
        @OptionGroup var store: StoreOptions
        func validate() throws { if folder.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("name the folder to remove (see `etude library list`)") } }
        func run() throws { Console.out(try LibraryActions.removeFolder(folder, library: store.library)) }
    }

    struct Rescan: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-read new and changed files in every folder.")
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try LibraryActions.rescan(library: store.library)) }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the database, the built-in lessons and the added folders.")
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try LibraryActions.show(library: store.library)) }
    }
}
