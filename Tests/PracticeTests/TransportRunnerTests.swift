import Clocks
import Foundation
import Lesson
import MIDIFile
import Synth
import Testing
@testable import Practice

@Suite("Transport runner")
struct TransportRunnerTests {
    /// Four quarter notes at 240 BPM (1 s) — short enough to play for real in a test.
    func lesson() throws -> Lesson {
        var events: [MIDIEvent] = [
            MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("Right Hand".utf8))),
            MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x03, 0xD0, 0x90])),
        ]
        for (i, p) in [60, 62, 64, 65].enumerated() {
            events.append(MIDIEvent(tick: i * 480, .noteOn(channel: 0, key: UInt8(p), velocity: 80)))
            events.append(MIDIEvent(tick: i * 480 + 400, .noteOff(channel: 0, key: UInt8(p), velocity: 0)))
        }
        events.append(MIDIEvent(tick: 1920, .meta(type: MetaType.endOfTrack, data: [])))
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [Track(events: events)])
        return Lesson(file: file, fileName: "four.mid")
    }

    @Test func playsEveryNoteInOrderThenFinishesAndSilences() throws {
        let clock = MonotonicClock()
        let transport = try Transport(lesson: lesson(), plan: PracticePlan(), clock: clock)
        let output = RecordingOutput()
        let runner = TransportRunner(transport: transport, clock: clock, output: output)
        runner.start()
        #expect(runner.waitUntilFinished(timeout: 10))
        runner.stop()
        let ons = output.messages.compactMap { m -> UInt8? in
            if case .noteOn(_, let k, let v) = m, v > 0 { return k } else { return nil }
        }
        #expect(ons == [60, 62, 64, 65])
        #expect(output.recorded.last?.entry == .allNotesOff)
        // Real-time playback, not a burst: the four quarters span about three beats
        // (0.75 s). Only a loose lower bound, so a busy machine cannot make it flaky.
        let times = output.recorded.compactMap { r -> Double? in
            if case .message(.noteOn(_, _, let v)) = r.entry, v > 0 { return r.seconds } else { return nil }
        }
        #expect(times == times.sorted())
        #expect((times.last ?? 0) - (times.first ?? 0) > 0.6)
    }

    @Test func pauseStopsSoundAndNothingPlaysUntilResumed() throws {
        let clock = MonotonicClock()
        let transport = try Transport(lesson: lesson(), plan: PracticePlan(), clock: clock)
        let output = RecordingOutput()
        let runner = TransportRunner(transport: transport, clock: clock, output: output)
        runner.start()
        runner.perform { $0.pause() }
        let countAtPause = output.messages.count
        Thread.sleep(forTimeInterval: 0.4)
        #expect(output.messages.count == countAtPause)
        runner.perform { $0.play() }
        #expect(runner.waitUntilFinished(timeout: 10))
        runner.stop()
        runner.stop()  // twice is fine
    }
}
