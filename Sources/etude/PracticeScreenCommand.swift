import App
import ArgumentParser
import Devices
import Foundation
import FrontEnd
import Judge
import Lesson
import LessonLibrary
import Practice
import Reports
import Screen

/// `etude practice`: the practice screen (watch mode) — falling notes, the keyboard, every
/// control one key away, the lesson heard through the live synth.
struct PracticeScreenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "practice",
        abstract: "Practise a lesson on the full-screen keyboard with falling notes.",
        discussion: """
        Keys: space play/pause, ←/→ bar, g N Enter go to bar N, Home restart, [ ] loop start/end, l loop on/off, s save the loop, L next saved loop, + - tempo ±5 %, h hand, o other hand, m metronome, n note names, v view (falling notes / staff / both), M mode, F follow your tempo (play and memory mode), W loop the weakest section (from 70 % or your --speed-trainer start), r save the last pass as .mid, Enter on the results review the pass bar by bar (→/n ←/p step, Home first mistake, Esc back; marks ✓ right ‹ early › late × wrong ◌ missed x after a wrong key . short = long f loud p soft), ? help (any key closes it), q/Esc quit.

        Playing modes (--mode wait|play|memory): play on a MIDI keyboard (--input midi) or the computer keyboard (--input keys: a w s e d f t g y h u j k = C…C, z x octave down/up; these letters then play notes, and every command is also on Alt+its letter, and F1 help, F2 hand, F3 other hand, F4 save loop, F5 next saved loop, F6 mode, F7 metronome, F8 note names, F9 weakest section, F10 go to bar, F11 follow, F12 guide). In wait, play and memory modes Etude never sounds the part you play, nor sends it to your instrument or the key lights' channel: --guide on (G on the screen) plays it quietly on Etude's synth, remembered per lesson. Play and memory count in before each pass; after each pass its results hold the music until any key. Passes go to the history and the place you stop to `etude resume`. Watch mode plays the piece once unless a loop is on. Grace notes, ornaments (trill, shake, mordent, turn, tremolo) and arpeggiated chords are played by the lesson as a pianist would, heard in watch mode (a rolled chord is judged as a chord); in wait, play and memory modes the main note is judged, a grace note or an ornament's other notes accepted but not required. Without an audio device Etude says so in the header and practice goes on silently.

        Examples:
          etude practice "Ode to Joy" --hand right --tempo 70%
          etude practice song.abc --bars 5-8 --speed-trainer 60:100:10 --metronome
          etude practice song.mid --hand right --mode wait --input midi
          etude practice song.mid --mode play --input notes.fifo --report p.jsonl
          etude practice song.mid --transpose D --keys 61 --mode wait --input midi
          etude practice "Ode to Joy" --hand right --mode play --follow --input midi
          etude practice song.abc --recording take.flac --bars 5-8 --tempo 70%
        """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
    @OptionGroup var practice: PracticeOptions
    @Option(help: "Bars A-B to loop (e.g. 5-8).") var bars: BarsArgument?
    @Flag(name: .customLong("count-in"), inversion: .prefixedNo,
          help: "A bar of clicks before each pass (default: on in play and memory modes, off in watch and wait).")
    var countIn: Bool?
    @OptionGroup var synth: SynthOptions
    @OptionGroup var instrument: InstrumentOptions
    @Option(name: .customLong("note-names"), help: "Note naming: scientific (middle C = C4) or yamaha (C3).") var noteNames: NoteNaming = .scientific
    @Flag(help: "Show finger numbers on the falling notes (lessons with fingering).") var fingers = false
    @Option(help: "watch (listen and look), wait (the lesson waits for each chord), play (real time, scored) or memory (play with the notes hidden).")
    var mode: PracticeMode = .watch
    @Flag(inversion: .prefixedNo,
          help: "Play and memory mode: Etude's part keeps your tempo, waits when you stop and comes back in with you (remembered per lesson).")
    var follow: Bool?
    @OptionGroup var playingOptions: PlayingOptions
    @OptionGroup var audioBuffer: AudioBufferOption
    @Option(help: "Append each finished pass as one JSON line to this file (hit, missed, wrong, extra, accuracy, timing, score, sections).")
    var report: String?
    @Option(name: .customLong("save-dir"), help: "Folder for passes saved with r (default: the current folder).")
    var saveDir: String?
    @Option(help: ArgumentHelp("Practise with a recording of the lesson (WAV, FLAC, Ogg, Opus, MP3): it is heard instead of the synth's lesson, the score moves with it (its bars from `etude align`, found first if none are kept), --tempo 50–150% stretches it without a change of pitch.", valueName: "file"))
    var recording: String?
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if recording != nil && follow == true {
            throw ValidationError("--follow with --recording: the recording sets the time, it cannot follow yours; leave one out")
        }
    }

    func run() throws {
        let display = Self.display(noteNames: noteNames, fingers: fingers)
        var playing = try playingOptions.playing(mode: mode, report: report, saveDir: saveDir)
        playing.countIn = countIn ?? true
        playing.recording = recording
        if let recording { _ = try RecordingAlign.openRecording(recording) }  // a file that cannot be played: one line before anything opens
        playing.watchStopsAtEnd = practice.repeat == nil
        let library = store.library
        playing.library = library
        var sound = try instrument.applied(to: audioBuffer.applied(to: synth.sound))
        let path = try library.lessonPath(lesson)
        // Never the lesson, the SoundFont (named or found), the input or the database: refused
        // before anything opens the database (the instrument set up is read from it).
        func checkReport() throws {
            guard let report else { return }
            playing.reportInputs = [path] + (playing.input.filePath.map { [$0] } ?? []) + [synth.soundfont ?? (try? LiveSound.soundFont(nil))].compactMap { $0 }
            try OutputFile.check(report, inputs: playing.reportInputs + library.databaseFiles, option: "--report")
        }
        try checkReport()
        MyInstrument.use(sound: &sound, playing: &playing, library: library)
        try checkReport()  // the instrument set up may be a device or FIFO path
        let (practice, bars, countIn, mode) = (practice, bars, countIn, playing.mode)
        var request = PracticeSetup.Request(path: path, split: practice.splitPitch(), key: .asked(practice.transpose),
                                            keyboard: .init(keys: playingOptions.keys, range: playingOptions.range, fit: playingOptions.fit,
                                                            input: playing.input),
                                            library: library) { lesson throws(PlanError) in
            var plan = try practice.plan(bars: bars, lesson: lesson, defaultOther: .play, defaultRepeat: .forever)
            plan.countIn = countIn ?? mode.countsIn
            return plan
        }
        request.words = { $0.cliMessage }
        let setup = try PracticeSetup.make(request)
        for line in setup.notices { Console.error("etude: \(line)") }
        playing.follow = try Following.resolve(follow, mode: playing.mode, plan: setup.plan, lesson: setup.opened.lesson, path: path, library: library)
        let status = try PracticeScreenRunner.run(setup, sound: sound, display: display, playing: playing)
        if status != 0 { throw ExitCode(status) }
    }

    static func display(noteNames: NoteNaming, fingers: Bool) -> PracticeView.Options {
        var display = PracticeView.Options()
        display.noteNaming = noteNames
        display.showFingers = fingers
        return display
    }
}
