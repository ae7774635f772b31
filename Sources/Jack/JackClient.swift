import CJack
import Clocks
import Foundation

/// Why JACK could not be used, as one line naming the problem and the fix.
public struct JackError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// True when no JACK server answers (the caller moves on to the next driver or input).
    public var noServer: Bool
    public init(_ message: String, noServer: Bool = false) {
        self.message = message
        self.noServer = noServer
    }
    public var description: String { message }
}

/// Etude's one JACK client in this process (`etude`, or `--jack-name`), with the ports
/// `midi_in`, `midi_out`, `left` and `right`. It opens on first use when a JACK server (or
/// PipeWire's JACK) already answers — Etude never starts a server — and stays open until the
/// process ends or the server goes away. The real-time work is C (`CJack`): the live synth is
/// attached to it, what arrives on `midi_in` sounds in the cycle it arrives in, and lesson
/// events reach the callback through a lock-free ring (`send`).
public final class JackClient: @unchecked Sendable {
    let handle: OpaquePointer
    /// The name the server gave the client (the one asked for unless it was taken).
    public let name: String
    public let sampleRate: Int
    /// Frames per process cycle.
    public let period: Int
    /// Monotonic seconds minus JACK seconds: played events carry JACK's clock.
    let clockOffset: Double
    private let lock = NSLock()
    private var closed = false
    private var listeningFlag = false
    private var stopText: String?

    private init(handle: OpaquePointer) {
        self.handle = handle
        name = String(cString: etude_jack_name(handle))
        sampleRate = Int(etude_jack_rate(handle))
        period = Int(etude_jack_period(handle))
        clockOffset = MonotonicClock.seconds() - Double(etude_jack_now_usecs()) / 1e6
    }

    // MARK: the one client

    private static let registry = Registry()

    /// `--jack-name NAME`: the client name used when the client opens (default `etude`).
    public static func configure(name: String) { registry.set(name: name) }
    public static var requestedName: String { registry.name }

    /// The client, opened now if needed. Throws when no server answers (`noServer`) or the
    /// server refused the client.
    public static func shared() throws(JackError) -> JackClient {
        try registry.client()
    }

    /// The client when it is open and its server alive, without trying to open one.
    public static var current: JackClient? { registry.current }

    /// The server's name as a client reaches it (`JACK_DEFAULT_SERVER`, else `default`).
    public static var serverName: String {
        ProcessInfo.processInfo.environment["JACK_DEFAULT_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    }

    final class Registry: @unchecked Sendable {
        private let lock = NSLock()
        private var wanted = "etude"
        private var open: JackClient?

        var name: String { lock.withLock { wanted } }
        func set(name: String) { lock.withLock { wanted = name } }
        var current: JackClient? { lock.withLock { open.flatMap { $0.alive ? $0 : nil } } }

        func client() throws(JackError) -> JackClient {
            lock.lock()
            defer { lock.unlock() }
            if let open, open.alive { return open }
            open?.close()
            open = nil
            var status: Int32 = 0
            guard let h = etude_jack_open(wanted, &status) else {
                let server = JackClient.serverName
                switch status {
                case 1: throw JackError("no JACK server answers (\(server)): start one (jackd, or PipeWire's pipewire-jack), or use another --audio-driver/--input", noServer: true)
                case 3: throw JackError("the JACK server \(server) refused Etude's ports: check its port limit (jackd -p)")
                default: throw JackError("the JACK server \(server) refused a client named \(wanted): try another --jack-name")
                }
            }
            let c = JackClient(handle: h)
            open = c
            return c
        }
    }

    // MARK: state

    /// False once the server stopped or died: the caller falls back and says so once.
    public var alive: Bool { lock.withLock { !closed } && etude_jack_alive(handle) != 0 }
    public var xruns: Int { Int(etude_jack_xruns(handle)) }
    /// Played events lost because nothing read them fast enough (a flood on `midi_in`).
    public var droppedEvents: Int { Int(etude_jack_dropped(handle)) }
    public var cycles: Int { Int(etude_jack_cycles(handle)) }
    /// Frames from `left` to the speakers, as the server reports them.
    public var outputLatencyFrames: Int { alive ? Int(etude_jack_output_latency(handle)) : 0 }
    /// The lesson's lead (`lessonLead`: an event due now is played a period and a margin later)
    /// plus the reported output latency, in seconds.
    public var outputLatencySeconds: Double { lessonLead + Double(outputLatencyFrames) / Double(max(1, sampleRate)) }

    public var midiIn: String { "\(name):midi_in" }
    public var midiOut: String { "\(name):midi_out" }
    public var left: String { "\(name):left" }
    public var right: String { "\(name):right" }

    // MARK: the synth

    /// Attaches FluidSynth's `fluid_synth_t` (nil detaches; returns once the callback let go).
    public func attach(synth: UnsafeMutableRawPointer?) {
        etude_jack_attach_synth(handle, synth)
    }
    public var hasSynth: Bool { etude_jack_has_synth(handle) != 0 }

    /// Echo: notes from `midi_in` sound on this channel of the attached synth (nil: they do not).
    public func setEcho(channel: Int?) { etude_jack_set_echo(handle, Int32(channel ?? -1)) }
    /// Keys the callback never echoes (gesture keys, 0–127): a key that gives a command must
    /// not sound. Their events still reach `takePlayed`. Empty mutes none.
    public func setMuted(keys: Set<Int>) {
        var low: UInt64 = 0, high: UInt64 = 0
        for k in keys where (0..<128).contains(k) {
            if k < 64 { low |= 1 << UInt64(k) } else { high |= 1 << UInt64(k - 64) }
        }
        etude_jack_set_muted_keys(handle, low, high)
    }
    /// Played events are kept for `takePlayed` only while reporting is on.
    public func setReporting(_ on: Bool) {
        lock.withLock { listeningFlag = on }
        etude_jack_set_reporting(handle, on ? 1 : 0)
    }

    /// True while an input reads `midi_in`: when the server stops, that input says so for both
    /// (one line), with what the sound did (`stopNotice`).
    public var listening: Bool { lock.withLock { listeningFlag } }
    /// What the sound did when the server stopped ("sound via pulseaudio", "silent").
    public var stopNotice: String? {
        get { lock.withLock { stopText } }
        set { lock.withLock { stopText = newValue } }
    }

    /// Where a lesson event goes.
    public struct Destination: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let synth = Destination(rawValue: 1)
        public static let midiOut = Destination(rawValue: 2)
    }

    /// Seconds between a lesson event's clock time and the frame it is played at (`send(at:)`):
    /// one period (the callback that plays a frame runs before that period starts) and
    /// `leadMargin` for the sender being late. A constant, so the lesson's gaps are kept to the
    /// frame; it is part of `outputLatencySeconds`.
    public var lessonLead: Double { Double(period) / Double(max(1, sampleRate)) + Self.leadMargin }
    /// How late a sender (the transport's thread, woken by the clock) may be before its event
    /// misses its frame and is played at the start of the next cycle instead: 4 ms, several
    /// times the wake-up delay measured on the loaded two-core test machine.
    public static let leadMargin = 0.010

    // MARK: floods and ports coming and going

    /// More than `events` on `midi_in` within a quarter second is a flood: the callback then
    /// neither reports nor echoes `midi_in` until a whole second passes at a keyboard's rate
    /// (nil: no limit). Checked in the callback, so a flood's notes never reach a ring.
    public func setFloodLimit(_ events: Int?) { etude_jack_set_flood_limit(handle, UInt32(clamping: max(0, events ?? 0))) }
    /// True while a flood on `midi_in` is being ignored.
    public var flooding: Bool { etude_jack_flooding(handle) != 0 }
    /// Floods started so far, and the events ignored in them.
    public var floods: Int { Int(etude_jack_floods(handle)) }
    public var floodEvents: Int { Int(etude_jack_flood_events(handle)) }

    /// Changes whenever a port is registered or unregistered on the server (an instrument's
    /// client coming or going): the port-registration callback counts them.
    public var registrations: UInt32 { etude_jack_registrations(handle) }
    /// True when a port of that full name exists now.
    public func portExists(_ name: String) -> Bool { etude_jack_port_exists(handle, name) != 0 }
    /// The ports connected to `midi_in` now.
    public func midiInConnections() -> [String] {
        guard alive else { return [] }
        var buf = [CChar](repeating: 0, count: 1 << 14)
        _ = etude_jack_connections(handle, &buf, buf.count)
        let text = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }

    /// Stamped lesson events that reached the callback after their frame (played at once).
    public var lateEvents: Int { Int(etude_jack_late(handle)) }
    /// Times the lesson's time → frame mapping moved to the server's (over 5 ms apart: a stall,
    /// or a sound card's clock drifting from the system's); each may shift one gap.
    public var remappings: Int { Int(etude_jack_reanchors(handle)) }

    /// The longest process callback so far (its own work: the synth's rendering, the MIDI, the
    /// rings), in seconds; `reset` starts a new maximum. Compare with the period's length.
    public func worstCallback(reset: Bool = false) -> Double { Double(etude_jack_worst_usecs(handle, reset ? 1 : 0)) / 1e6 }

    /// The JACK time in microseconds of a monotonic second (the clock the lesson runs on).
    func jackMicroseconds(monotonic seconds: Double) -> UInt64 {
        let usecs = (seconds - clockOffset) * 1e6
        return usecs.isFinite && usecs >= 1 ? UInt64(usecs) : 1
    }

    /// Queues a channel message (1–3 bytes). With `at` (a monotonic second, the clock time the
    /// lesson's event is due) the callback plays it at the frame of `at + lessonLead`, so
    /// successive events keep the lesson's gaps to the frame however late the sender woke;
    /// without it, at the start of the next cycle. Waits up to 50 ms when the ring is full (the
    /// server stalled); false when it stayed full or the server is gone.
    @discardableResult
    public func send(_ bytes: [UInt8], to destination: Destination, at seconds: Double? = nil) -> Bool {
        guard (1...3).contains(bytes.count), !destination.isEmpty else { return false }
        var e = etude_jack_event()
        e.len = UInt8(bytes.count)
        e.dest = destination.rawValue
        if let seconds { e.usecs = jackMicroseconds(monotonic: seconds + lessonLead) }
        withUnsafeMutableBytes(of: &e.bytes) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        return lock.withLock {
            guard !closed else { return false }
            for _ in 0..<50 {
                if etude_jack_send(handle, &e) != 0 { return true }
                guard etude_jack_alive(handle) != 0 else { return false }
                usleep(1_000)
            }
            return false
        }
    }

    /// Sustain up and all notes off on every channel of the destination.
    @discardableResult
    public func allNotesOff(to destination: Destination) -> Bool {
        send([0xFF], to: destination)
    }

    /// Waits until the callback has run `count` more cycles (at most `timeout` seconds):
    /// everything queued before has been played or sent.
    public func waitCycles(_ count: Int = 2, timeout: Double = 0.5) {
        let start = etude_jack_cycles(handle)
        let deadline = MonotonicClock.seconds() + timeout
        while alive && Int(etude_jack_cycles(handle) &- start) < count && MonotonicClock.seconds() < deadline { usleep(1_000) }
    }

    /// A MIDI event that arrived on `midi_in`: its bytes and the monotonic second of its frame.
    public struct Played: Equatable, Sendable {
        public var bytes: [UInt8]
        public var seconds: Double
        public var frame: UInt32
    }

    /// Everything played since the last call, oldest first.
    public func takePlayed(limit: Int = 4096) -> [Played] {
        var out: [Played] = []
        var e = etude_jack_event()
        while out.count < limit, etude_jack_take(handle, &e) != 0 {
            let len = Int(min(3, e.len))
            let bytes = withUnsafeBytes(of: e.bytes) { Array($0.prefix(len)) }
            out.append(Played(bytes: bytes, seconds: Double(e.usecs) / 1e6 + clockOffset, frame: e.frame))
        }
        return out
    }

    // MARK: ports

    /// Connects `source` → `destination` (full port names). One line when either is missing.
    public func connect(_ source: String, _ destination: String) throws(JackError) {
        switch etude_jack_connect(handle, source, destination) {
        case 0: return
        case 1: throw JackError("no JACK port \(source): `etude devices` lists the ports")
        case 2: throw JackError("no JACK port \(destination): `etude devices` lists the ports")
        default: throw JackError("the JACK server refused to connect \(source) to \(destination)")
        }
    }

    /// Port names of a kind: MIDI or audio, outputs (sources) or inputs, hardware only or all.
    public func ports(midi: Bool, output: Bool, physical: Bool = false) -> [String] {
        guard alive else { return [] }
        var buf = [CChar](repeating: 0, count: 1 << 16)
        _ = etude_jack_ports(handle, midi ? 1 : 0, output ? 1 : 0, physical ? 1 : 0, &buf, buf.count)
        let text = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }

    /// The port `text` names among `candidates`: the exact name, else the one containing it
    /// (case-insensitive); nil when none does.
    public static func pick(_ text: String, from candidates: [String]) -> String? {
        let t = text.lowercased()
        return candidates.first { $0.lowercased() == t } ?? candidates.first { $0.lowercased().contains(t) }
    }

    /// Closes the client (the synth detached first). Later calls to `shared()` open a new one.
    public func close() {
        let first = lock.withLock { () -> Bool in
            let was = closed
            closed = true
            return !was
        }
        if first { etude_jack_close(handle) }
    }
}

/// The one line said when the JACK server stops under Etude: what was lost (the sound, moved
/// to another driver or silent; the notes from the instrument's port), fitting 80 columns.
public enum JackStopLine {
    /// `sound`: the sound's part (`sound(movedTo:)`), nil when the synth was not on JACK;
    /// `input`: the port the notes came from, nil when no input listened.
    public static func line(sound: String?, input: String?) -> String {
        let named = input.map { "no notes from " + short($0) }
        let line = "JACK server gone: " + [sound, named].compactMap { $0 }.joined(separator: "; ")
        guard line.count > budget, input != nil else { return line }
        return "JACK server gone: " + [sound, "no more notes"].compactMap { $0 }.joined(separator: "; ")
    }

    /// Columns a status line may take on an 80-column practice screen (beside its
    /// `? help · q quit`).
    public static let budget = 58

    /// The sound's part: the driver it moved to, or silent.
    public static func sound(movedTo driver: String?) -> String {
        driver.map { "sound via \($0)" } ?? "silent"
    }

    /// A port name cut to 18 characters (in the middle) so the line fits the practice screen's
    /// status line at 80 columns.
    static func short(_ name: String) -> String {
        let limit = 18
        guard name.count > limit else { return name }
        return String(name.prefix(8)) + "…" + String(name.suffix(9))
    }
}
