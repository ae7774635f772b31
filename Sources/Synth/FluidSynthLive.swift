import Clocks
import CFluidSynth
import Foundation
import Jack
import MIDIFile

/// Live sound through Etude's own JACK client (driver `jack`, when a JACK server already
/// answers) or FluidSynth's own audio driver, or silence when no device opens.
///
/// Silence is a normal outcome (SSH, containers, CI): visual practice must keep working, so
/// construction only fails for SoundFont problems, never for audio ones. When the JACK server
/// stops mid-lesson the synth moves to the next driver in the list and says so once (`onNotice`).
public final class FluidSynthLive: SoundOutput, @unchecked Sendable {
    /// JACK first (only when a server answers: Etude never starts one), then the desktop servers.
    public static let defaultDrivers = ["jack", "pipewire", "pulseaudio", "alsa"]

    public struct Options: Sendable {
        /// Tried in order; `--audio-driver NAME` makes this a single name.
        public var drivers: [String] = FluidSynthLive.defaultDrivers
        /// nil = the device's rate: the PulseAudio/PipeWire server's default when one answers
        /// (no resampling), else 48 kHz.
        public var sampleRate: Double?
        /// Frames per period and number of periods, used as given when there is no buffer
        /// target (128 × 3 at 48 kHz = 8 ms of buffer).
        public var periodSize = 128
        public var periods = 3
        /// A buffer length to aim for (`--audio-buffer MS`, else the default): the period size
        /// is then chosen for it at the rate the synth runs (nil = `periodSize` × `periods`).
        public var bufferTargetMilliseconds: Double? = Options.defaultBufferMilliseconds
        public var reverb = true
        public var chorus = true
        /// On PulseAudio: try smaller buffers while none underruns (the default buffer); a
        /// buffer the learner gave only grows on underruns (see `BufferSteps`).
        public var probesDown = true
        public init() {}

        /// Output buffer length in milliseconds (period size × periods).
        public func bufferMilliseconds(at rate: Double) -> Double { Double(periodSize * periods) / rate * 1000 }

        /// Buffer lengths `--audio-buffer` may ask for (ms): below 2 ms no driver keeps up, above
        /// 500 ms the notes lag the screen.
        public static let bufferRange = 2.0...500.0

        /// The buffer the live synth aims for unless told otherwise (ms). Measured through a
        /// PulseAudio null sink on the two-core test machine with a full test run beside it:
        /// 8, 20, 25 and 30 ms buffers left audible gaps (underruns) in most passes, 40 ms in none.
        /// The learner's timing is judged with their calibrated offset, which includes it.
        public static let defaultBufferMilliseconds = 40.0

        /// The periods for about `milliseconds` of buffer at `rate`: `periods` of them (at least
        /// 2), each a multiple of 16 frames within 16…8192 — a longer buffer trades latency for
        /// safety from underruns on a busy machine.
        public func fitting(bufferMilliseconds milliseconds: Double, rate: Double) -> Options {
            var o = self
            o.periods = max(2, periods)
            let frames = milliseconds.isFinite && rate.isFinite ? milliseconds / 1000 * rate / Double(o.periods) : Double(periodSize)
            o.periodSize = min(8192, max(16, Int((frames / 16).rounded()) * 16))
            o.bufferTargetMilliseconds = nil
            return o
        }
    }

    /// What the live synth would open here: the driver (nil = none, silent) and its buffer.
    public struct AudioCheck: Equatable, Sendable {
        public var driver: String?
        public var sampleRate: Double
        public var periodSize: Int
        public var periods: Int
        /// Drivers tried, in order.
        public var tried: [String]

        /// Period size × periods at the rate, in ms: the synth's own share of the latency.
        public var bufferMilliseconds: Double { Double(periodSize * periods) / sampleRate * 1000 }

        /// `pulseaudio, 128 × 3 frames at 48000 Hz = 8.0 ms buffer`, or why there is no sound.
        public var line: String {
            guard let driver else { return "no audio device (tried \(tried.joined(separator: ", "))): Etude plays silently" }
            if driver == "jack" {
                return "jack (server \(JackClient.serverName)), \(periodSize)-frame periods at \(Int(sampleRate)) Hz = \(String(format: "%.1f", Double(periodSize) / sampleRate * 1000)) ms per period"
            }
            return "\(driver), \(periodSize) × \(periods) frames at \(Int(sampleRate)) Hz = \(String(format: "%.1f", bufferMilliseconds)) ms buffer"
        }
    }

    public let engine: FluidSynthEngine
    public let options: Options
    private let route = Route()

    /// The driver playing now (`jack` when Etude's JACK client renders the synth), or nil when
    /// playing silently.
    public var driver: String? { route.driver }
    /// Etude's JACK client while it renders this synth; nil otherwise (or once its server went).
    public var jack: JackClient? { route.jack }
    /// Every change of the PulseAudio buffer, as a line (`--verbose`).
    public var onBufferChange: (@Sendable (String) -> Void)? {
        get { route.withLock { route.bufferLog } }
        set { route.withLock { route.bufferLog = newValue } }
    }
    /// Called once with one line when the sound moves to another driver (the JACK server stopped).
    public var onNotice: (@Sendable (String) -> Void)? {
        get { route.withLock { route.notice } }
        set { route.withLock { route.notice = newValue } }
    }

    public init(soundFont: String, options: Options = Options(), onSlowLoad: (@Sendable (Double) -> Void)? = nil) throws(SynthError) {
        let (rate, options) = Self.resolve(options)
        self.options = options
        engine = try Self.engine(rate: rate, options: options)
        try engine.loadSoundFont(soundFont, onSlow: onSlowLoad)
        let (driver, jack) = Self.start(engine, drivers: options.drivers, pulse: pulse, options: options)
        route.set(driver: driver, jack: jack)
        if let jack {
            watchServer(jack)
        } else if let stream = pulse.stream {
            waitForAudioToFlow { stream.renderedFrames }
            let route = self.route
            stream.watch(notice: { line in route.withLock { route.notice }?(line) },
                         log: { line in route.withLock { route.bufferLog }?(line) })
        } else if driver != nil {
            waitForAudioToFlow { UInt64(self.engine.renderedFrames) }
        }
    }

    /// Etude's own PulseAudio stream while it plays the synth (driver `pulseaudio`).
    private let pulse = PulseBox()
    /// The PulseAudio stream playing the synth, nil with any other driver.
    public var pulseStream: PulseStream? { pulse.stream }

    deinit {
        // The JACK callback must let go of the synth before the engine frees it.
        route.jack?.attach(synth: nil)
        pulse.stream?.close()  // and the PulseAudio stream's
    }

    /// Opens the first driver of `drivers` that works: `jack` is Etude's own client (when a server
    /// answers at the synth's rate), any other name FluidSynth's driver of that name.
    static func start(_ engine: FluidSynthEngine, drivers: [String], pulse: PulseBox? = nil, options: Options? = nil) -> (String?, JackClient?) {
        for name in drivers {
            // PulseAudio (or PipeWire's pulse server): Etude's own stream, which counts underruns.
            if name == "pulseaudio", let pulse, let options, let synth = engine.synthPointer,
               let stream = PulseStream(synth: synth, rate: engine.sampleRate, milliseconds: options.bufferMilliseconds(at: engine.sampleRate),
                                        periods: options.periods, probesDown: options.probesDown) {
                pulse.stream = stream
                return (name, nil)
            }
            if name == "jack" {
                guard let client = try? JackClient.shared(), client.sampleRate == Int(engine.sampleRate) else { continue }
                client.attach(synth: engine.synthPointer)
                return (name, client)
            }
            if let opened = engine.startAudio(drivers: [name]) { return (opened, nil) }
        }
        return (nil, nil)
    }

    /// Watches the JACK server; when it stops, the synth moves on to the drivers after `jack`
    /// (or silence) and `onNotice` says so once.
    private func watchServer(_ client: JackClient) {
        let route = self.route
        let engine = self.engine
        let rest = Array(options.drivers.drop { $0 != "jack" }.dropFirst())
        let period = client.period
        let thread = Thread {
            var xruns = XrunNotice(seen: client.xruns)
            while route.jack === client {
                // Missed deadlines: said on the status line as PulseAudio's underruns are.
                if let line = xruns.observe(total: client.xruns, at: MonotonicClock.seconds(), period: period) {
                    route.withLock { route.notice }?(line)
                }
                if !client.alive {
                    client.attach(synth: nil)
                    engine.allNotesOff()
                    let next = rest.isEmpty ? nil : engine.startAudio(drivers: rest)
                    let notice = route.withLock { () -> (@Sendable (String) -> Void)? in
                        route.driver = next
                        route.jack = nil
                        return route.notice
                    }
                    let sound = JackStopLine.sound(movedTo: next)
                    // An input on the same client says it for both, in one line.
                    if client.listening { client.stopNotice = sound } else { notice?(JackStopLine.line(sound: sound, input: nil)) }
                    return
                }
                usleep(20_000)
            }
        }
        thread.name = "etude-jack-watch"
        thread.start()
    }

    /// Opens the audio driver as the live synth would (no SoundFont, no sound) and closes it:
    /// which driver answers here and the buffer it gets, for `etude devices`.
    public static func check(options: Options = Options()) -> AudioCheck {
        let (rate, options) = resolve(options)
        var result = AudioCheck(driver: nil, sampleRate: rate, periodSize: options.periodSize, periods: max(2, options.periods),
                                tried: options.drivers)
        guard let engine = try? engine(rate: rate, options: options) else { return result }
        let pulse = PulseBox()
        let (driver, jack) = start(engine, drivers: options.drivers, pulse: pulse, options: options)
        pulse.stream?.close()
        result.driver = driver
        if let jack {
            jack.attach(synth: nil)
            result.periodSize = jack.period
            result.periods = 1
        }
        engine.stopAudio()
        return result
    }

    /// The JACK server's rate when `jack` comes first among the drivers and a server answers.
    static func jackRate(drivers: [String]) -> Double? {
        guard drivers.first == "jack", let client = try? JackClient.shared() else { return nil }
        return Double(client.sampleRate)
    }

    /// The rate the synth runs at, and the options with a buffer target turned into periods.
    static func resolve(_ options: Options) -> (Double, Options) {
        let rate = options.sampleRate ?? jackRate(drivers: options.drivers) ?? deviceSampleRate(drivers: options.drivers) ?? 48_000
        guard let target = options.bufferTargetMilliseconds else { return (rate, options) }
        return (rate, options.fitting(bufferMilliseconds: target, rate: rate))
    }

    static func engine(rate: Double, options: Options) throws(SynthError) -> FluidSynthEngine {
        try FluidSynthEngine(sampleRate: rate, settings: [
            // FluidSynth's drivers take 64 frames or more (a smaller setting is refused); Etude's
            // own PulseAudio stream and JACK client use the buffer as fitted.
            "audio.period-size": .int(max(64, options.periodSize)),
            "audio.periods": .int(max(2, options.periods)),
            "synth.reverb.active": .int(options.reverb ? 1 : 0),
            "synth.chorus.active": .int(options.chorus ? 1 : 0),
            "audio.pulseaudio.adjust-latency": .int(1),
            "audio.pulseaudio.media-role": .string("music"),
        ])
    }

    /// A freshly opened stream (PulseAudio especially) can take a moment before it pulls the
    /// first period; notes dispatched before that would be shortened. Wait until FluidSynth has
    /// rendered a few periods (at most 2 s — a stuck device must not hang Etude).
    private func waitForAudioToFlow(_ rendered: () -> UInt64) {
        let start = rendered()
        let target = UInt64(options.periodSize * max(2, options.periods) * 2)
        let deadline = MonotonicClock.seconds() + 2
        while rendered() &- start < target && MonotonicClock.seconds() < deadline {
            usleep(2_000)
        }
        audioStartup = MonotonicClock.seconds() - (deadline - 2)
    }

    /// Seconds between opening the driver and the first periods being rendered.
    public private(set) var audioStartup: Double = 0

    /// The sound server's own rate when a PulseAudio-compatible driver is in the list and a
    /// server answers within 300 ms; nil otherwise (ALSA's default device resamples itself).
    public static func deviceSampleRate(drivers: [String]) -> Double? {
        guard drivers.contains(where: { $0 == "pulseaudio" || $0 == "pipewire" }) else { return nil }
        let rate = etude_pulse_default_rate(300)
        return (8_000...384_000).contains(rate) ? Double(rate) : nil
    }

    /// The one warning line shown when no driver opened (nil when sound works).
    public var warning: String? {
        driver == nil ? Self.noDeviceWarning(tried: options.drivers) : nil
    }

    public static func noDeviceWarning(tried: [String]) -> String {
        "no audio device (tried \(tried.joined(separator: ", "))): continuing silently; use 'etude render' to hear it as a WAV"
    }

    public func send(_ message: MIDIEvent.Kind) { send(message, due: nil) }

    /// Through JACK, played at the frame of `seconds` plus the client's lead; elsewhere now.
    public func send(_ message: MIDIEvent.Kind, at seconds: Double) { send(message, due: seconds) }

    private func send(_ message: MIDIEvent.Kind, due seconds: Double?) {
        let (driver, jack) = route.current
        guard driver != nil else { return }
        // Through JACK, channel messages reach the synth in the callback, by the ring.
        if let jack, let bytes = message.channelBytes, jack.send(bytes, to: .synth, at: seconds) { return }
        engine.send(message)
    }

    public func allNotesOff() {
        if let jack = route.jack, jack.allNotesOff(to: .synth) { return }
        engine.allNotesOff()
    }

    /// Seconds from `send` until the sound leaves the speakers: JACK's period and reported
    /// playback latency, or FluidSynth's own buffer; 0 when silent.
    public var outputLatency: Double {
        let (driver, jack) = route.current
        if let jack { return jack.outputLatencySeconds }
        if let stream = pulse.stream { return stream.bufferMilliseconds / 1000 }
        return driver == nil ? 0 : options.bufferMilliseconds(at: engine.sampleRate) / 1000
    }

    /// What the JACK callback did, for `--verbose`: lesson events that came too late for their
    /// frame, remappings, xruns, and its worst cycle against the period.
    static func jackSummary(_ jack: JackClient) -> String {
        let period = Double(jack.period) / Double(max(1, jack.sampleRate)) * 1000
        return "audio: JACK: \(jack.lateEvents) lesson events late for their frame, \(jack.remappings) remappings, \(jack.xruns) xruns; "
            + "worst callback \(String(format: "%.2f", jack.worstCallback() * 1000)) ms of a \(String(format: "%.2f", period)) ms period"
    }

    /// Remembers the client whose `midi_out` the lesson goes to: `close` silences it too.
    func routeMIDIOut(_ client: JackClient) { route.withLock { route.midiOut = client } }
    /// The same for an ALSA sequencer port (`--midi-out` without JACK).
    func routeALSA(_ out: ALSAMIDIOut) { route.withLock { route.alsaOut = out } }

    /// All notes off (on `etude:midi_out` too, when the lesson went there), then the driver is
    /// stopped (joins its thread; never hangs on exit). A JACK client lets go of the synth (the
    /// client stays for the process's other users).
    public func close() {
        let jack = route.jack
        route.set(driver: route.driver, jack: nil)
        if let out = route.withLock({ route.midiOut }) {
            out.allNotesOff(to: .midiOut)
            out.waitCycles(2, timeout: 0.2)
        }
        if let alsa = route.withLock({ route.alsaOut }) {
            alsa.allNotesOff()
            alsa.close()
        }
        if let jack {
            route.withLock { route.bufferLog }?(Self.jackSummary(jack))
            jack.allNotesOff(to: .synth)
            jack.waitCycles(2, timeout: 0.2)
            jack.attach(synth: nil)
        }
        engine.allNotesOff()
        if let stream = pulse.stream {
            usleep(UInt32(min(0.2, stream.bufferMilliseconds / 1000) * 1_000_000))  // the notes-off reach the speakers
            stream.close()
        }
        engine.stopAudio()
    }
}

/// JACK xruns (the server's cycles that missed their deadline: notes and note-offs may be lost)
/// said as one status line with the fix once `least` of them have come, at most once every
/// `interval` seconds while they go on. Pure state, tested without a server.
public struct XrunNotice: Sendable, Equatable {
    public static let interval = 10.0
    /// Xruns that make a line: fewer are the server's own hiccups (a client joining).
    public static let least = 3
    private var seen: Int
    private var saidAt: Double?
    private var unsaid = 0

    /// `seen`: the xruns already counted when watching starts (the server's start-up has some).
    public init(seen: Int) { self.seen = seen }

    /// The server's xrun count `total` at `now`; the line to say, if any. `period` is the
    /// server's period in frames (the fix names twice it).
    public mutating func observe(total: Int, at now: Double, period: Int) -> String? {
        guard total > seen else { return nil }
        unsaid += total - seen
        seen = total
        // A lone xrun (a client joining or leaving reorders the graph) is not worth a line.
        guard unsaid >= Self.least else { return nil }
        if let saidAt, now - saidAt < Self.interval { return nil }
        saidAt = now
        defer { unsaid = 0 }
        return Self.line(count: unsaid, period: period)
    }

    /// One line that fits the practice screen's status line at 80 columns.
    public static func line(count: Int, period: Int) -> String {
        let larger = min(8192, max(128, period * 2))
        return "\(count) JACK xrun\(count == 1 ? "" : "s"): use a larger period (jackd -p \(larger))"
    }
}

/// The PulseAudio stream of one synth, set once when it opens.
final class PulseBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: PulseStream?
    var stream: PulseStream? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// Which driver plays the synth now, changed by the JACK watcher when the server stops.
private final class Route: @unchecked Sendable {
    private let lock = NSLock()
    var driver: String?
    var jack: JackClient?
    var midiOut: JackClient?
    var alsaOut: ALSAMIDIOut?
    var bufferLog: (@Sendable (String) -> Void)?
    var notice: (@Sendable (String) -> Void)?

    func withLock<T>(_ body: () -> T) -> T { lock.withLock(body) }
    var current: (String?, JackClient?) { lock.withLock { (driver, jack) } }
    func set(driver: String?, jack: JackClient?) { lock.withLock { self.driver = driver; self.jack = jack } }
}

extension MIDIEvent.Kind {
    /// The message's bytes when it is a channel message (note, controller, program, pressure,
    /// bend); nil for sysex and meta events.
    public var channelBytes: [UInt8]? {
        switch self {
        case .noteOn(let c, let k, let v): return [0x90 | (c & 0x0F), k & 0x7F, v & 0x7F]
        case .noteOff(let c, let k, let v): return [0x80 | (c & 0x0F), k & 0x7F, v & 0x7F]
        case .polyPressure(let c, let k, let v): return [0xA0 | (c & 0x0F), k & 0x7F, v & 0x7F]
        case .controlChange(let c, let n, let v): return [0xB0 | (c & 0x0F), n & 0x7F, v & 0x7F]
        case .programChange(let c, let p): return [0xC0 | (c & 0x0F), p & 0x7F]
        case .channelPressure(let c, let v): return [0xD0 | (c & 0x0F), v & 0x7F]
        case .pitchBend(let c, let v): return [0xE0 | (c & 0x0F), UInt8(v & 0x7F), UInt8((v >> 7) & 0x7F)]
        default: return nil
        }
    }
}
