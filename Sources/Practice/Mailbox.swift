import Foundation
import Judge
import Lesson
import Synchronization

/// Everything that reaches a practice session from outside, as one value (issue 36 step 4): a
/// learner's command, a played note, the pedal, a tick of the session's clock. All go in
/// through `PracticeSession.post(_:)`, which never waits for the runner.
public enum PracticeMessage: Equatable, Sendable {
    /// A command given on a thread that is not the screen's (a gesture key on the instrument):
    /// handed to the front end's controller, which owns the view it edits.
    case command(PracticeCommand)
    /// A key the learner played (its time on the session's base clock).
    case played(LearnerNote)
    /// The sustain pedal went down or up at a clock time.
    case pedal(down: Bool, at: Double)
    /// The session's clock moved on to this time: judging (and the partner) moves with it.
    case tick(Double)
    /// A learner's command for the runtime (the practice screen's keys through its
    /// `PracticeController`, a routine's fade): applied by the owner in its turn, in order with
    /// the notes; what it shows comes back as `PracticeNotice`s.
    case apply(SessionCommand)
}

/// What the runtime does for the learner's commands, on its own thread (posted as
/// `PracticeMessage.apply`, so the screen never waits for the runner): a key's command, with
/// what only the front end knows (the saved loops read from the library, the history's weakest
/// bars, the bar number typed), and the screen's own pauses.
public enum SessionCommand: Equatable, Sendable {
    /// A key's command: play/pause, bars, loop marks, tempo, hands, metronome, mode, guide,
    /// follow, save the loop (the screen's own keys — help, view, quit — only put the results away).
    case key(PracticeCommand)
    /// `L`: the lesson's saved loops as the library has them now; the next of them is applied.
    case recallLoop([NamedLoop])
    /// `W`: the weakest section across passes (the history's per-bar picture), nil when the
    /// history has none: the last full run's is looped then.
    case loopWeakest(acrossPasses: Int?)
    /// `g` N Enter: the bar as the learner typed it.
    case goToBar(String)
    /// The screen too small, Ctrl-Z, the instrument gone: the music pauses; it resumes when the
    /// screen fits again (wait mode's hold at a chord stays).
    case pause
    case resume
    /// A routine step's fade: the gain of the session's output when it is a `GainOutput`.
    case gain(Double)
}

/// A bounded first-in first-out queue that any thread may post to without waiting for the one
/// that drains it (the owner): a `Mutex` held only to append or to take everything. A message
/// posted to a full mailbox is refused and counted, never blocking the poster (an input that
/// floods is stopped before this by `FloodGuard`; the count says if one got through).
public final class Mailbox<Message: Sendable>: Sendable {
    private struct Box {
        var queued: [Message] = []
        var dropped = 0
    }
    private let box = Mutex(Box())
    /// Most messages waiting at once.
    public let capacity: Int

    public init(capacity: Int = 8192) {
        self.capacity = max(1, capacity)
    }

    /// Appends `message`; `.first` when the mailbox was empty (the owner must be woken to
    /// drain it), `.queued` when others wait before it, `.refused` when it is full.
    public func post(_ message: Message) -> Posted {
        box.withLock { b in
            guard b.queued.count < capacity else {
                b.dropped += 1
                return .refused
            }
            b.queued.append(message)
            return b.queued.count == 1 ? .first : .queued
        }
    }

    /// What `post` did.
    public enum Posted: Equatable, Sendable { case first, queued, refused }

    /// Takes every waiting message, oldest first (the owner's drain).
    public func takeAll() -> [Message] {
        box.withLock { b in
            let out = b.queued
            b.queued.removeAll(keepingCapacity: true)
            return out
        }
    }

    /// Messages refused because the mailbox was full, since it was made.
    public var dropped: Int { box.withLock { $0.dropped } }

    /// Messages waiting now.
    public var count: Int { box.withLock { $0.queued.count } }
}

/// What a practice session asks the application to do, in the order it happened (issue 36
/// step 4): the runtime decides, the application performs — off the screen's frames and off
/// the runner's thread, so a slow disk or a locked database never delays a note or a frame.
public enum PracticeEffect: Sendable, Equatable {
    /// A pass ended (or was left): its history row and, judged and complete, its `--report` line.
    case pass(PassResult)
    /// `s`: save this loop under its automatic name; the outcome is shown as a message.
    case saveLoop(LoopSnapshot)
    /// `r`: write the last pass as played (.mid bytes) in a folder, named by the time.
    case savePass(bytes: [UInt8], directory: String, at: Date)
    /// The calibrate hint was shown on a results panel: remember it, so it is shown once.
    case calibrateHintShown
    /// `G`: remember the guide for the lesson.
    case guide(Bool)
    /// Where the learner stopped (the screen closed), for `etude resume`.
    case resume(ResumePoint, mode: PracticeMode, loopName: String?)
}

/// The one outbox of a practice session: effects in order, each taken once. Any thread adds
/// (`emit`); the application's effects thread takes them (`take`, or `wait` with a timeout).
public final class EffectOutbox: Sendable {
    private let queue = Mutex([PracticeEffect]())
    /// Counts what was emitted (more than waiters ever take: a wake may find nothing).
    private let signal = DispatchSemaphore(value: 0)
    /// Most effects kept when nobody takes them (a front end without a performer).
    public static let limit = 4096

    public init() {}

    /// Adds an effect after the others (the oldest dropped beyond `limit`).
    public func emit(_ effect: PracticeEffect) {
        queue.withLock { q in
            q.append(effect)
            if q.count > Self.limit { q.removeFirst(q.count - Self.limit) }
        }
        signal.signal()
    }

    /// Takes the effects waiting, oldest first; never waits.
    public func take() -> [PracticeEffect] {
        queue.withLock { q in
            let out = q
            q.removeAll()
            return out
        }
    }

    /// Takes the effects for which `keep` is true, leaving the others in order.
    public func take(where keep: (PracticeEffect) -> Bool) -> [PracticeEffect] {
        queue.withLock { q in
            var out: [PracticeEffect] = []
            var rest: [PracticeEffect] = []
            for e in q { if keep(e) { out.append(e) } else { rest.append(e) } }
            q = rest
            return out
        }
    }

    /// Waits up to `timeout` seconds for an effect, then takes what is waiting (maybe nothing).
    public func wait(timeout: Double) -> [PracticeEffect] {
        let now = take()
        if !now.isEmpty { return now }
        _ = signal.wait(timeout: .now() + max(0, timeout))
        return take()
    }
}
