import Foundation
import MIDIFile
import Synth

/// Sends into a real FluidSynth engine (so the cost of each send is real) with no device.
final class EngineOutput: SoundOutput, @unchecked Sendable {
    let engine: FluidSynthEngine
    init(_ engine: FluidSynthEngine) { self.engine = engine }
    func send(_ message: MIDIEvent.Kind) { engine.send(message) }
    func allNotesOff() { engine.allNotesOff() }
}

/// `etude-bench jitter [SECONDS]`: dispatch lateness of the live EventDispatcher against its
/// CLOCK_MONOTONIC deadlines, p50/p99/max (target p99 < 1 ms).
func dispatchJitterBenchmark(arguments: [String]) -> Int32 {
    let seconds = arguments.first.flatMap(Double.init) ?? 10
    do {
        let font = try SoundFontLocator(explicit: nil).locate()
        let engine = try FluidSynthEngine(sampleRate: 48_000)
        try engine.loadSoundFont(font)
        // Irregular spacing 2–12 ms, like a busy accompaniment: note on/off pairs.
        var rng = BenchSongs.LCG(state: 3)
        var messages: [TimedMessage] = []
        var t = 0.05
        while t < seconds {
            let key = UInt8(48 + rng.next(36))
            messages.append(TimedMessage(seconds: t, message: .noteOn(channel: 0, key: key, velocity: 80)))
            messages.append(TimedMessage(seconds: t + 0.1, message: .noteOff(channel: 0, key: key, velocity: 0)))
            t += Double(2 + rng.next(10)) / 1000
        }
        let dispatcher = EventDispatcher(source: ScheduleCursor(MessageSchedule(messages: messages, duration: seconds + 0.2)),
                                         output: EngineOutput(engine))
        dispatcher.recordLateness = true
        dispatcher.start()
        _ = dispatcher.waitUntilFinished(timeout: seconds + 30)
        print("dispatch thread real-time priority (SCHED_FIFO): \(dispatcher.hasRealtimePriority ? "yes" : "no (normal priority)")")
        dispatcher.stop()
        let late = dispatcher.latenessSamples.map { Double($0) / 1000 }.sorted()  // µs
        let p99 = BenchTools.percentile(late, 0.99)
        var load = [Double](repeating: 0, count: 3)
        _ = getloadavg(&load, 3)
        print(String(format: "dispatch jitter over %.0f s, %d wake-ups: p50 %.0f µs, p99 %.0f µs, max %.0f µs (target p99 < 1000 µs: %@; load average %.1f)",
                     seconds, late.count, BenchTools.percentile(late, 0.5), p99, late.last ?? .nan, p99 < 1000 ? "PASS" : "FAIL", load[0]))
        return 0
    } catch {
        print("jitter benchmark failed: \(error)")
        return 1
    }
}
