import Clocks
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
        // A stand-in sound card: a thread rendering 128-frame periods paced in real time, so the
        // synth consumes events and voices as it does live (no device needed).
        let card = PacedRenderer(engine: engine, period: 128)
        card.start()
        defer { card.stop() }
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
        let cpuBefore = CPUTimes.read()
        dispatcher.start()
        _ = dispatcher.waitUntilFinished(timeout: seconds + 30)
        print("dispatch thread real-time priority (SCHED_FIFO): \(dispatcher.hasRealtimePriority ? "yes" : "no (normal priority)")")
        dispatcher.stop()
        let late = dispatcher.latenessSamples.map { Double($0) / 1000 }.sorted()  // µs
        let p99 = BenchTools.percentile(late, 0.99)
        if let a = cpuBefore, let b = CPUTimes.read(), b.total > a.total {
            // On a VM, time stolen by the hypervisor delays any thread whatever its priority.
            print(String(format: "CPU steal during the run: %.0f%% (busy %.0f%%)",
                         100 * Double(b.steal - a.steal) / Double(b.total - a.total),
                         100 * Double(b.busy - a.busy) / Double(b.total - a.total)))
        }
        var load = [Double](repeating: 0, count: 3)
        _ = getloadavg(&load, 3)
        print(String(format: "dispatch jitter over %.0f s, %d wake-ups: p50 %.0f µs, p99 %.0f µs, max %.0f µs (target p99 < 1000 µs: %@; load average %.1f)",
                     seconds, late.count, BenchTools.percentile(late, 0.5), p99, late.last ?? .nan, p99 < 1000 ? "PASS" : "FAIL", load[0]))
        // The machine's own floor: the same deadlines met by a bare clock_nanosleep loop on a
        // SCHED_FIFO thread, no lock, no synth. On a VM this is often far from zero.
        let floor = bareSleepLateness(deadlines: messages.map(\.seconds).sorted().reduce(into: [Double]()) { if $0.last != $1 { $0.append($1) } })
        print(String(format: "machine floor (bare clock_nanosleep, same deadlines): p50 %.0f µs, p99 %.0f µs, max %.0f µs",
                     BenchTools.percentile(floor, 0.5), BenchTools.percentile(floor, 0.99), floor.last ?? .nan))
        return 0
    } catch {
        print("jitter benchmark failed: \(error)")
        return 1
    }
}

/// Aggregate CPU jiffies from /proc/stat (Linux), to put jitter figures in context.
struct CPUTimes {
    var total: Int, busy: Int, steal: Int

    static func read() -> CPUTimes? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let v = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        guard v.count >= 8 else { return nil }
        let idle = v[3] + v[4]
        let total = v.prefix(8).reduce(0, +)
        return CPUTimes(total: total, busy: total - idle - v[7], steal: v[7])
    }
}

/// Renders `period` frames every period's duration (absolute deadlines), like an audio driver.
final class PacedRenderer: @unchecked Sendable {
    let engine: FluidSynthEngine
    let period: Int
    private let lock = NSLock()
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(engine: FluidSynthEngine, period: Int) {
        self.engine = engine
        self.period = period
    }

    func start() {
        let t = Thread { [self] in
            let left = UnsafeMutablePointer<Float>.allocate(capacity: period)
            let right = UnsafeMutablePointer<Float>.allocate(capacity: period)
            defer { left.deallocate(); right.deallocate(); done.signal() }
            let step = UInt64(Double(period) / engine.sampleRate * 1e9)
            var next = MonotonicClock.nanoseconds()
            while lock.withLock({ running }) {
                engine.render(frames: period, left: left, right: right)
                next += step
                var ts = timespec(tv_sec: Int(next / 1_000_000_000), tv_nsec: Int(next % 1_000_000_000))
                while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
            }
        }
        t.start()
    }

    func stop() {
        lock.withLock { running = false }
        done.wait()
    }
}

/// Lateness (µs, sorted) of a bare absolute clock_nanosleep loop over the given times.
func bareSleepLateness(deadlines: [Double]) -> [Double] {
    let result = LatenessBox()
    let t = Thread {
        var param = sched_param()
        param.sched_priority = 10
        _ = pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &param)
        let start = MonotonicClock.nanoseconds() + 1_000_000
        var late: [Double] = []
        for d in deadlines {
            let deadline = start + UInt64(d * 1e9)
            var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
            late.append(Double(Int64(MonotonicClock.nanoseconds()) - Int64(deadline)) / 1000)
        }
        result.set(late.sorted())
    }
    t.start()
    return result.wait()
}

final class LatenessBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [Double] = []
    private let done = DispatchSemaphore(value: 0)
    func set(_ v: [Double]) { lock.withLock { value = v }; done.signal() }
    func wait() -> [Double] { done.wait(); return lock.withLock { value } }
}
