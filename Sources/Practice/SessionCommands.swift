import Foundation
import Judge
import Lesson

/// The learner's commands as the runtime applies them: on the owner, in their turn in the
/// mailbox (`PracticeMessage.apply`), never with the screen waiting. What a command says
/// ("tempo 105%", "loop bars 9–12"), the loop marks it sets and what the front end must do for
/// it (save a loop, remember the guide) go back to the front end as `PracticeNotice`s, in order.
extension PracticeSession {
    /// One command, on the owner.
    func apply(_ command: SessionCommand) {
        switch command {
        case .key(let key):
            applyKey(key)
        case .recallLoop(let loops):
            guard !releasedByKey(.recallLoop) else { return }
            recallNextLoop(loops)
        case .loopWeakest(let acrossPasses):
            _ = releasedByKey(.loopWeakestSection)
            loopWeakest(acrossPasses: acrossPasses)
        case .goToBar(let text):
            goToBar(text)
        case .pause:
            pauseNow()
        case .resume:
            resumeNow()
        case .gain(let gain):
            fader?.setGain(gain)  // the output is the runner's while it plays
        }
    }

    /// Results holding the transport: any key but quit plays on (with the count-in) and does
    /// nothing else — but W, which the panel's weakest section invites, plays on into its loop.
    /// True when the key was used up by the release. (The front end put the results away as
    /// the key was pressed.)
    private func releasedByKey(_ key: PracticeCommand) -> Bool {
        guard key != .quit else { return false }
        return releaseHeld() && key != .loopWeakestSection
    }

    private func say(_ text: String) { notify(.message(text)) }

    private func applyKey(_ command: PracticeCommand) {
        guard !releasedByKey(command) else { return }
        let transport = self.transport
        switch command {
        case .quit, .toggleHelp, .cycleView, .goToBar, .pianoKey, .octaveDown, .octaveUp, .saveLastPass:
            break  // the screen's own: here only to put the results away or play on
        case .recallLoop, .loopWeakestSection:
            break  // with what the front end read from the library: `.recallLoop`, `.loopWeakest`
        case .toggleNoteNames:
            notify(.toggleNoteNames)
        case .playPause:
            switch transport.state {
            case .playing: pauseNow()
            case .finished:
                restartPassCount()
                resumeNow()
            default: resumeNow()
            }
        case .previousBar, .nextBar:
            let range = transport.bars
            let current = transport.position(at: now).bar
            let target = min(max(current + (command == .nextBar ? 1 : -1), range.lowerBound), range.upperBound)
            seekKeepingState(target)
            say("bar \(lesson.bars.label(number: target))")
        case .restart:
            seekKeepingState(transport.bars.lowerBound)
            say("from bar \(lesson.bars.label(number: transport.bars.lowerBound))")
        case .loopStartHere:
            loopName = nil
            let bar = currentBar()
            var marks = loopMarks
            marks.start = bar
            if let end = marks.end, end < bar { marks.end = nil }
            setLoopMarks(marks)
            if let end = marks.end {
                applyLoop(bar...end)
            } else {
                say("loop from bar \(lesson.bars.label(number: bar)): press ] at its last bar")
            }
        case .loopEndHere:
            loopName = nil
            let bar = currentBar()
            let start = min(loopMarks.start ?? transport.bars.lowerBound, bar)
            setLoopMarks((start, bar))
            applyLoop(start...bar)
        case .toggleLoop:
            let marks = loopMarks
            if owned.loopOn {
                setLoop(nil)
                loopName = nil
                say("loop off")
            } else if let a = marks.start, let b = marks.end {
                applyLoop(a...b)
            } else {
                say("set a loop first: [ at its first bar, ] at its last")
            }
        case .tempoUp, .tempoDown:
            let current = transport.tempoPercent
            let stepped = TempoPercent.clamped(current).stepped(up: command == .tempoUp).value
            let range = tempoRange
            let next = min(range.upperBound, max(range.lowerBound, stepped))
            if next != current {
                try? perform { t throws(PlanError) in try t.setTempo(percent: next) }
            }
            say("tempo \(TempoPercent.text(next))%")
        case .cycleHand:
            let plan = transport.plan
            let order: [PracticePlan.Hands] = [.both, .right, .left]
            let start = order.firstIndex(of: plan.hands) ?? 0
            for step in 1...order.count {
                let h = order[(start + step) % order.count]
                do {
                    try perform { t throws(PlanError) in try t.setHands(h, other: plan.otherHand) }
                    planChanged()
                    say(h == .both ? "both hands" : "\(h.rawValue) hand")
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
            try? perform { t throws(PlanError) in try t.setHands(plan.hands, other: next) }
            say("other hand: \(next.name)")
        case .toggleGuide:
            let on = !owned.guide
            setGuide(on)
            notify(.guide(on))
            let inWatch = owned.coach.mode.judges ? "" : " (heard from wait, play and memory mode)"
            say(on ? "guide on: your part sounds quietly on Etude's synth\(inWatch)" : "guide off: Etude never sounds your part")
        case .toggleFollow:
            let want = !owned.following
            let on = setFollowing(want)
            if want {
                let byEar = followingByEarMs.map { ", by ear (+\($0) ms made up)" } ?? ""
                say(on ? "following your tempo\(byEar): Etude's part waits for you and keeps your pace"
                       : "follow works in play and memory mode (M changes the mode)")
            } else {
                say("Etude's part keeps the lesson's tempo again")
            }
        case .toggleMetronome:
            let on = !transport.plan.metronome.enabled
            perform { $0.setMetronome(enabled: on) }
            say(on ? "metronome on" : "metronome off")
        case .saveLoop:
            let plan = transport.plan
            guard let bars = plan.bars else {
                say("no loop to save: mark one with [ and ], then s saves it")
                return
            }
            guard savesLoops else {
                say("saving loops needs the library (it could not be opened)")
                return
            }
            let printed = lesson.bars.isPrinted ? lesson.bars.label(ofRange: bars).replacingOccurrences(of: "–", with: "-") : nil
            let snapshot = LoopSnapshot(bars: bars, hands: plan.hands, tempoPercent: transport.tempoPercent, otherHand: plan.otherHand,
                                        printedBars: printed)
            notify(.saveLoop(snapshot))  // the front end saves it and says so
            loopName = snapshot.autoName
        case .cycleMode:
            let next = owned.coach.mode.next
            setMode(next)
            let hint = next.judges && settings.computerKeyboard ? " (play on a w s e d f t g y h u j k; z x octave)" : ""
            say("mode \(next.rawValue)\(hint)")
        }
    }

    // MARK: Mode keys

    /// `W`: loops the weakest section at 70 % with the speed trainer on: across passes first
    /// (the bars that fail most), else the last full run, else the last pass.
    private func loopWeakest(acrossPasses: Int?) {
        let coach = owned.coach
        let weakest = acrossPasses.map { ($0, coach.sectionName($0)) }
            ?? coach.weakestSection.map { ($0.section.section, $0.name) }
            ?? coach.lastReport?.weakestSection.map { ($0.section, coach.sectionName($0.section)) }
        guard let (index, name) = weakest, let plan = coach.weakSectionPlan(section: index) else {
            say("no weakest section yet: play a full pass in wait, play or memory mode first")
            return
        }
        do {
            try replacePlan(plan)
            resumeNow()
            say("looping \(name) from \(PracticePlan.format(plan.speedTrainer?.start ?? 70)) % (speed trainer on)")
        } catch {
            say(error.message)
        }
    }

    /// `L`: the next saved loop, with its hand, other hand and tempo; the loop marks follow, so
    /// `l` turns it off and on again.
    private func recallNextLoop(_ loops: [NamedLoop]) {
        guard !loops.isEmpty else {
            say("no saved loops for this lesson yet: set one with [ and ], save it with s")
            return
        }
        let index = nextRecall(of: loops.count)
        let choice = loops[index]
        let loop = choice.loop
        // Checked whole before anything changes: a loop this lesson cannot play leaves it as it was.
        var candidate = transport.plan
        candidate.bars = loop.bars
        candidate.hands = loop.hands
        candidate.otherHand = loop.otherHand
        do throws(PlanError) {
            try candidate.validate(for: lesson)
            _ = try TempoPercent(loop.tempoPercent)
            try perform { t throws(PlanError) in try t.setHands(loop.hands, other: loop.otherHand) }
            try perform { t throws(PlanError) in try t.setTempo(percent: loop.tempoPercent) }
        } catch {
            say("loop \"\(choice.name)\": \(error.message)")
            return
        }
        setLoop(loop.bars)
        guard transport.plan.bars == loop.bars else { return }   // setLoop said why not
        setLoopMarks((loop.bars.lowerBound, loop.bars.upperBound))
        loopName = choice.name
        var text = "loop \"\(choice.name)\" (\(index + 1)/\(loops.count)): bars \(lesson.bars.label(ofRange: loop.bars))"
        text += loop.hands == .both ? ", both hands" : ", \(loop.hands.rawValue) hand"
        text += ", \(TempoPercent.text(loop.tempoPercent))%"
        say(text)
    }

    // MARK: Bars and loops

    private func currentBar() -> Int {
        transport.position(at: now).bar
    }

    private func applyLoop(_ bars: ClosedRange<Int>) {
        setLoop(bars)
        say("loop bars \(lesson.bars.label(ofRange: bars))")
    }

    private func setLoop(_ bars: ClosedRange<Int>?) {
        do {
            try perform { t throws(PlanError) in try t.setLoop(bars) }
            loopChanged(enabled: bars != nil)
        } catch {
            say(error.message)
        }
    }

    /// `g` 40 Enter: to bar 40 as the learner names it (a score's printed number, `12@2` the
    /// second time through), as `--bars` reads it; a bar outside the loop or the lesson is a
    /// message saying what would work.
    private func goToBar(_ text: String) {
        let bars = lesson.bars
        let target: Int
        do {
            target = try bars.range(parsing: text, option: "bar").lowerBound
        } catch {
            say(error.message)
            return
        }
        let range = transport.bars
        guard range.contains(target) else {
            say("bar \(bars.label(number: target)) is outside the loop (bars \(bars.label(ofRange: range))): l turns the loop off")
            return
        }
        notify(.resultsAway)
        seekKeepingState(target)
        say("bar \(bars.label(number: target))")
    }

    /// Seeks; a stopped or finished transport stays paused there, a playing one plays on.
    private func seekKeepingState(_ bar: Int) {
        try? perform { t throws(PlanError) in try t.seek(toBar: bar) }
    }
}
