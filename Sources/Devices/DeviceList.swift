import Foundation
import MIDIInput
import Reports
import Synth

/// What `etude devices` prints: first what the learner can play on here, each with the
/// `--input` that names it (JACK MIDI sources, ALSA ports, a microphone, the computer
/// keyboard, which always works), then the details (the JACK server, MIDI destinations, why
/// ALSA has nothing). Etude's own ports are never offered (`JackDevices` leaves them out). Pure:
/// built from what was found, so it is tested without devices.
public struct DeviceList: Sendable {
    public var alsaPorts: [ALSAPort]
    /// Why the ALSA sequencer offers no port (nil when it does).
    public var alsaReason: String?
    public var jack: JackDevices
    /// A PulseAudio/PipeWire server answers: `--input audio` can listen.
    public var microphone: Bool
    /// The audio output's line (`Audio output: …`).
    public var audioLine: String

    public init(alsaPorts: [ALSAPort], alsaReason: String?, jack: JackDevices, microphone: Bool, audioLine: String) {
        self.alsaPorts = alsaPorts
        self.alsaReason = alsaReason
        self.jack = jack
        self.microphone = microphone
        self.audioLine = audioLine
    }

    /// What is here now: the ALSA ports (or why none), the JACK server, whether a PulseAudio
    /// server answers for a microphone, and the audio output.
    public static func scan() -> DeviceList {
        let (ports, reason) = alsa()
        return DeviceList(alsaPorts: ports, alsaReason: reason, jack: JackDevices.scan(),
                          microphone: FluidSynthLive.deviceSampleRate(drivers: ["pulseaudio"]) != nil, audioLine: LiveSound().check().line)
    }

    /// The ALSA sequencer's input ports, or why there are none.
    public static func alsa() -> ([ALSAPort], String?) {
        let ports: [ALSAPort]
        var reason: String?
        do {
            ports = try ALSASequencer.inputPorts()
        } catch {
            ports = []
            reason = error.message
        }
        if ports.isEmpty && reason == nil {
            reason = "no MIDI input ports: plug in a keyboard (and switch it on), then run etude devices again"
        }
        return (ports, reason)
    }

    /// The `--input` choices available here, instruments first, the computer keyboard last.
    public var inputs: [(option: String, what: String)] {
        var out: [(String, String)] = []
        let first = PortTarget.firstKeyboard.pick(from: alsaPorts)
        for p in alsaPorts {
            let kind = p.isHardware ? "hardware" : "software"
            let mark = p == first ? "; also --input midi" : ""
            out.append(("--input midi:\(safe(p.portName))", "ALSA port \(p.address) \(safe(p.clientName)) / \(safe(p.portName)) [\(kind)]\(mark)"))
        }
        for s in jack.midiSources {
            out.append(("--input jack:\(safe(s))", "JACK MIDI source \(safe(s))"))
        }
        if microphone { out.append(("--input audio", "the default microphone (an acoustic piano; `etude calibrate --input audio` first)")) }
        if jack.running { out.append(("--input audio:jack", "a microphone connected to \(safe(jack.client ?? "etude")):mic")) }
        out.append(("--input keys", "the computer keyboard (always here)"))
        return out
    }

    /// The lines, in order.
    public var lines: [String] {
        let choices = inputs
        let width = min(40, choices.map(\.option.count).max() ?? 0)
        var out = ["You can play on (or store one with `etude setup`):"]
        out += choices.map { "  \($0.option.padding(toLength: max(width, $0.option.count), withPad: " ", startingAt: 0))  \($0.what)" }
        out += jack.lines
        if alsaPorts.isEmpty {
            out.append("ALSA: \(Self.alsaWords(alsaReason))")
        }
        out.append("Audio output: \(audioLine)")
        return out
    }

    /// Why ALSA offers nothing, without claiming that no keyboard can be used (JACK, a device
    /// path or the computer keyboard still can).
    static func alsaWords(_ reason: String?) -> String {
        guard let reason else { return "no MIDI input ports" }
        if reason.hasPrefix("no ALSA sequencer") {
            return "no sequencer here (/dev/snd/seq is missing or not accessible: load the snd-seq module or check the audio group)"
        }
        return reason
    }
}
