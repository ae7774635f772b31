import Clocks
import Testing
import TestSupport
import MIDIFile
@testable import Lesson

/// Loops and transport at the edges: signature changes, bar lines, zero-length notes,
/// repeated notes across passes, big jumps of the clock.
@Suite struct EdgeCaseTests {
    @Test func loopAcrossATimeSignatureChange() throws {
        // Bars 1–2 in 4/4, bars 3–4 in 3/4, bar 5 in 6/8; one note per bar.
        let conductor = [Build.timeSignature(4, 4), Build.tempo(bpm: 120), Build.timeSignature(3, 4, at: 3840), Build.timeSignature(6, 8, at: 3840 + 2880)]
        let starts = [0, 1920, 3840, 5280, 6720]
        var rh = [Build.name("RH")]
        for (i, s) in starts.enumerated() { rh += Build.note(60 + i, at: s, length: 240) }
        let lesson = Build.lesson(try Build.file([conductor, rh + Build.note(70, at: 6720, length: 1440)]))
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 2...5, metronome: .init(enabled: true, volume: 1)), clock: clock)
        let events = runToEnd(&t, clock: clock)
        let beats = events.compactMap { if case .beat(let b) = $0.event { return "\(b.bar).\(b.beat)" } else { return nil } }
        #expect(beats == ["2.1", "2.2", "2.3", "2.4", "3.1", "3.2", "3.3", "4.1", "4.2", "4.3", "5.1", "5.2"])
        let accents = events.noteOns.filter { $0.channel == 9 && $0.pitch == Int(Metronome.accentKey) }.map(\.time)
        #expect(accents.count == 4)
        for (a, e) in zip(accents, [0, 2, 3.5, 5]) { #expect(close(a, e)) }
        #expect(close(events.last?.time ?? 0, 6.5))
        #expect(events.noteOns.filter { $0.channel == 0 }.map(\.pitch) == [61, 62, 63, 64, 70])
    }

    @Test func barLinesAreExact() throws {
        // A note starting exactly on the bar-3 line is not in bars 1–2; one ending exactly on
        // it is released there; a zero-length note at the loop start still sounds on then off.
        let rh = [Build.name("RH")] + Build.note(60, at: 0, length: 0) + Build.note(62, at: 1920, length: 1920)
            + Build.note(64, at: 3840, length: 480) + Build.note(65, at: 3000, length: 3000)
        let lesson = Build.lesson(try Build.file([[Build.tempo(bpm: 120)], rh]))
        let s = PassSchedule(lesson: lesson, plan: PracticePlan(), from: 0, to: 3840, percent: 100)
        let synth = s.events.compactMap { e -> (Double, MIDIEvent.Kind)? in
            if case .synth(let k) = e.event { return (e.time, k) } else { return nil }
        }
        let notes = synth.filter { if case .noteOn = $0.1 { return true }; if case .noteOff = $0.1 { return true }; return false }
        #expect(notes.map(\.1) == [
            .noteOn(channel: 0, key: 60, velocity: 80), .noteOff(channel: 0, key: 60, velocity: 0),
            .noteOn(channel: 0, key: 62, velocity: 80), .noteOn(channel: 0, key: 65, velocity: 80),
            .noteOff(channel: 0, key: 62, velocity: 0), .noteOff(channel: 0, key: 65, velocity: 0),
        ])
        #expect(close(notes[4].0, 4) && close(notes[5].0, 4))
        #expect(close(s.duration, 4))
    }

    @Test func aNoteRepeatedAcrossThePassBoundaryIsReleasedBeforeItSoundsAgain() throws {
        let rh = [Build.name("RH")] + (0..<4).flatMap { Build.note(60, at: $0 * 480, length: 480) }
        let lesson = Build.lesson(try Build.file([[], rh]))
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 1...1, repeatMode: .times(3)), clock: clock)
        let events = runToEnd(&t, clock: clock)
        var sounding = 0
        for e in events {
            switch e.event {
            case .synth(.noteOn(_, 60, let v)) where v > 0:
                #expect(sounding == 0, "note-on at \(e.time) while the note still sounds")
                sounding += 1
            case .synth(.noteOff(_, 60, _)):
                sounding -= 1
            default: break
            }
        }
        #expect(sounding == 0)
        #expect(events.noteOns.count == 12)
        #expect(events.passes.count == 3)
    }

    @Test func oneBigClockJumpDeliversEveryPassInOrder() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 2...3, repeatMode: .times(4)), clock: clock)
        t.play()
        clock.set(1000)
        let events = t.advance(to: clock.now)
        #expect(events.passes.count == 4)
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(events.last?.event == .finished)
        #expect(close(events.last?.time ?? 0, 16))
        #expect(t.state == .finished)
        #expect(t.nextEventTime() == nil)
    }

    @Test func foreverStaysAtTheTargetTempo() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        let plan = PracticePlan(bars: 1...1, repeatMode: .forever, speedTrainer: .init(start: 80, target: 100, step: 10))
        var t = try Transport(lesson: lesson, plan: plan, clock: clock)
        t.play()
        clock.set(60)
        let tempos = t.advance(to: clock.now).passTempos
        #expect(Array(tempos.prefix(3)) == [80, 90, 100])
        #expect(tempos.count > 20 && tempos.dropFirst(2).allSatisfy { $0 == 100 })
        #expect(t.state == .playing)
        #expect(t.pass == tempos.count)
    }

    @Test func seekKeepsThePassAndTheLoopGoesOnFromItsStart() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(tempo: .percent(50), bars: 5...8, repeatMode: .times(2)), clock: clock)
        t.play()
        clock.set(1)
        _ = t.advance(to: clock.now)
        try t.seek(toBar: 8)
        let rest = runToEnd(&t, clock: clock)
        // Bar 8 at 50 % takes 4 s, then one full pass of 16 s.
        let finishes = rest.compactMap { if case .passFinished(let n, _) = $0.event { return (n, $0.time) } else { return nil } }
        #expect(finishes.count == 2)
        #expect(finishes.first?.0 == 1 && close(finishes.first?.1 ?? 0, 5))
        #expect(finishes.last?.0 == 2 && close(finishes.last?.1 ?? 0, 21))
        #expect(rest.passTempos == [50])
    }

    @Test func pauseDuringACountInResumesTheCountIn() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 1...1, countIn: true), clock: clock)
        t.play()
        clock.set(0.75)
        let first = t.advance(to: clock.now)
        #expect(first.noteOns.filter { $0.channel == 9 }.count == 2)
        t.pause()
        clock.set(5)
        t.play()
        let rest = runToEnd(&t, clock: clock)
        let clicks = rest.noteOns.filter { $0.channel == 9 }.map(\.time)
        #expect(clicks.count == 2)
        for (c, e) in zip(clicks, [5.25, 5.75]) { #expect(close(c, e)) }
        #expect(close(rest.noteOns.first { $0.channel == 0 }?.time ?? 0, 6.25))
    }

    @Test func nonPianoBassTrackIsAccompanimentEvenWhenNamedBass() throws {
        let rh = [Build.name("Piano RH")] + Build.note(72, at: 0, length: 480)
        let lh = [Build.name("Piano LH")] + Build.note(48, at: 0, length: 480, channel: 1)
        let bass = [Build.name("Bass"), MIDIEvent(tick: 0, .programChange(channel: 2, program: 33))] + Build.note(36, at: 0, length: 480, channel: 2)
        let lesson = Build.lesson(try Build.file([[], rh, lh, bass]))
        #expect(lesson.notes.map(\.part) == [.accompaniment, .hand(.left), .hand(.right)])
        // Exported, the bass keeps its own track, name and program.
        let exported = try LessonExport.midiFile(lesson: lesson, plan: PracticePlan())
        #expect(exported.tracks.map(\.name) == ["test", "Right Hand", "Left Hand", "Bass"])
        let programs = exported.tracks[3].events.filter { if case .programChange = $0.kind { return true } else { return false } }
        #expect(programs.map(\.kind) == [.programChange(channel: 2, program: 33)])
        let back = Build.lesson(try MIDIReader.read(MIDIWriter.write(exported)).file)
        #expect(back.notes.map(\.part) == lesson.notes.map(\.part))
    }

    @Test func quietOtherHandIsScaledInTheExport() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let plan = PracticePlan(hands: .right, otherHand: .quiet(0.5), bars: 1...1)
        let back = Build.lesson(try MIDIReader.read(MIDIWriter.write(try LessonExport.midiFile(lesson: lesson, plan: plan))).file)
        #expect(back.notes.filter { $0.part == .hand(.left) }.map(\.velocity) == [40])
        #expect(back.notes.filter { $0.part == .hand(.right) }.allSatisfy { $0.velocity == 80 })
    }
}

@Suite struct LookaheadTests {
    @Test func notesAheadForFallingNotesWrapIntoTheNextPass() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(hands: .right, otherHand: .mute, bars: 5...5, repeatMode: .times(2)), clock: clock)
        // Stopped: the first notes are shown from now.
        #expect(t.notes(at: 0, ahead: 0.6).map(\.cue.pitch).sorted() == [40, 64, 64])
        t.play()
        clock.set(1.2)
        _ = t.advance(to: clock.now)
        let ahead = t.notes(at: 1.2, ahead: 1.0)
        // Sounding now: the third quarter (1.0–1.5) and the whole-bar left note (muted, still shown).
        // Ahead: the fourth quarter at 1.5, and the next pass's first notes at 2.0.
        let summary = ahead.map { "\($0.cue.pitch)@\($0.start)" }
        #expect(summary == ["40@0.0", "64@1.0", "64@1.5", "40@2.0", "64@2.0"])
        #expect(ahead.first?.cue.velocity == 0)
        #expect(ahead.first?.cue.practised == false)
        // In the last pass nothing follows.
        clock.set(3.9)
        _ = t.advance(to: clock.now)
        #expect(t.notes(at: 3.9, ahead: 5).map(\.cue.pitch) == [40, 64])
        #expect(close(t.passDuration, 2))
    }
}

@Suite struct LiveChangeTests {
    @Test func tempoChangedMidPassKeepsHeldNotesAndHoldsForLaterPasses() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 1...4, repeatMode: .times(2)), clock: clock)
        var events = t.play()
        clock.set(1.25)   // bar 1 beat 3½: the beat-3 note and the whole-bar bass are sounding
        events += t.advance(to: clock.now)
        events += try t.setTempo(percent: 50)
        #expect(t.effectiveBPM == 60)
        events += runToEnd(&t, clock: clock)
        func off(_ pitch: Int, after time: Double) -> Double? { events.noteOffs.first { $0.pitch == pitch && $0.time > time }?.time }
        #expect(close(off(60, after: 1.0) ?? 0, 1.75))   // 0.25 s of music left, now twice as long
        #expect(close(off(36, after: 0) ?? 0, 2.75))
        #expect(close(events.noteOns.first { $0.pitch == 60 && $0.time > 1.25 }?.time ?? 0, 1.75))
        // Every note-on is matched by a note-off; nothing hangs.
        #expect(events.noteOns.count == events.noteOffs.count)
        let finished = events.compactMap { if case .passFinished(let n, let p) = $0.event { return (n, p, $0.time) } else { return nil } }
        #expect(finished.count == 2)
        #expect(close(finished[0].2, 1.25 + 6.75 * 2))
        #expect(finished[1].1 == 50 && close(finished[1].2, 14.75 + 16))
        #expect(t.plan.tempo == .percent(50))
        #expect(throws: PlanError(.tempo, "500%", "the tempo must be between 10% and 400%")) { try t.setTempo(percent: 500) }
    }

    @Test func metronomeSwitchedOnMidPassClicksTheRemainingBeats() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 1...4), clock: clock)
        t.play()
        clock.set(1.25)
        _ = t.advance(to: clock.now)
        t.setMetronome(enabled: true, volume: 1)
        let rest = runToEnd(&t, clock: clock)
        let clicks = rest.noteOns.filter { $0.channel == 9 }
        #expect(clicks.count == 13)
        #expect(close(clicks.first?.time ?? 0, 1.5))
        #expect(clicks.filter { $0.pitch == Int(Metronome.accentKey) }.count == 3)
        #expect(rest.noteOns.filter { $0.channel == 0 }.count == lesson.notes.filter { $0.startTick > 1200 && $0.startTick < 4 * Build.bar }.count)
    }

    @Test func tempoChangedWhilePausedAppliesOnResume() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 1...1), clock: clock)
        t.play()
        clock.set(0.25)
        _ = t.advance(to: clock.now)
        t.pause()
        try t.setTempo(percent: 200)
        clock.set(10)
        t.play()
        let rest = runToEnd(&t, clock: clock)
        // 1.75 s of music left at 100 % takes 0.875 s at 200 %.
        #expect(close(rest.last?.time ?? 0, 10.875))
        #expect(close(rest.noteOns.first?.time ?? 0, 10.125))
    }
}

@Suite struct LiveLoopAndHandTests {
    @Test func changingTheLoopRestartsAtItsFirstBar() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 1...2, repeatMode: .times(2)), clock: clock)
        t.play()
        clock.set(0.25)
        let first = t.advance(to: clock.now)
        let silenced = try t.setLoop(9...9)
        #expect(Set(silenced.noteOffs.map(\.pitch)) == Set(first.noteOns.map(\.pitch)))
        #expect(t.bars == 9...9)
        let rest = runToEnd(&t, clock: clock)
        #expect(rest.passes.count == 2)
        #expect(Set(rest.noteOns.map(\.pitch)) == [68, 44])
        #expect(close(rest.last?.time ?? 0, 4.25))
        #expect(throws: PlanError(.bars, "11-14", "the lesson has 12 bars")) { try t.setLoop(11...14) }
    }

    @Test func changingHandsMidPassMutesFromNowOn() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 1...2), clock: clock)
        t.play()
        clock.set(0.25)
        _ = t.advance(to: clock.now)
        try t.setHands(.left, other: .mute)
        let rest = runToEnd(&t, clock: clock)
        #expect(rest.noteOns.map(\.pitch) == [37])
        #expect(rest.noteOffs.contains { $0.pitch == 36 })   // the held bass still ends
        #expect(rest.noteOns.count + 2 == rest.noteOffs.count)  // plus the 60 and 36 begun before
        let noLeft = Build.lesson(try Build.file([[], [Build.name("RH")] + Build.note(72, at: 0, length: 480)]))
        var u = try Transport(lesson: noLeft, plan: PracticePlan(), clock: clock)
        #expect(throws: PlanError.self) { try u.setHands(.left, other: .play) }
    }

    @Test func genericFirstTrackNamesAreNotTitles() throws {
        let f = try Build.file([[Build.name("Acoustic Grand Piano")] + Build.note(60, at: 0, length: 480)], format: 0)
        #expect(Lesson(file: f, fileName: "songs/Für Elise.mid").title == "Für Elise")
        let g = try Build.file([[Build.name("Track 1")] + Build.note(60, at: 0, length: 480)], format: 0)
        #expect(Lesson(file: g, fileName: "x.mid").title == "x")
    }
}

@Suite struct BarLineTests {
    @Test func barLinesAheadIncludeTheNextPass() throws {
        let lesson = Build.lesson(try Build.twelveBars())
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(tempo: .percent(50), bars: 3...4, repeatMode: .forever), clock: clock)
        t.play()
        clock.set(1)
        _ = t.advance(to: clock.now)
        let lines = t.barLines(at: 1, ahead: 12)
        #expect(lines.map(\.bar) == [4, 3, 4])
        for (l, e) in zip(lines.map(\.time), [4.0, 8, 12]) { #expect(close(l, e)) }
    }
}
