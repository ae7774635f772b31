import ArgumentParser
import Devices
import FrontEnd
import MIDIInput
import Reports

/// `etude calibrate`: the learner's timing offset on one input, measured and stored.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measure your timing offset on an input once, so play mode judges you fairly.",
        discussion: """
        A click sounds on every beat (100 BPM); play any key exactly with each one. The first 4 beats count
        you in; after the last, Etude pairs each key with the nearest click (within half a beat) and stores
        the median offset for this input (the computer keyboard, a MIDI port, a device or FIFO path).
        Practice, routines and record then take it off every note you play. Taps too uneven to trust are
        refused and nothing is stored. On a terminal a full screen shows the beat; without one, a line per
        beat (`beat 3/16`) and the result as the last line (`offset 31 ms, spread 4 ms`).
        With --input audio[:SOURCE] a microphone is set up instead, once per piano and room: stay quiet
        for 3 seconds (the room's noise), then strike each key named (C2 to C6) once; the noise, the
        level, each key's partials and the detection latency are stored for that source and used
        whenever you practise with it.
        Examples:
          etude calibrate
          etude calibrate --input midi --beats 24
          etude calibrate --show
          etude calibrate --reset --input midi
        """
    )

    @Option(help: "The input to calibrate: keys (computer keyboard), midi, midi:NAME, midi:CLIENT:PORT, jack, jack:PORT, a device/FIFO/file path, or audio[:SOURCE], audio:jack, audio:alsa:DEVICE (set a microphone up).")
    var input: InputSpec = .computerKeyboard
    @Option(help: "Beats to click, the 4 count-in beats included (8–64).") var beats: Int = 16
    @Flag(help: "Print the stored offsets and stop.") var show = false
    @Flag(help: "Forget the stored offset of INPUT (or of --input).") var reset = false
    @Argument(help: "With --reset: the input whose offset to forget, as --show prints it or as --input names it.") var target: String?
    @OptionGroup var synth: SynthOptions
    @OptionGroup var instrument: InstrumentOptions
    @OptionGroup var audioBuffer: AudioBufferOption
    @OptionGroup var store: StoreOptions

    func run() throws {
        if target != nil && !reset { throw EtudeFailure("\(safe(target ?? "")): an input is named here only with --reset; calibrate one with --input") }
        if show { return Console.out(try StoredOffsets.show(library: store.library)) }
        if reset { return Console.out(try StoredOffsets.reset(target, input: input, library: store.library)) }
        var calibrator = Calibrator(input: input, library: store.library)
        calibrator.beats = beats
        calibrator.sound = try instrument.applied(to: audioBuffer.applied(to: synth.sound))
        calibrator.sound.library = store.library  // the audio buffer learned per device
        let status = try calibrator.run()
        if status != 0 { throw ExitCode(status) }
    }
}
