import ArgumentParser
import LessonLibrary
import Reports

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
        func run() throws { Console.out(try LibraryActions.addFavourite(lesson, library: store.library)) }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unstar a lesson.")
        @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try LibraryActions.removeFavourite(lesson, library: store.library)) }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the starred lessons.")
        @Flag(help: "Print a JSON array.") var json = false
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try LibraryActions.favourites(json: json, library: store.library)) }
    }
}
