import Clocks
import ArgumentParser
import Foundation
import Trainer
import MIDIFile
import Synth

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a lesson to a WAV through FluidSynth, with no sound card.",
        discussion: """
        Every event lands on its own sample (FluidSynth applies it at its next 64-sample block).

        Examples:
          etude render "Ode to Joy" -o ode.wav
          etude render song.mid -o song.wav --rate 48000 --format float
        """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var file: String
    @Option(name: .shortAndLong, help: "The WAV file to write.") var output: String
    @Option(help: "SoundFont (.sf2/.sf3) to use instead of the one found automatically.") var soundfont: String?
    @Option(help: "Sample rate: 44100 or 48000.") var rate: Int = 44_100
    @Option(help: "Sample format: s16 or float.") var format: String = "s16"
    @Option(help: "Seconds rendered after the end of the file (default: until the sound has decayed).") var tail: Double?
    @Flag(help: "Render without reverb (like fluidsynth -R 0).") var noReverb = false
    @Flag(help: "Render without chorus (like fluidsynth -C 0).") var noChorus = false
    @Flag(help: "Show FluidSynth's own log.") var verbose = false
    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard rate == 44_100 || rate == 48_000 else {
            throw ValidationError("--rate must be 44100 or 48000 (got \(rate))")
        }
        guard WAVSampleFormat(rawValue: format) != nil else {
            throw ValidationError("--format must be s16 or float (got \(format))")
        }
        if let tail, !(tail >= 0 && tail <= 600) {
            throw ValidationError("--tail must be between 0 and 600 seconds")
        }
    }

    func run() throws {
        let midi = try LessonOpener.read(try store.library.lessonPath(file))
        let font = try LiveSound.soundFont(soundfont)
        var options = OfflineRenderer.Options()
        options.sampleRate = rate
        options.format = WAVSampleFormat(rawValue: format) ?? .s16
        options.tail = tail
        options.reverb = !noReverb
        options.chorus = !noChorus
        defer { LiveSound.flushLog(verbose: verbose) }
        let started = MonotonicClock.seconds()
        let renderer: OfflineRenderer
        do {
            renderer = try OfflineRenderer(soundFont: font, options: options, onSlowLoad: LiveSound.slowLoadReporter(font))
            LiveSound.endProgressLine()
        } catch {
            LiveSound.endProgressLine()
            throw EtudeFailure("\(error.message); \(SoundFontLocator.installHint)")
        }
        let schedule = MessageSchedule(file: midi.file)
        let tty = isatty(STDERR_FILENO) != 0
        let bar: ((Double) -> Void)? = tty ? { p in
            let width = 30
            let filled = Int((p * Double(width)).rounded(.down))
            Console.errorPart("\rrendering [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: width - filled))] \(Int(p * 100))%")
        } : nil
        let result: OfflineRenderer.Result
        do {
            result = try renderer.render(schedule, to: output, progress: bar)
        } catch {
            if tty { Console.errorPart("\r\u{1B}[K") }
            throw EtudeFailure(error.message)
        }
        if tty { Console.errorPart("\r\u{1B}[K") }
        let took = MonotonicClock.seconds() - started
        Console.out("wrote \(safe(output)): \(String(format: "%.3f", result.seconds)) s, \(result.frames) frames, \(rate) Hz, \(options.format.rawValue) stereo (\(String(format: "%.1f", took)) s, \(String(format: "%.0f", result.seconds / max(took, 1e-6)))× real time)\n")
    }
}
