import Foundation
import Lesson
import Reports
import Synth

/// `--metronome-out CHANNEL`: the metronome's clicks sent to the learner's instrument through
/// `etude:midi_out` on the channel they pick (one their piano plays as a click, e.g. a drum
/// kit's). Without it the clicks sound on Etude's synth only, even with `--sound instrument`:
/// on a piano with no drum kit, channel-10 clicks would play as piano notes.
public enum MetronomeOut {
    /// The channel as typed, 1–16, checked where it is typed.
    public struct Channel: Equatable, Sendable, CustomStringConvertible {
        /// 0–15, as the MIDI status byte counts.
        public let index: Int

        public init(parsing text: String) throws(OptionProblem) {
            guard let c = Int(text.trimmingCharacters(in: .whitespaces)), (1...16).contains(c) else {
                throw OptionProblem(text, "give the MIDI channel (1–16) your instrument plays the clicks on, e.g. 10 for its drum kit")
            }
            index = c - 1
        }

        public var description: String { "\(index + 1)" }
    }
}

extension LiveSound {
    /// What reaches the instrument besides the lesson: the lights' channel kept for the lights,
    /// the metronome's clicks only when `--metronome-out` asks.
    var instrumentRoute: InstrumentRoute {
        InstrumentRoute(lightsChannel: lights.map { UInt8($0 & 0x0F) }, clickChannel: Metronome.channel,
                        clickKeys: [Metronome.accentKey, Metronome.beatKey], metronomeOut: metronomeOut.map { UInt8($0 & 0x0F) })
    }
}
