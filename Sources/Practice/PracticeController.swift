import Foundation
import Judge
import Lesson

/// Turns the learner's commands (keys on the practice screen, in any front end) into changes to
/// a `PracticeSession`: transport moves (play, bars, loop, tempo, hands), coach changes (mode,
/// weakest section) and the screen's own state (help, note names, the message, the loop marks
/// being typed: `view`, a `PracticeViewState` the front end reads each frame; the session holds
/// none of it). The hooks reach
/// what the session does not own: the library (saving and recalling loops), the computer
/// keyboard (piano keys), the folder where `r` saves passes.
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
    private var recallIndex = 0
    private var viewValue: PracticeViewState
    /// Where `r` saves passes.
    public var saveDirectory: String
    /// Where `+`/`-` stop: every tempo a plan takes, or a recording's stretch range.
    public var tempoRange: ClosedRange<Double> = TempoPercent.range

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
    /// here, as if its key had been pressed.
    private func absorbNotices() {
        for n in session.takeNotices() {
            if case .command(let command) = n {
                handle(command)
            } else {
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
    public var onSaveLoop: (@Sendable (LoopSnapshot) -> String)?

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

    /// Applies one command; `.quit` ends the screen.
    @discardableResult
    public func handle(_ command: PracticeCommand) -> Outcome {
        let s = session
        // With the help up, a command closes it and does nothing else.
        if command != .toggleHelp, edit({ v -> Bool in
            defer { v.showHelp = false }
            return v.showHelp
        }) {
            return .continue
        }
        // Results holding the transport: any key but quit plays on (with the count-in); W,
        // which the panel's weakest section invites, plays on into its loop.
        if command != .quit, s.releaseHold(), command != .loopWeakestSection { return .continue }
        // Any key but quit puts the results away.
        if command != .quit { dismissResults() }
        let transport = s.transport
        switch command {
        case .quit:
            return .quit
        case .pianoKey(let semitone):
            guard PracticeCommand.pianoLetters.indices.contains(semitone) else { break }
            press(PracticeCommand.pianoLetters[semitone])
        case .octaveDown:
            press("z")
        case .octaveUp:
            press("x")
        case .playPause:
            switch transport.state {
            case .playing: s.pause()
            case .finished:
                s.restartPassCount()
                s.resume()
            default: s.resume()
            }
        case .previousBar, .nextBar:
            let range = transport.bars
            let current = transport.position(at: s.now).bar
            let target = min(max(current + (command == .nextBar ? 1 : -1), range.lowerBound), range.upperBound)
            seekKeepingState(target)
            show(message: "bar \(s.lesson.bars.label(number: target))")
        case .restart:
            seekKeepingState(transport.bars.lowerBound)
            show(message: "from bar \(s.lesson.bars.label(number: transport.bars.lowerBound))")
        case .loopStartHere:
            s.loopName = nil
            let bar = currentBar()
            let end = edit { v -> Int? in
                v.loopMarkStart = bar
                if let end = v.loopMarkEnd, end < bar { v.loopMarkEnd = nil }
                return v.loopMarkEnd
            }
            if let end {
                applyLoop(bar...end)
            } else {
                show(message: "loop from bar \(s.lesson.bars.label(number: bar)): press ] at its last bar")
            }
        case .loopEndHere:
            s.loopName = nil
            let bar = currentBar()
            let start = edit { v -> Int in
                let start = min(v.loopMarkStart ?? transport.bars.lowerBound, bar)
                v.loopMarkStart = start
                v.loopMarkEnd = bar
                return start
            }
            applyLoop(start...bar)
        case .toggleLoop:
            let marks = edit { ($0.loopMarkStart, $0.loopMarkEnd) }
            if s.isLoopOn {
                setLoop(nil)
                s.loopName = nil
                show(message: "loop off")
            } else if let a = marks.0, let b = marks.1 {
                applyLoop(a...b)
            } else {
                show(message: "set a loop first: [ at its first bar, ] at its last")
            }
        case .tempoUp, .tempoDown:
            let current = transport.tempoPercent
            let stepped = TempoPercent.clamped(current).stepped(up: command == .tempoUp).value
            let next = min(tempoRange.upperBound, max(tempoRange.lowerBound, stepped))
            if next != current {
                try? s.perform { t throws(PlanError) in try t.setTempo(percent: next) }
            }
            show(message: "tempo \(TempoPercent.text(next))%")
        case .cycleHand:
            let plan = transport.plan
            let order: [PracticePlan.Hands] = [.both, .right, .left]
            let start = order.firstIndex(of: plan.hands) ?? 0
            for step in 1...order.count {
                let h = order[(start + step) % order.count]
                do {
                    try s.perform { t throws(PlanError) in try t.setHands(h, other: plan.otherHand) }
                    s.planChanged()
                    show(message: h == .both ? "both hands" : "\(h.rawValue) hand")
                    break
                } catch {
                    continue
                }
            }
        case .cycleOtherHand:
            let plan = transport.plan
            let next: PracticePlan.OtherHand
            switch plan.otherHand {
            case .play: next = .quietDefault
            case .quiet: next = .mute
            case .mute: next = .play
            }
            try? s.perform { t throws(PlanError) in try t.setHands(plan.hands, other: next) }
            show(message: "other hand: \(next.name)")
        case .toggleGuide:
            guide.toggle()
            s.setGuide(guide)
            onGuide?(guide)
            let inWatch = s.mode.judges ? "" : " (heard from wait, play and memory mode)"
            show(message: guide ? "guide on: your part sounds quietly on Etude's synth\(inWatch)" : "guide off: Etude never sounds your part")
        case .toggleFollow:
            let want = !s.isFollowing
            let on = s.setFollowing(want)
            if want {
                let byEar = s.followingByEarMs.map { ", by ear (+\($0) ms made up)" } ?? ""
                show(message: on ? "following your tempo\(byEar): Etude's part waits for you and keeps your pace"
                                 : "follow works in play and memory mode (M changes the mode)")
            } else {
                show(message: "Etude's part keeps the lesson's tempo again")
            }
        case .toggleMetronome:
            let on = !transport.plan.metronome.enabled
            s.perform { $0.setMetronome(enabled: on) }
            show(message: on ? "metronome on" : "metronome off")
        case .toggleNoteNames:
            let on = edit { v -> Bool in
                v.showNoteNames.toggle()
                return v.showNoteNames
            }
            show(message: on ? "note names on" : "note names off")
        case .toggleHelp:
            edit { $0.showHelp.toggle() }
        case .cycleView:
            return .cycleView
        case .saveLoop:
            let plan = transport.plan
            guard let bars = plan.bars else {
                show(message: "no loop to save: mark one with [ and ], then s saves it")
                return .continue
            }
            let printed = s.lesson.bars.isPrinted ? s.lesson.bars.label(ofRange: bars).replacingOccurrences(of: "–", with: "-") : nil
            let snapshot = LoopSnapshot(bars: bars, hands: plan.hands, tempoPercent: transport.tempoPercent, otherHand: plan.otherHand,
                                        printedBars: printed)
            if let hook = onSaveLoop {
                let message = hook(snapshot)
                s.loopName = snapshot.autoName
                if !message.isEmpty { show(message: message) }  // empty: said later by the front end
            } else {
                show(message: "saving loops needs the library (it could not be opened)")
            }
        case .recallLoop:
            recallNextLoop()
        case .cycleMode:
            let next = s.mode.next
            s.setMode(next)
            let hint = next.judges && s.settings.computerKeyboard ? " (play on a w s e d f t g y h u j k; z x octave)" : ""
            show(message: "mode \(next.rawValue)\(hint)")
        case .loopWeakestSection:
            loopWeakest()
        case .saveLastPass:
            // Empty: the front end says the outcome itself, later (its effects thread).
            let message = saveLastPass(now: Date())
            if !message.isEmpty { show(message: message) }
        case .goToBar:
            break  // the screen asks for the number, then calls `goToBar(_:)`
        }
        return .continue
    }

    // MARK: Mode keys

    /// `W`: loops the weakest section at 70 % with the speed trainer on.
    public func loopWeakest() {
        let s = session
        let coach = s.coach
        // Across passes first (the bars that fail most), else the last full run, else the last pass.
        let acrossPasses = onBarPicture.flatMap { PassJudging.weakestSection(picture: $0(), lesson: s.lesson) }
        let weakest = acrossPasses.map { ($0, coach.sectionName($0)) }
            ?? coach.weakestSection.map { ($0.section.section, $0.name) }
            ?? coach.lastReport?.weakestSection.map { ($0.section, coach.sectionName($0.section)) }
        guard let (index, name) = weakest, let plan = coach.weakSectionPlan(section: index) else {
            show(message: "no weakest section yet: play a full pass in wait, play or memory mode first")
            return
        }
        do {
            try replacePlan(plan)
            s.resume()
            show(message: "looping \(name) from \(PracticePlan.format(plan.speedTrainer?.start ?? 70)) % (speed trainer on)")
        } catch {
            show(message: error.message)
        }
    }

    /// Practises with a whole new plan from its first bar (`PracticeSession.replacePlan`); the
    /// loop marks follow its bars.
    public func replacePlan(_ plan: PracticePlan) throws(PlanError) {
        try session.replacePlan(plan)
        if let bars = plan.bars {
            edit { v in
                v.loopMarkStart = bars.lowerBound
                v.loopMarkEnd = bars.upperBound
            }
        }
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

    private func currentBar() -> Int {
        session.transport.position(at: session.now).bar
    }

    /// `L`: the next saved loop, with its hand, other hand and tempo; the loop marks follow, so
    /// `l` turns it off and on again.
    private func recallNextLoop() {
        let s = session
        guard let hook = onRecallLoops else {
            show(message: "saved loops need the library (it could not be opened)")
            return
        }
        let loops = hook()
        guard !loops.isEmpty else {
            show(message: "no saved loops for this lesson yet: set one with [ and ], save it with s")
            return
        }
        let index = recallIndex % loops.count
        recallIndex = index + 1
        let choice = loops[index]
        let loop = choice.loop
        // Checked whole before anything changes: a loop this lesson cannot play leaves it as it was.
        var candidate = s.transport.plan
        candidate.bars = loop.bars
        candidate.hands = loop.hands
        candidate.otherHand = loop.otherHand
        do throws(PlanError) {
            try candidate.validate(for: s.lesson)
            _ = try TempoPercent(loop.tempoPercent)
            try s.perform { t throws(PlanError) in try t.setHands(loop.hands, other: loop.otherHand) }
            try s.perform { t throws(PlanError) in try t.setTempo(percent: loop.tempoPercent) }
        } catch {
            show(message: "loop \"\(choice.name)\": \(error.message)")
            return
        }
        setLoop(loop.bars)
        guard s.transport.plan.bars == loop.bars else { return }   // setLoop said why not
        edit { v in
            v.loopMarkStart = loop.bars.lowerBound
            v.loopMarkEnd = loop.bars.upperBound
        }
        s.loopName = choice.name
        var text = "loop \"\(choice.name)\" (\(index + 1)/\(loops.count)): bars \(session.lesson.bars.label(ofRange: loop.bars))"
        text += loop.hands == .both ? ", both hands" : ", \(loop.hands.rawValue) hand"
        text += ", \(TempoPercent.text(loop.tempoPercent))%"
        show(message: text)
    }

    private func applyLoop(_ bars: ClosedRange<Int>) {
        setLoop(bars)
        show(message: "loop bars \(session.lesson.bars.label(ofRange: bars))")
    }

    private func setLoop(_ bars: ClosedRange<Int>?) {
        let s = session
        do {
            try s.perform { t throws(PlanError) in try t.setLoop(bars) }
            s.loopChanged(enabled: bars != nil)
        } catch {
            show(message: error.message)
        }
    }

    /// `g` 40 Enter: to bar 40 as the learner names it (a score's printed number, `12@2` the
    /// second time through), as `--bars` reads it; a bar outside the loop or the lesson is a
    /// message saying what would work.
    public func goToBar(_ text: String) {
        let s = session
        let bars = s.lesson.bars
        let target: Int
        do {
            target = try bars.range(parsing: text, option: "bar").lowerBound
        } catch {
            show(message: error.message)
            return
        }
        let range = s.transport.bars
        guard range.contains(target) else {
            show(message: "bar \(bars.label(number: target)) is outside the loop (bars \(bars.label(ofRange: range))): l turns the loop off")
            return
        }
        dismissResults()
        seekKeepingState(target)
        show(message: "bar \(bars.label(number: target))")
    }

    /// Seeks; a stopped or finished transport stays paused there, a playing one plays on.
    private func seekKeepingState(_ bar: Int) {
        try? session.perform { t throws(PlanError) in try t.seek(toBar: bar) }
    }
}
