import Foundation
import Jack
import Practice
import Reports
import Synth

/// `--lights CHANNEL`: the keys to play next for the practised hand, lit on a keyboard with key
/// lights (or an LED strip such as Piano-LED-Visualizer) as note-on/note-off on that channel of
/// `etude:midi_out` — Synthesia's convention: light on = note-on, off = note-off. In wait mode
/// the chord waited for, until it is played; in the other modes each practised note from `lead`
/// seconds before it until it ends.
public final class KeyLights: @unchecked Sendable {
    /// How long before its time a note lights up outside wait mode.
    public static let lead = 0.5

    /// The keys lit for a state (pure).
    public static func lit(_ state: SessionState, lead: Double = KeyLights.lead) -> Set<Int> {
        // A key still held from the chord before is put out until released, so a repeated
        // note is struck again (a wait gate counts fresh strikes).
        if state.mode == .wait { return Set(state.feedback.waitingFor.map(\.pitch)).subtracting(state.feedback.held) }
        guard state.transport == .playing else { return [] }
        return Set(state.notes.filter { $0.practised && $0.start - lead <= 0 && $0.end > 0 }.map(\.pitch))
    }

    /// `--lights CHANNEL` as typed: a MIDI channel 1–16, checked where it is typed.
    public struct Channel: Equatable, Sendable, CustomStringConvertible {
        /// 0–15, as the MIDI status byte counts.
        public let index: Int

        public init(parsing text: String) throws(OptionProblem) {
            guard let c = Int(text.trimmingCharacters(in: .whitespaces)), (1...16).contains(c) else {
                throw OptionProblem(text, "give the MIDI channel your keyboard's lights listen on, 1–16")
            }
            index = c - 1
        }

        public var description: String { "\(index + 1)" }
    }

    private let client: JackClient
    private let channel: UInt8
    private let lock = NSLock()
    private var on: Set<Int> = []

    init(client: JackClient, channel: Int) {
        self.client = client
        self.channel = UInt8(channel & 0x0F)
    }

    /// Lights what `state` says and puts out what it no longer does.
    public func update(_ state: SessionState) {
        show(Self.lit(state))
    }

    /// Puts every light out (every exit path).
    public func clear() {
        show([])
        client.waitCycles(2, timeout: 0.2)
    }

    func show(_ keys: Set<Int>) {
        let (off, new) = lock.withLock { () -> (Set<Int>, Set<Int>) in
            let change = (on.subtracting(keys), keys.subtracting(on))
            on = keys
            return change
        }
        for k in off.sorted() where (0...127).contains(k) { client.send([0x80 | channel, UInt8(k), 0], to: .midiOut) }
        for k in new.sorted() where (0...127).contains(k) { client.send([0x90 | channel, UInt8(k), 64], to: .midiOut) }
    }
}

extension LiveSound {
    /// The key lights `--lights` asks for (nil without it); one line when there is no JACK server.
    public func keyLights() throws -> KeyLights? {
        guard let lights else { return nil }
        do {
            return KeyLights(client: try JackClient.shared(), channel: lights)
        } catch {
            throw EtudeFailure("--lights \(lights + 1): etude:midi_out needs a JACK server: \(error.message)")
        }
    }
}
