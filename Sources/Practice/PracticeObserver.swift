import Judge
import Lesson
import Screen

/// A note the learner played (MIDI keyboard or computer keys), as the session forwards it.
/// Plain values so this module needs no input-device dependency.
public struct LearnerNote: Equatable, Sendable {
    public var pitch: Int
    public var velocity: Int
    /// true for a key press, false for a release.
    public var isOn: Bool
    /// On the session's clock (`PracticeSession.now`).
    public var time: Double

    public init(pitch: Int, velocity: Int, isOn: Bool, time: Double) {
        self.pitch = pitch
        self.velocity = velocity
        self.isOn = isOn
        self.time = time
    }
}

/// The seam for the playing modes (wait / play / memory, scoring): an object plugged into a
/// `PracticeSession` that sees everything the transport does and everything the learner
/// plays, may pause and resume the transport (`session.pause()` / `session.resume()`), and
/// adds to the screen (lit learner keys, an overlay, the mode name). Watch mode has none.
///
/// Threads: `transportEvents` runs on the transport thread (keep it short, never block; it
/// may call `session.pause()`), `learnerPlayed` on the input thread, `litKeys`/`overlay`/
/// `modeName` on the screen thread while it builds a frame (return quickly, from values the
/// observer keeps under its own short lock). A pass-cleanliness judge can also be set directly
/// on `session.transport.isPassClean`.
public protocol PracticeObserver: AnyObject, Sendable {
    /// Once, before the transport starts.
    func attach(to session: PracticeSession)
    /// Every batch of transport events, after their synth messages were sent.
    func transportEvents(_ events: [TimedEvent], session: PracticeSession)
    /// Every key the learner pressed or released.
    func learnerPlayed(_ note: LearnerNote, session: PracticeSession)
    /// Keys to light for the learner (`.learner` / `.wrong`), at clock time `now`.
    func litKeys(at now: Double) -> [(pitch: Int, role: NoteRole)]
    /// An overlay (e.g. results after a scored pass); nil for none. The help overlay wins.
    var overlay: Overlay? { get }
    /// The mode shown in the status bar ("wait", "play", "memory").
    var modeName: String { get }
    /// True while the computer keyboard plays notes (the piano letters then win over `h`, `s`…).
    var wantsPianoKeys: Bool { get }
    /// A chance to take a command first (piano keys, closing results); true = consumed.
    func handle(_ command: PracticeCommand, session: PracticeSession) -> Bool
    /// A saved pass's score figures, if this observer scored it (nil = a watch-mode pass).
    func score(for pass: FinishedPassInfo) -> ScoreFigures?
    /// The last word on a frame (e.g. memory mode hides the practised notes), on the screen thread.
    func decorate(_ model: inout ScreenModel, now: Double)
}

public extension PracticeObserver {
    func attach(to session: PracticeSession) {}
    func transportEvents(_ events: [TimedEvent], session: PracticeSession) {}
    func learnerPlayed(_ note: LearnerNote, session: PracticeSession) {}
    func litKeys(at now: Double) -> [(pitch: Int, role: NoteRole)] { [] }
    var overlay: Overlay? { nil }
    var modeName: String { "watch" }
    var wantsPianoKeys: Bool { false }
    func handle(_ command: PracticeCommand, session: PracticeSession) -> Bool { false }
    func score(for pass: FinishedPassInfo) -> ScoreFigures? { nil }
    func decorate(_ model: inout ScreenModel, now: Double) {}
}
