@testable import App
import Clocks
import Foundation
import Lesson
import MIDIFile
@testable import Practice
import Synth
import Testing

@Suite("Routine step player")
struct StepPlayerTests {
    /// `count` quarter notes at 240 BPM (0.25 s each) on channel 0, with the file's own CC 7 = 90.
    func lesson(count: Int) -> Lesson {
        var events: [MIDIEvent] = [
            MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("Right Hand".utf8))),
            MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x03, 0xD0, 0x90])),
            MIDIEvent(tick: 0, .controlChange(channel: 0, controller: 7, value: 90)),
        ]
        for i in 0..<count {
            events.append(MIDIEvent(tick: i * 480, .noteOn(channel: 0, key: UInt8(60 + i % 12), velocity: 80)))
            events.append(MIDIEvent(tick: i * 480 + 400, .noteOff(channel: 0, key: UInt8(60 + i % 12), velocity: 0)))
        }
        events.append(MIDIEvent(tick: count * 480, .meta(type: MetaType.endOfTrack, data: [])))
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [Track(events: events)])
        return Lesson(file: file, fileName: "notes.mid")
    }

    func volumes(_ output: RecordingOutput, channel: UInt8) -> [UInt8] {
        output.messages.compactMap { m in
            if case .controlChange(channel, 7, let v) = m { return v } else { return nil }
        }
    }

    @Test func gainScalesTheFilesVolumeAndResetRestoresIt() {
        let rec = RecordingOutput()
        let out = GainOutput(rec)
        out.send(.controlChange(channel: 2, controller: 7, value: 80))
        out.setGain(0.5)
        out.send(.controlChange(channel: 2, controller: 7, value: 120))
        out.send(.noteOn(channel: 2, key: 60, velocity: 70))
        out.setGain(0.5)  // unchanged: nothing sent
        out.reset()
        #expect(volumes(rec, channel: 2) == [80, 40, 60, 100])
        #expect(volumes(rec, channel: 0) == [50, 100], "channels the file never set fade from the GM default")
        #expect(rec.messages.contains(.noteOn(channel: 2, key: 60, velocity: 70)), "other messages pass unchanged")
    }

    /// A step cut by its time limit (1.2 s, fade 0.6 s) in the middle of a 4 s lesson fades
    /// CC 7 down step by step, then silences and restores full volume.
    @Test func timeLimitFadesOutInsteadOfStoppingDead() throws {
        let clock = MonotonicClock()
        var plan = PracticePlan()
        plan.repeatMode = .forever
        let transport = try Transport(lesson: lesson(count: 16), plan: plan, clock: clock)
        let rec = RecordingOutput()
        let player = StepPlayer(transport: transport, clock: clock, output: GainOutput(rec))
        let length = RoutineEntry.Length.minutes(0.02)
        let result = player.run(tick: 0.02, decide: { elapsed, passes, end in
            switch RoutinePlan.decide(length: length, elapsed: elapsed, completedPasses: passes, currentPassEnd: end, fade: 0.6) {
            case .stop: return .stop
            case .play(let gain): return .play(gain: gain)
            }
        })
        #expect(result.faded && !result.interrupted)
        #expect(result.completedPasses == 0)
        let ramp = volumes(rec, channel: 0)
        // 90 from the file, then a falling ramp, then the reset to 100 after all-notes-off.
        #expect(ramp.first == 90)
        #expect(ramp.last == 100)
        let fade = Array(ramp.dropFirst().dropLast())
        #expect(fade.count >= 3, "a ramp, not a jump: \(ramp)")
        #expect(zip(fade, fade.dropFirst()).allSatisfy { $0 > $1 }, "strictly falling: \(fade)")
        #expect((fade.last ?? 127) < 20)
        let entries = rec.recorded.map(\.entry)
        let offIndex = try #require(entries.lastIndex(of: .allNotesOff))
        #expect(entries[..<offIndex].contains(.message(.controlChange(channel: 0, controller: 7, value: fade.last ?? 0))))
        let notes = rec.messages.filter { if case .noteOn(_, _, let v) = $0 { return v > 0 } else { return false } }
        #expect(notes.count < 16, "cut before the lesson's end")
    }

    @Test func repetitionsPlayWholePassesWithoutFading() throws {
        let clock = MonotonicClock()
        var plan = PracticePlan()
        plan.repeatMode = .times(2)
        let transport = try Transport(lesson: lesson(count: 2), plan: plan, clock: clock)
        let rec = RecordingOutput()
        let player = StepPlayer(transport: transport, clock: clock, output: GainOutput(rec))
        let result = player.run(decide: { elapsed, passes, end in
            switch RoutinePlan.decide(length: .repetitions(2), elapsed: elapsed, completedPasses: passes, currentPassEnd: end) {
            case .stop: return .stop
            case .play(let gain): return .play(gain: gain)
            }
        })
        #expect(result.completedPasses == 2 && !result.faded)
        let notes = rec.messages.filter { if case .noteOn(_, _, let v) = $0 { return v > 0 } else { return false } }
        #expect(notes.count == 4)
        #expect(rec.recorded.map(\.entry).contains(.allNotesOff))
    }

    /// A routine entry's `recording=` (issue 42): the step plays the lesson where a recording
    /// of it is heard — here one played evenly at 0.4 s a beat where the lesson has 0.25 s — so
    /// its notes come at the recording's beats and the pass lasts the recording's 3.2 s.
    @Test func aStepWithARecordingPlaysAtTheRecordingsBeats() throws {
        let clock = MonotonicClock()
        var plan = PracticePlan()
        plan.repeatMode = .times(1)
        plan.countIn = false
        let lesson = lesson(count: 8)
        let timeline = try #require(RecordingTimeline(points: (0...8).map { .init(tick: Double($0 * 480), seconds: 1 + 0.4 * Double($0)) }))
        let rec = RecordingOutput(clock: { MonotonicClock.seconds() })
        let player = try StepPlayer(lesson: lesson, plan: plan, clock: clock, output: GainOutput(rec),
                                    recording: RecordingPace(timeline: timeline, tempoMap: lesson.tempoMap))
        let result = player.run(tick: 0.02, decide: { elapsed, passes, end in
            switch RoutinePlan.decide(length: .repetitions(1), elapsed: elapsed, completedPasses: passes, currentPassEnd: end) {
            case .stop: return .stop
            case .play(let gain): return .play(gain: gain)
            }
        })
        #expect(result.completedPasses == 1)
        #expect(abs(result.seconds - 3.2) < 0.15, "the step lasted \(result.seconds) s; the recording's pass 3.2 s")
        let onsets = rec.recorded.compactMap { r -> Double? in
            if case .message(.noteOn(_, _, let v)) = r.entry, v > 0 { return r.seconds } else { return nil }
        }
        #expect(onsets.count == 8)
        for (i, t) in onsets.enumerated() {
            #expect(abs(t - onsets[0] - 0.4 * Double(i)) < 0.03, "note \(i) at \(t - onsets[0]) s, the recording's beat at \(0.4 * Double(i)) s")
        }
    }

    @Test func skipEndsAtOnceWithAllNotesOff() throws {
        let clock = MonotonicClock()
        let transport = try Transport(lesson: lesson(count: 16), plan: PracticePlan(), clock: clock)
        let rec = RecordingOutput()
        let player = StepPlayer(transport: transport, clock: clock, output: GainOutput(rec))
        var asked = 0
        let result = player.run(decide: { _, _, _ in .play(gain: 1) }, control: {
            asked += 1
            return asked > 3 ? .skip : .keepGoing
        })
        #expect(result.interrupted)
        #expect(rec.recorded.map(\.entry).contains(.allNotesOff))
    }
}
