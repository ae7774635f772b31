import ArgumentParser
import Devices
import Foundation
import MIDIInput
import Reports
import Synth

/// `etude setup`: the learner's instrument chosen once — input and its echo, where the lesson
/// sounds, MIDI out, key lights, gestures — stored in the library and used by practice, the
/// browser, `resume`, routines, `today --run` and `sight-read` unless they name another.
struct SetupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Choose your instrument once: input, echo, sound, MIDI out, key lights, gestures.",
        discussion: """
        On a terminal without options it lists what you can play on here (as `etude devices` does) and asks for a number; for a MIDI instrument it then asks once whether it makes its own sound (y/n, one key). With options it stores them (the input must be here now); options not given keep what was set up. Practice, the browser, resume, routines, today --run and sight-read then use it; each still takes --input and the instrument options for one session. Without a setup Etude plays along with the computer keyboard.

        Examples:
          etude setup
          etude setup --input midi --echo off --sound instrument
          etude setup --lights 16 --gestures on
          etude setup --show
          etude setup --forget
        """
    )

    @Option(help: "Your input, as for practice: keys, midi, midi:NAME, jack:PORT, audio, audio:SOURCE, or a MIDI device path (`etude devices` lists them).")
    var input: InputSpec?
    @Option(help: ArgumentHelp("on: Etude sounds what you play; off: your instrument does.", valueName: "on|off")) var echo: EchoChoice.Setting?
    @Option(help: ArgumentHelp("Where the lesson sounds: synth, instrument (through etude:midi_out) or both.", valueName: "synth|instrument|both")) var sound: LessonSound?
    @Option(name: .customLong("midi-out"), help: ArgumentHelp("The JACK MIDI port (or ALSA sequencer port) etude:midi_out is connected to.", valueName: "PORT")) var midiOut: String?
    @Option(help: ArgumentHelp("The MIDI channel your keyboard's key lights listen on.", valueName: "1-16")) var lights: KeyLights.Channel?
    @Option(help: ArgumentHelp("Commands from the instrument: off, on, or NAME=KEY,…", valueName: "on|off|LIST")) var gestures: Gestures.Setting?
    @Flag(help: "Only print the instrument set up.") var show = false
    @Flag(help: "Forget the instrument: back to the computer keyboard.") var forget = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        let library = store.library
        var choice = MyInstrument.Choice(input: input?.description, echo: echo?.on, sound: sound, midiOut: midiOut, lights: lights.map { $0.index + 1 },
                                         gestures: gestures?.text)
        if forget {
            guard choice.isEmpty, !show else { throw EtudeFailure("--forget with other options: forget alone, then set up again") }
            Console.out(try MyInstrument.forget(library: library).map { $0 + "\n" }.joined())
            return
        }
        let onTerminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if show || (choice.isEmpty && !onTerminal) {
            guard choice.isEmpty else { throw EtudeFailure("--show with other options: show alone, or set up without --show") }
            Console.out(try MyInstrument.show(library: library).map { $0 + "\n" }.joined())
            return
        }
        if choice.isEmpty {
            guard let asked = MyInstrument.interview(list: DeviceList.scan(), current: MyInstrument.stored(library)) else {
                Console.out(try MyInstrument.show(library: library).map { $0 + "\n" }.joined())
                return
            }
            choice = asked
        }
        Console.out(try MyInstrument.save(choice, library: library).map { $0 + "\n" }.joined())
    }
}
