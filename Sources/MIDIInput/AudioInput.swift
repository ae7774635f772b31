#if canImport(Glibc)
import Glibc
#endif
import CALSA
import CPulseCapture
import Clocks
import Foundation
import Jack
import Listening
import MIDIFile

/// An acoustic piano heard through a microphone (`--input audio[:SOURCE]`): a PulseAudio or
/// PipeWire recording stream read on its own thread, each fragment given to a `NoteListener`,
/// each note it hears delivered as a key press (and its release a moment later: a microphone
/// hears onsets, so the practice judges it like the computer keyboard, onset only).
///
/// The listener is score-informed: `expectation` says which keys the lesson wants at a moment
/// (the awaited chord in wait mode), which the practice sets once the lesson is known.
public final class AudioInput: InputSource, @unchecked Sendable {
    /// The PulseAudio source (nil: the default source).
    public let source: String?
    public var name: String { "microphone" + (source.map { " (\(TextDecoding.sanitize($0)))" } ?? "") }
    /// `audio` (the default source) or `audio:SOURCE`.
    public var deviceID: String { InputDeviceID.audio(source) }
    /// A microphone hears onsets, and the piano sounds by itself in the room.
    public var capabilities: InputCapabilities { [.onsetsOnly, .listens] }
    public let sampleRate: Int
    private let clock: any TimeSource
    private let profile: ListeningProfile
    private let lock = NSLock()
    private var expectationBody: @Sendable (Double) -> Set<Int> = { _ in [] }
    private var ownSoundBody: @Sendable (Double) -> [Int: Double] = { _ in [:] }
    private var dueBody: @Sendable (Double) -> [Int: Double] = { _ in [:] }
    private var reader: ReaderThread?
    private var signalState: SignalState = .ok

    /// Samples per read: 10 ms, the listener's hop.
    static let fragmentSeconds = 0.01
    /// How long a heard note is held before its release is delivered (onset-only input).
    public static let heldSeconds = 0.15

    public init(source: String?, sampleRate: Int = 48_000, profile: ListeningProfile = ListeningProfile(),
                clock: any TimeSource = MonotonicClock()) {
        self.source = source
        self.sampleRate = sampleRate
        self.profile = profile
        self.clock = clock
    }

    /// The keys the lesson wants at a clock time; called on the capture thread.
    public var expectation: @Sendable (Double) -> Set<Int> {
        get { lock.withLock { expectationBody } }
        set { lock.withLock { expectationBody = newValue } }
    }

    /// The keys Etude itself began near a clock time, with the seconds since (its own sound,
    /// heard by the microphone): cancelled before the learner's notes are looked for, and never
    /// taken for the learner's.
    public var ownSound: @Sendable (Double) -> [Int: Double] {
        get { lock.withLock { ownSoundBody } }
        set { lock.withLock { ownSoundBody = newValue } }
    }

    /// The signal as the listener last judged it (too quiet, clipped, noisy), for the header.
    public var signal: SignalState { lock.withLock { signalState } }

    public func expect(_ body: @escaping @Sendable (Double) -> Set<Int>) { expectation = body }
    public func expectDue(_ body: @escaping @Sendable (Double) -> [Int: Double]) { due = body }

    /// The expected keys at a clock time with the seconds to each one's due time (empty: not
    /// known, every expected key counts as due now); called on the capture thread.
    public var due: @Sendable (Double) -> [Int: Double] {
        get { lock.withLock { dueBody } }
        set { lock.withLock { dueBody = newValue } }
    }
    public func ignoreOwnSound(_ body: @escaping @Sendable (Double) -> [Int: Double]) { ownSound = body }
    public var listeningSignal: SignalState? { signal }

    /// Opens the source and closes it again: one line naming the problem before anything else
    /// opens (the synth, the screen).
    public static func check(source: String?) throws(InputError) {
        try openCapture(source: source, rate: 48_000, fragment: 480).close()
    }

    /// A capture stream of `source` (nil: the default): mono float at `rate`, read `fragment`
    /// samples at a time. `etude calibrate --input audio` reads one directly.
    /// `jack` is Etude's own `etude:mic` port on its JACK client (`jack:PORT` connects PORT to it);
    /// anything else a PulseAudio/PipeWire source. JACK runs at the server's rate, not `rate`.
    public static func openCapture(source: String?, rate: Int = 48_000, fragment: Int = 480) throws(InputError) -> any AudioCaptureStream {
        if let source, source.lowercased() == "jack" || source.lowercased().hasPrefix("jack:") {
            return try JackCapture(connect: source.count > 5 ? String(source.dropFirst(5)) : nil)
        }
        if let source, source.lowercased().hasPrefix("alsa:") {
            return try ALSACapture(device: String(source.dropFirst(5)), rate: rate)
        }
        return try PulseCapture(source: source, rate: rate, fragment: fragment)
    }

    /// The listener a capture thread owns: the set-up's profile and, when the set-up measured it,
    /// the room's noise bin by bin (issue 41), taken off every spectrum as `etude judge` takes
    /// off a recording's own first quiet second.
    static func listener(sampleRate: Int, profile: ListeningProfile) -> NoteListener {
        let listener = NoteListener(sampleRate: sampleRate, profile: profile)
        if let room = profile.roomSpectrum { listener.hearRoom(room) }
        return listener
    }

    public func start(_ handler: @escaping @Sendable (InputEvent) -> Void) throws(InputError) {
        stop()
        let stream = try Self.openCapture(source: source, rate: sampleRate, fragment: max(64, Int(Double(sampleRate) * Self.fragmentSeconds)))
        // The stream's own rate (a JACK server's may differ from the one asked for).
        let sampleRate = stream.sampleRate
        let fragment = max(64, Int(Double(sampleRate) * Self.fragmentSeconds))
        let thread = try ReaderThread()
        reader = thread
        let box = StreamBox(stream)
        let started = clock.now
        thread.start { [self] in
            defer { box.stream.close() }
            // The listener belongs to this thread alone.
            let listener = Self.listener(sampleRate: sampleRate, profile: profile)
            var samples = [Float](repeating: 0, count: fragment)
            var read = 0
            var pendingOffs: [(time: Double, pitch: UInt8)] = []
            var lastSignal = SignalState.ok
            // The microphone's own delay (server buffer) puts sample 0 that long before `started`.
            let serverDelay = box.stream.latencySeconds
            let origin = started - serverDelay
            listener.expectedAt = { [self] t in self.expectation(origin + t) }
            listener.dueAt = { [self] t in self.due(origin + t) }
            listener.othersAt = { [self] t in self.ownSound(origin + t) }
            while !thread.stopRequested {
                do {
                    try box.stream.read(into: &samples)
                } catch {
                    handler(.ended("the microphone stopped (\(error)); the lesson carries on without it"))
                    return
                }
                read += fragment
                for note in listener.push(samples) {
                    let at = origin + note.time
                    if let log = ProcessInfo.processInfo.environment["ETUDE_LISTEN_LOG"] {
                        let line = "\(note.time) \(note.pitch) \(note.strength) exp=\(self.expectation(at).sorted()) own=\(self.ownSound(at).sorted { $0.key < $1.key }.map { "\($0.key)@\(Int($0.value * 1000))ms" })\n"
                        if let h = FileHandle(forWritingAtPath: log) { h.seekToEndOfFile(); h.write(Data(line.utf8)); h.closeFile() }
                    }
                    handler(.note(PlayedNote(kind: .on, pitch: UInt8(note.pitch), velocity: 80, time: at)))
                    pendingOffs.append((at + Self.heldSeconds, UInt8(note.pitch)))
                }
                let now = origin + Double(read) / Double(sampleRate)
                while let first = pendingOffs.first, first.time <= now {
                    pendingOffs.removeFirst()
                    handler(.note(PlayedNote(kind: .off, pitch: first.pitch, velocity: 0, time: first.time)))
                }
                let state = listener.signal
                lock.withLock { signalState = state }
                // Silence between notes is no problem to report; the others are.
                if state != lastSignal, state != .silent {
                    lastSignal = state
                    handler(.status(state == .ok ? "microphone: hearing the piano" : "microphone: \(state.rawValue) — \(Self.advice(state))"))
                }
            }
        }
        thread.waitUntilRunning()
    }

    public func stop() {
        reader?.stopAndJoin()
        reader = nil
    }

    /// What the learner can do about a signal the listener cannot trust.
    public static func advice(_ state: SignalState) -> String {
        switch state {
        case .ok: return "ok"
        case .silent: return "nothing heard; check the microphone is on and not muted"
        case .tooQuiet: return "move the microphone closer or raise its level"
        case .clipped: return "lower the microphone's level"
        case .noisy: return "too much noise to judge; quieten the room or move the microphone closer"
        }
    }
}

/// The capture stream carried onto the reader thread (only that thread uses it).
private final class StreamBox: @unchecked Sendable {
    let stream: any AudioCaptureStream
    init(_ stream: any AudioCaptureStream) { self.stream = stream }
}

/// A microphone's samples as they come: mono float, one blocking fragment at a time. PulseAudio
/// (and PipeWire through it) today; a JACK port or an ALSA capture device behind the same calls.
public protocol AudioCaptureStream: AnyObject {
    var sampleRate: Int { get }
    /// Seconds between the microphone and this program (the server's buffer), as it reports.
    var latencySeconds: Double { get }
    /// Fills `samples` (blocks about as long as they last); throws when the stream stopped.
    func read(into samples: inout [Float]) throws(InputError)
    func close()
}

/// A PulseAudio recording stream through the simple API (`CPulseCapture`).
final class PulseCapture: AudioCaptureStream {
    let sampleRate: Int
    private var handle: UnsafeMutableRawPointer?

    init(source: String?, rate: Int, fragment: Int) throws(InputError) {
        var message = [CChar](repeating: 0, count: 256)
        guard let stream = etude_capture_open(source, Int32(rate), Int32(fragment), &message, 256) else {
            let why = TextDecoding.message(message)
            let shown = source.map { TextDecoding.sanitize($0) } ?? "the default source"
            throw InputError("cannot listen to \(shown): \(why); check `pactl list short sources` and pass --input audio:SOURCE (or start PulseAudio/PipeWire)")
        }
        sampleRate = rate
        handle = stream
    }

    var latencySeconds: Double {
        guard let handle else { return 0 }
        return max(0, Double(etude_capture_latency_us(handle))) / 1_000_000
    }

    func read(into samples: inout [Float]) throws(InputError) {
        guard let handle else { throw InputError("the stream is closed") }
        var err = [CChar](repeating: 0, count: 256)
        let count = Int32(samples.count)
        let status = samples.withUnsafeMutableBufferPointer { buffer in
            etude_capture_read(handle, buffer.baseAddress, count, &err, 256)
        }
        if status != 0 { throw InputError(TextDecoding.message(err)) }
    }

    func close() {
        if let handle { etude_capture_close(handle) }
        handle = nil
    }

    deinit { close() }
}

/// Etude's `etude:mic` port on its one JACK client (`--input audio:jack[:PORT]`): the callback
/// fills a ring, this waits for each fragment.
final class JackCapture: AudioCaptureStream {
    let client: JackClient
    var sampleRate: Int { client.sampleRate }
    var latencySeconds: Double { client.micLatencySeconds }

    init(connect port: String?) throws(InputError) {
        do {
            client = try JackClient.shared()
            try client.openMic()
            if let port { try client.connectToMic(port) }
        } catch {
            throw InputError("cannot listen on JACK: \(error)")
        }
    }

    func read(into samples: inout [Float]) throws(InputError) {
        var filled = 0
        while filled < samples.count {
            filled += client.readMic(into: &samples, from: filled)
            if filled < samples.count {
                guard client.alive else { throw InputError("the JACK server stopped") }
                usleep(2_000)
            }
        }
    }

    func close() {}
}

/// An ALSA capture device (`--input audio:alsa:DEVICE`, e.g. `plughw:1` or `default`) through
/// libasound's PCM API: mono 16-bit at the asked rate.
final class ALSACapture: AudioCaptureStream {
    let sampleRate: Int
    private var handle: UnsafeMutableRawPointer?

    init(device: String, rate: Int) throws(InputError) {
        let shown = TextDecoding.sanitize(device)
        guard !device.isEmpty else { throw InputError("audio:alsa: name the ALSA capture device, e.g. --input audio:alsa:plughw:1 (`arecord -L` lists them)") }
        var message = [CChar](repeating: 0, count: 256)
        guard let h = etude_pcm_open(device, Int32(rate), &message, 256) else {
            throw InputError("cannot listen to ALSA device \(shown): \(TextDecoding.message(message)); check `arecord -L` and pass --input audio:alsa:DEVICE (plughw:CARD converts formats)")
        }
        handle = h
        sampleRate = rate
    }

    var latencySeconds: Double {
        guard let handle else { return 0 }
        return Double(etude_pcm_delay_frames(handle)) / Double(max(1, sampleRate))
    }

    func read(into samples: inout [Float]) throws(InputError) {
        guard let handle else { throw InputError("the stream is closed") }
        var err = [CChar](repeating: 0, count: 256)
        let count = Int32(samples.count)
        let status = samples.withUnsafeMutableBufferPointer { etude_pcm_read(handle, $0.baseAddress, count, &err, 256) }
        if status != 0 { throw InputError(TextDecoding.message(err)) }
    }

    func close() {
        if let handle { etude_pcm_close(handle) }
        handle = nil
    }

    deinit { close() }
}
