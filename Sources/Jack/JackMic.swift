import CJack
import Foundation

/// `etude:mic` (issue 30): an audio input port on Etude's one JACK client that a microphone (or
/// any audio port) is connected to, for `--input audio:jack`. The callback copies each cycle's
/// samples into a lock-free ring; the listener's thread takes them here.
extension JackClient {
    /// The port's full name (`etude:mic`).
    public var mic: String { "\(name):mic" }

    /// Registers `mic` (once: it stays until the client closes) and drops anything captured before.
    public func openMic() throws(JackError) {
        guard etude_jack_mic_open(handle) == 0 else {
            throw JackError("the JACK server \(JackClient.serverName) refused Etude's port mic: check its port limit (jackd -p)")
        }
        etude_jack_mic_flush(handle)
    }

    /// Moves up to `samples.count` captured samples into `samples` from `offset`; returns how many.
    public func readMic(into samples: inout [Float], from offset: Int) -> Int {
        guard offset < samples.count else { return 0 }
        return samples.withUnsafeMutableBufferPointer { buffer in
            Int(etude_jack_mic_read(handle, buffer.baseAddress.map { $0 + offset }, Int32(buffer.count - offset)))
        }
    }

    /// The capture latency of what is connected to `mic`, plus the period it arrives in (seconds).
    public var micLatencySeconds: Double { Double(period + Int(etude_jack_mic_latency(handle))) / Double(max(1, sampleRate)) }

    /// Connects an output port to `mic` (`--input audio:jack:PORT`).
    public func connectToMic(_ source: String) throws(JackError) {
        guard etude_jack_connect(handle, source, mic) == 0 else {
            throw JackError("cannot connect \(source) to \(mic): check the port's name with `jack_lsp -t`")
        }
    }
}

/// A test's learner on JACK: its own client that plays samples once into a port (etude:mic).
public final class JackPlayer {
    private let handle: OpaquePointer

    public init?(name: String, samples: [Float]) {
        guard let h = samples.withUnsafeBufferPointer({ etude_jack_player_open(name, $0.baseAddress, $0.count) }) else { return nil }
        handle = h
    }

    public func connect(to port: String) -> Bool { etude_jack_player_connect(handle, port) == 0 }
    public func start() { etude_jack_player_start(handle) }
    public var done: Bool { etude_jack_player_done(handle) != 0 }
    deinit { etude_jack_player_close(handle) }
}
