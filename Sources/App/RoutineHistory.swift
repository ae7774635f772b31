import Clocks
import Foundation
import Judge
import Lesson
import LessonLibrary
import MIDIFile
import Store

/// What a routine leaves in the library: each entry's practice history (its passes, loops and
/// resume point, written by `PracticeEffects`) and the watched entries' passes. The routine's
/// screen (FrontEnd) hands its results here and never holds the Store.
public struct RoutineHistory: Sendable {
    private let store: Store

    init(store: Store) { self.store = store }

    /// The history of one entry's lesson (already in the catalogue).
    public func history(lessonID: String, path: String) -> StoreHistory {
        StoreHistory(store: store, lessonID: lessonID, path: path)
    }

    /// A watched entry's pass and where it stopped (for `etude resume`): the line to show when
    /// the pass could not be stored (another program holds the library: it is spooled beside
    /// it and stored by the next run), nil when it was.
    public func recordWatched(_ step: RoutinePlan.Step, path: String, startedAt: Date, seconds: Double,
                              stoppedAtSeconds position: Double) -> String? {
        let hand = step.hand ?? .both
        let record = PassRecord(lessonID: step.lesson.id, startedAt: startedAt, mode: .watch, hand: hand, tempoPercent: step.tempoPercent,
                                firstBar: step.bars?.lowerBound, lastBar: step.bars?.upperBound, durationSeconds: seconds)
        var line: String?
        do {
            try store.recordPass(record, bars: [], busyTimeout: PracticeEffects.closingGrace)
        } catch where Store.isLocked(error) {
            line = "etude: " + PassSpool.keep([SpooledPass(record: record, bars: [])], database: store.path ?? "")
        } catch {
            line = "etude: the pass was not stored: \(Store.message(for: error) ?? "\(error)")"
        }
        // Where the routine stopped: a convenience, not worth waiting for a locked library.
        try? store.saveResume(ResumeState(lessonID: step.lesson.id, path: path, positionSeconds: position, hand: hand,
                                          tempoPercent: step.tempoPercent, mode: .watch,
                                          loopFirstBar: step.bars?.lowerBound, loopLastBar: step.bars?.upperBound, loopName: nil),
                              busyTimeout: PracticeEffects.tryTimeout)
        return line
    }
}

/// Plays a routine's schedule (FrontEnd's routine screen): how App's method and routines run
/// one without drawing anything themselves.
public protocol RoutinePlaying {
    /// Plays `plan`, its passes kept in `history`; the exit status (128 + a signal that ended it).
    func play(_ plan: RoutinePlan, history: RoutineHistory) throws -> Int32
}

extension RoutinePlan {
    /// `etude routine run NAME`: the day's schedule (random picks by `seed`, else the day's)
    /// and the history it plays into.
    public static func scheduled(name: String, library: Library, seed: UInt64?) throws -> (RoutinePlan, RoutineHistory) {
        try library.withStore { s in
            let routine = try s.existingRoutine(named: name)
            var rng = SeededGenerator(seed: seed ?? daySeed(name: routine.name, date: Date()))
            let schedule = make(routine, candidates: .init(lessons: try s.lessons()), using: &rng, passSeconds: { passSeconds($0, store: s) })
            return (schedule, RoutineHistory(store: s))
        }
    }

    /// The practice plan of an entry: hand, tempo, bars and its length as passes.
    public static func practicePlan(hand: PracticePlan.Hands?, tempoPercent: Int, bars: ClosedRange<Int>?,
                                    length: RoutineEntry.Length) -> PracticePlan {
        var plan = PracticePlan()
        plan.tempo = .percent(TempoPercent.clamped(Double(tempoPercent)).value)
        plan.bars = bars
        if let hand { plan.hands = hand }
        switch length {
        case .repetitions(let count): plan.repeatMode = .times(max(1, count))
        case .minutes: plan.repeatMode = .forever
        }
        return plan
    }

    /// One pass of a step with `recording=`: the recording's own bars at the step's tempo, as
    /// the library's alignment found them (the lesson's time stands in while none is kept).
    public static func passSeconds(_ q: PassQuery, store: Store) -> Double? {
        guard let file = q.recording else { return passSeconds(q) }
        guard let path = q.path, let opened = try? LessonOpener.open(path),
              let pace = RecordingPractice.storedPace(recording: file, lessonPath: path, lesson: opened.lesson, store: store) else { return passSeconds(q) }
        let plan = practicePlan(hand: q.hand, tempoPercent: q.tempoPercent, bars: q.bars, length: .repetitions(1))
        guard let transport = try? Transport(lesson: opened.lesson, plan: plan, clock: VirtualClock()) else { return nil }
        return pace.passSeconds(transport)
    }

    /// One pass of a step timed from its lesson file: its bars at its tempo (nil when the file
    /// cannot be read or the bars do not fit; the plan then uses the catalogue's duration).
    public static func passSeconds(_ q: PassQuery) -> Double? {
        guard let path = q.path, let opened = try? LessonOpener.open(path) else { return nil }
        let plan = practicePlan(hand: q.hand, tempoPercent: q.tempoPercent, bars: q.bars, length: .repetitions(1))
        return try? Transport(lesson: opened.lesson, plan: plan, clock: VirtualClock()).passDuration
    }
}
