import ArgumentParser
import Foundation
import Lesson
import LessonLibrary
import Notation
import Reports
import Terminal

extension ColorChoice: ExpressibleByArgument {}

/// `etude score`: the grand staff of a lesson, printed.
struct ScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Print a lesson as a grand staff (treble and bass), or its notes' placement as JSON.",
        discussion: """
        Examples:
          etude score "Ode to Joy"
          etude score Lessons/level4/ode-to-joy.mid --bars 1-4 --color always
          etude score song.mid --json
        """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
    @Option(help: "Only these bars, e.g. 5-8.") var bars: BarsArgument?
    @Option(help: "Transpose: semitones (e.g. +2) or a key (D, Bb, F#m); the staff is respelled in the new key.") var transpose: Transposition.Request?
    @Option(help: "Columns to fill (default: the terminal's width, else 80).") var width: Int?
    @Option(help: "Colour: auto (on a terminal, unless NO_COLOR is set), always or never.") var color: ColorChoice = .auto
    @Flag(help: "Print the placed notes as JSON (bar, beat, staff, step, accidental, pitch, hand, finger, column), with the dynamics and the hairpins, slurs and pedal marks (spans).") var json = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        let opened = try LessonFit.open(try store.library.lessonPath(lesson), transpose: transpose)
        var range: ClosedRange<Int>?
        if let bars {
            do { range = try PracticePlan.bars(bars, in: opened.lesson) } catch { throw EtudeFailure(error.cliMessage) }  // a score's printed bars
        }
        let columns = width ?? Self.terminalColumns() ?? 80
        if json {
            Console.out(try ScoreOutput.json(opened.lesson, path: opened.path, width: columns, bars: range))
        } else {
            let tty = isatty(STDOUT_FILENO) == 1
            Console.out(try ScoreOutput.text(opened.lesson, path: opened.path, width: columns, bars: range,
                                             color: color.colors(isTerminal: tty, environment: ProcessInfo.processInfo.environment)))
        }
    }

    static func terminalColumns() -> Int? {
        TerminalSize.of(STDOUT_FILENO)?.columns
    }
}
