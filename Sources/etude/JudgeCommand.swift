import App
import ArgumentParser
import Lesson
import LessonLibrary

/// `etude judge LESSON PERFORMANCE.mid`: a recording judged as play mode judges a pass (`PerformanceJudge`).
struct JudgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "judge",
        abstract: "Judge a recorded performance (.mid, or a recording of an acoustic piano) against a lesson: onsets, releases, loudness, bar by bar.",
        discussion: """
        The performance is aligned to the score by the follower (a stray key before the start, a missed first note, a wrong key or a restart moves nothing else); every note is then judged as play mode judges it (hit, early, late, missed, wrong; held short or long, pedal-aware; loud or soft against the dynamics, relative to your own playing), and the pass is stored in the history. Record with `etude record -o mine.mid`; a lesson's own .mid is a perfect performance. A recording of an acoustic piano (WAV, FLAC, Ogg, Opus or MP3) is heard as `--input audio` hears it (onsets only: no releases or loudness from sound); a recording that is clipped, too quiet, too noisy, below 22 kHz or cut short is said so in one line before the verdicts, and judged anyway; `--calibration SOURCE` listens to it with the set-up `etude calibrate --input audio:SOURCE` stored for the microphone it was recorded through.

        Examples:
          etude judge song.abc song.mid --bars 1-8
          etude judge "Ode to Joy" Lessons/level4/ode-to-joy.mid --json
          etude judge song.abc song.mid --keys 61
          etude judge song.abc take.wav
        """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
    @Argument(help: "The recorded performance: a .mid file, or a recording of an acoustic piano (.wav, .flac, .ogg, .opus, .mp3).", completion: .file(extensions: ["mid", "midi", "wav", "flac", "ogg", "opus", "mp3"])) var performance: String
    @Option(help: "Hand(s) played: left, right or both.", completion: .list(["right", "left", "both"])) var hand: PracticePlan.Hands = .both
    @Option(help: "Only these bars, e.g. 5-8 (a score's printed bars, 12-16@2 the second time).") var bars: BarsArgument?
    @Option(help: "The tempo it was played at, as a percent of the lesson's own (e.g. 80%).") var tempo: TempoPercent?
    @Option(help: "Transpose the lesson first: semitones (e.g. +2) or a key (D, Bb, F#m), as it was played.") var transpose: Transposition.Request?
    @Option(help: "The keys of the keyboard it was played on: 88, 76, 73, 61, 49, 37 or 25 (notes off it are not expected).") var keys: KeyboardKeysArgument?
    @Option(help: "The keyboard's range LOW-HIGH instead of --keys (e.g. C2-C7).") var range: KeyboardRangeArgument?
    @Option(help: "For a recording: listen with the microphone set-up `etude calibrate --input audio:SOURCE` stored for SOURCE.") var calibration: String?
    @Flag(help: "Print the pass report as one JSON object (every note with its verdicts).") var json = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        try PerformanceJudge.run(lesson: try store.library.lessonPath(lesson), performance: performance, hand: hand, bars: bars,
                                 tempo: tempo, fit: (transpose, keys, range), calibration: calibration, json: json, library: store.library)
    }
}
