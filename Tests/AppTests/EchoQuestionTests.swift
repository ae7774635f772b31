@testable import Devices
import MIDIInput
import Testing

/// Issue 38.5: the echo question is asked only of a MIDI instrument the learner names, named
/// as they know it; never of a FIFO, a file, a microphone, `--input jack` alone (Etude's own
/// midi_in) or an Etude's own port.
@Suite struct EchoQuestionTests {
    static func ask(_ deviceID: String, source: String?, listening: Bool = false, device: Bool = true) -> String? {
        EchoChoice.askable(deviceID: deviceID, sourceName: source, listening: listening,
                           isCharacterDevice: { _ in device }, etudes: { ["etude", "etude-other"] })
    }

    @Test func aNamedMIDIInstrumentIsAskedAboutByItsName() {
        #expect(Self.ask("jack:piano-key:out", source: "piano-key:out") == "JACK port piano-key:out")
        #expect(Self.ask("midi:Digital Piano MIDI 1", source: "Digital Piano MIDI 1 (24:0)") == "MIDI port Digital Piano MIDI 1")
        #expect(Self.ask("/dev/midi1", source: "/dev/midi1", device: true) == "/dev/midi1")
    }

    @Test func neverAFIFOAFileAMicrophoneOrEtudesOwnPort() {
        #expect(Self.ask("/tmp/notes.fifo", source: "/tmp/notes.fifo", device: false) == nil)
        #expect(Self.ask("audio", source: "default", listening: true) == nil)
        #expect(Self.ask("audio:jack", source: "etude:mic", listening: true) == nil)
        #expect(Self.ask("jack:etude:midi_in", source: "etude:midi_in") == nil)
        #expect(Self.ask("jack:etude-other:midi_out", source: "etude-other:midi_out") == nil)
        #expect(Self.ask("keys", source: nil) == nil)
    }
}
