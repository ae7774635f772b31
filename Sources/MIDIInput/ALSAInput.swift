import Clocks
import CALSA
import MIDIFile
import Synchronization

/// One readable ALSA sequencer port (a keyboard, a MIDI interface, a software source).
public struct ALSAPort: Equatable, Hashable, Sendable {
    public var client: Int
    public var port: Int
    public var clientName: String
    public var portName: String
    /// Real hardware (USB keyboard, interface): the kind `--input midi` picks first.
    public var isHardware: Bool
    /// Kernel "Midi Through" and application ports.
    public var isSoftware: Bool

    public init(client: Int, port: Int, clientName: String, portName: String, isHardware: Bool, isSoftware: Bool) {
        self.client = client
        self.port = port
        self.clientName = clientName
        self.portName = portName
        self.isHardware = isHardware
        self.isSoftware = isSoftware
    }

    /// `CLIENT:PORT`, the address `aconnect -i` shows.
    public var address: String { "\(client):\(port)" }

    /// e.g. `Digital Piano MIDI 1 (24:0)`.
    public var displayName: String { label + " (\(address))" }

    /// e.g. `Digital Piano MIDI 1`: the device without its number, which changes on a replug.
    public var label: String {
        let c = TextDecoding.sanitize(clientName)
        let p = TextDecoding.sanitize(portName)
        return p.hasPrefix(c) ? p : "\(c) \(p)"
    }
}

/// Which port `--input midi[:…]` means.
public enum PortTarget: Equatable, Hashable, Sendable {
    /// `--input midi`: the first hardware port (else the first non-"Midi Through" port).
    case firstKeyboard
    /// `--input midi:NAME`: a port whose client or port name contains NAME (case-insensitive).
    case named(String)
    /// `--input midi:CLIENT:PORT`.
    case address(client: Int, port: Int)

    /// Parses what follows `midi:`; empty text means the first keyboard.
    public init(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if text.isEmpty {
            self = .firstKeyboard
        } else if parts.count == 2, let c = Int(parts[0]), let p = Int(parts[1]) {
            self = .address(client: c, port: p)
        } else if let c = Int(text) {
            self = .address(client: c, port: 0)
        } else {
            self = .named(text)
        }
    }

    /// The port this target selects among `ports`; nil when none fits. Pure, for tests.
    public func pick(from ports: [ALSAPort]) -> ALSAPort? {
        switch self {
        case .firstKeyboard:
            return ports.first(where: { $0.isHardware && !$0.isSoftware })
                ?? ports.first(where: { !$0.clientName.lowercased().contains("midi through") && !$0.isSoftware })
        case .named(let name):
            let n = name.lowercased()
            return ports.first(where: { $0.clientName.lowercased() == n || $0.portName.lowercased() == n })
                ?? ports.first(where: { $0.clientName.lowercased().contains(n) || $0.portName.lowercased().contains(n) })
        case .address(let c, let p):
            return ports.first(where: { $0.client == c && $0.port == p })
        }
    }

    public var description: String {
        switch self {
        case .firstKeyboard: return "the first MIDI keyboard"
        case .named(let n): return "\"\(TextDecoding.sanitize(n))\""
        case .address(let c, let p): return "\(c):\(p)"
        }
    }
}

/// The ALSA sequencer as a whole: is it there, which ports can we read from.
public enum ALSASequencer {
    /// Why MIDI keyboards cannot be used on this machine, or nil when the sequencer is there.
    public static var unavailableReason: String? {
        etude_seq_device_present() == 1 ? nil
            : "no ALSA sequencer (/dev/snd/seq is missing or not accessible): MIDI keyboards cannot be used here; load the snd-seq module or check the audio group"
    }

    /// Readable ports of every other client, hardware first as ALSA numbers them.
    public static func inputPorts() throws(InputError) -> [ALSAPort] {
        if let why = unavailableReason { throw InputError(why, fallBackToComputerKeyboard: true) }
        let handle = try SequencerHandle(name: "Etude (listing)")
        return handle.inputPorts()
    }
}

/// Owns one opened sequencer client; closed on deinit.
final class SequencerHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer

    init(name: String) throws(InputError) {
        var err = [CChar](repeating: 0, count: 256)
        guard let h = etude_seq_open(name, &err, Int32(err.count)) else {
            let message = String(decoding: err.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw InputError(message + "; using the computer keyboard", fallBackToComputerKeyboard: true)
        }
        raw = h
    }

    deinit { etude_seq_close(raw) }

    func inputPorts() -> [ALSAPort] {
        var buffer = [etude_port_info](repeating: etude_port_info(), count: 128)
        let n = Int(etude_seq_list_input_ports(raw, &buffer, Int32(buffer.count)))
        return buffer.prefix(max(0, n)).map { info in
            var info = info
            let client = withUnsafeBytes(of: &info.client_name) { Self.string($0) }
            let port = withUnsafeBytes(of: &info.port_name) { Self.string($0) }
            return ALSAPort(client: Int(info.client), port: Int(info.port), clientName: client, portName: port,
                            isHardware: info.is_hardware != 0, isSoftware: info.is_software != 0)
        }
    }

    private static func string(_ raw: UnsafeRawBufferPointer) -> String {
        let bytes = raw.prefix(while: { $0 != 0 })
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Played notes from a keyboard on the ALSA sequencer, reconnecting when it is replugged.
///
/// On start it connects to the port `target` picks. When that port disappears (keyboard
/// unplugged) it reports a status line and watches the system announce port; when a port
/// with the same names (or one the target matches) appears, it reconnects and says so.
public final class ALSAInput: InputSource, @unchecked Sendable {
    public let target: PortTarget
    private let clock: any TimeSource
    private var reader: ReaderThread?
    private var connectedName = ""
    /// The keyboard followed through unplug and replug: the reader thread's and the screen's.
    private let watch = WatchBox()

    /// One `ReconnectWatch` shared by the reader thread and the screen (nil before a start).
    final class WatchBox: Sendable {
        private let value = Mutex<ReconnectWatch?>(nil)
        func set(_ watch: ReconnectWatch?) { value.withLock { $0 = watch } }
        /// Runs `body` on the watch (nil before a start).
        func withLock<T>(_ body: (inout ReconnectWatch) -> T) -> T? {
            value.withLock { w -> T? in
                guard var current = w else { return nil }
                defer { w = current }
                return body(&current)
            }
        }
        var missingPorts: [String] { value.withLock { $0?.missingPorts ?? [] } }
    }

    /// The keyboard while it is unplugged (by its name, awaited), else empty: the header says
    /// `keyboard gone` and wait mode pauses, as for a JACK port.
    public var missingPorts: [String] { watch.missingPorts }

    public var name: String { connectedName.isEmpty ? "ALSA \(target.description)" : connectedName }
    /// `midi:` and the port's name without its address (which changes on a replug).
    public var deviceID: String { InputDeviceID.alsa(name) }

    public init(target: PortTarget = .firstKeyboard, clock: any TimeSource = MonotonicClock()) {
        self.target = target
        self.clock = clock
    }

    public func start(_ handler: @escaping @Sendable (InputEvent) -> Void) throws(InputError) {
        stop()  // a second start replaces the first reader
        if let why = ALSASequencer.unavailableReason {
            throw InputError(why + "; using the computer keyboard", fallBackToComputerKeyboard: true)
        }
        let handle = try SequencerHandle(name: "Etude")
        let ports = handle.inputPorts()
        guard let port = target.pick(from: ports) else {
            throw Self.noPortError(target: target, ports: ports)
        }
        let rc = etude_seq_connect_from(handle.raw, Int32(port.client), Int32(port.port))
        guard rc >= 0 else {
            throw InputError("cannot connect to \(port.displayName): \(String(cString: etude_seq_strerror(rc))); check `etude devices`")
        }
        connectedName = port.displayName
        let reader = try ReaderThread()
        self.reader = reader
        let clock = self.clock
        let watch = self.watch
        watch.set(ReconnectWatch(target: target, connected: port))
        reader.start {
            Self.loop(handle: handle, connected: port, watch: watch, clock: clock, reader: reader, handler: handler)
        }
        reader.waitUntilRunning()
    }

    public func stop() {
        reader?.stopAndJoin()
        watch.set(nil)
    }

    /// The one-line error for a target no port matches, listing the ports there are.
    public static func noPortError(target: PortTarget, ports: [ALSAPort]) -> InputError {
        if ports.isEmpty {
            return InputError("no MIDI input ports found (is the keyboard plugged in and switched on?); using the computer keyboard",
                              fallBackToComputerKeyboard: true)
        }
        let list = ports.map(\.displayName).joined(separator: ", ")
        if target == .firstKeyboard {
            return InputError("no hardware MIDI keyboard found (ports: \(list)); pass --input midi:NAME or midi:CLIENT:PORT; using the computer keyboard",
                              fallBackToComputerKeyboard: true)
        }
        return InputError("no MIDI input port matches \(target.description); available ports: \(list)")
    }

    private static func loop(handle: SequencerHandle, connected initial: ALSAPort, watch: WatchBox,
                             clock: any TimeSource, reader: ReaderThread,
                             handler: @Sendable (InputEvent) -> Void) {
        handler(.status("MIDI input: \(initial.displayName)"))
        var event = etude_seq_event()
        // A flood (more than any keyboard sends) is said once and dropped before delivery.
        var flood = FloodGuard()
        var held = Set<[UInt8]>()  // [channel, key] delivered as on: ended when a flood starts
        let playable: Set<Int> = [Int(ETUDE_SEQ_NOTE_ON), Int(ETUDE_SEQ_NOTE_OFF), Int(ETUDE_SEQ_CONTROL),
                                  Int(ETUDE_SEQ_PITCH_BEND), Int(ETUDE_SEQ_PROGRAM)]
        while !reader.stopRequested {
            let rc = etude_seq_read(handle.raw, &event, 100)
            if rc == 0 { continue }
            if rc < 0 {
                handler(.ended("ALSA input failed: \(String(cString: etude_seq_strerror(rc))); input ended"))
                return
            }
            let time = clock.now
            let channel = UInt8(clamping: event.channel & 0x0F)
            if playable.contains(Int(event.type)) {
                switch flood.step(at: MonotonicClock.seconds()) {
                case .pass: break
                case .ended: handler(.status(FloodGuard.endedLine(initial.displayName)))
                case .dropped: continue
                case .started:
                    for key in held.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                        handler(.note(PlayedNote(kind: .off, pitch: key[1], velocity: 0, channel: key[0], time: time)))
                    }
                    held.removeAll()
                    handler(.status(FloodGuard.startedLine(initial.displayName)))
                    continue
                }
            }
            switch Int(event.type) {
            case Int(ETUDE_SEQ_NOTE_ON), Int(ETUDE_SEQ_NOTE_OFF):
                let on = Int(event.type) == Int(ETUDE_SEQ_NOTE_ON)
                let note = PlayedNote(kind: on ? .on : .off, pitch: UInt8(clamping: event.note & 0x7F),
                                      velocity: UInt8(clamping: event.value & 0x7F), channel: channel, time: time)
                if note.isOn && note.velocity > 0 { held.insert([channel, note.pitch]) } else { held.remove([channel, note.pitch]) }
                handler(.note(note))
            case Int(ETUDE_SEQ_CONTROL):
                handler(.control(.controlChange(channel: channel, controller: UInt8(clamping: event.note & 0x7F),
                                                value: UInt8(clamping: event.value & 0x7F)), time: time))
            case Int(ETUDE_SEQ_PITCH_BEND):
                let v = UInt16(clamping: max(0, min(16383, Int(event.value) + 8192)))
                handler(.control(.pitchBend(channel: channel, value: v), time: time))
            case Int(ETUDE_SEQ_PROGRAM):
                handler(.control(.programChange(channel: channel, program: UInt8(clamping: event.note & 0x7F)), time: time))
            case Int(ETUDE_SEQ_PORT_START), Int(ETUDE_SEQ_PORT_EXIT), Int(ETUDE_SEQ_CLIENT_EXIT):
                guard let announce = ALSAAnnounce(event) else { continue }
                switch watch.withLock({ $0.observe(announce, ports: { handle.inputPorts() }) }) ?? .nothing {
                case .nothing: break
                case .gone(let line):
                    // The keyboard cannot send its note-offs any more: its held keys end here.
                    for key in held.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                        handler(.note(PlayedNote(kind: .off, pitch: key[1], velocity: 0, channel: key[0], time: time)))
                    }
                    held.removeAll()
                    handler(.status(line))
                case .reconnect(let port):
                    if etude_seq_connect_from(handle.raw, Int32(port.client), Int32(port.port)) >= 0 {
                        if let line = watch.withLock({ $0.reconnected(to: port) }) { handler(.status(line)) }
                    }
                }
            default:
                continue
            }
        }
    }
}

/// What the ALSA sequencer's system announce port (`SND_SEQ_PORT_SYSTEM_ANNOUNCE`, which
/// Etude's input port is subscribed to) says about ports coming and going.
public enum ALSAAnnounce: Equatable, Sendable {
    case portStart(client: Int, port: Int)
    case portExit(client: Int, port: Int)
    case clientExit(client: Int)

    /// The announcement a sequencer event carries, nil for any other event.
    init?(_ event: etude_seq_event) {
        let client = Int(event.source_client), port = Int(event.source_port)
        switch Int(event.type) {
        case Int(ETUDE_SEQ_PORT_START): self = .portStart(client: client, port: port)
        case Int(ETUDE_SEQ_PORT_EXIT): self = .portExit(client: client, port: port)
        case Int(ETUDE_SEQ_CLIENT_EXIT): self = .clientExit(client: client)
        default: return nil
        }
    }
}

/// Following one keyboard through unplug and replug, as the announce port reports it.
///
/// Pure state, so the reconnect rules are tested with fake announcements and no hardware:
/// when the connected port (or its whole client) leaves, the learner is told and the watch
/// waits; when ports appear, the same device (same client and port names, whatever its new
/// number) is preferred, else whatever the original target would pick now (for `midi` and
/// `midi:NAME`). Its lines are JACK's (`JackPortWatch.line`): one line that fits 80 columns.
public struct ReconnectWatch: Sendable, Equatable {
    public let target: PortTarget
    /// The port first connected to: its names identify the device when it comes back.
    public let remembered: ALSAPort
    public private(set) var connected: ALSAPort?

    public init(target: PortTarget, connected: ALSAPort) {
        self.target = target
        remembered = connected
        self.connected = connected
    }

    /// True while the keyboard is gone.
    public var isWaiting: Bool { connected == nil }

    /// The keyboard awaited by name while it is gone (empty while it is there): the header
    /// says so and wait mode pauses, as for a JACK port.
    public var missingPorts: [String] { isWaiting ? [remembered.label] : [] }

    /// What an announcement asks of the input.
    public enum Step: Equatable, Sendable {
        /// Not about our keyboard: nothing to do.
        case nothing
        /// Our keyboard left: say the line (and end the notes it was holding).
        case gone(String)
        /// Our keyboard (or one the target takes) is back: connect to it, then `reconnected(to:)`.
        case reconnect(ALSAPort)
    }

    /// One announcement; `ports` lists the readable ports now (asked only when a port starts
    /// while the keyboard is gone).
    public mutating func observe(_ announce: ALSAAnnounce, ports: () -> [ALSAPort]) -> Step {
        switch announce {
        case .portExit(let client, let port):
            return portLeft(client: client, port: port, wholeClient: false).map(Step.gone) ?? .nothing
        case .clientExit(let client):
            return portLeft(client: client, port: 0, wholeClient: true).map(Step.gone) ?? .nothing
        case .portStart:
            guard isWaiting, let port = portToReconnect(among: ports()) else { return .nothing }
            return .reconnect(port)
        }
    }

    /// A port (or a whole client) left; returns the status line when it was ours.
    public mutating func portLeft(client: Int, port: Int, wholeClient: Bool) -> String? {
        guard let c = connected, c.client == client, wholeClient || c.port == port else { return nil }
        connected = nil
        return JackPortWatch.line(.gone(remembered.label))
    }

    /// While waiting: the port to connect to among those now present, if the keyboard is back.
    public func portToReconnect(among ports: [ALSAPort]) -> ALSAPort? {
        guard isWaiting else { return nil }
        if let same = ports.first(where: { $0.clientName == remembered.clientName && $0.portName == remembered.portName }) {
            return same
        }
        switch target {
        case .firstKeyboard, .named: return target.pick(from: ports)
        case .address: return nil  // numbers change on replug: only the same names are trusted
        }
    }

    /// Records a successful reconnection; returns the status line.
    public mutating func reconnected(to port: ALSAPort) -> String {
        connected = port
        return JackPortWatch.line(.back(port.label))
    }
}
