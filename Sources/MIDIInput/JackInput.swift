import Clocks
import Foundation
import Synchronization
import Jack
import MIDIFile

/// Played notes from JACK MIDI: Etude's own port `etude:midi_in` (`--input jack`: connect
/// anything to it), with `--input jack:PORT` connecting PORT to it before the first note.
///
/// The client's callback stamps each event with its frame's time and, when the live synth is
/// on JACK too and echo is on, plays it in the same cycle (`soundsItself`): the hookup then
/// does not sound it a second time.
public final class JackInput: InputSource, @unchecked Sendable {
    /// The port asked for (nil: only `midi_in`, connected by the user).
    public let port: String?
    private let lock = NSLock()
    private var client: JackClient?
    private var connected: String?
    private var reader: ReaderThread?
    private var echoChannel: Int?
    private var mutedKeys: Set<Int> = []
    /// The ports feeding `midi_in`, followed by the reader thread (read by the screen).
    private let state = PortWatchBox()

    public init(port: String?) {
        self.port = port
    }

    /// The connected port's name, or Etude's `midi_in` when nothing was named.
    public var name: String {
        lock.withLock { connected ?? port ?? "\(client?.name ?? JackClient.requestedName):midi_in" }
    }

    /// `jack:` and the connected port's full name.
    public var deviceID: String { InputDeviceID.jack(name) }

    /// `.soundsItself` while the JACK callback sounds this input's notes (echo on, synth on JACK).
    public var capabilities: InputCapabilities {
        lock.withLock { echoChannel != nil && (client?.hasSynth ?? false) && (client?.alive ?? false) } ? .soundsItself : []
    }

    /// Echo in the callback on `channel` (nil: the callback stays silent, as with `--echo off`).
    public func echo(channel: Int?) {
        let c = lock.withLock { () -> JackClient? in
            echoChannel = channel
            return client
        }
        c?.setEcho(channel: channel)
    }

    /// Keys the callback never echoes (`--gestures`): a gesture key gives its command silently.
    public func mute(keys: Set<Int>) {
        let c = lock.withLock { () -> JackClient? in
            mutedKeys = keys
            return client
        }
        c?.setMuted(keys: keys)
    }

    /// The MIDI sources a JACK server offers (hardware first), empty when none answers.
    public static func sourcePorts() -> [String] {
        guard let client = try? JackClient.shared() else { return [] }
        let hardware = client.instrumentPorts(output: true, physical: true)
        let all = client.instrumentPorts(output: true)
        return hardware + all.filter { !hardware.contains($0) }
    }

    /// The client and the source port `port` names (nil when none was named), or one line: no
    /// server answers, or no MIDI source by that name.
    public static func check(port: String?) throws(InputError) -> (JackClient, String?) {
        let client: JackClient
        do { client = try JackClient.shared() } catch {
            throw InputError("--input jack: \(error.message)")
        }
        guard let port else { return (client, nil) }
        // Never an Etude's own port (another Etude's midi_out plays lessons, not a learner).
        let sources = client.instrumentPorts(output: true)
        guard let found = JackClient.pick(port, from: sources) else {
            let list = sources.isEmpty ? "none" : sources.map { TextDecoding.sanitize($0) }.joined(separator: ", ")
            throw InputError("--input jack:\(TextDecoding.sanitize(port)): no JACK MIDI port by that name (MIDI sources: \(list)); `etude devices` lists them")
        }
        return (client, found)
    }

    public func start(_ handler: @escaping @Sendable (InputEvent) -> Void) throws(InputError) {
        let (client, connected) = try Self.check(port: port)
        if let connected {
            do { try client.connect(connected, client.midiIn) } catch { throw InputError(error.message) }
        }
        let reader = try ReaderThread()
        let (channel, muted) = lock.withLock { () -> (Int?, Set<Int>) in
            self.client = client
            self.connected = connected
            self.reader = reader
            return (echoChannel, mutedKeys)
        }
        _ = client.takePlayed()
        client.setMuted(keys: muted)
        client.setEcho(channel: channel)
        client.setFloodLimit(FloodGuard.maxEvents)
        client.setReporting(true)
        let shown = TextDecoding.sanitize(connected ?? client.midiIn)
        let state = self.state
        state.value.withLock { $0 = JackPortWatch(connected: client.midiInConnections(), at: MonotonicClock.seconds()) }
        reader.start { [client] in
            let parser = JackEventDecoder()
            var floods = client.floods
            var flooding = false
            var held = Set<[UInt8]>()  // [channel, key] of notes delivered as on
            var registrations = client.registrations
            var nextLook = MonotonicClock.seconds()
            while !reader.stopRequested {
                for played in client.takePlayed() {
                    guard let event = parser.event(played.bytes, time: played.seconds) else { continue }
                    if case .note(let n) = event {
                        if n.isOn && n.velocity > 0 { held.insert([n.channel, n.pitch]) } else { held.remove([n.channel, n.pitch]) }
                    }
                    handler(event)
                }
                // A flood: the callback stopped passing midi_in on; the notes it let through
                // before are ended, so nothing stays held in a recording or a judgement.
                let started = client.floods != floods
                floods = client.floods
                if (started || client.flooding) && !flooding {
                    flooding = true
                    let now = MonotonicClock.seconds()
                    for key in held.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                        handler(.note(PlayedNote(kind: .off, pitch: key[1], velocity: 0, channel: key[0], time: now)))
                    }
                    held.removeAll()
                    handler(.status(FloodGuard.startedLine(shown)))
                } else if flooding && !started && !client.flooding {
                    flooding = false
                    handler(.status(FloodGuard.endedLine(shown)))
                }
                // Ports coming and going: looked at when one registers or unregisters, and
                // four times a second (a connection made by hand registers nothing).
                let now = MonotonicClock.seconds()
                if client.alive && (client.registrations != registrations || now >= nextLook) {
                    registrations = client.registrations
                    nextLook = now + 0.25
                    let changes = state.value.withLock { $0.observe(connections: client.midiInConnections(), exists: client.portExists, at: now) }
                    for change in changes {
                        if case .back(let port) = change {
                            guard (try? client.connect(port, client.midiIn)) != nil else { continue }
                            state.value.withLock { $0.reconnected(port, at: now) }
                        }
                        handler(.status(JackPortWatch.line(change)))
                    }
                }
                if !client.alive {
                    // The live synth on the same client says what the sound did; wait for it briefly.
                    let deadline = MonotonicClock.seconds() + 0.3
                    while client.stopNotice == nil && MonotonicClock.seconds() < deadline { usleep(5_000) }
                    handler(.ended(JackStopLine.line(sound: client.stopNotice, input: shown)))
                    return
                }
                var fds = [pollfd(fd: reader.wakeFD, events: Int16(POLLIN), revents: 0)]
                _ = poll(&fds, 1, 1)
            }
        }
        reader.waitUntilRunning()
    }

    /// The instruments that were connected to `midi_in` and have disappeared, awaited by name
    /// (empty while every one is there): the screen says so and wait mode pauses.
    public var missingPorts: [String] { state.value.withLock { $0.missing } }

    public func stop() {
        let (client, reader) = lock.withLock { () -> (JackClient?, ReaderThread?) in
            let r = (self.client, self.reader)
            self.reader = nil
            return r
        }
        reader?.stopAndJoin()
        client?.setReporting(false)
        client?.setEcho(channel: nil)
        client?.setMuted(keys: [])
    }
}

/// JACK MIDI bytes (one whole message per event) → input events.
struct JackEventDecoder {
    func event(_ bytes: [UInt8], time: Double) -> InputEvent? {
        guard let status = bytes.first, status >= 0x80, status < 0xF0 else { return nil }
        let c = status & 0x0F
        let d1 = bytes.count > 1 ? bytes[1] & 0x7F : 0
        let d2 = bytes.count > 2 ? bytes[2] & 0x7F : 0
        let kind: MIDIEvent.Kind
        switch status & 0xF0 {
        case 0x80: kind = .noteOff(channel: c, key: d1, velocity: d2)
        case 0x90: kind = .noteOn(channel: c, key: d1, velocity: d2)
        case 0xA0: kind = .polyPressure(channel: c, key: d1, pressure: d2)
        case 0xB0: kind = .controlChange(channel: c, controller: d1, value: d2)
        case 0xC0: kind = .programChange(channel: c, program: d1)
        case 0xD0: kind = .channelPressure(channel: c, pressure: d1)
        default: kind = .pitchBend(channel: c, value: UInt16(d1) | UInt16(d2) << 7)
        }
        if let note = PlayedNote(kind, time: time) { return .note(note) }
        return .control(kind, time: time)
    }
}

/// The port watch shared by the reader thread and the screen.
final class PortWatchBox: Sendable {
    let value = Mutex(JackPortWatch())
}
