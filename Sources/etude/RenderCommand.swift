import App
import ArgumentParser
import Lesson
import LessonLibrary
import Reports
import Synth

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a lesson to a WAV through FluidSynth, with no sound card.",
        discussion: """
        Every event lands on its own sample (FluidSynth applies it at its next 64-sample block).

        The WAV is written through a temporary file renamed into place (a failure leaves no
        partial file); past 4 GiB it is an RF64 file. A lesson longer than --max-minutes is
        refused before anything is rendered.

        Examples:
          etude render "Ode to Joy" -o ode.wav
          etude render song.mid -o song.wav --rate 48000 --format float

        With --recording, the passage (--bars) of a recording of the lesson is written instead, as practice plays it: found by its aligned bars (etude align), slowed or sped up by --tempo (50–150 %) without a change of pitch (Rubber Band), looped once, with 10 ms crossfades:
          etude render song.abc --recording take.flac --bars 5-8 --tempo 70% -o slow.wav
        """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var file: String
    @Option(name: .shortAndLong, help: "The WAV file to write.") var output: String
    @Option(help: "SoundFont (.sf2/.sf3) to use instead of the one found automatically.") var soundfont: String?
    @Option(help: "Sample rate: 44100 or 48000.") var rate: Int = 44_100
    @Option(help: "Sample format: s16 or float.") var format: WAVSampleFormat = .s16
    @Option(help: "Transpose: semitones (e.g. +2) or a key (D, Bb, F#m).") var transpose: Transposition.Request?
    @Option(help: "Seconds rendered after the end of the file (default: until the sound has decayed).") var tail: Double?
    @Option(name: .customLong("max-minutes"), help: "Refuse lessons longer than this many minutes (at most 1440).")
    var maxMinutes: Double = WAVRender.defaultMaxMinutes
    @Flag(help: "Render without reverb (like fluidsynth -R 0).") var noReverb = false
    @Flag(help: "Render without chorus (like fluidsynth -C 0).") var noChorus = false
    @Flag(help: "Show FluidSynth's own log (with --recording: the Rubber Band engine used).") var verbose = false
    @Option(help: "A recording of the lesson (WAV, FLAC, Ogg, Opus, MP3): write its passage, stretched and looped once, instead of a render.",
            completion: .file(extensions: ["wav", "flac", "ogg", "opus", "mp3"])) var recording: String?
    @Option(help: "With --recording: only these bars, e.g. 9-12 (a score's printed bars, 12-16@2 the second time).") var bars: BarsArgument?
    @Option(help: "With --recording: its speed, 50% to 150%, without a change of pitch.") var tempo: TempoPercent?
    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard rate == 44_100 || rate == 48_000 else {
            throw ValidationError("--rate must be 44100 or 48000 (got \(rate))")
        }
        if recording == nil, bars != nil || tempo != nil {
            throw ValidationError("--bars and --tempo choose a passage of a recording: give --recording FILE too")
        }
        if let tail, !(tail >= 0 && tail <= 600) {
            throw ValidationError("--tail must be between 0 and 600 seconds")
        }
    }

    func run() throws {
        if let recording {
            var render = RecordingRender(job: RecordingAlign.Job(lesson: try store.library.lessonPath(file), recording: recording), output: output)
            render.job.soundfont = soundfont
            render.bars = bars
            render.tempo = tempo ?? .full
            render.verbose = verbose
            render.protected = store.library.databaseFiles
            Console.out(try render.run(library: store.library))
            return
        }
        var job = WAVRender(input: try store.library.lessonPath(file), output: output)
        job.soundfont = soundfont
        job.options.sampleRate = rate
        job.options.format = format
        job.options.tail = tail
        job.options.reverb = !noReverb
        job.options.chorus = !noChorus
        job.maxMinutes = maxMinutes
        job.verbose = verbose
        job.transpose = transpose
        job.protected = store.library.databaseFiles
        Console.out(try job.run())
    }
}
