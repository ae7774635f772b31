import App
import ArgumentParser
import Devices
import Foundation
import FrontEnd
import Lesson
import MIDIFile
import Practice
import Reports
import Store

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
        try store.library.withStore(scan: false) { s in
            guard let (state, listing) = try s.resume() else {
                throw EtudeFailure("nothing to resume yet: practise a lesson first (see `etude list`)")
            }
            let path = listing?.path ?? state.path
            if json {
                Console.out(JSONOutput.line(ResumeRecord(state, listing: listing)))
            } else {
                var out = "Lesson:   \(TextDecoding.sanitize(listing?.lesson.title ?? "?"))\n"
                out += "File:     \(TextDecoding.sanitize(path))\n"
                out += "Position: \(ResumePlace.bar(seconds: state.positionSeconds, path: path).map { "bar \($0) (\(Listing.duration(state.positionSeconds)))" } ?? Listing.duration(state.positionSeconds))\n"
                out += "Hand:     \(state.hand.rawValue)\(state.hand == .both ? "" : " (other hand: \((state.otherHand ?? .play).name))")\n"
                out += "Tempo:    \(state.tempoPercent)%\(state.metronome == true ? ", metronome on" : "")\nMode:     \(state.mode.rawValue)\n"
                if let input = state.input { out += "Input:    \(TextDecoding.sanitize(input))\n" }
                if let a = state.loopFirstBar, let b = state.loopLastBar {
                    out += "Loop:     bars \(ResumePlace.bars(a, b, path: path))\(state.loopName.map { " (\($0))" } ?? "")\n"
                }
                out += "Saved:    \(Listing.date(state.updatedAt))\n"
                Console.out(out)
            }
        }
    }
}
