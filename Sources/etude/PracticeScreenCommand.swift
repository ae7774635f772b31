import ArgumentParser
import Foundation
import Trainer
import Judge
import Lesson
import Practice
import Screen

/// `etude practice`: the practice screen (watch mode) — falling notes, the keyboard, every
/// control one key away, the lesson heard through the live synth.
struct PracticeScreenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "practice",
        abstract: "Practise a lesson on the full-screen keyboard with falling notes.",
        discussion: """
        Keys: space play/pause, ←/→ bar, Home restart, [ ] loop start/end, l loop on/off, s save the loop,
        + - tempo ±5 %, h hand, o other hand, m metronome, n note names, M mode, W loop the weakest
        section at 70 %, r save the last pass as .mid, ? help, q/Esc quit.
        Playing modes (--mode wait|play|memory): play on a MIDI keyboard (--input midi) or the computer
        keyboard (--input keys: a w s e d f t g y h u j k = C…C, z x octave down/up; these letters then
        play notes instead of their usual keys). Each pass is scored and a results panel shows it.
        Passes go to the history and the place you stop to `etude resume`.
        Without an audio device Etude warns once and practice goes on silently.

        Examples:
          etude practice Lessons/level4/ode-to-joy.mid --hand right --tempo 70%
          etude practice song.abc --bars 5-8 --speed-trainer 60:100:10 --metronome --count-in
          etude practice song.mid --hand right --mode wait --input midi
          etude practice song.mid --mode play --input /tmp/notes.fifo --report passes.jsonl
        """
    )

    @Argument(help: "The lesson: a .mid or .abc file, or a title or id from `etude list`.") var lesson: String
    @OptionGroup var practice: PracticeOptions
    @Option(help: "Bars A-B to loop (e.g. 5-8).") var bars: String?
    @Flag(name: .customLong("count-in"), help: "One bar of clicks before the first pass.") var countIn = false
    @Option(help: "SoundFont (.sf2/.sf3) to use instead of the one found automatically.") var soundfont: String?
    @Option(help: "Force one audio driver (pipewire, pulseaudio, alsa, jack, sdl2, oss).") var audioDriver: String?
    @Option(name: .customLong("note-names"), help: "Note naming: scientific (middle C = C4) or yamaha (C3).") var noteNames: String = "scientific"
    @Flag(help: "Show finger numbers on the falling notes (lessons with fingering).") var fingers = false
    @Flag(help: "Show the audio driver chosen and FluidSynth's own log.") var verbose = false
    @Option(help: "watch (listen and look), wait (the lesson waits for each chord), play (real time, scored) or memory (play with the notes hidden).")
    var mode: String = "watch"
    @OptionGroup var playingOptions: PlayingOptions
    @Option(help: "Append each finished pass as one JSON line to this file (hit, missed, wrong, extra, accuracy, timing, score, sections).")
    var report: String?
    @Option(name: .customLong("save-dir"), help: "Folder for passes saved with r (default: the current folder).")
    var saveDir: String?
    @OptionGroup var store: StoreOptions

    func run() throws {
        let display = try Self.display(noteNames: noteNames, fingers: fingers)
        let playing = try playingOptions.playing(mode: mode, report: report, saveDir: saveDir)
        let path = try store.library.lessonPath(lesson)
        if let report { try OutputFile.check(report, inputs: [path] + store.library.databaseFiles, option: "--report") }
        let opened = try LessonOpener.open(path, split: practice.splitPitch())
        var plan: PracticePlan
        do {
            plan = try practice.plan(bars: bars, defaultOther: .play, defaultRepeat: .forever)
            plan.countIn = countIn
            try plan.validate(for: opened.lesson)
        } catch {
            throw EtudeFailure(error.cliMessage)
        }
        let history = StoreHistory.open(store.library, path: path)
        let status = try PracticeScreenRunner.run(opened, plan: plan, sound: LiveSound(soundfont: soundfont, audioDriver: audioDriver, verbose: verbose),
                                                  display: display, history: history, playing: playing)
        if status != 0 { throw ExitCode(status) }
    }

    static func display(noteNames: String, fingers: Bool) throws -> PracticeView.Options {
        var display = PracticeView.Options()
        switch noteNames.lowercased() {
        case "scientific", "c4": display.noteNaming = .scientific
        case "yamaha", "c3": display.noteNaming = .yamaha
        default: throw EtudeFailure("--note-names \(noteNames): use scientific (middle C = C4) or yamaha (middle C = C3)")
        }
        display.showFingers = fingers
        return display
    }
}
