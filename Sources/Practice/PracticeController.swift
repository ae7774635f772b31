import Foundation
import Judge
import Lesson

/// Turns the learner's commands (keys on the practice screen, in any front end) into messages to
/// a `PracticeSession` — transport moves (play, bars, loop, tempo, hands), coach changes (mode,
/// weakest section), posted as `SessionCommand`s the runner applies in its turn, so the screen
/// never waits for it — and keeps the screen's own state (help, note names, the message, the
/// loop marks as the session set them: `view`, a `PracticeViewState` the front end reads each
/// frame). The hooks reach what the session does not own: the library (saving and recalling
/// loops), the computer keyboard (piano keys), the folder where `r` saves passes.
///
/// It belongs to the front end's thread (the one that draws and reads keys), so it holds no
/// lock: a command from another thread (a gesture key on the instrument) reaches it through the
/// session (`PracticeSession.command`) and runs here when the view is next read.
public final class PracticeController {
    public enum Outcome: Equatable, Sendable {
        case `continue`, quit
        /// The screen shows its next view (falling notes, staff, both): a view's own business.
        case cycleView
    }

    public let session: PracticeSession
    private var viewValue: PracticeViewState
    /// Where `r` saves passes.
    public var saveDirectory: String
    /// Where `+`/`-` stop: every tempo a plan takes, or a recording's stretch range (the
    /// session's, which applies the keys).
    public var tempoRange: ClosedRange<Double> {
        get { session.tempoRange }
        set { session.tempoRange = newValue }
    }

    public init(session: PracticeSession, saveDirectory: String = FileManager.default.currentDirectoryPath) {
        self.session = session
        self.saveDirectory = saveDirectory
        guide = session.settings.guide
        let bars = session.transport.plan.bars
        viewValue = PracticeViewState(loopMarkStart: bars?.lowerBound, loopMarkEnd: bars?.upperBound)
    }

    /// What the screen shows of its own now (help, names, message, loop marks, results), with
    /// what the runtime posted applied (`PracticeSession.takeNotices()`). The results stay while
    /// the lesson stands still; the next pass playing on puts them away after a few seconds (any
    /// key or note does at once).
    public var view: PracticeViewState {
        absorbNotices()
        let playing = session.transport.state == .playing
        let now = session.now
        return edit { v in
            if playing, v.results != nil, let at = v.resultsShownAt, now - at > PracticeSession.resultsSeconds { v.results = nil }
            return v
        }
    }

    /// Shows a line in the status bar (after any older notice from the runtime).
    public func show(message text: String) {
        absorbNotices()
        viewValue.message = text
    }

    /// Applies what the runtime posted without drawing (a front end with no screen, as a
    /// headless routine entry, calls it on each of its ticks): a gesture's command runs then.
    public func catchUp() {
        absorbNotices()
    }

    /// Applies what the runtime posted, in order; a command posted from another thread runs
    /// here, as if its key had been pressed; a loop to save and the guide as set go to their hooks.
    private func absorbNotices() {
        for n in session.takeNotices() {
            switch n {
            case .command(let command):
                handle(command)
            case .saveLoop(let loop):
                // Empty: said later by the front end (its effects thread).
                if let message = onSaveLoop?(loop), !message.isEmpty { viewValue.message = message }
            case .guide(let on):
                guide = on
                onGuide?(on)
            default:
                n.apply(to: &viewValue)
            }
        }
    }

    /// Puts the results panel away (any key continues).
    private func dismissResults() {
        absorbNotices()
        edit { $0.results = nil }
    }

    private func edit<T>(_ body: (inout PracticeViewState) -> T) -> T {
        body(&viewValue)
    }

    /// Called when the learner presses `s`; returns the message to show, e.g. `saved "bars 5-8
    /// at 70%"`, or "" when the front end says the outcome itself once the loop is saved (its
    /// effects thread, `PracticeSession.show`). Without it `s` says saving is off.
    public var onSaveLoop: (@Sendable (LoopSnapshot) -> String)? {
        didSet { session.savesLoops = onSaveLoop != nil }
    }

    /// Called when the learner presses `L`: the lesson's saved loops, read afresh each time so a
    /// loop just saved with `s` is among them. Each press applies the next one (bars, hand,
    /// tempo, other hand). Without it `L` says saved loops are off.
    public var onRecallLoops: (@Sendable () -> [NamedLoop])?

    /// The lesson's per-bar picture across judged passes (performed bar → notes, faults), from
    /// the history: `W` loops the section that fails most in it.
    public var onBarPicture: (@Sendable () -> [Int: (notes: Int, faults: Int)])?

    /// Writes `r`'s last pass (its .mid bytes) in a folder at a time and returns the message:
    /// the front end's (`PassFile.save` in Reports), so Practice writes no file.
    /// Told each time the learner turns the guide on or off (`G`), to remember it for the lesson.
    public var onGuide: (@Sendable (Bool) -> Void)?
    /// The guide as the learner last set it (`--guide`, `G`).
    public private(set) var guide: Bool

    public var onSavePass: (@Sendable (_ bytes: [UInt8], _ directory: String, _ now: Date) -> String)?

    /// Where computer-keyboard piano keys go (`InputHookup.press`), with the clock time.
    public var onPianoKey: (@Sendable (Character, Double) -> Void)?

    /// A key from the screen, as its command (nil for a key that means nothing here): any key
    /// — Esc and q included — closes the help first, and nothing else.
    public func handle(keyCommand command: PracticeCommand?) -> Outcome {
        if edit({ v -> Bool in
            defer { v.showHelp = false }
            return v.showHelp
        }) {
            return .continue
        }
        guard let command else { return .continue }
        return handle(command)
    }

    /// Applies one command; `.quit` ends the screen. Never waits for the runner: what changes
    /// the music (play, bars, loops, tempo, hands, mode…) is posted to the session
    /// (`SessionCommand`) and applied there in its turn; its messages and loop marks come back
    /// as notices, read with the next `view`. The screen's own keys (help, view, quit, the
    /// piano keys, `r`) act here at once.
    @discardableResult
    public func handle(_ command: PracticeCommand) -> Outcome {
        let s = session
        // What the session applied already comes back at once (at once on a virtual clock).
        defer { absorbNotices() }
        // With the help up, a command closes it and does nothing else.
        if command != .toggleHelp, edit({ v -> Bool in
            defer { v.showHelp = false }
            return v.showHelp
        }) {
            return .continue
        }
        // Any key but quit puts the results away at once (held, the session plays on in its turn).
        if command != .quit && !s.isHeldForResults { dismissResults() }
        switch command {
        case .quit:
            return .quit
        case .toggleHelp, .cycleView, .saveLastPass, .goToBar, .pianoKey, .octaveDown, .octaveUp:
            // Results holding the transport (as last published): the key plays on and does
            // nothing else (the session releases the hold in its turn).
            if s.isHeldForResults {
                s.post(.apply(.key(command)))
                return .continue
            }
        case .recallLoop:
            guard let hook = onRecallLoops else {
                if s.isHeldForResults { s.post(.apply(.key(command))) } else {
                    show(message: "saved loops need the library (it could not be opened)")
                }
                return .continue
            }
            s.post(.apply(.recallLoop(hook())))
            return .continue
        case .loopWeakestSection:
            let acrossPasses = onBarPicture.flatMap { PassJudging.weakestSection(picture: $0(), lesson: s.lesson) }
            s.post(.apply(.loopWeakest(acrossPasses: acrossPasses)))
            return .continue
        default:
            s.post(.apply(.key(command)))
            return .continue
        }
        switch command {
        case .toggleHelp:
            edit { $0.showHelp.toggle() }
        case .cycleView:
            return .cycleView
        case .saveLastPass:
            // Empty: the front end says the outcome itself, later (its effects thread).
            let message = saveLastPass(now: Date())
            if !message.isEmpty { show(message: message) }
        case .pianoKey(let semitone) where PracticeCommand.pianoLetters.indices.contains(semitone):
            press(PracticeCommand.pianoLetters[semitone])
        case .octaveDown:
            press("z")
        case .octaveUp:
            press("x")
        default:
            break  // `.goToBar`: the screen asks for the number, then calls `goToBar(_:)`
        }
        return .continue
    }

    /// Practises with a whole new plan from its first bar (`PracticeSession.replacePlan`, which
    /// waits for the runner: for tests and callers off the screen); the loop marks follow its bars.
    public func replacePlan(_ plan: PracticePlan) throws(PlanError) {
        try session.replacePlan(plan)
    }

    /// `r`: hands the last pass as played (.mid bytes) to `onSavePass`, which writes
    /// `etude-pass-<date>.mid` in `saveDirectory`; returns the message.
    public func saveLastPass(now: Date) -> String {
        guard let bytes = session.coach.lastPassMIDI() else { return "nothing to save yet: play a pass first" }
        guard let save = onSavePass else { return "saving passes is off here" }
        return save(bytes, saveDirectory, now)
    }

    // MARK: Private

    private func press(_ key: Character) {
        onPianoKey?(key, session.now)
    }

    /// `g` 40 Enter: to bar 40 as the learner names it (a score's printed number, `12@2` the
    /// second time through), as `--bars` reads it; a bar outside the loop or the lesson is a
    /// message saying what would work. Posted: the session moves there in its turn.
    public func goToBar(_ text: String) {
        session.post(.apply(.goToBar(text)))
    }
}
