@testable import App
import Clocks
import Foundation
@testable import FrontEnd
import Lesson
import MIDIFile
import Practice
import Screen
import Synth
import Terminal
import Testing

/// The practice controller on a virtual clock: keys → transport changes → what the screen shows.
@Suite("Practice session")
struct PracticeSessionTests {
    /// Eight 4/4 bars at 120 BPM (2 s a bar): right hand quarter notes C5…, left hand whole notes C3.
    func lesson() -> Lesson {
        var right: [MIDIEvent] = [
            MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("Right Hand".utf8))),
            MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20])),
            MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: [4, 2, 24, 8])),
        ]
        var left: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("Left Hand".utf8)))]
        for i in 0..<32 {
            right.append(Fingering.event(tick: i * 480, pitch: 72 + i % 8, finger: 1 + i % 5))
            right.append(MIDIEvent(tick: i * 480, .noteOn(channel: 0, key: UInt8(72 + i % 8), velocity: 80)))
            right.append(MIDIEvent(tick: i * 480 + 400, .noteOff(channel: 0, key: UInt8(72 + i % 8), velocity: 0)))
        }
        for b in 0..<8 {
            left.append(Fingering.event(tick: b * 1920, pitch: 48, finger: 5))
            left.append(MIDIEvent(tick: b * 1920, .noteOn(channel: 1, key: 48, velocity: 70)))
            left.append(MIDIEvent(tick: b * 1920 + 1800, .noteOff(channel: 1, key: 48, velocity: 0)))
        }
        right.append(MIDIEvent(tick: 15_360, .meta(type: MetaType.endOfTrack, data: [])))
        left.append(MIDIEvent(tick: 15_360, .meta(type: MetaType.endOfTrack, data: [])))
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [Track(events: right), Track(events: left)])
        return Lesson(file: file, fileName: "eight.mid")
    }

    func session(_ plan: PracticePlan = PracticePlan(repeatMode: .forever))
        throws -> (SessionHarness, VirtualClock, RecordingOutput) {
        let clock = VirtualClock()
        let output = RecordingOutput(clock: { clock.now })
        let s = try SessionHarness(lesson: lesson(), plan: plan, clock: clock, output: output)
        return (s, clock, output)
    }

    func play(_ s: SessionHarness, _ clock: VirtualClock, until time: Double) {
        while clock.now < time {
            clock.advance(by: min(0.05, time - clock.now))
            s.advance()
        }
    }

    @Test func barCounterBPMAndLitKeysFollowTheTransport() throws {
        let (s, clock, output) = try session()
        s.start()
        play(s, clock, until: 4.1)
        let m = s.snapshot()
        #expect(m.status.bar == 3)
        #expect(m.status.playing)
        #expect(m.status.bpm == 120)
        #expect(m.status.bars == 8)
        #expect(m.keyboard[48] == .leftHand)
        #expect(m.keyboard[72] == .rightHand)
        #expect(m.notes.contains { $0.pitch == 73 && $0.start > 0 && $0.role == .rightHand })
        #expect(m.barLines.first?.bar == 4)
        #expect(output.messages.contains(.noteOn(channel: 0, key: 72, velocity: 80)))
    }

    /// A score marks a 3/8 minuet in eighths and a 6/8 jig in dotted quarters; so does the header.
    @Test(arguments: [(3, 60.0, "♪=120 (100%)"), (6, 60.0, "♩.=40 (100%)"), (4, 60.0, "♩=60 (100%)")])
    func headerShowsTheTempoInTheBeatsNoteValue(eighthsOrQuarters: Int, quarterBPM: Double, shown: String) throws {
        let denominator = eighthsOrQuarters == 4 ? 4 : 8
        let barTicks = eighthsOrQuarters * (denominator == 8 ? 240 : 480)
        var events = [MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: [UInt8(eighthsOrQuarters), denominator == 8 ? 3 : 2, 24, 8]))]
        let us = Int(60_000_000 / quarterBPM)
        events.append(MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xFF), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)])))
        for b in 0..<4 {
            events.append(MIDIEvent(tick: b * barTicks, .noteOn(channel: 0, key: 72, velocity: 80)))
            events.append(MIDIEvent(tick: b * barTicks + 200, .noteOff(channel: 0, key: 72, velocity: 0)))
        }
        events.append(MIDIEvent(tick: 4 * barTicks, .meta(type: MetaType.endOfTrack, data: [])))
        let lesson = Lesson(file: MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)]), fileName: "beat.mid")
        let clock = VirtualClock()
        let s = try SessionHarness(lesson: lesson, plan: PracticePlan(repeatMode: .times(1)), clock: clock,
                                   output: RecordingOutput(clock: { clock.now }))
        let status = s.snapshot().status
        #expect(StatusBarWidget.firstLineRight(status).hasSuffix(shown), "\(StatusBarWidget.firstLineRight(status))")
    }

    /// The count-in is on the header, beat by beat, and gives way to bar 1 when the music starts.
    @Test func theCountInIsShownBeatByBeat() throws {
        var plan = PracticePlan(repeatMode: .times(1))
        plan.countIn = true
        let (s, clock, _) = try session(plan)
        s.start()
        var status = s.snapshot().status
        #expect(status.countIn == "count-in 1/4" && StatusBarWidget.firstLineRight(status).hasPrefix("count-in 1/4 → bar 1/8"))
        play(s, clock, until: 1.1)   // 120 BPM: a beat is 0.5 s
        #expect(s.snapshot().status.countIn == "count-in 3/4")
        play(s, clock, until: 2.1)
        status = s.snapshot().status
        #expect(status.countIn == nil && StatusBarWidget.firstLineRight(status).hasPrefix("bar 1:1/8"), "\(StatusBarWidget.firstLineRight(status))")
    }

    @Test func tempoKeysStepFivePercentAndShowTheBPM() throws {
        let (s, clock, _) = try session()
        s.start()
        play(s, clock, until: 1)
        s.handle(.tempoDown)
        s.handle(.tempoDown)
        var m = s.snapshot()
        #expect(m.status.tempoPercent == 90)
        #expect(m.status.bpm == 108)
        #expect(m.message == "tempo 90%")
        s.handle(.tempoUp)
        m = s.snapshot()
        #expect(m.status.tempoPercent == 95)
    }

    @Test func withARecordingTheTempoKeysStopAtItsStretchRange() throws {
        let (s, clock, _) = try session()
        s.controller.tempoRange = RecordingPractice.tempoRange
        s.start()
        play(s, clock, until: 1)
        for _ in 0..<20 { s.handle(.tempoUp) }
        #expect(s.snapshot().status.tempoPercent == 150)
        for _ in 0..<40 { s.handle(.tempoDown) }
        #expect(s.snapshot().status.tempoPercent == 50)
        #expect(s.snapshot().message == "tempo 50%")
    }

    @Test func loopKeysSetTheLoopAndPassesAreCounted() throws {
        let (s, clock, _) = try session()
        s.start()
        play(s, clock, until: 2.5)  // bar 2
        s.handle(.loopStartHere)
        #expect(s.snapshot().status.loop == nil)
        #expect(s.snapshot().message == "loop from bar 2: press ] at its last bar")
        s.handle(.nextBar)
        s.handle(.loopEndHere)
        var m = s.snapshot()
        #expect(m.status.loop == LoopStatus(startBar: 2, endBar: 3, enabled: true, pass: 0))
        #expect(m.timeline.loopStart == 1 && m.timeline.loopEnd == 3 && m.timeline.loopEnabled)
        #expect(m.status.bar == 2)
        play(s, clock, until: clock.now + 8.1)  // two passes of 4 s
        m = s.snapshot()
        #expect(m.status.loop?.pass == 2)
        #expect(m.status.bar == 2)
        let passes = s.takeFinishedPasses()
        #expect(passes.map(\.bars) == [2...3, 2...3])
        #expect(passes.allSatisfy { abs($0.durationSeconds - 4) < 1e-9 && $0.isLoop })
        s.handle(.toggleLoop)
        #expect(s.snapshot().status.loop?.enabled == false)
        #expect(s.transport.bars == 1...8)
    }

    @Test func pauseSilencesAndHandOtherHandMetronomeKeysChangeThePlan() throws {
        let (s, clock, output) = try session()
        s.start()
        play(s, clock, until: 0.5)
        s.handle(.playPause)
        #expect(!s.snapshot().status.playing)
        #expect(output.messages.contains(.noteOff(channel: 1, key: 48, velocity: 0)))
        s.handle(.cycleHand)
        #expect(s.transport.plan.hands == .right)
        s.handle(.cycleOtherHand)
        #expect(s.snapshot().status.otherHand == "quiet")
        s.handle(.cycleOtherHand)
        #expect(s.snapshot().status.otherHand == "mute")
        s.handle(.toggleMetronome)
        #expect(s.snapshot().status.metronome)
        s.handle(.toggleHelp)
        #expect(s.snapshot().overlay == .help)
        #expect(s.handle(key: Key("x")) == .continue)  // any key closes help
        #expect(s.snapshot().overlay == nil)
        #expect(s.handle(key: Key("q")) == .quit)
        s.stop()
        #expect(output.recorded.last?.entry == .allNotesOff)
    }

    @Test func saveKeyHandsTheLoopToTheHookWithAnAutomaticName() throws {
        var plan = PracticePlan(repeatMode: .forever)
        plan.bars = 5...8
        plan.tempo = .percent(70)
        let (s, _, _) = try session(plan)
        let saved = LockedBox<LoopSnapshot?>(nil)
        s.onSaveLoop = { loop in saved.value = loop; return "saved \(loop.autoName)" }
        s.handle(.saveLoop)
        #expect(saved.value?.autoName == "bars 5-8 at 70%")
        #expect(s.snapshot().message == "saved bars 5-8 at 70%")
        #expect(s.loopName == "bars 5-8 at 70%")
    }

    @Test func saveKeyWithNoLoopSetSaysHowToMarkOne() throws {
        let (s, _, _) = try session(PracticePlan(repeatMode: .times(1)))
        let saved = LockedBox<LoopSnapshot?>(nil)
        s.onSaveLoop = { loop in saved.value = loop; return "saved \(loop.autoName)" }
        s.handle(.saveLoop)
        #expect(saved.value == nil)
        #expect(s.snapshot().message == "no loop to save: mark one with [ and ], then s saves it")
    }

    @Test func stoppingMidPassHandsOutTheUnfinishedPassForItsTimeOnly() throws {
        let (s, clock, _) = try session(PracticePlan(repeatMode: .times(1)))
        s.start()
        play(s, clock, until: 5)
        s.stop()
        let passes = s.takeFinishedPasses()
        #expect(passes.count == 1)
        #expect(passes.first?.complete == false)
        #expect(abs((passes.first?.durationSeconds ?? 0) - 5) < 0.06)
        #expect(passes.first?.bars == 1...8 && passes.first?.hands == .both)
        s.stop()   // twice: nothing more
        #expect(s.takeFinishedPasses().isEmpty)

        // Left at once: not worth a row.
        let (quick, quickClock, _) = try session(PracticePlan(repeatMode: .times(1)))
        quick.start()
        play(quick, quickClock, until: 0.5)
        quick.stop()
        #expect(quick.takeFinishedPasses().isEmpty)

        // After the last pass has ended there is nothing unfinished.
        let (done, doneClock, _) = try session(PracticePlan(repeatMode: .times(1)))
        done.start()
        play(done, doneClock, until: 17)
        #expect(done.isFinished)
        let finished = done.takeFinishedPasses()
        #expect(finished.count == 1 && finished.first?.complete == true)
        done.stop()
        #expect(done.takeFinishedPasses().isEmpty)
    }

    @Test func recallKeyStepsThroughSavedLoopsApplyingBarsHandTempoAndOtherHand() throws {
        let (s, clock, output) = try session()
        #expect(PracticeKeyMap.command(for: Key("L")) == .recallLoop)
        s.handle(.recallLoop)
        #expect(s.snapshot().message == "saved loops need the library (it could not be opened)")
        let stored = LockedBox<[NamedLoop]>([])
        s.onRecallLoops = { stored.value }
        s.handle(.recallLoop)
        #expect(s.snapshot().message == "no saved loops for this lesson yet: set one with [ and ], save it with s")

        stored.value = [
            NamedLoop(name: "run", loop: LoopSnapshot(bars: 3...4, hands: .right, tempoPercent: 70, otherHand: .mute)),
            NamedLoop(name: "whole", loop: LoopSnapshot(bars: 1...8, hands: .both, tempoPercent: 100, otherHand: .play)),
        ]
        s.start()
        s.handle(.recallLoop)
        #expect(s.snapshot().message == "loop \"run\" (1/2): bars 3–4, right hand, 70%")
        #expect(s.loopName == "run")
        let plan = s.transport.plan
        #expect(plan.bars == 3...4 && plan.hands == .right && plan.otherHand == .mute)
        #expect(s.transport.tempoPercent == 70)
        // Heard: only the right hand, only bars 3–4 (2 s a bar at 100 %, so 4…8 s of the lesson).
        let before = output.messages.count
        play(s, clock, until: clock.now + 5)
        let ons = output.messages.dropFirst(before).compactMap { m -> UInt8? in
            if case .noteOn(_, let key, let velocity) = m, velocity > 0 { return key } else { return nil }
        }
        #expect(!ons.isEmpty && !ons.contains(48))
        #expect(Set(ons).isSubset(of: Set((72...79).map(UInt8.init))))

        s.handle(.recallLoop)
        #expect(s.snapshot().message == "loop \"whole\" (2/2): bars 1–8, both hands, 100%")
        #expect(s.transport.plan.hands == .both && s.transport.tempoPercent == 100)
        s.handle(.recallLoop)   // wraps round
        #expect(s.loopName == "run")
        s.handle(.toggleLoop)   // turned off by hand: no saved loop is playing any more
        #expect(s.transport.plan.bars == nil && s.loopName == nil)
        s.handle(.toggleLoop)   // the marks followed the recalled loop
        #expect(s.transport.plan.bars == 3...4)
        s.handle(.recallLoop)
        #expect(s.loopName == "whole")
        var weakest = s.transport.plan   // as W does it: a new plan is no saved loop
        weakest.bars = 5...6
        try s.replacePlan(weakest)
        #expect(s.loopName == nil)
        stored.value = [stored.value[0]]
        s.handle(.recallLoop)
        #expect(s.loopName == "run" && s.transport.plan.bars == 3...4)

        // A saved loop this lesson cannot play (one bar too many) is named, and nothing changes.
        stored.value = [NamedLoop(name: "long", loop: LoopSnapshot(bars: 7...9, hands: .both, tempoPercent: 90, otherHand: .play))]
        s.handle(.recallLoop)
        #expect(s.snapshot().message?.contains("bars 7-9: the lesson has 8 bars") == true)
        #expect(s.transport.plan.bars == 3...4 && s.transport.plan.hands == .right && s.transport.tempoPercent == 70)
        s.stop()
    }

    @Test func theLearnersKeysLightInWatchModeToo() throws {
        let (s, clock, _) = try session()
        s.start()
        play(s, clock, until: 1)
        s.learnerPlayed(LearnerNote(pitch: 61, velocity: 90, isOn: true, time: clock.now))
        let m = s.snapshot()
        #expect(m.keyboard[61] == .learner)
        #expect(m.status.mode == "watch")
        s.learnerPlayed(LearnerNote(pitch: 61, velocity: 0, isOn: false, time: clock.now))
        #expect(s.snapshot().keyboard[61] == nil)
    }

    /// Fingering comes from the lesson file's own annotations.
    @Test func fingersAppearOnFallingNotesWhenShown() throws {
        let (s, clock, _) = try session()
        s.start()
        play(s, clock, until: 0.1)
        #expect(s.snapshot().notes.allSatisfy { $0.finger == nil })
        s.handle(.toggleNoteNames)  // `n`: names and fingers
        let m = s.snapshot()
        #expect(m.showNoteNames && m.showFingers)
        #expect(!m.notes.isEmpty && m.notes.allSatisfy { $0.finger != nil })
        #expect(m.notes.contains { $0.pitch == 73 && $0.finger == 2 })
        s.handle(.toggleNoteNames)
        s.display.showFingers = true  // --fingers
        #expect(s.snapshot().notes.allSatisfy { $0.finger != nil })
    }

    @Test func resumePointIsTheBarAndFileSeconds() throws {
        let (s, clock, _) = try session()
        s.start()
        play(s, clock, until: 2.1)
        s.handle(.tempoDown)  // 95 %
        let p = s.resumePoint()
        #expect(p.bar == 2)
        #expect(p.positionSeconds > 2 && p.positionSeconds < 2.2)
        #expect(p.tempoPercent == 95)
        s.seek(toBar: 6)
        #expect(s.snapshot().status.bar == 6)
    }
}
