import Foundation
import Judge
import Lesson
import MIDIFile
import Screen

/// Plugs a `Coach` into a `PracticeSession`: the playing modes (wait / play / memory) on the
/// practice screen. Forwards the transport's events and the learner's notes to the coach,
/// applies what it asks (pause / resume for wait mode, a results panel after each pass, a
/// `--report` line), decorates each frame (learner keys, wrong notes, memory mode hiding the
/// notes) and handles the mode keys: `M` cycles the mode, `W` loops the weakest section,
/// `r` saves the last pass as .mid.
///
/// Threads: the coach has its own lock; this object keeps its state under a short lock of its
/// own and never holds it while calling the session, so the transport thread, the input
/// thread and the screen thread cannot deadlock one another.
public final class CoachObserver: PracticeObserver, @unchecked Sendable {
    /// Fixed choices for the coaches this observer makes (one per mode).
    public struct Settings: Sendable {
        public var window: TimingWindow
        public var cleanThreshold: Double
        /// The learner plays on the computer keyboard (onset-only notes, piano keys on screen).
        public var computerKeyboard: Bool
        /// Where `r` saves passes (default: the current directory).
        public var saveDirectory: String
        public init(window: TimingWindow = TimingWindow(), cleanThreshold: Double = 90, computerKeyboard: Bool = true,
                    saveDirectory: String = FileManager.default.currentDirectoryPath) {
            self.window = window
            self.cleanThreshold = cleanThreshold
            self.computerKeyboard = computerKeyboard
            self.saveDirectory = saveDirectory
        }
    }

    public let settings: Settings
    private let lock = NSLock()
    private var coachValue: Coach
    private weak var sessionRef: PracticeSession?
    private var shown: ResultsInfo?
    private var shownAt: Double?
    private var figures: [Int: ScoreFigures] = [:]
    private var pausedByCoach = false
    private var keyPress: (@Sendable (Character, Double) -> Void)?
    private var reportSink: (@Sendable (PassReport) -> Void)?

    /// - Parameters:
    ///   - mode: the starting mode (`--mode`).
    public init(lesson: Lesson, plan: PracticePlan, mode: PracticeMode, settings: Settings = Settings()) {
        self.settings = settings
        coachValue = Coach(lesson: lesson, plan: plan, mode: mode, window: settings.window,
                           cleanThreshold: settings.cleanThreshold, onsetOnlyInput: settings.computerKeyboard)
    }

    /// The coach judging now (a new one after each mode change).
    public var coach: Coach { lock.withLock { coachValue } }

    /// The current mode.
    public var mode: PracticeMode { coach.mode }

    /// Where computer-keyboard piano keys go (`InputHookup.press`), with the clock time.
    public var onPianoKey: (@Sendable (Character, Double) -> Void)? {
        get { lock.withLock { keyPress } }
        set { lock.withLock { keyPress = newValue } }
    }

    /// Each finished, scored pass (the `--report` file).
    public var onPassReport: (@Sendable (PassReport) -> Void)? {
        get { lock.withLock { reportSink } }
        set { lock.withLock { reportSink = newValue } }
    }

    /// The results panel now shown (nil when none).
    public var results: ResultsInfo? { lock.withLock { shown } }

    // MARK: PracticeObserver

    public func attach(to session: PracticeSession) {
        lock.withLock { sessionRef = session }
        session.transport.isPassClean = { [weak self] finished in
            guard let self else { return true }
            return self.coach.isPassClean(finished)
        }
    }

    public func transportEvents(_ events: [TimedEvent], session: PracticeSession) {
        let coach = self.coach
        apply(coach.handle(events: events), coach: coach, session: session)
    }

    public func learnerPlayed(_ note: LearnerNote, session: PracticeSession) {
        let coach = self.coach
        let event = PlayedEvent(pitch: note.pitch, velocity: note.velocity, time: note.time, isOn: note.isOn)
        if note.isOn { lock.withLock { shown = nil } }  // playing on puts the results away
        apply(coach.handle(played: event), coach: coach, session: session)
    }

    public func litKeys(at now: Double) -> [(pitch: Int, role: NoteRole)] {
        let coach = self.coach
        if let session = lock.withLock({ sessionRef }) {
            apply(coach.tick(now: now), coach: coach, session: session)
            // The results stay while the lesson stands still; the next pass playing on
            // puts them away after a few seconds (or any key, or a note, at once).
            if session.transport.state == .playing {
                lock.withLock {
                    if shown != nil, let at = shownAt, now - at > Self.resultsSeconds { shown = nil }
                }
            }
        }
        let keys = coach.learnerKeys
        return keys.held.sorted().map { ($0, keys.wrong.contains($0) ? NoteRole.wrong : NoteRole.learner) }
    }

    public var overlay: Overlay? {
        lock.withLock { shown.map { .results($0) } }
    }

    public var modeName: String { coach.mode.rawValue }

    public var wantsPianoKeys: Bool { settings.computerKeyboard && coach.mode.judges }

    /// Memory mode hides the practised notes; the coach adds the learner's keys, flashes and
    /// wait-mode hints. Call with the session's frame (`session.snapshot()`).
    public func decorate(_ model: inout ScreenModel, now: Double) {
        coach.decorate(&model, now: now)
    }

    /// How long the results panel stays once the next pass plays on.
    public static let resultsSeconds = 5.0

    public func handle(_ command: PracticeCommand, session: PracticeSession) -> Bool {
        if command != .quit { lock.withLock { shown = nil } }  // "any key continues"
        switch command {
        case .pianoKey(let semitone):
            guard PracticeCommand.pianoLetters.indices.contains(semitone) else { return true }
            press(PracticeCommand.pianoLetters[semitone], session: session)
            return true
        case .octaveDown:
            press("z", session: session)
            return true
        case .octaveUp:
            press("x", session: session)
            return true
        case .playPause:
            // Keep the coach's clock in step with the learner's own pauses.
            let now = session.now
            lock.withLock { shown = nil }
            switch session.transport.state {
            case .playing: coach.transportPaused(at: now)
            case .paused: coach.transportResumed(at: now)
            default: break
            }
            return false
        case .cycleMode:
            let all = PracticeMode.allCases
            let current = coach.mode
            let next = all[((all.firstIndex(of: current) ?? 0) + 1) % all.count]
            setMode(next, session: session)
            return true
        case .loopWeakestSection:
            loopWeakest(session: session)
            return true
        case .saveLastPass:
            session.show(message: saveLastPass(now: Date()))
            return true
        case .cycleHand, .cycleOtherHand, .toggleLoop, .loopStartHere, .loopEndHere, .restart, .previousBar, .nextBar:
            lock.withLock { shown = nil }
            return false
        default:
            return false
        }
    }

    public func score(for pass: FinishedPassInfo) -> ScoreFigures? {
        if let f = lock.withLock({ figures.removeValue(forKey: pass.pass) }) { return f }
        // The screen may take the pass a moment before its report arrives here; the coach
        // judged it already (the transport asks whether it was clean as it ends).
        let coach = self.coach
        guard coach.mode.judges, let report = coach.lastReport else { return nil }
        return Self.figures(report)
    }

    // MARK: Mode keys

    /// Switches mode from the next pass on (a new coach on the transport's current plan).
    public func setMode(_ mode: PracticeMode, session: PracticeSession) {
        let fresh = Coach(lesson: session.lesson, plan: session.transport.plan, mode: mode, window: settings.window,
                          cleanThreshold: settings.cleanThreshold, onsetOnlyInput: settings.computerKeyboard)
        let wasPaused = lock.withLock { () -> Bool in
            coachValue = fresh
            shown = nil
            let p = pausedByCoach
            pausedByCoach = false
            return p
        }
        if wasPaused { session.resume() }
        // Judge from the start of a pass: restart the bars being played.
        session.handle(.restart)
        let hint = mode.judges && settings.computerKeyboard ? " (play on a w s e d f t g y h u j k; z x octave)" : ""
        session.show(message: "mode \(mode.rawValue)\(hint)")
    }

    /// `W`: loops the weakest section at 70 % with the speed trainer on.
    public func loopWeakest(session: PracticeSession) {
        let coach = self.coach
        let weakest = coach.weakestSection.map { ($0.section.section, $0.name) }
            ?? coach.lastReport?.weakestSection.map { ($0.section, coach.sectionName($0.section)) }
        guard let (index, name) = weakest, let plan = coach.weakSectionPlan(section: index) else {
            session.show(message: "no weakest section yet: play a full pass in wait, play or memory mode first")
            return
        }
        do {
            coach.update(plan: plan)
            lock.withLock { shown = nil; pausedByCoach = false }
            try session.replacePlan(plan)
            session.resume()
            session.show(message: "looping \(name) from 70 % (speed trainer on)")
        } catch {
            session.show(message: error.message)
        }
    }

    /// `r`: writes the last pass as played to `etude-pass-<date>.mid`; returns the message.
    public func saveLastPass(now: Date) -> String {
        guard let bytes = coach.lastPassMIDI() else { return "nothing to save yet: play a pass first" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        var path = (settings.saveDirectory as NSString).appendingPathComponent("etude-pass-\(formatter.string(from: now)).mid")
        var n = 2
        while FileManager.default.fileExists(atPath: path) {
            path = (settings.saveDirectory as NSString).appendingPathComponent("etude-pass-\(formatter.string(from: now))-\(n).mid")
            n += 1
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            return "could not write \(path): check the folder exists and is writable (--save-dir)"
        }
        return "saved the last pass to \(path)"
    }

    /// The history's figures for a pass report.
    public static func figures(_ report: PassReport) -> ScoreFigures { report.figures }

    // MARK: Private

    private func press(_ key: Character, session: PracticeSession) {
        guard let sink = onPianoKey else { return }
        sink(key, session.now)
    }

    /// Applies the coach's actions; never holds this object's lock while calling the session.
    private func apply(_ actions: [CoachAction], coach: Coach, session: PracticeSession) {
        for action in actions {
            switch action {
            case .pauseTransport:
                let now = session.now
                coach.transportPaused(at: now)
                lock.withLock { pausedByCoach = true }
                session.pause()
            case .resumeTransport:
                let was = lock.withLock { () -> Bool in
                    let p = pausedByCoach
                    pausedByCoach = false
                    return p
                }
                if was {
                    session.resume()
                    coach.transportResumed(at: session.now)
                }
            case .passReport(let pass, let percent, let report):
                let info = Coach.resultsInfo(report, pass: pass, percent: percent)
                let f = Self.figures(report)
                let sink = lock.withLock { () -> (@Sendable (PassReport) -> Void)? in
                    shown = info
                    shownAt = session.now
                    figures[pass] = f
                    return reportSink
                }
                sink?(report)
            case .weakestSection(_, let name, _):
                session.show(message: "work on \(name): W loops it at 70 % with the speed trainer")
            case .learnerKeys, .flashWrong, .judged:
                break
            }
        }
    }
}
