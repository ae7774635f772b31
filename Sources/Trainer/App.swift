import Foundation
import Judge
import Lesson
import Practice
import Store

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
public enum App {
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
        let (state, path) = try library.withStore(scan: false) { s -> (ResumeState, String) in
            guard let (state, listing) = try s.resume() else {
                throw EtudeFailure("nothing to resume yet: practise a lesson first (see `etude list`)")
            }
            return (state, listing?.path ?? state.path)
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw EtudeFailure("\(safe(path)): the lesson you practised last is gone; open another with `etude practice`")
        }
        var playing = given
        var sound = sound
        playing.library = library  // the calibrated input offsets
        MyInstrument.use(sound: &sound, playing: &playing, library: library, resumed: state.input)
        playing.mode = state.mode
        var request = PracticeSetup.Request(path: path, keyboard: .init(input: playing.input), library: library) { lesson throws(PlanError) in
            var plan = PracticePlan(repeatMode: .forever)
            plan.hands = state.hand
            plan.tempo = .percent(TempoPercent.clamped(Double(state.tempoPercent)).value)
            if let a = state.loopFirstBar, let b = state.loopLastBar { plan.bars = a...b }
            if let other = state.otherHand { plan.otherHand = other }
            plan.metronome.enabled = state.metronome ?? false
            return plan
        }
        request.words = { "the saved state no longer fits \(safe(path)) (\($0.message)); start it with `etude practice`" }
        let setup = try PracticeSetup.make(request)
        for line in setup.notices { Console.error("etude: \(line)") }
        // A stored position from an older or damaged database is clamped to the lesson.
        let lesson = setup.opened.lesson
        let seconds = state.positionSeconds.isFinite ? max(0, state.positionSeconds) : 0
        let tick = lesson.tempoMap.tick(atSeconds: seconds)
        let bar = lesson.bars.position(atTick: tick.isFinite ? Int(min(max(0, tick), Double(lesson.endTick))) : 0).bar
        playing.follow = (try? Following.resolve(nil, mode: playing.mode, plan: setup.plan, lesson: lesson, path: path, library: library)) ?? false
        return try PracticeScreenRunner.run(setup, sound: sound, display: PracticeView.Options(), startBar: bar,
                                            loopName: state.loopName, playing: playing)
    }

    /// `etude routine run`: the schedule (random picks by `seed`), then each entry played.
    public static func runRoutine(name: String, library: Library, seed: UInt64? = nil, planOnly: Bool = false,
                                  sound: LiveSound = LiveSound(), playing: Playing = Playing()) throws -> Int32 {
        try library.withStore { s in
            let routine = try s.existingRoutine(named: name)
            var rng = SeededGenerator(seed: seed ?? RoutinePlan.daySeed(name: routine.name, date: Date()))
            let schedule = RoutinePlan.make(routine, candidates: .init(lessons: try s.lessons()), using: &rng,
                                            passSeconds: RoutineRunner.passSeconds)
            StatusLine.keepAll(schedule.text())  // wrapped between words on a terminal
            if schedule.steps.isEmpty { throw EtudeFailure("nothing to play in \(safe(name)): every entry was skipped") }
            if planOnly { return 0 }
            var playing = playing
            playing.library = playing.library ?? library  // the calibrated input offsets
            return try RoutineRunner(sound: sound, playing: playing).run(schedule, store: s)
        }
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
