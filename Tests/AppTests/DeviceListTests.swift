@testable import Devices
import MIDIInput
@testable import Reports
import Testing

/// `etude devices` (issue 38.5): what can be played on here comes first, each with its
/// `--input`; no "MIDI keyboards cannot be used here" above a list of JACK sources.
@Suite struct DeviceListTests {
    static let noSequencer = "no ALSA sequencer (/dev/snd/seq is missing or not accessible): MIDI keyboards cannot be used here; load the snd-seq module or check the audio group"

    static func jack(sources: [String]) -> JackDevices {
        JackDevices(server: "test", running: true, client: "etude", sampleRate: 48_000, period: 64, midiSources: sources,
                    midiDestinations: ["lights:in"], reason: nil)
    }

    @Test func jackSourcesComeFirstWithTheirInputAndNothingSaysNoKeyboardCanBeUsed() {
        let list = DeviceList(alsaPorts: [], alsaReason: Self.noSequencer, jack: Self.jack(sources: ["piano-key:out"]),
                              microphone: false, audioLine: "jack (server test)")
        let lines = list.lines
        #expect(lines.first == "You can play on (or store one with `etude setup`):")
        #expect(lines[1].hasPrefix("  --input jack:piano-key:out") && lines[1].hasSuffix("JACK MIDI source piano-key:out"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  --input keys") })
        #expect(!lines.joined().contains("cannot be used here"), "\(lines)")
        #expect(lines.contains("ALSA: no sequencer here (/dev/snd/seq is missing or not accessible: load the snd-seq module or check the audio group)"))
        #expect(lines.last == "Audio output: jack (server test)")
    }

    @Test func withoutAnyInstrumentTheComputerKeyboardIsStillOffered() {
        let none = JackDevices(server: "default", running: false, client: nil, sampleRate: nil, period: nil, midiSources: [],
                               midiDestinations: [], reason: "no JACK server answers (default)")
        let list = DeviceList(alsaPorts: [], alsaReason: Self.noSequencer, jack: none, microphone: false, audioLine: "none")
        #expect(list.inputs.map(\.option) == ["--input keys"])
        #expect(list.lines[1].hasPrefix("  --input keys"))
    }

    @Test func alsaPortsAreOfferedByNameWithTheFirstKeyboardMarked() {
        let port = ALSAPort(client: 24, port: 0, clientName: "Digital Piano", portName: "Digital Piano MIDI 1", isHardware: true, isSoftware: false)
        let list = DeviceList(alsaPorts: [port], alsaReason: nil, jack: Self.jack(sources: []), microphone: true, audioLine: "pulseaudio")
        #expect(list.inputs.map(\.option) == ["--input midi:Digital Piano MIDI 1", "--input audio", "--input audio:jack", "--input keys"])
        #expect(list.inputs[0].what.hasSuffix("[hardware]; also --input midi"))
        #expect(!list.lines.contains { $0.hasPrefix("ALSA:") })
    }
}
