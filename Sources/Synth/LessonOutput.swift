import Foundation
import Jack
import MIDIFile

/// Where the lesson is heard (`--sound`): FluidSynth, the learner's own instrument through
/// `etude:midi_out` (Synthesia's way: the accompaniment on the piano's own sound), or both.
public enum LessonSound: String, Sendable, CaseIterable {
    case synth, instrument, both

    var destination: JackClient.Destination {
        switch self {
        case .synth: return .synth
        case .instrument: return .midiOut
        case .both: return [.synth, .midiOut]
        }
    }
}

/// What may reach the learner's instrument through `etude:midi_out` besides the lesson: the
/// key lights' channel is theirs alone (a lesson message on it would light a key, and a robot
/// or a learner would play it), and the metronome's clicks (channel-10 notes a piano without
/// drums plays as piano notes) go there only when asked, on the channel the learner picks.
public struct InstrumentRoute: Equatable, Sendable {
    /// `--lights`: the channel (0–15) the key lights use; the lesson's messages on it sound on
    /// the synth instead.
    public var lightsChannel: UInt8?
    /// The metronome's clicks as the transport sends them: their channel and keys.
    public var clickChannel: UInt8
    public var clickKeys: Set<UInt8>
    /// `--metronome-out`: the channel (0–15) the clicks reach the instrument on; nil: the synth
    /// only.
    public var metronomeOut: UInt8?

    public init(lightsChannel: UInt8? = nil, clickChannel: UInt8 = 9, clickKeys: Set<UInt8> = [], metronomeOut: UInt8? = nil) {
        self.lightsChannel = lightsChannel
        self.clickChannel = clickChannel
        self.clickKeys = clickKeys
        self.metronomeOut = metronomeOut
    }

    /// Where one message goes.
    public struct Way: Equatable, Sendable {
        /// To Etude's synth.
        public var synth: Bool
        /// To the instrument, as sent (a click moved to its channel); nil: not there.
        public var instrument: MIDIEvent.Kind?

        public init(synth: Bool, instrument: MIDIEvent.Kind?) {
            self.synth = synth
            self.instrument = instrument
        }
    }

    /// Where one message goes, given where the lesson goes (`--sound`).
    public func destinations(_ message: MIDIEvent.Kind, lesson: JackClient.Destination) -> Way {
        let channel = message.channelBytes.map { $0[0] & 0x0F }
        if let channel, channel == clickChannel, isClick(message) {
            guard let out = metronomeOut else { return Way(synth: true, instrument: nil) }
            return Way(synth: false, instrument: message.onChannel(out))
        }
        if let channel, channel == lightsChannel, lesson.contains(.midiOut) { return Way(synth: true, instrument: nil) }
        return Way(synth: lesson.contains(.synth), instrument: lesson.contains(.midiOut) ? message : nil)
    }

    func isClick(_ message: MIDIEvent.Kind) -> Bool {
        switch message {
        case .noteOn(_, let k, _), .noteOff(_, let k, _): return clickKeys.contains(k)
        default: return false
        }
    }
}

extension MIDIEvent.Kind {
    /// A note message moved to another channel (other messages as they are).
    func onChannel(_ channel: UInt8) -> MIDIEvent.Kind {
        switch self {
        case .noteOn(_, let k, let v): return .noteOn(channel: channel & 0x0F, key: k, velocity: v)
        case .noteOff(_, let k, let v): return .noteOff(channel: channel & 0x0F, key: k, velocity: v)
        default: return self
        }
    }
}

/// The lesson's side of the live synth: what the transport, the other hand and the metronome
/// send goes where `--sound` says (and `InstrumentRoute` allows); the learner's own echo stays
/// on the synth (`FluidSynthLive`).
public final class LessonOutput: SoundOutput, @unchecked Sendable {
    public let live: FluidSynthLive
    let destination: JackClient.Destination
    let midiOut: JackClient?
    /// `--midi-out` to an ALSA sequencer port (no JACK server, or no JACK port by that name).
    let alsaOut: ALSAMIDIOut?
    /// The lights' channel and the metronome's way to the instrument; set before the first note.
    let route: InstrumentRoute

    init(live: FluidSynthLive, destination: JackClient.Destination, midiOut: JackClient?, alsaOut: ALSAMIDIOut? = nil,
         route: InstrumentRoute = InstrumentRoute()) {
        self.live = live
        self.destination = destination
        self.midiOut = midiOut
        self.alsaOut = alsaOut
        self.route = route
    }

    public func send(_ message: MIDIEvent.Kind) { deliver(message, at: nil) }

    /// On `etude:midi_out` and the synth on JACK, at the frame of `seconds` (plus the lead).
    public func send(_ message: MIDIEvent.Kind, at seconds: Double) { deliver(message, at: seconds) }

    private func deliver(_ message: MIDIEvent.Kind, at seconds: Double?) {
        let way = route.destinations(message, lesson: destination)
        if let instrument = way.instrument, let bytes = instrument.channelBytes {
            midiOut?.send(bytes, to: .midiOut, at: seconds)
            alsaOut?.send(bytes)
        }
        if way.synth {
            if let seconds { live.send(message, at: seconds) } else { live.send(message) }
        }
    }

    /// The guide reaches Etude's synth alone, whatever `--sound` says: the instrument never
    /// plays the learner's part for them.
    public func sendGuide(_ message: MIDIEvent.Kind) { live.send(message) }

    /// Sustain up and all notes off on the synth and on `etude:midi_out` (or the ALSA port).
    public func allNotesOff() {
        midiOut?.allNotesOff(to: .midiOut)
        alsaOut?.allNotesOff()
        live.allNotesOff()
    }
}

extension FluidSynthLive {
    /// Routes the lesson (`--sound`) and connects `etude:midi_out` to `port` (`--midi-out`) before
    /// the first note. One line when there is no JACK server for `etude:midi_out` or no such port.
    public func routeLesson(_ sound: LessonSound, midiOut port: String?, route: InstrumentRoute = InstrumentRoute()) throws(SynthError) -> LessonOutput {
        guard sound != .synth || port != nil || route.metronomeOut != nil else {
            return LessonOutput(live: self, destination: .synth, midiOut: nil, route: route)
        }
        let client: JackClient
        do { client = try JackClient.shared() } catch {
            // No JACK server: an ALSA sequencer port, where there is a sequencer.
            if let port {
                try Self.checkReachable(midiOut: port)
                return routeLesson(sound, alsa: try ALSAMIDIOut(port: port), route: route)
            }
            let option = sound != .synth ? "--sound \(sound.rawValue)" : "--metronome-out"
            throw SynthError("\(option): etude:midi_out needs a JACK server: \(error.message)")
        }
        if let port {
            let targets = client.instrumentPorts(output: false)
            guard let found = JackClient.pick(port, from: targets) else {
                if ALSAMIDIOut.sequencerPresent, let alsa = try? ALSAMIDIOut(port: port) { return routeLesson(sound, alsa: alsa, route: route) }
                let list = targets.isEmpty ? "none" : targets.joined(separator: ", ")
                throw SynthError("--midi-out \(port): no JACK MIDI input by that name (MIDI destinations: \(list)); `etude devices` lists them")
            }
            do { try client.connect(client.midiOut, found) } catch { throw SynthError(error.message) }
        }
        routeMIDIOut(client)
        return LessonOutput(live: self, destination: sound.destination, midiOut: client, route: route)
    }

    /// One line when `--midi-out PORT` can reach nothing here: no JACK server answers and there
    /// is no ALSA sequencer (checked before the synth loads, so it is the only line).
    public static func checkReachable(midiOut port: String) throws(SynthError) {
        guard !ALSAMIDIOut.sequencerPresent else { return }
        do { _ = try JackClient.shared() } catch {
            let jack = error.noServer ? "no JACK server answers (\(JackClient.serverName))" : error.message
            throw SynthError("--midi-out \(port): \(jack) and \(ALSAMIDIOut.missingWords)")
        }
    }

    /// The lesson to an ALSA sequencer port (closed, all notes off, with the synth).
    private func routeLesson(_ sound: LessonSound, alsa: ALSAMIDIOut, route: InstrumentRoute) -> LessonOutput {
        routeALSA(alsa)
        return LessonOutput(live: self, destination: sound.destination, midiOut: nil, alsaOut: alsa, route: route)
    }
}
