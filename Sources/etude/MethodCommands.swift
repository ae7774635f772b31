import App
import ArgumentParser
import Devices
import FrontEnd
import Reports

/// `etude next`, `today` and `sight-read`: the method (logic and help text in App's Method.swift).
struct NextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: MethodHelp.nextAbstract, discussion: MethodHelp.nextDiscussion)
    @Flag(help: "Print one JSON object (null when every lesson is mastered).") var json = false
    @Option(name: .customLong("set"), help: ArgumentHelp("Make this lesson (title, id or path; one with a level) the current piece.", valueName: "lesson"))
    var set: String?
    @Flag(name: .customLong("path"), help: "Drop the lesson chosen with --set: the path's own next lesson is current again.") var backToPath = false
    @OptionGroup var store: StoreOptions
    func validate() throws {
        if set != nil && backToPath { throw ValidationError("give --set LESSON or --path, not both") }
    }
    func run() throws { Console.out(try MethodGuide.command(json: json, set: set, backToPath: backToPath, library: store.library)) }
}

struct TodayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "today", abstract: MethodHelp.todayAbstract, discussion: MethodHelp.todayDiscussion)
    @Option(help: "Minutes to plan, 5–180.") var minutes = 20
    @Flag(help: "Print the plan as one JSON object.") var json = false
    @Flag(name: .customLong("run"), help: "Play the plan now, as a routine.") var runNow = false
    @OptionGroup var play: MethodPlayOptions
    func run() throws {
        let status = try TodayPlanner.command(minutes: minutes, json: json, library: play.store.library, player: runNow ? try play.player() : nil)
        if status != 0 { throw ExitCode(status) }
    }
}

struct SightReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sight-read", abstract: MethodHelp.sightReadAbstract, discussion: MethodHelp.sightReadDiscussion)
    @Option(help: "Level 1–8 (default: from your last exercises).") var level: Int?
    @Option(help: "Seed: the same level and seed give the same exercise (default: one you have not read).") var seed: UInt64?
    @Option(help: ArgumentHelp("Write the exercise to this MIDI file instead of playing it.", valueName: "file.mid")) var export: String?
    @OptionGroup var play: MethodPlayOptions
    func run() throws {
        let player = export == nil ? try play.player() : RoutineRunner(sound: LiveSound(), playing: Playing())
        let status = try SightReader.command(level: level, seed: seed, export: export, library: play.store.library, player: player)
        if status != 0 { throw ExitCode(status) }
    }
}

/// The synth, the instrument and the database of the method's played commands.
struct MethodPlayOptions: ParsableArguments {
    @OptionGroup var synth: SynthOptions
    @OptionGroup var instrument: InstrumentOptions
    @OptionGroup var playingOptions: PlayingOptions
    @OptionGroup var audioBuffer: AudioBufferOption
    @OptionGroup var store: StoreOptions

    /// The synth and the instrument: the options given, the rest from `etude setup`.
    func setUp() throws -> (sound: LiveSound, playing: Playing) {
        var playing = try playingOptions.playing(mode: .play)
        var sound = try instrument.applied(to: audioBuffer.applied(to: synth.sound))
        sound.library = store.library  // the audio buffer learned per device
        MyInstrument.use(sound: &sound, playing: &playing, library: store.library)
        return (sound, playing)
    }

    /// The routine screen playing with that synth and instrument (the offsets calibrated in the library).
    func player() throws -> RoutineRunner {
        let (sound, chosen) = try setUp()
        var playing = chosen
        playing.library = playing.library ?? store.library
        return RoutineRunner(sound: sound, playing: playing)
    }
}
