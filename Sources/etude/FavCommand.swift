import ArgumentParser
import LessonLibrary
import Reports
import Store

struct FavCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fav",
        abstract: "Star lessons to find them first.",
        discussion: """
        LESSON is \(LessonArgument.formats), a title (or its start) or an id prefix from `etude list`.

        Examples:
          etude fav add "Minuet in G major"
          etude fav list
        """,
        subcommands: [Add.self, Remove.self, List.self],
        defaultSubcommand: List.self
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Star a lesson.")
        @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
        @OptionGroup var store: StoreOptions
        func run() throws {
            try store.library.withStore { s in
                let l = try s.resolveLesson(lesson)
                try s.addFavourite(l.lesson.id)
                Console.out("★ \(l.lesson.title)\n")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unstar a lesson.")
        @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
        @OptionGroup var store: StoreOptions
        func run() throws {
            try store.library.withStore { s in
                let l = try s.resolveLesson(lesson)
                guard try s.removeFavourite(l.lesson.id) else {
                    throw EtudeFailure("\(l.lesson.title) is not a favourite; `etude fav list` shows them")
                }
                Console.out("Unstarred \(l.lesson.title)\n")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the starred lessons.")
        @Flag(help: "Print a JSON array.") var json = false
        @OptionGroup var store: StoreOptions
        func run() throws {
            try store.library.withStore { s in
                let rows = try s.favourites()
                if json {
                    Console.out(JSONOutput.array(rows.map(ListingRecord.init)))
                } else {
                    Console.out(rows.isEmpty ? "No favourites yet: `etude fav add LESSON`.\n"
                                : rows.map(Listing.line).joined(separator: "\n") + "\n")
                }
            }
        }
    }
}
