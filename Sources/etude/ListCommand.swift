import ArgumentParser
import Reports
import Store

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the lesson catalogue (built-in lessons, added folders, opened files).",
        discussion: """
        Every word of QUERY must appear in the title, composer, description, key or file name.

        Examples:
          etude list
          etude list --level 2 minuet
          etude list --favourites --json
        """
    )

    @Argument(help: "Words to search for.") var query: [String] = []
    @Flag(name: [.customLong("favourites"), .customLong("favorites")], help: "Only starred lessons.") var favourites = false
    @Option(help: "Only lessons of this level.") var level: Int?
    @Flag(help: "Print a JSON array instead of text.") var json = false
    @OptionGroup var store: StoreOptions

    func validate() throws { if let level, level < 1 { throw ValidationError("--level \(level): levels start at 1") } }
    func run() throws {
        try store.library.withStore { s in
            let rows = try s.lessons(matching: query.joined(separator: " "), level: level, favouritesOnly: favourites)
            if json {
                Console.out(JSONOutput.array(rows.map(ListingRecord.init)))
            } else if rows.isEmpty {
                Console.out(query.isEmpty && level == nil && !favourites
                    ? "No lessons yet: add a folder with `etude library add DIR`.\n"
                    : "No lesson matches.\n")
            } else {
                Console.out(rows.map(Listing.line).joined(separator: "\n") + "\n")
            }
        }
    }
}
