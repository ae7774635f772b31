import CFluidSynth
import Foundation

/// The buffer the live synth plays with on PulseAudio (or PipeWire's pulse server): the
/// smallest that plays without gaps here. Pure rules, driven by `PulseStream`'s watcher:
/// an underrun steps the buffer up at once (and that size becomes the floor: never tried
/// again), except in the `settle` second after the stream opened or the buffer changed; a default buffer that stayed clean for `probeAfter` seconds steps down one notch,
/// until the next notch is the floor or the ladder's bottom. A buffer the learner gave
/// (`--audio-buffer`) only ever steps up.
public struct BufferSteps: Equatable, Sendable {
    /// The sizes tried (ms): fine steps where players notice latency, coarse above.
    public static let ladder: [Double] = [5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200, 300, 500]
    /// Seconds without an underrun before a smaller buffer is tried.
    public static let probeAfter = 8.0
    /// Seconds after the stream opens or the buffer changes whose underruns are the old
    /// buffer's (or the start's): they are not held against the new one.
    public static let settle = 1.0

    public private(set) var milliseconds: Double
    /// The largest buffer that underran (nil: none yet).
    public private(set) var floor: Double?
    public let probesDown: Bool
    private var clean = 0.0
    private var sinceChange = 0.0

    public enum Change: Equatable, Sendable {
        case none
        /// An underrun: the buffer grew from the first size to the second.
        case up(from: Double, to: Double)
        case down(from: Double, to: Double)
    }

    public init(milliseconds: Double, probesDown: Bool, floor: Double? = nil) {
        self.milliseconds = milliseconds
        self.probesDown = probesDown
        self.floor = floor
    }

    /// What the steps learned on one device: the size it plays at and the largest that underran
    /// there. Remembered per device (the library), so the next session starts from it instead
    /// of finding it again through a few seconds of gaps or probing.
    public struct Learned: Equatable, Sendable {
        public var milliseconds: Double
        public var floor: Double?

        public init(milliseconds: Double, floor: Double?) {
            self.milliseconds = milliseconds
            self.floor = floor
        }
    }

    public var learned: Learned { Learned(milliseconds: milliseconds, floor: floor) }

    /// The steps for a default buffer resumed from what a device taught before: its size (on the
    /// ladder, and above its floor), still probing down and still growing on an underrun.
    public static func resumed(_ learned: Learned) -> BufferSteps? {
        let size = learned.milliseconds
        guard size.isFinite, ladder.contains(size), learned.floor.map({ $0.isFinite && $0 < size }) ?? true else { return nil }
        return BufferSteps(milliseconds: size, probesDown: true, floor: learned.floor)
    }

    /// `underruns` new underruns were counted over the last `elapsed` seconds.
    public mutating func observe(underruns: Int, elapsed: Double) -> Change {
        let now = milliseconds
        sinceChange += max(0, elapsed)
        if underruns > 0 && sinceChange < Self.settle {
            clean = 0
            return .none
        }
        if underruns > 0 {
            clean = 0
            sinceChange = 0
            floor = max(floor ?? 0, now)
            guard let next = Self.ladder.first(where: { $0 > now }) else { return .none }
            milliseconds = next
            return .up(from: now, to: next)
        }
        clean += max(0, elapsed)
        guard probesDown, clean >= Self.probeAfter, let lower = Self.ladder.last(where: { $0 < now }), lower > (floor ?? 0) else {
            return .none
        }
        clean = 0
        sinceChange = 0
        milliseconds = lower
        return .down(from: now, to: lower)
    }

    /// The one line said the first time the buffer had to grow.
    public static func notice(_ change: Change) -> String? {
        guard case .up(let from, let to) = change else { return nil }
        return "audio gaps (underruns) with a \(NumberFormat.ms(from)) ms buffer: now \(NumberFormat.ms(to)) ms"
    }
}

/// Milliseconds as the lines about the audio buffer write them (`12`, `7.5`).
public enum NumberFormat {
    public static func ms(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

/// Etude's own PulseAudio playback stream (driver `pulseaudio`; PipeWire's pulse server answers
/// it too): FluidSynth rendered in the stream's callback, underruns counted, and the buffer
/// moved by `BufferSteps` while it plays, saying so once (`onNotice`) when it had to grow.
public final class PulseStream: @unchecked Sendable {
    let handle: OpaquePointer
    public let sampleRate: Double
    /// The default sink's name (the device played on).
    public let device: String
    private let lock = NSLock()
    private var steps: BufferSteps
    private var stopped = false
    private var said = false
    private var notice: (@Sendable (String) -> Void)?
    private var log: (@Sendable (String) -> Void)?
    private var learnedHook: (@Sendable (BufferSteps.Learned) -> Void)?
    private var thread: Thread?

    /// Opens the stream on `synth` with `milliseconds` of buffer in `periods` requests; nil
    /// when no server answers within 1 s or the stream fails.
    init?(synth: UnsafeMutableRawPointer, rate: Double, milliseconds: Double, periods: Int, probesDown: Bool) {
        var err = [CChar](repeating: 0, count: 256)
        let frames = Self.frames(milliseconds, rate: rate)
        guard let h = etude_pulse_out_open(synth, UInt32(rate), UInt32(frames), UInt32(max(16, frames / max(2, periods))), 1000, &err, 256) else {
            return nil
        }
        handle = h
        sampleRate = rate
        var name = [CChar](repeating: 0, count: 256)
        etude_pulse_out_device(h, &name, 256)
        device = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        steps = BufferSteps(milliseconds: milliseconds, probesDown: probesDown)
        self.periods = max(2, periods)
    }

    private let periods: Int

    static func frames(_ milliseconds: Double, rate: Double) -> Int { max(48, Int((milliseconds / 1000 * rate).rounded())) }

    deinit { close() }

    /// The handle while the stream is open (under the lock: `close` cannot free it meanwhile).
    private func open<T>(_ closed: T, _ body: (OpaquePointer) -> T) -> T {
        lock.withLock { stopped ? closed : body(handle) }
    }

    /// Underruns counted since the stream opened.
    public var underruns: Int { open(0) { Int(etude_pulse_out_underruns($0)) } }
    public var renderedFrames: UInt64 { open(0) { etude_pulse_out_rendered($0) } }
    public var alive: Bool { open(false) { etude_pulse_out_alive($0) != 0 } }
    /// The buffer asked for now (ms).
    public var bufferMilliseconds: Double { lock.withLock { steps.milliseconds } }
    /// Seconds from a note sent now to the speakers: the server's report, else the buffer.
    public var latencySeconds: Double {
        let us = open(0) { etude_pulse_out_latency_us($0) }
        return us > 0 ? Double(us) / 1e6 : bufferMilliseconds / 1000
    }

    /// What the steps learned so far on this device.
    public var learned: BufferSteps.Learned { lock.withLock { steps.learned } }

    /// Called (on the watcher's thread) each time the buffer moved: what to remember for the device.
    public var onLearned: (@Sendable (BufferSteps.Learned) -> Void)? {
        get { lock.withLock { learnedHook } }
        set { lock.withLock { learnedHook = newValue } }
    }

    /// Starts from what this device taught before (a default buffer only: one the learner gave
    /// stays theirs); false when the size is not one the steps use.
    @discardableResult
    public func resume(from learned: BufferSteps.Learned) -> Bool {
        lock.withLock {
            guard !stopped, steps.probesDown, let resumed = BufferSteps.resumed(learned) else { return false }
            steps = resumed
            let frames = Self.frames(resumed.milliseconds, rate: sampleRate)
            _ = etude_pulse_out_set_buffer(handle, UInt32(frames), UInt32(max(16, frames / periods)))
            return true
        }
    }

    /// Starts watching the underruns (every 250 ms); `notice` gets one line the first time the
    /// buffer had to grow, `log` a line for every change (`--verbose`).
    func watch(notice: @escaping @Sendable (String) -> Void, log: @escaping @Sendable (String) -> Void) {
        lock.withLock {
            self.notice = notice
            self.log = log
        }
        let thread = Thread { [weak self] in
            var seen = 0
            var last = Date()
            while let s = self, !s.isStopped {
                let count = s.underruns
                let now = Date()
                s.step(underruns: count - seen, elapsed: now.timeIntervalSince(last))
                seen = count
                last = now
                usleep(250_000)
            }
        }
        thread.name = "etude-pulse-watch"
        lock.withLock { self.thread = thread }
        thread.start()
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    func step(underruns: Int, elapsed: Double) {
        let (change, say, log) = lock.withLock { () -> (BufferSteps.Change, (@Sendable (String) -> Void)?, (@Sendable (String) -> Void)?) in
            guard !stopped else { return (.none, nil, nil) }
            let c = steps.observe(underruns: underruns, elapsed: elapsed)
            var say: (@Sendable (String) -> Void)?
            if case .up = c, !said {
                said = true
                say = notice
            }
            switch c {
            case .none: break
            case .up(_, let to), .down(_, let to):
                let frames = Self.frames(to, rate: sampleRate)
                _ = etude_pulse_out_set_buffer(handle, UInt32(frames), UInt32(max(16, frames / periods)))
            }
            return (c, say, self.log)
        }
        if let say, let line = BufferSteps.notice(change) { say(line) }
        if change != .none { onLearned?(learned) }
        switch change {
        case .none: break
        case .up(_, let to): log?("audio: underruns: buffer now \(NumberFormat.ms(to)) ms")
        case .down(_, let to): log?("audio: no underruns for \(NumberFormat.ms(BufferSteps.probeAfter)) s: buffer now \(NumberFormat.ms(to)) ms")
        }
    }

    /// Stops the stream; the synth is no longer touched afterwards.
    public func close() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            etude_pulse_out_close(handle)
        }
    }
}
