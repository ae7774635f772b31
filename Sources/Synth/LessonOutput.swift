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

/// The lesson's side of the live synth: what the transport, the other hand and the metronome
/// send goes where `--sound` says; the learner's own echo stays on the synth (`FluidSynthLive`).
public final class LessonOutput: SoundOutput, @unchecked Sendable {
    public let live: FluidSynthLive
    let destination: JackClient.Destination
    let midiOut: JackClient?
    /// `--midi-out` to an ALSA sequencer port (no JACK server, or no JACK port by that name).
    let alsaOut: ALSAMIDIOut?

    init(live: FluidSynthLive, destination: JackClient.Destination, midiOut: JackClient?, alsaOut: ALSAMIDIOut? = nil) {
        self.live = live
        self.destination = destination
        self.midiOut = midiOut
        self.alsaOut = alsaOut
    }

    public func send(_ message: MIDIEvent.Kind) { route(message, at: nil) }

    /// On `etude:midi_out` and the synth on JACK, at the frame of `seconds` (plus the lead).
    public func send(_ message: MIDIEvent.Kind, at seconds: Double) { route(message, at: seconds) }

    private func route(_ message: MIDIEvent.Kind, at seconds: Double?) {
        if destination.contains(.midiOut), let bytes = message.channelBytes {
            midiOut?.send(bytes, to: .midiOut, at: seconds)
            alsaOut?.send(bytes)
        }
        if destination.contains(.synth) {
            if let seconds { live.send(message, at: seconds) } else { live.send(message) }
        }
    }

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
    public func routeLesson(_ sound: LessonSound, midiOut port: String?) throws(SynthError) -> LessonOutput {
        guard sound != .synth || port != nil else { return LessonOutput(live: self, destination: .synth, midiOut: nil) }
        let client: JackClient
        do { client = try JackClient.shared() } catch {
            // No JACK server: an ALSA sequencer port, where there is a sequencer.
            if let port {
                try Self.checkReachable(midiOut: port)
                return routeLesson(sound, alsa: try ALSAMIDIOut(port: port))
            }
            throw SynthError("--sound \(sound.rawValue): etude:midi_out needs a JACK server: \(error.message)")
        }
        if let port {
            let targets = client.ports(midi: true, output: false).filter { !$0.hasPrefix(client.name + ":") }
            guard let found = JackClient.pick(port, from: targets) else {
                if ALSAMIDIOut.sequencerPresent, let alsa = try? ALSAMIDIOut(port: port) { return routeLesson(sound, alsa: alsa) }
                let list = targets.isEmpty ? "none" : targets.joined(separator: ", ")
                throw SynthError("--midi-out \(port): no JACK MIDI input by that name (MIDI destinations: \(list)); `etude devices` lists them")
            }
            do { try client.connect(client.midiOut, found) } catch { throw SynthError(error.message) }
        }
        routeMIDIOut(client)
        return LessonOutput(live: self, destination: sound.destination, midiOut: client)
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
    private func routeLesson(_ sound: LessonSound, alsa: ALSAMIDIOut) -> LessonOutput {
        routeALSA(alsa)
        return LessonOutput(live: self, destination: sound.destination, midiOut: nil, alsaOut: alsa)
    }
}
