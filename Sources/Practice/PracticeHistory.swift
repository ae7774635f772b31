import Judge
import Lesson

/// Where a practice session's results go: passes (scored ones with their figures), the place
/// the learner stopped, saved loops. The library (Store) implements it; tests use a fake; a
/// session whose library could not be opened uses none and says so once.
public protocol PracticeHistory: AnyObject, Sendable {
    /// Stores finished passes; `figures` gives a complete pass's figures (nil when it was only
    /// watched). A pass left before its end is stored for its time only.
    func record(_ passes: [FinishedPassInfo], mode: PracticeMode, figures: (FinishedPassInfo) -> ScoreFigures?)
    /// As `record(_:mode:figures:)`, with each judged pass's report (its notes, for the per-bar
    /// picture); a history that keeps no bars stores the figures only.
    func record(_ passes: [FinishedPassInfo], mode: PracticeMode, figures: (FinishedPassInfo) -> ScoreFigures?,
                reports: (FinishedPassInfo) -> PassReport?)
    /// Saves where the learner stopped, for `etude resume`.
    func saveResume(_ point: ResumePoint, mode: PracticeMode, loopName: String?)
    /// Saves a loop under its automatic name; returns the message for the screen.
    func saveLoop(_ loop: LoopSnapshot) -> String
    /// The lesson's saved loops, for `L`.
    func savedLoops() -> [NamedLoop]
}

extension PracticeHistory {
    public func record(_ passes: [FinishedPassInfo], mode: PracticeMode, figures: (FinishedPassInfo) -> ScoreFigures?,
                       reports: (FinishedPassInfo) -> PassReport?) {
        record(passes, mode: mode, figures: figures)
    }

    /// Stores what the session finished since the last call, each pass with its own report.
    public func record(finishedBy session: PracticeSession) {
        record(session.takePassResults(), mode: session.mode)
    }

    /// Stores finished passes taken from a session (`takePassResults()`), each with its report.
    public func record(_ results: [PassResult], mode: PracticeMode) {
        guard !results.isEmpty else { return }
        record(results.map(\.info), mode: mode, figures: { info in results.first { $0.info == info }?.figures },
               reports: { info in results.first { $0.info == info }?.report })
    }
}
