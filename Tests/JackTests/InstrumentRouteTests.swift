import Jack
import MIDIFile
import Testing
import Synth

/// What reaches the instrument through etude:midi_out (issue 38.1's lights, 39.6's metronome):
/// the lights' channel carries only lights, and the metronome's clicks reach the piano only on
/// the channel the learner picked (`--metronome-out`), else the synth alone.
@Suite struct InstrumentRouteTests {
    static let both: JackClient.Destination = [.synth, .midiOut]
    static let click = MIDIEvent.Kind.noteOn(channel: 9, key: 76, velocity: 100)

    @Test func theLessonGoesWhereTheSoundSays() {
        let route = InstrumentRoute(clickKeys: [76, 77])
        let note = MIDIEvent.Kind.noteOn(channel: 0, key: 60, velocity: 80)
        #expect(route.destinations(note, lesson: .synth) == .init(synth: true, instrument: nil))
        #expect(route.destinations(note, lesson: .midiOut) == .init(synth: false, instrument: note))
        #expect(route.destinations(note, lesson: Self.both) == .init(synth: true, instrument: note))
    }

    @Test func theLightsChannelCarriesNoLessonMessage() {
        let route = InstrumentRoute(lightsChannel: 0, clickKeys: [76, 77])
        for message: MIDIEvent.Kind in [.noteOn(channel: 0, key: 48, velocity: 80), .noteOff(channel: 0, key: 48, velocity: 0),
                                        .programChange(channel: 0, program: 0), .controlChange(channel: 0, controller: 64, value: 127)] {
            for lesson in [JackClient.Destination.midiOut, Self.both] {
                let way = route.destinations(message, lesson: lesson)
                #expect(way.instrument == nil, "\(message) stays off the lights' channel")
                #expect(way.synth, "and sounds on the synth instead")
            }
        }
        // Another channel goes to the instrument as ever.
        #expect(route.destinations(.noteOn(channel: 1, key: 48, velocity: 80), lesson: .midiOut).instrument != nil)
    }

    @Test func theMetronomeReachesTheInstrumentOnlyWhenAskedOnItsChannel() {
        let quiet = InstrumentRoute(clickKeys: [76, 77])
        for lesson in [JackClient.Destination.synth, .midiOut, Self.both] {
            #expect(quiet.destinations(Self.click, lesson: lesson) == .init(synth: true, instrument: nil), "\(lesson)")
        }
        let asked = InstrumentRoute(clickKeys: [76, 77], metronomeOut: 15)
        #expect(asked.destinations(Self.click, lesson: .midiOut) == .init(synth: false, instrument: .noteOn(channel: 15, key: 76, velocity: 100)))
        #expect(asked.destinations(.noteOff(channel: 9, key: 77, velocity: 0), lesson: .synth) == .init(synth: false, instrument: .noteOff(channel: 15, key: 77, velocity: 0)))
        // A drum of the lesson's own on channel 10 is the lesson's, not a click.
        let drum = MIDIEvent.Kind.noteOn(channel: 9, key: 38, velocity: 90)
        #expect(asked.destinations(drum, lesson: .midiOut) == .init(synth: false, instrument: drum))
    }
}
