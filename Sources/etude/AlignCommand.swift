import App
import ArgumentParser
import FrontEnd
import LessonLibrary
import MIDIInput

/// `etude align LESSON RECORDING`: where each bar of the lesson falls in a recording of it (`RecordingAlign`).
struct AlignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "align",
        abstract: "Find where each bar (and beat) of a lesson falls in a recording of it (WAV, FLAC, Ogg, Opus, MP3).",
        discussion: """
        The lesson is rendered by FluidSynth and compared with the recording by its harmony and its note onsets (chroma features, multiscale dynamic time warping), trying the score's repeats played and skipped. Each bar's start is printed with a confidence (0–1). The alignment is kept in the library by the recording's content, so the next time (or after the file is renamed) it is read back at once; --again aligns anew.

        When the alignment is unsure (another version, very free playing), tap the beats instead: --tap plays the recording and takes each space (or MIDI key) as the next beat.

        Examples:
          etude align song.abc take.flac
          etude align song.mid take.mp3 --json
          etude render song.abc --recording take.mp3 --bars 5-8 --tempo 70% -o slow.wav
        """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
    @Argument(help: "The recording: a WAV, FLAC, Ogg/Vorbis, Opus or MP3 file of the lesson played (up to 60 minutes).",
              completion: .file(extensions: ["wav", "flac", "ogg", "opus", "mp3"])) var recording: String
    @Flag(help: "Print the bars as one JSON object: {\"bars\": [{\"bar\": \"9\", \"pass\": 1, \"start\": 12.345, \"confidence\": 0.93, …}]}.") var json = false
    @Flag(help: "Align anew even when the library has this recording's bars.") var again = false
    @Option(help: "SoundFont (.sf2/.sf3) the lesson is rendered with for the comparison.") var soundfont: String?
    @Flag(help: "Play the recording and tap each beat (space, or any key of --input): the taps are the alignment.") var tap = false
    @Option(help: "With --tap: tap on this MIDI input instead of space (midi, midi:NAME, CLIENT:PORT, or a device or FIFO path).") var input: InputSpec?
    @Option(help: "With --tap: the input's offset in ms instead of the calibrated one.") var offset: Double?
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if !tap, input != nil || offset != nil { throw ValidationError("--input and --offset are for tapping: add --tap") }
    }

    func run() throws {
        var job = RecordingAlign.Job(lesson: try store.library.lessonPath(lesson), recording: recording)
        job.again = again
        job.soundfont = soundfont
        guard tap else { return try RecordingAlign.run(job, json: json, library: store.library) }
        var tapping = TapAlign(job: job)
        tapping.input = input ?? .computerKeyboard
        tapping.offsetMs = offset
        let status = try tapping.run(json: json, library: store.library)
        if status != 0 { throw ExitCode(status) }
    }
}
