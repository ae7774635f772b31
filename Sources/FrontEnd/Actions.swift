import App
import Devices
import Foundation
import Judge
import Lesson
import LessonLibrary
import Practice
import Reports

/// What a learner asks Etude to do, wherever it was asked (a command line, the browser): each
/// is run here, so the browser never goes back through the command line.
public enum Intent: Equatable, Sendable {
    /// Practise a lesson file in a mode with a hand (the browser's Enter).
    case practise(path: String, mode: PracticeMode, hand: PracticePlan.Hands)
    /// Go on where the learner left off (the resume line, `etude resume`).
    case resume
    /// Run a routine (the browser's routines box, `etude routine run`).
    case runRoutine(name: String)
    /// Choose the instrument (the browser's F7, `etude setup`).
    case setUpInstrument
}

/// The application's actions: each opens what it needs (lesson, library, synth, instrument),
/// runs, and returns the exit status; failures a user can fix are one-line `EtudeFailure`s.
public enum Actions {
    /// The browser's Enter: the practice screen on a lesson in a mode with a hand (both when
    /// the lesson has no such hand, as the screen's `h` would), passes to the history.
    public static func practise(path: String, mode: PracticeMode, hand: PracticePlan.Hands, library: Library,
                                sound: LiveSound = LiveSound(), playing given: Playing = Playing()) throws -> Int32 {
        var playing = given
        playing.mode = mode
        playing.library = library  // the calibrated input offsets
        let setup = try PracticeSetup.make(PracticeSetup.Request(path: path, keyboard: .init(input: playing.input), library: library) { lesson in
            var plan = PracticePlan(hands: hand, repeatMode: .forever)
            plan.countIn = mode.countsIn
            if (try? plan.validate(for: lesson)) == nil { plan.hands = .both }
            return plan
        })
        for line in setup.notices { Console.error("etude: \(line)") }
        playing.follow = (try? Following.resolve(nil, mode: playing.mode, plan: setup.plan, lesson: setup.opened.lesson, path: path, library: library)) ?? false
        return try PracticeScreenRunner.run(setup, sound: sound, display: PracticeView.Options(), playing: playing)
    }

    /// `etude resume`: the practice screen where the learner left off — lesson, bar, hand,
    /// other hand, tempo, metronome, loop and its name, mode, and the input it was played on
    /// (unless `--input` names another; `etude setup`'s instrument for a state saved before).
    public static func resume(library: Library, sound: LiveSound = LiveSound(), playing given: Playing = Playing()) throws -> Int32 {
        let point = try LeftOff.load(library)
        var playing = given
        var sound = sound
        playing.library = library  // the calibrated input offsets
        MyInstrument.use(sound: &sound, playing: &playing, library: library, resumed: point.input)
        playing.mode = point.mode
        let setup = try PracticeSetup.make(point.request(keyboard: .init(input: playing.input), library: library))
        for line in setup.notices { Console.error("etude: \(line)") }
        let bar = point.bar(in: setup.opened.lesson)
        playing.follow = (try? Following.resolve(nil, mode: playing.mode, plan: setup.plan, lesson: setup.opened.lesson, path: point.path, library: library)) ?? false
        return try PracticeScreenRunner.run(setup, sound: sound, display: PracticeView.Options(), startBar: bar,
                                            loopName: point.loopName, playing: playing)
    }

    /// `etude routine run`: the schedule (random picks by `seed`), then each entry played.
    public static func runRoutine(name: String, library: Library, seed: UInt64? = nil, planOnly: Bool = false,
                                  sound: LiveSound = LiveSound(), playing: Playing = Playing()) throws -> Int32 {
        let (schedule, history) = try RoutinePlan.scheduled(name: name, library: library, seed: seed)
        StatusLine.keepAll(schedule.text())  // wrapped between words on a terminal
        if schedule.steps.isEmpty { throw EtudeFailure("nothing to play in \(safe(name)): every entry was skipped") }
        if planOnly { return 0 }
        var playing = playing
        playing.library = playing.library ?? library  // the calibrated input offsets
        return try RoutineRunner(sound: sound, playing: playing).play(schedule, history: history)
    }

    /// Runs an intent with the instrument the browser was given (`etude browse --input …`), or
    /// the one set up (`etude setup`), or the computer keyboard.
    public static func run(_ intent: Intent, library: Library, sound: LiveSound = LiveSound(), playing given: Playing = Playing()) throws -> Int32 {
        var sound = sound
        var playing = given
        if intent != .resume && intent != .setUpInstrument { MyInstrument.use(sound: &sound, playing: &playing, library: library) }
        switch intent {
        case .practise(let path, let mode, let hand):
            return try practise(path: path, mode: mode, hand: hand, library: library, sound: sound, playing: playing)
        case .resume:
            return try resume(library: library, sound: sound, playing: given)
        case .runRoutine(let name):
            return try runRoutine(name: name, library: library, sound: sound, playing: playing)
        case .setUpInstrument:
            guard let choice = MyInstrument.interview(list: DeviceList.scan(), current: MyInstrument.stored(library)) else {
                Console.out(try MyInstrument.show(library: library).map { $0 + "\n" }.joined())
                return 0
            }
            Console.out(try MyInstrument.save(choice, library: library).map { $0 + "\n" }.joined())
            return 0
        }
    }
}
