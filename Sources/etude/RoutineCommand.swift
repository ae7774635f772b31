import App
import ArgumentParser
import Devices
import Foundation
import FrontEnd
import Judge
import Lesson
import LessonLibrary
import MIDIFile
import Reports
import Store

struct RoutineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routine",
        abstract: "Practice routines: named, ordered lists of lessons with tempo, hand, bars and length.",
        discussion: """
        \(RoutineEntry.specHelp)

        Examples:
          etude routine new warm-up --entry "lesson=Ode to Joy;tempo=80;minutes=5"
          etude routine edit warm-up --add "random=favourite;reps=2;pause=10"
          etude routine export warm-up --output warm-up.json
          etude routine export warm-up --format text
          etude routine import warm-up.json --name warm-up-copy
          etude routine run warm-up --plan
        """,
        subcommands: [New.self, Edit.self, List.self, Run.self, Export.self, Import.self, Delete.self]
    )

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a routine from --entry specs.",
            discussion: """
            \(RoutineEntry.specHelp)

            Example:
              etude routine new evening --entry "lesson=Ode to Joy;tempo=80;minutes=5" --entry "random=favourite;reps=2;pause=10"
            """
        )
        @Argument(help: "The routine's name.") var name: String
        @Option(name: .customLong("entry"), help: "An entry (repeat for each, in order).") var entries: [String] = []
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try RoutineActions.create(name: name, entries: entries, library: store.library)) }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a routine: add, remove, move or replace entries, or rename it.",
            discussion: "With no options, opens the routine's JSON in $VISUAL or $EDITOR.\n\n\(RoutineEntry.specHelp)"
        )
        @Argument(help: "The routine's name.") var name: String
        @Option(help: "A new name.") var rename: String?
        @Option(help: "Append an entry.") var add: [String] = []
        @Option(help: "Remove entry N (1-based).") var remove: [Int] = []
        @Option(help: "Move entry N ...") var move: Int?
        @Option(help: "... to position M.") var to: Int?
        @Option(help: "Replace entry N: N=SPEC, e.g. 2=random=favourite;reps=2.") var set: [String] = []
        @OptionGroup var store: StoreOptions

        func run() throws {
            let changes = RoutineActions.Changes(rename: rename, add: add, remove: remove, move: move, to: to, set: set)
            Console.out(try RoutineActions.edit(name: name, changes: changes, library: store.library))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List routines (or one routine's entries).")
        @Argument(help: "A routine to show.") var name: String?
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try RoutineActions.list(name, library: store.library)) }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a routine: each entry in order, a countdown in the pauses, a fade at a time limit.",
            discussion: """
            Keys (on a terminal): → skips the current entry or countdown, q or Esc ends the routine.

            An entry without a mode (or mode=watch) plays for you to listen and watch, and is stored in the history as a watch pass.

            An entry with mode=wait, play or memory is yours to play on --input (the computer keyboard by default, a MIDI keyboard, or a FIFO), on the full practice screen, judged as by `etude practice --mode`: wait stops at each chord, play and memory run in real time. Its repetitions are judged passes; a time limit ends it even while wait mode stands at a chord. Each finished pass is stored with its mode and score. Without a terminal such entries need a MIDI input or FIFO (or are skipped).

            Without an audio device it runs silently (one warning line). --plan only prints the schedule.
            """
        )
        @Argument(help: "The routine's name.") var name: String
        @Option(help: "Seed for the random picks (same seed, same lessons).") var seed: UInt64?
        @Flag(help: "Only print the schedule; play nothing.") var plan = false
        @OptionGroup var synth: SynthOptions
        @OptionGroup var instrument: InstrumentOptions
        @OptionGroup var playingOptions: PlayingOptions
        @OptionGroup var audioBuffer: AudioBufferOption
        @OptionGroup var store: StoreOptions
        func run() throws {
            // Checked before the library or the synth opens: one line per mistake.
            var playing = try playingOptions.playing(mode: .watch)
            var sound = try instrument.applied(to: audioBuffer.applied(to: synth.sound))
            sound.library = store.library  // the audio buffer learned per device
            MyInstrument.use(sound: &sound, playing: &playing, library: store.library)  // `etude setup`'s, unless given
            // --keys/--range/--fit: remembered for the input, where each entry you play finds them.
            try LessonFit.keyboard(keys: playingOptions.keys, range: playingOptions.range, fit: playingOptions.fit, input: playing.input, library: store.library).remember()
            let status = try Actions.runRoutine(name: name, library: store.library, seed: seed, planOnly: plan, sound: sound, playing: playing)
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a routine as JSON (to hand on) or as a plain list.")
        enum Format: String, ExpressibleByArgument { case json, text }
        @Argument(help: "The routine's name.") var name: String
        @Option(help: "json or text.") var format: Format = .json
        @Option(name: [.short, .long], help: "Write to this file instead of standard output.") var output: String?
        @OptionGroup var store: StoreOptions
        func run() throws {
            if let text = try RoutineActions.export(name, json: format == .json, output: output, library: store.library) { Console.out(text) }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a routine from a JSON file (one of the same name is replaced only with --replace).")
        @Argument(help: "The routine file.") var file: String
        @Option(help: "Store it under this name.") var name: String?
        @Flag(help: "Replace a stored routine of the same name (without it, importing over one is refused).") var replace = false
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try RoutineActions.importFile(file, as: name, replace: replace, library: store.library)) }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a routine.")
        @Argument(help: "The routine's name.") var name: String
        @OptionGroup var store: StoreOptions
        func run() throws { Console.out(try RoutineActions.delete(name, library: store.library)) }
    }
}
