import Foundation
import Lesson

/// A routine step practised on a `PracticeSession` (wait / play / memory with its Coach): the
/// routine's length policy (repetitions, time limit, fade — the caller's `decide`, normally
/// `RoutinePlan.decide`) applied once per frame from whichever thread draws or polls, and the
/// finished passes handed out for the history. Judging, pausing at chords and the screen stay
/// the session's; this only decides when the step is over and how loud it plays. It belongs to
/// the front end's thread (the one that draws or polls: `start`, `tick` and `finish` are all
/// called there), so it holds no lock and is not `Sendable`.
///
/// The time limit counts wall-clock time from `start()`, so in wait mode it ends the step even
/// while the lesson stands waiting for a chord; the pass end it reports to `decide` is "now +
/// what is left of the pass", which moves later while the learner hesitates.
public final class SessionStep {
    public typealias Decide = (_ elapsed: Double, _ completedPasses: Int, _ currentPassEnd: Double?) -> StepPlayer.Decision

    /// One frame's outcome.
    public struct Tick: Equatable, Sendable {
        /// Passes that ended since the previous tick (store them with `session.score(for:)`).
        public var finished: [FinishedPassInfo]
        /// The step is over (its repetitions played, its time limit reached); call `finish`.
        public var isOver: Bool
        public var elapsed: Double
        public var completedPasses: Int
        public var gain: Double
    }

    public let session: PracticeSession
    private let output: GainOutput
    private let decide: Decide
    private var startTime: Double?
    private var completed = 0
    private var over = false
    private var faded = false
    private var gain = 1.0

    /// `session` must send its sound to `output` (so the fade reaches it).
    public init(session: PracticeSession, output: GainOutput, decide: @escaping Decide) {
        precondition(session.fader === output, "a routine step's session plays through the step's GainOutput")
        self.session = session
        self.output = output
        self.decide = decide
    }

    /// Starts the session's transport; the step's clock starts now.
    public func start() {
        startTime = session.now
        session.start()
    }

    /// Applies the policy at the session's current time. Call on every frame.
    public func tick() -> Tick {
        let now = session.now
        let finished = session.takeFinishedPasses()
        let transport = session.transport
        let remaining = transport.remainingInPass(at: now)
        let transportDone = session.isFinished
        completed += finished.filter(\.complete).count
        let elapsed = now - (startTime ?? now), passes = completed
        if over {
            return Tick(finished: finished, isOver: true, elapsed: elapsed, completedPasses: passes, gain: gain)
        }
        var ended = transportDone
        var newGain = 1.0
        if !ended {
            switch decide(elapsed, passes, remaining.map { elapsed + $0 }) {
            case .stop:
                ended = true
            case .play(let g):
                newGain = g
            }
        }
        if ended {
            // Silence at once; the frame may linger on the results, but nothing plays on.
            session.stop()
            over = true
            return Tick(finished: finished, isOver: true, elapsed: elapsed, completedPasses: passes, gain: gain)
        }
        // The output is the runner's while it plays: the fade is applied there, in its turn.
        if newGain != gain { session.post(.apply(.gain(newGain))) }
        gain = newGain
        if newGain < 1 { faded = true }
        return Tick(finished: finished, isOver: false, elapsed: elapsed, completedPasses: passes, gain: newGain)
    }

    /// Stops the session (all notes off, full volume back for the next step) and reports how
    /// the step went; the passes that ended since the last tick come with it.
    public func finish(interrupted: Bool) -> (result: StepPlayer.Result, finished: [FinishedPassInfo]) {
        let now = session.now
        session.stop()
        let finished = session.takeFinishedPasses()
        output.allNotesOff()
        output.reset()
        completed += finished.filter(\.complete).count
        over = true
        let result = StepPlayer.Result(completedPasses: completed, seconds: now - (startTime ?? now), faded: faded, interrupted: interrupted)
        return (result, finished)
    }
}
