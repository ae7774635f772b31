@testable import Devices
import MIDIInput
import Store
import Synth
import Testing

/// Which instrument a command plays on (issue 38.2): what it was given, else a resumed
/// session's input, else the one set up, else the computer keyboard; the setup's sound, MIDI out,
/// lights and gestures only with its own input and only where the command gave none.
@Suite struct MyInstrumentTests {
    static let setup = InstrumentSetup(input: "jack:piano", sound: "instrument", midiOut: "piano:in", lights: 16, gestures: "on")

    @Test func noSetupKeepsTheComputerKeyboard() {
        var sound = LiveSound()
        var playing = Playing()
        MyInstrument.fill(sound: &sound, playing: &playing, setup: nil)
        #expect(playing.input == .computerKeyboard && sound.midiOut == nil && sound.lights == nil)
    }

    @Test func theSetupFillsWhatWasNotGiven() {
        var sound = LiveSound()
        sound.lights = 2
        var playing = Playing()
        MyInstrument.fill(sound: &sound, playing: &playing, setup: Self.setup)
        #expect(playing.input == .jack(port: "piano"))
        #expect(sound.lessonSound == .instrument && sound.midiOut == "piano:in")
        #expect(sound.lights == 2, "--lights 3 given: kept")
        #expect(sound.gestures != nil)
    }

    @Test func aGivenInputWinsAndTakesNoneOfTheSetup() {
        var sound = LiveSound()
        var playing = Playing()
        playing.input = .computerKeyboard
        playing.inputChosen = true
        MyInstrument.fill(sound: &sound, playing: &playing, setup: Self.setup)
        #expect(playing.input == .computerKeyboard && sound.midiOut == nil && sound.lessonSound == nil && sound.lights == nil)
    }

    @Test func aResumedInputComesBeforeTheSetup() {
        var sound = LiveSound()
        var playing = Playing()
        MyInstrument.fill(sound: &sound, playing: &playing, setup: Self.setup, resumed: "keys")
        #expect(playing.input == .computerKeyboard && sound.midiOut == nil)
        var again = Playing()
        MyInstrument.fill(sound: &sound, playing: &again, setup: Self.setup, resumed: "jack:piano")
        #expect(again.input == .jack(port: "piano") && sound.midiOut == "piano:in")
    }

    @Test func showSaysWhatIsSetUpOrThatNothingIs() {
        #expect(MyInstrument.lines(nil, echo: nil).first == "No instrument set up: Etude plays along with the computer keyboard (--input keys).")
        let lines = MyInstrument.lines(Self.setup, echo: false)
        #expect(lines.first == "Your instrument: --input jack:piano")
        #expect(lines.contains("  echo:      off (your instrument sounds itself)"))
        #expect(lines.contains("  MIDI out:  piano:in") && lines.contains("  lights:    channel 16"))
    }
}
