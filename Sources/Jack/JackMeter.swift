import CJack
import Foundation

/// Key → sound in frames: two small JACK clients, a key (MIDI out) and an ear (audio in), for
/// the JACK tests and `make bench`. Each note goes out at a random frame of its cycle once the
/// ear has heard silence; the result is frames from that frame to the first sample above the
/// threshold (negative when the sound starts earlier in the same cycle: the synth plays an
/// event from the start of the block it falls in, as FluidSynth's own JACK driver does).
public final class JackMeter: @unchecked Sendable {
    let handle: OpaquePointer
    public let name: String
    /// The server's rate and period as the meter's clients see them.
    public var sampleRate: Int { Int(etude_jack_meter_rate(handle)) }
    public var period: Int { Int(etude_jack_meter_period(handle)) }

    /// Opens `NAME-key` and `NAME-ear` on `server` (nil: the one the environment names); nil
    /// when none answers.
    public init?(name: String, server: String? = nil) {
        guard let h = etude_jack_meter_open(name, server) else { return nil }
        handle = h
        self.name = name
    }

    deinit { etude_jack_meter_close(handle) }

    public var keyPort: String { "\(name)-key:out" }
    public var earPort: String { "\(name)-ear:in" }
    /// A MIDI input that keeps what it receives (`takeMIDI`), e.g. from `etude:midi_out`.
    public var listenPort: String { "\(name)-ear:midi" }

    /// The MIDI messages `listenPort` received since the last call, oldest first.
    public func takeMIDI() -> [[UInt8]] {
        var out: [[UInt8]] = []
        var bytes: [UInt8] = [0, 0, 0]
        while true {
            let len = Int(etude_jack_meter_take_midi(handle, &bytes))
            guard len > 0 else { return out }
            out.append(Array(bytes.prefix(len)))
        }
    }

    /// A MIDI message `listenPort` received and the absolute JACK frame it arrived at.
    public struct Heard: Equatable, Sendable {
        public var bytes: [UInt8]
        public var frame: UInt32
    }

    /// The MIDI messages `listenPort` received since the last call with their frames, oldest first.
    public func takeMIDIFrames() -> [Heard] {
        var out: [Heard] = []
        var bytes: [UInt8] = [0, 0, 0]
        var frame: UInt32 = 0
        while true {
            let len = Int(etude_jack_meter_take_midi_at(handle, &bytes, &frame))
            guard len > 0 else { return out }
            out.append(Heard(bytes: Array(bytes.prefix(len)), frame: frame))
        }
    }

    /// Keeps the frame of every onset on `earPort`: a sample above `threshold` after at least
    /// `quietFrames` frames at or below it (nil stops). For the gaps between a lesson's notes.
    public func recordOnsets(threshold: Float?, quietFrames: Int = 2048) {
        etude_jack_meter_onsets(handle, threshold ?? 0, UInt32(max(0, quietFrames)))
    }

    /// The absolute frames of the onsets heard since the last call, oldest first.
    public func takeOnsets() -> [UInt32] {
        var out: [UInt32] = []
        var frame: UInt32 = 0
        while etude_jack_meter_take_onset(handle, &frame) != 0 { out.append(frame) }
        return out
    }

    /// The robot pianist: plays (on `keyPort`) every note lit on `channel` (0–15) of
    /// `listenPort`, releasing it when its light goes off; nil stops it.
    public func robot(channel: Int?) { etude_jack_meter_robot(handle, Int32(channel ?? -1)) }

    /// Connects the key to a MIDI input port and an audio output port to the ear.
    public func connect(midi: String, audio: String) -> Bool {
        etude_jack_meter_connect(handle, midi, audio) == 0
    }

    /// Measures `count` notes; nil entries are notes no sound answered within `timeout` seconds.
    public func measure(count: Int, key: Int = 60, threshold: Float = 1e-4, seed: UInt32 = 1, timeout: Double = 1) -> [Int?] {
        var frames = [Int32](repeating: Int32.min, count: count)
        let done = Int(etude_jack_meter_run(handle, Int32(count), Int32(key), threshold, seed, Int32(timeout * 1000), &frames))
        return frames.prefix(done).map { $0 == Int32.min ? nil : Int($0) }
    }

    /// Stalls the key's next cycle for `seconds` (a client that misses JACK's deadline: every
    /// client of the server is told of the xrun).
    public func stall(_ seconds: Double) { etude_jack_meter_stall(handle, Int32(max(0, min(1, seconds)) * 1e6)) }

    /// The loudest sample the ear heard since the last call.
    public func takePeak() -> Float { etude_jack_meter_peak(handle) }

    /// Sends `bytes` (one channel message) `repeat` times in the key's next cycle.
    @discardableResult
    public func send(_ bytes: [UInt8], repeat count: Int = 1) -> Bool {
        guard (1...3).contains(bytes.count) else { return false }
        return etude_jack_meter_send(handle, bytes, Int32(bytes.count), Int32(count)) != 0
    }

    /// Median and maximum of measured frames (nil when there are none).
    public static func summary(_ frames: [Int]) -> (median: Int, max: Int)? {
        guard !frames.isEmpty else { return nil }
        let s = frames.sorted()
        return (s[s.count / 2], s[s.count - 1])
    }
}
