import ArgumentParser
import Foundation

/// The root command. Each subcommand lives in its own file and only wires modules together.
struct Etude: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "etude",
        abstract: "A piano-lesson trainer for the terminal.",
        discussion: """
        Open a lesson (a Standard MIDI File), hear it, practise it hand by hand and bar by bar.
        `etude` alone, on a terminal, opens the lesson browser (`etude browse`).
        Examples:
          etude info Lessons/level1/c-position.mid
          etude events song.mid --json
          etude export song.mid -o slow.mid --bars 5-8 --tempo 60%
        """,
        subcommands: [
            InfoCommand.self, EventsCommand.self, AbcCommand.self, PlayCommand.self, RenderCommand.self,
            SoundFontsCommand.self, ExportCommand.self, LoopCommand.self,
            DevicesCommand.self, ListCommand.self, LibraryCommand.self, FavCommand.self, LoopsCommand.self,
            StatsCommand.self, ResumeCommand.self, RoutineCommand.self, DebugWriteHistoryCommand.self,
            PracticeScreenCommand.self, BrowseCommand.self, RecordCommand.self, QuizCommand.self,
        ]
    )

    /// No subcommand: the browser on a terminal, else the help as before (scripts, pipes).
    func run() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            Console.out(Etude.helpMessage() + "\n")
            return
        }
        try BrowserController.run(try StoreOptions.parse([]))
    }
}

/// A failure the user can fix: printed as one `etude: …` line, exit status 1.
struct EtudeFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32 = 1

    init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    var description: String { message }
}

@main
enum Main {
    static func main() {
        do {
            var command = try Etude.parseAsRoot()
            try command.run()
        } catch let failure as EtudeFailure {
            Console.error("etude: \(failure.message)")
            exit(failure.exitCode)
        } catch {
            Etude.exit(withError: error)
        }
    }
}

/// Writing to the standard streams without Foundation's buffering surprises.
enum Console {
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
