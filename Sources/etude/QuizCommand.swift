import ArgumentParser
import Clocks
import Foundation
import FrontEnd
import Judge
import MIDIFile
import MIDIInput
import Practice
import Reports
import Store
import Synth

extension QuizKind: ExpressibleByArgument {}

struct QuizCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quiz",
        abstract: "Test yourself: play the note, interval or chord Etude asks for.",
        discussion: """
        notes: Etude names a note, play it. intervals: Etude plays and names an interval, play both notes. chords: Etude plays and names a chord, play its notes (any octave, any voicing). A wrong answer is shown with the right one; the percentage at the end is kept in the practice history (etude stats). q or Esc stops early.

        Examples:
          etude quiz notes --questions 5 --input keys
          etude quiz intervals --questions 5 --range C3-C5 --input midi
        """
    )

    @Argument(help: "notes, intervals or chords.") var kind: QuizKind
    @Option(help: "How many questions.") var questions: Int = 10
    @Option(help: "Pitch range of the questions, e.g. C3-C6.") var range = PitchRange(lower: 48, upper: 84)
    @Option(help: "Where notes come from: keys, midi, midi:NAME, midi:CLIENT:PORT, jack (etude:midi_in), jack:PORT, audio, audio:SOURCE (PulseAudio), audio:jack (etude:mic) or audio:alsa:DEVICE (an acoustic piano through a microphone; headphones recommended; `etude calibrate --input audio` sets it up), or a MIDI device or FIFO path.") var input: InputSpec = .alsa(.firstKeyboard)
    @Option(help: "Seed for the questions (the same seed asks the same questions).") var seed: UInt64?
    @OptionGroup var synth: SynthOptions
    @OptionGroup var instrument: InstrumentOptions
    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard (1...500).contains(questions) else { throw ValidationError("--questions must be 1…500") }
    }

    func run() throws {
        let quiz: Quiz
        do {
            quiz = try Quiz(kind: kind, count: questions, range: range, seed: seed ?? UInt64.random(in: 0...UInt64.max))
        } catch {
            throw EtudeFailure(error.message)
        }
        var runner = QuizRunner(quiz: quiz, input: input, library: store.library)
        runner.sound = try instrument.applied(to: synth.sound)
        runner.sound.library = store.library  // the audio buffer learned per device
        let status = try runner.run()
        if status != 0 { throw ExitCode(status) }
    }
}
