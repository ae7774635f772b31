@testable import App
import Clocks
import Foundation
@testable import FrontEnd
import Judge
import Lesson
import Practice
@testable import Reports
import Screen
import Synth
import Terminal

/// A practice session as the practice screen runs it, on a virtual clock: the session, its
/// controller, the key map and the pure view. `snapshot()` is the frame the screen would draw.
final class SessionHarness: @unchecked Sendable {
    let session: PracticeSession
    let controller: PracticeController
    var display: PracticeView.Options

    init(lesson: Lesson, plan: PracticePlan, clock: VirtualClock, output: any SoundOutput,
         settings: PracticeSession.Settings = PracticeSession.Settings(), display: PracticeView.Options = PracticeView.Options(),
         saveDirectory: String = NSTemporaryDirectory()) throws {
        session = try PracticeSession(lesson: lesson, plan: plan, clock: clock, output: output, settings: settings)
        controller = PracticeController(session: session, saveDirectory: saveDirectory)
        controller.onSavePass = { bytes, directory, now in PassFile.save(bytes, in: directory, now: now) }
        self.display = display
    }

    func snapshot() -> ScreenModel { PracticeView.model(session.state(), view: controller.view, lesson: session.lesson, options: display) }

    @discardableResult
    func handle(_ command: PracticeCommand) -> PracticeController.Outcome { controller.handle(command) }

    /// A key as the screen takes it (any key closes the help first).
    func handle(key: Key) -> PracticeController.Outcome {
        controller.handle(keyCommand: PracticeKeyMap.command(for: key, pianoKeys: session.wantsPianoKeys))
    }

    // The session's own API, so tests read as before.
    var lesson: Lesson { session.lesson }
    var transport: Transport { session.transport }
    var coach: CoachSnapshot { session.coach }
    var isFinished: Bool { session.isFinished }
    var loopName: String? { session.loopName }
    var wantsPianoKeys: Bool { session.wantsPianoKeys }
    var modeName: String { session.mode.rawValue }
    var onPassReport: (@Sendable (PassReport) -> Void)? {
        get { session.onPassReport }
        set { session.onPassReport = newValue }
    }
    var onSaveLoop: (@Sendable (LoopSnapshot) -> String)? {
        get { controller.onSaveLoop }
        set { controller.onSaveLoop = newValue }
    }
    var onRecallLoops: (@Sendable () -> [NamedLoop])? {
        get { controller.onRecallLoops }
        set { controller.onRecallLoops = newValue }
    }
    func start() { session.start() }
    func stop() { session.stop() }
    func advance() { session.advance() }
    func pause() { session.pause() }
    func seek(toBar bar: Int) { session.seek(toBar: bar) }
    func resumePoint() -> ResumePoint { session.resumePoint() }
    func takeFinishedPasses() -> [FinishedPassInfo] { session.takeFinishedPasses() }
    func score(for pass: FinishedPassInfo) -> ScoreFigures? { session.score(for: pass) }
    func learnerPlayed(_ note: LearnerNote) { session.learnerPlayed(note) }
    func saveLastPass(now: Date) -> String { controller.saveLastPass(now: now) }
    func replacePlan(_ plan: PracticePlan) throws(PlanError) { try controller.replacePlan(plan) }
}

final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ v: T) { stored = v }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
