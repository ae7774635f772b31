import ArgumentParser
import Foundation
import Lesson
import Screen

/// `etude practice`: the practice screen (watch mode) — falling notes, the keyboard, every
/// control one key away, the lesson heard through the live synth.
struct PracticeScreenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "practice",
        abstract: "Practise a lesson on the full-screen keyboard with falling notes.",
        discussion: """
        Keys: space play/pause, ←/→ bar, Home restart, [ ] loop start/end, l loop on/off, s save the loop,
        + - tempo ±5 %, h hand, o other hand, m metronome, n note names, ? help, q/Esc quit.
        Passes go to the history and the place you stop to `etude resume`.
        Without an audio device Etude warns once and practice goes on silently.

        Examples:
          etude practice Lessons/level4/ode-to-joy.mid --hand right --tempo 70%
          etude practice song.abc --bars 5-8 --speed-trainer 60:100:10 --metronome --count-in
        """
    )

    @Argument(help: "The lesson (.mid or .abc).") var lesson: String
    @OptionGroup var practice: PracticeOptions
    @Option(help: "Bars A-B to loop (e.g. 5-8).") var bars: String?
    @Flag(name: .customLong("count-in"), help: "One bar of clicks before the first pass.") var countIn = false
    @Option(help: "SoundFont (.sf2/.sf3) to use instead of the one found automatically.") var soundfont: String?
    @Option(help: "Force one audio driver (pipewire, pulseaudio, alsa, jack, sdl2, oss).") var audioDriver: String?
    @Option(name: .customLong("note-names"), help: "Note naming: scientific (middle C = C4) or yamaha (C3).") var noteNames: String = "scientific"
    @Flag(help: "Show finger numbers on the falling notes (lessons with fingering).") var fingers = false
    @Flag(help: "Show the audio driver chosen and FluidSynth's own log.") var verbose = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        let display = try Self.display(noteNames: noteNames, fingers: fingers)
        let loaded = try LoadedLesson.load(lesson, split: practice.splitPitch())
        var plan: PracticePlan
        do {
            plan = try practice.plan(bars: bars, defaultOther: .play, defaultRepeat: .forever)
            plan.countIn = countIn
            try plan.validate(for: loaded.lesson)
        } catch {
            throw EtudeFailure(error.message)
        }
        let history = PracticeHistory(options: store, path: lesson)
        let status = try PracticeScreenRun.run(loaded, plan: plan, sound: LiveSoundOptions(soundfont: soundfont, audioDriver: audioDriver, verbose: verbose),
                                               display: display, history: history)
        if status != 0 { throw ExitCode(status) }
    }

    static func display(noteNames: String, fingers: Bool) throws -> PracticeScreenRun.Display {
        var display = PracticeScreenRun.Display()
        switch noteNames.lowercased() {
        case "scientific", "c4": display.noteNaming = .scientific
        case "yamaha", "c3": display.noteNaming = .yamaha
        default: throw EtudeFailure("--note-names \(noteNames): use scientific (middle C = C4) or yamaha (middle C = C3)")
        }
        display.fingers = fingers
        return display
    }
}
