import App
import ArgumentParser
import Foundation
import FrontEnd
import Lesson
import LessonLibrary
import Reports
import Terminal

/// The root command. Each subcommand lives in its own file and only wires modules together.
struct Etude: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "etude",
        abstract: "A piano-lesson trainer for the terminal: lessons from MIDI, ABC and MusicXML files, heard, watched and practised.",
        discussion: """
            Open a lesson (a Standard MIDI File, an ABC tune or a MusicXML score; a title or id from `etude list` works too), hear it through a SoundFont synth, watch it fall onto an 88-key keyboard or read it on a staff, and practise it hand by hand and bar by bar, scored. `etude` alone, on a terminal, opens the lesson browser (`etude browse`).

            Examples:
              etude list
              etude info Lessons/level1/c-major-five-finger-parallel.mid
              etude practice "Ode to Joy" --hand right --mode play
              etude events song.mid --json
              etude export song.mid -o slow.mid --bars 5-8 --tempo 60%
            """,
        version: EtudeVersion.current,
        subcommands: [
            InfoCommand.self, EventsCommand.self, AbcCommand.self, PlayCommand.self, RenderCommand.self,
            SoundFontsCommand.self, ExportCommand.self, LoopCommand.self,
            DevicesCommand.self, ListCommand.self, LibraryCommand.self, FavCommand.self, LoopsCommand.self,
            StatsCommand.self, ResumeCommand.self, RoutineCommand.self, DebugWriteHistoryCommand.self,
            PracticeScreenCommand.self, BrowseCommand.self, RecordCommand.self, QuizCommand.self, ScoreCommand.self, CalibrateCommand.self, JudgeCommand.self,
            NextCommand.self, TodayCommand.self, SightReadCommand.self, SetupCommand.self,
            AlignCommand.self,
        ]
    )

    /// No subcommand: the browser on a terminal, else the help as before (scripts, pipes).
    func run() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            Console.out(Etude.helpMessage() + "\n")
            return
        }
        let status = try BrowserApp.run(Library.process(databaseOverride: nil))
        if status != 0 { throw ExitCode(status) }
    }
}

@main
enum Main {
    static func main() {
        // A closed pipe is a write error Console handles (exit 141 without a word), not a signal.
        signal(SIGPIPE, SIG_IGN)
        // A file-size limit (ulimit -f) makes a write fail with EFBIG, handled like a full disk.
        signal(SIGXFSZ, SIG_IGN)
        // A terminal left raw by an Etude killed with SIGKILL is put right before anything prints.
        TerminalSession.repairLeftoverRawMode()
        if let topic = unknownHelpTopic(Array(CommandLine.arguments.dropFirst())) {
            Console.error("etude: help \(topic): no such command; see `etude --help`"); exit(ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try Etude.parseAsRoot(OptionRefusals.negativeValuesJoined(Array(CommandLine.arguments.dropFirst())))
            try command.run()
            Library.closeProcess()  // the store's sidecars go with its connections
        } catch let failure as EtudeFailure {
            Library.closeProcess()
            Console.error("etude: \(failure.message)")
            exit(failure.exitCode)
        } catch let failure as RoutineError {
            Library.closeProcess()
            Console.error("etude: \(failure.message)")
            exit(1)
        } catch {
            Library.closeProcess()
            let code = Etude.exitCode(for: error)
            // --help, --version: the parser's text, through Console like every output.
            if code == .success && !(error is ExitCode) {
                Console.out(Etude.fullMessage(for: error) + "\n")
                exit(0)
            }
            // A command's own exit status.
            if error is ExitCode { exit(code.rawValue) }
            // A value its option's type refused: said in that type's words, as every failure.
            if let refused = OptionRefusals.message(forParserMessage: Etude.message(for: error)) {
                Console.error("etude: \(refused)")
                exit(1)
            }
            Console.error("etude: " + oneLine(error, code: code))
            exit(code.rawValue)
        }
    }

    /// The word after `etude help` naming no command (the parser would print the general help, status 0).
    static func unknownHelpTopic(_ arguments: [String]) -> String? {
        guard arguments.first == "help" else { return nil }
        var command: any ParsableCommand.Type = Etude.self
        for word in arguments.dropFirst() where !word.hasPrefix("-") {
            guard let sub = command.configuration.subcommands.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) }) else { return word }
            command = sub
        }
        return nil
    }
    /// A mistyped command line as one line, as every other failure is: the parser's message
    /// and where the right options are listed.
    static func oneLine(_ error: Error, code: ExitCode) -> String {
        let lines = Etude.message(for: error).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var line = lines.first { !$0.isEmpty } ?? "\(error)"
        if line.hasPrefix("Error: ") { line.removeFirst("Error: ".count) }
        if code == .validationFailure { line += "; see `\(commandPath(CommandLine.arguments)) --help`" }
        return line
    }

    /// "etude loops save" for `etude loops save x --bogus`: the subcommands named on the line.
    static func commandPath(_ arguments: [String]) -> String {
        var command: ParsableCommand.Type = Etude.self
        var path = ["etude"]
        for word in arguments.dropFirst() {
            guard let sub = command.configuration.subcommands.first(where: { $0._commandName == word }) else { break }
            command = sub
            path.append(word)
        }
        return path.joined(separator: " ")
    }
}
