import Clocks
import Foundation
import Lesson
import MIDIFile
import Synth
import Testing
@testable import Practice

/// Issue 36, step 7: the runner hands every lesson message to the output with the clock time it
/// is due (the transport's event time), however late the runner played it, and the wrappers in
/// front of the synth pass the time on: on JACK the callback plays it at that time's frame.
@Suite("Lesson events stamped with their time")
struct StampedLessonTests {
    /// Records each message with the time it was stamped with (nil: sent unstamped).
    final class StampOutput: SoundOutput, @unchecked Sendable {
        private let lock = NSLock()
        private var sent: [(MIDIEvent.Kind, Double?)] = []
        func send(_ message: MIDIEvent.Kind) { lock.withLock { sent.append((message, nil)) } }
        func send(_ message: MIDIEvent.Kind, at seconds: Double) { lock.withLock { sent.append((message, seconds)) } }
        func allNotesOff() {}
        var noteOns: [(key: UInt8, at: Double?)] {
            lock.withLock { sent.compactMap { if case .noteOn(_, let k, let v) = $0.0, v > 0 { return (k, $0.1) } else { return nil } } }
        }
    }

    /// Four quarter notes at 240 BPM: one every 0.25 s.
    func lesson() -> Lesson {
        var events: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x03, 0xD0, 0x90]))]
        for (i, p) in [60, 62, 64, 65].enumerated() {
            events.append(MIDIEvent(tick: i * 480, .noteOn(channel: 0, key: UInt8(p), velocity: 80)))
            events.append(MIDIEvent(tick: i * 480 + 400, .noteOff(channel: 0, key: UInt8(p), velocity: 0)))
        }
        events.append(MIDIEvent(tick: 1920, .meta(type: MetaType.endOfTrack, data: [])))
        return Lesson(file: MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [Track(events: events)]), fileName: "four.mid")
    }

    @Test func theRunnerStampsEachNoteWithItsDueTimeThroughTheWrappers() throws {
        let clock = VirtualClock(now: 100)
        let transport = try Transport(lesson: lesson(), plan: PracticePlan(), clock: clock)
        let output = StampOutput()
        let runner = TransportRunner(manual: transport, output: OwnSoundTap(GainOutput(output), clock: clock))
        runner.start()
        // The runner wakes late, all at once: each note still carries its own due time.
        clock.set(102)
        runner.advance(to: 102)
        let ons = output.noteOns
        #expect(ons.map(\.key) == [60, 62, 64, 65])
        let stamps = ons.compactMap(\.at)
        #expect(stamps.count == 4, "every note stamped: \(ons)")
        let gaps = zip(stamps.dropFirst(), stamps).map { $0 - $1 }
        #expect(gaps.allSatisfy { abs($0 - 0.25) < 1e-9 }, "the lesson's gaps, not the runner's: \(gaps)")
        runner.stop()
    }
}
