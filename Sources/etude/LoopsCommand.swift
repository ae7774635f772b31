import App
import ArgumentParser
import Lesson
import LessonLibrary
import Reports

struct LoopsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loops",
        abstract: "Named loops of a lesson: bars, hand, tempo and what the other hand does.",
        discussion: """
        Examples:
          etude loops save "Minuet in G major" tricky --bars 9-12 --tempo 70
          etude loops list "Minuet in G major"
          etude loops rename "Minuet in G major" tricky hard
          etude loops delete "Minuet in G major" hard
        """,
        subcommands: [List.self, Save.self, Rename.self, Delete.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a lesson's saved loops.")
        @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
        @Flag(help: "Print a JSON array.") var json = false
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try LoopActions.list(lesson, json: json, library: store.library)) }
    }

    struct Save: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Save (or replace) a named loop.")
        @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
        @Argument(help: "The loop's name.") var name: String
        @Option(help: "Bars FIRST-LAST, e.g. 9-12.") var bars: BarsArgument
        @Option(help: "right, left or both.") var hand: PracticePlan.Hands = .both
        @Option(help: "Tempo as a percent of the lesson's own, 10–400% (e.g. 70%).") var tempo = TempoPercent.full
        @Option(name: .customLong("other-hand"), help: "What the other hand does: play, quiet or mute (as practice --other).")
        var otherHand: PracticePlan.OtherHand = .play
        @OptionGroup var store: StoreOptions
        func run() throws {
            Console.out(try LoopActions.save(lesson, name: name, bars: bars, hand: hand, tempo: tempo, otherHand: otherHand, library: store.library))
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a saved loop (e.g. one `s` saved under an automatic name).")
        @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
        @Argument(help: "The loop's name now.") var name: String
        @Argument(help: "Its new name.") var newName: String
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try LoopActions.rename(lesson, name: name, to: newName, library: store.library)) }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a named loop.")
        @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
        @Argument(help: "The loop's name.") var name: String
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try LoopActions.delete(lesson, name: name, library: store.library)) }
    }
}
