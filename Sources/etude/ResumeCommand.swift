import App
import ArgumentParser
import Devices
import Foundation
import FrontEnd
import Lesson
import Reports

struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Practise again where you left off: lesson, position, hand, tempo, metronome and loop.",
        discussion: """
        On a terminal `etude resume` opens the practice screen with that state (as --play does): the lesson, bar, hand and what the other hand does, tempo, metronome, loop and mode, on the input it was played on (--input names another; the instrument options as for practice); --show (or output that is not a terminal) only prints it.

        Examples:
          etude resume
          etude resume --show
          etude resume --json
        """
    )

    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "Start practising where you left off (the default on a terminal).") var play = false
    @Flag(help: "Only print where you left off.") var show = false
    @OptionGroup var instrument: InstrumentOptions
    @OptionGroup var playingOptions: PlayingOptions
    @OptionGroup var store: StoreOptions

    func run() throws {
        if play && (show || json) { throw EtudeFailure("--play with --show/--json: choose one") }
        let onTerminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if play || (onTerminal && !show && !json) {
            let status = try Actions.resume(library: store.library, sound: try instrument.applied(to: LiveSound()),
                                        playing: try playingOptions.playing(mode: .watch))
            if status != 0 { throw ExitCode(status) }
            return
        }
        Console.out(try LeftOff.shown(json: json, library: store.library))
    }
}
