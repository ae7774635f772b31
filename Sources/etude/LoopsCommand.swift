import App
import ArgumentParser
import Lesson
import LessonLibrary
import Practice
import Reports
import Store

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
        func run() throws {
            try store.library.withStore { s in
                let l = try s.resolveLesson(lesson)
                let loops = try s.loops(for: l.lesson.id)
                if json {
                    Console.out(JSONOutput.array(loops.map(LoopRecord.init)))
                } else if loops.isEmpty {
                    Console.out("No saved loops for \(l.lesson.title).\n")
                } else {
                    Console.out(loops.map { "\(safe($0.name)): bars \(ResumePlace.bars($0.firstBar, $0.lastBar, path: l.path)), \($0.hand == .both ? "both hands" : "\($0.hand.rawValue) hand"), \($0.tempoPercent)%, other hand \($0.otherHandMode.name)\($0.transpose.map { ", transposed \(safe($0))" } ?? "")" }
                        .joined(separator: "\n") + "\n")
                }
            }
        }
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
            // The same words and checks as `etude practice`, so a saved loop always plays; a
            // score's bars are its printed ones (12-16@2), stored as the bars played.
            try store.library.withStore { s in
                let l = try s.resolveLesson(lesson)
                let opened = try l.path.map { path in Lesson(file: try LessonOpener.read(path).file, fileName: path) }
                var plan = PracticePlan()
                let range: ClosedRange<Int>
                do throws(PlanError) {
                    range = try PracticePlan.bars(bars, in: opened)
                    (plan.bars, plan.hands, plan.tempo, plan.otherHand) = (range, hand, .percent(tempo.value), otherHand)
                    if let opened { try plan.validate(for: opened) }
                } catch {
                    // This command calls the other hand's option --other-hand.
                    throw EtudeFailure(error.worded { setting, value in
                        "--\(setting == .other ? "other-hand" : PlanError.optionName(setting)) \(value)"
                    })
                }
                try s.saveLoop(SavedLoop(lessonID: l.lesson.id, name: name, firstBar: range.lowerBound, lastBar: range.upperBound,
                                         hand: plan.hands, tempoPercent: Int(tempo.value.rounded()),
                                         otherHandMode: plan.otherHand))
                let shown = opened?.bars.label(ofRange: range) ?? "\(range.lowerBound)-\(range.upperBound)"
                Console.out("Saved loop \(name) of \(l.lesson.title): bars \(shown)\n")
            }
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a saved loop (e.g. one `s` saved under an automatic name).")
        @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
        @Argument(help: "The loop's name now.") var name: String
        @Argument(help: "Its new name.") var newName: String
        @OptionGroup var store: StoreOptions
        func run() throws {
            try store.library.withStore { s in
                let l = try s.resolveLesson(lesson)
                guard try s.renameLoop(name, to: newName, for: l.lesson.id) else {
                    throw EtudeFailure("\(l.lesson.title) has no loop named \(name); see `etude loops list`")
                }
                Console.out("Renamed loop \(name) to \(newName.trimmingCharacters(in: .whitespaces))\n")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a named loop.")
        @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
        @Argument(help: "The loop's name.") var name: String
        @OptionGroup var store: StoreOptions
        func run() throws {
            try store.library.withStore { s in
                let l = try s.resolveLesson(lesson)
                guard try s.deleteLoop(named: name, for: l.lesson.id) else {
                    throw EtudeFailure("\(l.lesson.title) has no loop named \(name); see `etude loops list`")
                }
                Console.out("Deleted loop \(name)\n")
            }
        }
    }
}
