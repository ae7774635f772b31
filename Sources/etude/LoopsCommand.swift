import ArgumentParser
import Store

struct LoopsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loops",
        abstract: "Named loops of a lesson: bars, hand, tempo and what the other hand does.",
        discussion: """
        Examples:
          etude loops save "Minuet in G" tricky-run --bars 9-12 --hand right --tempo 70
          etude loops list "Minuet in G"
          etude loops delete "Minuet in G" tricky-run
        """,
        subcommands: [List.self, Save.self, Delete.self]
    )

    static let otherHandModes = ["play", "mute", "hide"]

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a lesson's saved loops.")
        @Argument(help: "The lesson.") var lesson: String
        @Flag(help: "Print a JSON array.") var json = false
        @OptionGroup var store: StoreOptions
        func run() throws {
            try StoreCLI.withStore(store) { s in
                let l = try s.resolveLesson(lesson)
                let loops = try s.loops(for: l.lesson.id)
                if json {
                    var j = JSONText()
                    j.raw("[")
                    for (i, x) in loops.enumerated() {
                        if i > 0 { j.raw(",\n") }
                        j.raw("{\"name\":"); j.string(x.name)
                        j.raw(",\"firstBar\":"); j.number(x.firstBar)
                        j.raw(",\"lastBar\":"); j.number(x.lastBar)
                        j.raw(",\"hand\":"); j.string(x.hand)
                        j.raw(",\"tempoPercent\":"); j.number(x.tempoPercent)
                        j.raw(",\"otherHandMode\":"); j.string(x.otherHandMode)
                        j.raw("}")
                    }
                    j.raw("]\n")
                    Console.out(j.text)
                } else if loops.isEmpty {
                    Console.out("No saved loops for \(l.lesson.title).\n")
                } else {
                    Console.out(loops.map { "\($0.name): bars \($0.firstBar)-\($0.lastBar), \($0.hand) hand, \($0.tempoPercent)%, other hand \($0.otherHandMode)" }
                        .joined(separator: "\n") + "\n")
                }
            }
        }
    }

    struct Save: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Save (or replace) a named loop.")
        @Argument(help: "The lesson.") var lesson: String
        @Argument(help: "The loop's name.") var name: String
        @Option(help: "Bars FIRST-LAST, e.g. 9-12.") var bars: String
        @Option(help: "right, left or both.") var hand = "both"
        @Option(help: "Tempo in percent (10-200).") var tempo = 100
        @Option(name: .customLong("other-hand"), help: "What the other hand does: play, mute or hide.") var otherHand = "play"
        @OptionGroup var store: StoreOptions
        func run() throws {
            guard let range = RoutineEntry.parseBars(bars) else { throw EtudeFailure("--bars \(bars): write FIRST-LAST, e.g. 9-12") }
            guard ["right", "left", "both"].contains(hand) else { throw EtudeFailure("--hand \(hand): use right, left or both") }
            guard (10...200).contains(tempo) else { throw EtudeFailure("--tempo \(tempo): give a percentage from 10 to 200") }
            guard LoopsCommand.otherHandModes.contains(otherHand) else {
                throw EtudeFailure("--other-hand \(otherHand): use play, mute or hide")
            }
            try StoreCLI.withStore(store) { s in
                let l = try s.resolveLesson(lesson)
                try s.saveLoop(SavedLoop(lessonID: l.lesson.id, name: name, firstBar: range.lowerBound, lastBar: range.upperBound,
                                         hand: hand, tempoPercent: tempo, otherHandMode: otherHand))
                Console.out("Saved loop \(name) of \(l.lesson.title): bars \(range.lowerBound)-\(range.upperBound)\n")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a named loop.")
        @Argument(help: "The lesson.") var lesson: String
        @Argument(help: "The loop's name.") var name: String
        @OptionGroup var store: StoreOptions
        func run() throws {
            try StoreCLI.withStore(store) { s in
                let l = try s.resolveLesson(lesson)
                guard try s.deleteLoop(named: name, for: l.lesson.id) else {
                    throw EtudeFailure("\(l.lesson.title) has no loop named \(name); see `etude loops list`")
                }
                Console.out("Deleted loop \(name)\n")
            }
        }
    }
}
