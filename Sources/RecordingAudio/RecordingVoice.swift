import CAudioMix
import CRubberBand
import Foundation
import Synchronization

/// A recording heard live while a lesson is practised with it (`etude practice --recording`):
/// a worker thread reads the recording where the music is, stretches it to the practice tempo
/// with Rubber Band's real-time stretcher (no change of pitch; R3 where the CPU keeps up, else
/// R2) and queues it in the lock-free ring (`CAudioMix`) that the synth's audio callback adds to
/// its own sound — JACK's, FluidSynth's driver or Etude's PulseAudio stream. The callback only
/// copies; everything that reads, allocates or waits runs here, ahead of it.
///
/// The worker follows `target` (asked every few milliseconds): where the music is in the
/// recording at a wall time and how fast it goes. It plays on by itself between asks, jumps
/// (a short fade) only when the music jumped (a seek, a new pass after a pause), goes silent
/// at once while the music stands (a fade, what is queued kept), and joins a loop's end to its
/// start by a 10 ms crossfade of the recording itself, so a looped passage has no click.
public final class RecordingVoice: @unchecked Sendable {
    // @unchecked: after `start()` everything below but `stopping` and `figures` belongs to the
    // worker thread alone; before it, to the thread that made the voice.

    /// Where the music is in the recording: asked by the worker, answered from the practice
    /// session's published state (any thread, no audio callback).
    public struct Target: Sendable, Equatable {
        /// The music plays (false: paused, stopped, counting in, held after a pass).
        public var playing: Bool
        /// Seconds into the recording at wall time `wall` (the monotonic clock).
        public var position: Double
        public var wall: Double
        /// Recording seconds per wall second (0.7 at 70 %).
        public var speed: Double
        /// The passage played over and over (seconds in the recording), nil when it plays on.
        public var loop: ClosedRange<Double>?
        /// Where the music stops (the end of the practised bars when it does not loop).
        public var end: Double

        public init(playing: Bool, position: Double, wall: Double, speed: Double, loop: ClosedRange<Double>?, end: Double) {
            self.playing = playing
            self.position = position
            self.wall = wall
            self.speed = speed
            self.loop = loop
            self.end = end
        }

        public static let silent = Target(playing: false, position: 0, wall: 0, speed: 1, loop: nil, end: 0)
    }

    /// What the worker counted, for `--verbose` and `make bench`.
    public struct Figures: Sendable, Equatable {
        public var underruns: UInt64 = 0
        public var jumps = 0
        public var loopJoins = 0
        public var framesQueued: UInt64 = 0
    }

    public let file: RecordingFile
    public let outputRate: Int
    /// The engine stretching now (R3 unless it could not keep up).
    public var engine: TimeStretch.Engine { state.withLock { $0.engine } }
    public var figures: Figures {
        var f = state.withLock { $0.figures }
        f.underruns = etude_mix_underruns() - underrunsAtStart
        return f
    }

    /// Seconds queued ahead of the audio callback: enough for a busy two-core machine. A pause
    /// or a jump is still heard at once: the callback fades the queue out, it is not played out.
    public static let queueSeconds = 0.3
    /// A join's crossfade.
    public static let crossfadeSeconds = 0.010
    /// The music and the recording further apart than this: the recording jumps to the music.
    public static let jumpSeconds = 0.08

    private let target: @Sendable () -> Target
    /// Seconds between the ring and the ear (the driver's own buffer), added to the lead.
    private let outputLatency: Double
    private let stopping = Atomic<Bool>(false)
    private let state = Mutex<(engine: TimeStretch.Engine, figures: Figures)>((.r3, Figures()))
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)
    private let underrunsAtStart: UInt64

    // The worker's own.
    private var stretcher: RubberBandState?
    private var speed = 1.0
    /// Recording second of the next frame the stretcher gives (what is written next).
    private var nextOut = 0.0
    /// Recording frame fed next.
    private var feedFrame = 0
    private var discard = 0
    private var playing = false
    private var cache: (from: Int, left: [Float], right: [Float]) = (0, [], [])

    /// A voice for `file`, heard at `outputRate` Hz (the synth's), `outputLatency` seconds
    /// after the callback takes it. Silent until `start()`.
    public init(file: RecordingFile, outputRate: Int, outputLatency: Double = 0, target: @escaping @Sendable () -> Target) {
        self.file = file
        self.outputRate = outputRate
        self.outputLatency = max(0, outputLatency)
        self.target = target
        underrunsAtStart = etude_mix_underruns()
    }

    /// Starts the worker (and the mix in the audio callback), having chosen the engine: R3
    /// when it stretches a second of this recording in under `finerBudget` of a second here,
    /// else R2 (measured before anything plays, so the probe never starves the queue).
    public func start() {
        let cost = Self.costOfStretching(file: file, outputRate: outputRate, speed: 1, finer: true, seconds: 1, at: min(10, file.seconds / 3))
        makeStretcher(finer: cost <= Self.finerBudget)
        let t = Thread { [self] in
            run()
            done.signal()
        }
        t.name = "etude-recording"
        t.qualityOfService = .userInteractive
        thread = t
        t.start()
    }

    /// Stops the worker and takes the recording out of the mix (faded by the callback).
    public func stop() {
        guard thread != nil, !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        done.wait()
        thread = nil
    }

    deinit {
        stop()
        if let s = stretcher { rubberband_delete(s) }
    }

    // MARK: The worker

    private func run() {
        // Above the ordinary threads, below the audio callback (FluidSynth's drivers run at 60):
        // a busy machine delays the stretching less. Refused without the right: it runs as is.
        var param = sched_param()
        param.sched_priority = 40
        _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param)
        etude_mix_flush()
        etude_mix_set_paused(1)
        etude_mix_set_active(1)
        defer {
            etude_mix_set_paused(1)
            etude_mix_flush()
            etude_mix_set_active(0)
        }
        while !stopping.load(ordering: .acquiring) {
            step(target())
            usleep(4_000)
        }
    }

    /// One look at the music: pause, jump or play on, and top the queue up.
    private func step(_ t: Target) {
        let now = Self.wallNow()
        guard t.playing, t.speed > 0 else {
            if playing { etude_mix_set_paused(1) }
            playing = false
            return
        }
        let queued = Double(etude_mix_queued()) / Double(outputRate)
        // The recording second the music will be at when the next frame written is heard
        // (after what is queued, or, the queue dropped, at once).
        func expected(queued: Double) -> Double {
            var e = t.position + t.speed * (now + queued + outputLatency - t.wall)
            if let loop = t.loop, e > loop.upperBound, loop.upperBound > loop.lowerBound {
                e = loop.lowerBound + (e - loop.lowerBound).truncatingRemainder(dividingBy: loop.upperBound - loop.lowerBound)
            }
            return e
        }
        if t.speed != speed { setSpeed(t.speed) }
        guard etude_mix_pulled_within(250_000) != 0 else {
            // No audio callback takes the ring (no device): nothing is stretched for nobody,
            // the place is only kept, so sound comes back where the music is.
            nextOut = expected(queued: 0)
            playing = false
            return
        }
        // Apart by how far, around the loop when there is one (its end and start are one place).
        var apart = abs(expected(queued: queued) - nextOut)
        if let loop = t.loop { apart = min(apart, abs((loop.upperBound - loop.lowerBound) - apart)) }
        if !playing || apart > Self.jumpSeconds {
            if playing { state.withLock { $0.figures.jumps += 1 } }
            etude_mix_set_paused(1)  // held (faded) until the new place is queued: no underrun between
            jump(to: expected(queued: 0))
        }
        playing = true
        fill(t)
        etude_mix_set_paused(0)
    }

    private func jump(to seconds: Double) {
        etude_mix_flush()
        guard let s = stretcher else { return }
        rubberband_reset(s)
        let at = max(0, seconds)
        feedFrame = Int((at * Double(file.sampleRate)).rounded())
        nextOut = at
        // The stretcher's own start: its padding in, its delay out, so the first frame heard is `at`.
        let pad = Int(rubberband_get_preferred_start_pad(s))
        if pad > 0 {
            let zeros = [Float](repeating: 0, count: pad)
            process([zeros, zeros], count: pad)
        }
        discard = Int(rubberband_get_start_delay(s))
    }

    /// Tops the queue up to `queueSeconds`, reading and stretching the recording where it is.
    private func fill(_ t: Target) {
        guard let s = stretcher else { return }
        let want = Int(Self.queueSeconds * Double(outputRate))
        let fade = Int(Self.crossfadeSeconds * Double(file.sampleRate))
        var rounds = 0
        while Int(etude_mix_queued()) < want, rounds < 64 {
            rounds += 1
            let end = Int((min(t.end, file.seconds) * Double(file.sampleRate)).rounded())
            let loopFrames = t.loop.map { (Int(($0.lowerBound * Double(file.sampleRate)).rounded()), Int(($0.upperBound * Double(file.sampleRate)).rounded())) }
            var block = max(256, Int(rubberband_get_samples_required(s)))
            block = min(block, 4096)
            if let (a, b) = loopFrames, b > a + 2 * fade, feedFrame >= b - fade {
                // The join: the loop's last 10 ms faded into the 10 ms before its start.
                let out = read(from: b - fade, count: fade)
                let into = read(from: max(0, a - fade), count: fade)
                var l = [Float](repeating: 0, count: fade), r = l
                for i in 0..<fade {
                    let g = Float(i) / Float(fade)
                    l[i] = out.left[i] * (1 - g) + into.left[i] * g
                    r[i] = out.right[i] * (1 - g) + into.right[i] * g
                }
                process([l, r], count: fade)
                feedFrame = a
                state.withLock { $0.figures.loopJoins += 1 }
            } else if feedFrame >= end {
                // Past the passage's end: silence until the music moves on (or stops).
                let zeros = [Float](repeating: 0, count: block)
                process([zeros, zeros], count: block)
                feedFrame += block
            } else {
                var n = min(block, end - feedFrame)
                if let (_, b) = loopFrames, feedFrame < b - fade { n = min(n, b - fade - feedFrame) }
                n = max(1, n)
                let part = read(from: feedFrame, count: n)
                process([part.left, part.right], count: n)
                feedFrame += n
            }
            drain(t)
        }
    }

    /// Stretched frames out of Rubber Band into the ring.
    private func drain(_ t: Target) {
        guard let s = stretcher else { return }
        var left = [Float](repeating: 0, count: 4096), right = left
        while true {
            let available = Int(rubberband_available(s))
            guard available > 0 else { return }
            let want = min(available, 4096)
            let got = left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    var outs: [UnsafeMutablePointer<Float>?] = [l.baseAddress, r.baseAddress]
                    return Int(outs.withUnsafeMutableBufferPointer { rubberband_retrieve(s, $0.baseAddress!, UInt32(want)) })
                }
            }
            guard got > 0 else { return }
            var from = 0
            if discard > 0 {
                from = min(discard, got)
                discard -= from
            }
            let n = got - from
            guard n > 0 else { continue }
            let wrote = left.withUnsafeBufferPointer { l in
                right.withUnsafeBufferPointer { r in etude_mix_write(l.baseAddress! + from, r.baseAddress! + from, UInt32(n)) }
            }
            nextOut += Double(wrote) / Double(outputRate) * speed
            if let loop = t.loop, nextOut > loop.upperBound, loop.upperBound > loop.lowerBound {
                nextOut -= loop.upperBound - loop.lowerBound
            }
            state.withLock { $0.figures.framesQueued += UInt64(wrote) }
        }
    }

    private func process(_ channels: [[Float]], count: Int) {
        guard let s = stretcher, count > 0 else { return }
        channels[0].withUnsafeBufferPointer { l in
            channels[1].withUnsafeBufferPointer { r in
                var ins: [UnsafePointer<Float>?] = [l.baseAddress, r.baseAddress]
                ins.withUnsafeMutableBufferPointer { rubberband_process(s, $0.baseAddress!, UInt32(count), 0) }
            }
        }
    }

    /// `count` frames from `from` as two channels (zeros past the end or where the file fails),
    /// through a cache of the block around them.
    private func read(from: Int, count: Int) -> (left: [Float], right: [Float]) {
        let chunk = 1 << 16
        if from < cache.from || from + count > cache.from + cache.left.count {
            let start = max(0, from)
            let got: (left: [Float], right: [Float]) = (try? file.stereo(from: start, to: start + max(chunk, count))) ?? ([], [])
            cache = (start, got.left, got.right)
        }
        var l = [Float](repeating: 0, count: count), r = l
        for i in 0..<count {
            let k = from + i - cache.from
            if k >= 0 && k < cache.left.count {
                l[i] = cache.left[k]
                r[i] = cache.right[k]
            }
        }
        return (l, r)
    }

    private func setSpeed(_ newSpeed: Double) {
        speed = newSpeed
        if let s = stretcher { rubberband_set_time_ratio(s, timeRatio) }
    }

    /// Output frames per input frame: the tempo, and the two sample rates.
    private var timeRatio: Double { Double(outputRate) / (Double(file.sampleRate) * speed) }

    private func makeStretcher(finer: Bool) {
        if let s = stretcher { rubberband_delete(s) }
        var options = RubberBandOptionProcessRealTime.rawValue
        if finer { options |= RubberBandOptionEngineFiner.rawValue }
        // The pitch scale undoes the change of rate, so a 44.1 kHz recording on a 48 kHz synth keeps its pitch.
        stretcher = rubberband_new(UInt32(file.sampleRate), 2, Int32(bitPattern: options), timeRatio, Double(file.sampleRate) / Double(outputRate))
        if let s = stretcher {
            rubberband_set_max_process_size(s, 4096)
            let version = rubberband_get_engine_version(s)
            state.withLock { $0.engine = version >= 3 ? .r3 : .r2 }
        }
    }

    /// The share of real time R3 may take before R2 is used instead.
    public static let finerBudget = 0.4

    /// Seconds Rubber Band (R3 or R2, real-time) takes to stretch `seconds` of `file` from `at`,
    /// per second of audio: what decides the engine, and what `make bench` prints.
    public static func costOfStretching(file: RecordingFile, outputRate: Int, speed: Double, finer: Bool, seconds: Double, at: Double = 0) -> Double {
        var options = RubberBandOptionProcessRealTime.rawValue
        if finer { options |= RubberBandOptionEngineFiner.rawValue }
        let ratio = Double(outputRate) / (Double(file.sampleRate) * speed)
        guard let s = rubberband_new(UInt32(file.sampleRate), 2, Int32(bitPattern: options), ratio, Double(file.sampleRate) / Double(outputRate)) else { return .infinity }
        defer { rubberband_delete(s) }
        let from = Int(max(0, at) * Double(file.sampleRate))
        let count = Int(seconds * Double(file.sampleRate))
        guard let (left, right) = try? file.stereo(from: from, to: from + count), !left.isEmpty else { return 0 }
        var out = [Float](repeating: 0, count: 8192), out2 = out
        let started = wallNow()
        var at = 0
        while at < left.count {
            let n = min(1024, left.count - at)
            left.withUnsafeBufferPointer { l in
                right.withUnsafeBufferPointer { r in
                    var ins: [UnsafePointer<Float>?] = [l.baseAddress! + at, r.baseAddress! + at]
                    ins.withUnsafeMutableBufferPointer { rubberband_process(s, $0.baseAddress!, UInt32(n), 0) }
                }
            }
            while rubberband_available(s) > 0 {
                let want = UInt32(min(8192, Int(rubberband_available(s))))
                let got = out.withUnsafeMutableBufferPointer { a in
                    out2.withUnsafeMutableBufferPointer { b in
                        var outs: [UnsafeMutablePointer<Float>?] = [a.baseAddress, b.baseAddress]
                        return outs.withUnsafeMutableBufferPointer { rubberband_retrieve(s, $0.baseAddress!, want) }
                    }
                }
                if got == 0 { break }
            }
            at += n
        }
        let took = wallNow() - started
        return took / (Double(left.count) / Double(file.sampleRate))
    }

    static func wallNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
