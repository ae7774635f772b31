import App
import ArgumentParser
import Clocks
import Devices
import Dispatch
import Foundation
import FrontEnd
import Lesson
import LessonLibrary
import MIDIFile
import Reports
import Synth

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a lesson live through FluidSynth.",
        discussion: """
        On a terminal the practice screen shows the falling notes (its keys: ? for help); --no-screen keeps one status line (keys: space pause/resume, ←/→ seek 5 s, q quit). Without a terminal on stdin the file plays to the end. Without any audio device Etude warns once and continues silently.

        Examples:
          etude play "Ode to Joy"
          etude play song.mid --no-screen --audio-driver alsa
        """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var file: String
    @OptionGroup var synth: SynthOptions
    @OptionGroup var instrument: InstrumentOptions
    @Option(help: "Frames per audio period (default: as many as --audio-buffer asks for).") var periodSize: Int?
    @Option(help: "Number of audio periods (default 3).") var periods: Int?
    @Option(help: "Output sample rate in Hz (default: the sound server's own rate, else 48000).") var rate: Int?
    @OptionGroup var audioBuffer: AudioBufferOption
    @Option(help: "Transpose: semitones (e.g. +2) or a key (D, Bb, F#m); remembered for the lesson, 0 as written.") var transpose: Transposition.Request?
    @Flag(name: .customLong("no-screen"), help: "The one-line status instead of the practice screen (automatic when not on a terminal).") var noScreen = false
    @Option(help: ArgumentHelp("Play a recording of the lesson instead of the synth's, the score moving with it (on the practice screen; its bars from `etude align`, found first if none are kept).", valueName: "file"))
    var recording: String?
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let periodSize, !(16...8192).contains(periodSize) { throw ValidationError("--period-size must be 16…8192") }
        if let periods, !(2...64).contains(periods) { throw ValidationError("--periods must be 2…64") }
        if let rate, !(8000...192_000).contains(rate) { throw ValidationError("--rate must be 8000…192000") }
    }

    func run() throws {
        var live = synth.sound
        live.periodSize = periodSize
        live.periods = periods
        live.rate = rate
        var sound = try instrument.applied(to: audioBuffer.applied(to: live))
        sound.library = store.library  // the audio buffer learned per device
        if let recording {
            _ = try RecordingAlign.openRecording(recording)  // a file that cannot be played: one line first
            if noScreen || isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1 {
                throw EtudeFailure("--recording plays on the practice screen: run it in a terminal, without --no-screen")
            }
        }
        if !noScreen && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 {
            let opened = try LessonFit.open(try store.library.lessonPath(file), transpose: transpose, library: store.library)
            var playing = Playing()
            playing.recording = recording
            if recording != nil { playing.library = store.library }  // where the alignment is kept
            let status = try PracticeScreenRunner.run(opened, plan: PracticePlan(), sound: sound, display: PracticeView.Options(),
                                                      history: nil, endWhenFinished: true, playing: playing)
            if status != 0 { throw ExitCode(status) }
            return
        }
        let status = try FilePlayer.play(path: try store.library.lessonPath(file), sound: sound, transpose: transpose, library: store.library)
        if status != 0 { throw ExitCode(status) }
    }
}
