import Foundation
import Jack
import MIDIFile
import MIDIInput
import Synth
import Testing
import TestSupport

/// The pure parts of the JACK path: what `--input jack[:PORT]` means, the bytes lesson events
/// cross the ring as, and the meter's figures. The client itself is tested end to end
/// (EndToEndTests/JackInstrumentTests), each test on a JACK server of its own.
@Suite struct JackClientTests {
    @Test func inputJackNamesEtudesOwnPortOrTheOneToConnect() {
        #expect(InputSpec("jack") == .jack(port: nil))
        #expect(InputSpec("JACK") == .jack(port: nil))
        #expect(InputSpec("jack:") == .jack(port: nil))
        #expect(InputSpec("jack:system:midi_capture_1") == .jack(port: "system:midi_capture_1"))
        #expect(InputSpec("jack:Piano") == .jack(port: "Piano"))
        #expect(InputSpec("midi") == .alsa(.firstKeyboard))
    }

    @Test func lessonEventsCrossTheRingAsTheirChannelBytes() {
        #expect(MIDIEvent.Kind.noteOn(channel: 3, key: 60, velocity: 100).channelBytes == [0x93, 60, 100])
        #expect(MIDIEvent.Kind.noteOff(channel: 15, key: 61, velocity: 0).channelBytes == [0x8F, 61, 0])
        #expect(MIDIEvent.Kind.controlChange(channel: 0, controller: 64, value: 127).channelBytes == [0xB0, 64, 127])
        #expect(MIDIEvent.Kind.programChange(channel: 9, program: 5).channelBytes == [0xC9, 5])
        #expect(MIDIEvent.Kind.pitchBend(channel: 1, value: 8192).channelBytes == [0xE1, 0, 64])
        #expect(MIDIEvent.Kind.channelPressure(channel: 2, pressure: 7).channelBytes == [0xD2, 7])
        #expect(MIDIEvent.Kind.sysex(data: [0xF0, 0x7E, 0xF7]).channelBytes == nil)
        #expect(MIDIEvent.Kind.meta(type: 0x51, data: [7, 0xA1, 0x20]).channelBytes == nil)
    }

    @Test func portsAreFoundByExactNameFirstThenByPart() {
        let ports = ["system:midi_capture_1", "a2j:Digital Piano [24] (capture): MIDI 1", "piano-key:out"]
        #expect(JackClient.pick("piano-key:out", from: ports) == "piano-key:out")
        #expect(JackClient.pick("digital piano", from: ports) == "a2j:Digital Piano [24] (capture): MIDI 1")
        #expect(JackClient.pick("nosuch", from: ports) == nil)
    }

    @Test func theMeterSummarisesMedianAndMaximum() {
        #expect(JackMeter.summary([]) == nil)
        let s = JackMeter.summary([5, -3, 28, 0, 2])
        #expect(s?.median == 2 && s?.max == 28)
    }
}
