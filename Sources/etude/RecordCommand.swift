import ArgumentParser
import Clocks
import Foundation
import FrontEnd
import Judge
import Lesson
import MIDIFile
import MIDIInput
import Practice
import Reports
import Synth

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record what you play to a .mid file, hearing it through the synth.",
        discussion: """
        Records until q (or Esc, Ctrl-C), until the input ends (a FIFO closed by its writer, a device gone), or after --bars N bars at --bpm. Without a MIDI keyboard the computer keyboard plays (a w s e d f t g y h u j k …, z/x octave down/up). Nothing is written when nothing was played, and never over an input.

        Examples:
          etude record -o mine.mid --input midi --metronome --bpm 90 --bars 8
        """
    )

    @Option(name: [.short, .customLong("output")], help: "The .mid file to write.") var output: String
    @Option(help: "Where notes come from: keys, midi, midi:NAME, midi:CLIENT:PORT, jack (etude:midi_in), jack:PORT, audio, audio:SOURCE (PulseAudio), audio:jack (etude:mic) or audio:alsa:DEVICE (an acoustic piano through a microphone; headphones recommended; `etude calibrate --input audio` sets it up), or a MIDI device or FIFO path.") var input: InputSpec = .alsa(.firstKeyboard)
    @Flag(help: "Click the beat while recording.") var metronome = false
    @Option(help: "Tempo of the metronome and of the file written.") var bpm: Double = 120
    @Option(help: "Stop after this many 4/4 bars at --bpm.") var bars: Int?
    @OptionGroup var synth: SynthOptions
    @OptionGroup var instrument: InstrumentOptions
    @Option(help: "General MIDI program you hear while playing (0 = piano).") var program: Int = 0
    @Option(help: ArgumentHelp("Your input offset in ms instead of the one `etude calibrate` stored: the notes are written where you meant them.", valueName: "ms"))
    var offset: InputOffsetMilliseconds?
    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard (20...400).contains(bpm) else { throw ValidationError("--bpm must be 20…400") }
        if let bars, !(1...10_000).contains(bars) { throw ValidationError("--bars must be 1…10000") }
        guard (0...127).contains(program) else { throw ValidationError("--program must be 0…127") }
        guard !output.isEmpty else { throw ValidationError("-o needs a file name, e.g. -o mine.mid") }
    }

    func run() throws {
        var recorder = Recorder(output: output, input: input)
        recorder.metronome = metronome
        recorder.bpm = bpm
        recorder.bars = bars
        recorder.program = program
        recorder.sound = try instrument.applied(to: synth.sound)
        recorder.sound.library = store.library  // the audio buffer learned per device
        recorder.offsetMs = offset?.milliseconds
        recorder.library = store.library
        let status = try recorder.run()
        if status != 0 { throw ExitCode(status) }
    }
}
