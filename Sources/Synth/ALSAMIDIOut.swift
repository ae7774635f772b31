import CALSA
import Foundation
import MIDIFile

/// `--midi-out PORT` on the ALSA sequencer, where there is one and no JACK server takes the
/// port: the lesson's channel messages go straight to a keyboard's (or a synth's) ALSA port.
/// (Key lights need `etude:midi_out`, i.e. JACK.)
public final class ALSAMIDIOut: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var closed = false
    /// The port connected to, as `CLIENT:PORT name`.
    public let port: String

    /// True when /dev/snd/seq can be opened here.
    public static var sequencerPresent: Bool { etude_seq_device_present() == 1 }

    /// The fix when there is neither a JACK server nor a sequencer.
    public static let missingWords = "no ALSA sequencer either (/dev/snd/seq is missing): start a JACK server (jackd, or PipeWire's pipewire-jack) or load the snd-seq module (sudo modprobe snd-seq)"

    /// Connects to the writable port `name` names (exact `CLIENT:PORT` numbers, else a part of
    /// its client or port name). One line when there is no sequencer or no such port.
    public init(port name: String) throws(SynthError) {
        guard Self.sequencerPresent else { throw SynthError("--midi-out \(name): \(Self.missingWords)") }
        var err = [CChar](repeating: 0, count: 256)
        guard let h = etude_seq_out_open("Etude", &err, Int32(err.count)) else {
            throw SynthError("--midi-out \(name): the ALSA sequencer refused a client (\(TextDecoding.message(err))): check the audio group")
        }
        var ports = [etude_port_info](repeating: etude_port_info(), count: 256)
        let count = Int(etude_seq_out_list(h, &ports, Int32(ports.count)))
        let found = ports.prefix(count).map { p -> (Int32, Int32, String) in
            let client = withUnsafeBytes(of: p.client_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let port = withUnsafeBytes(of: p.port_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return (p.client, p.port, "\(p.client):\(p.port) \(client): \(port)")
        }
        let wanted = name.lowercased()
        guard let target = found.first(where: { "\($0.0):\($0.1)" == wanted }) ?? found.first(where: { $0.2.lowercased().contains(wanted) }) else {
            etude_seq_out_close(h)
            let list = found.isEmpty ? "none" : found.map(\.2).joined(separator: ", ")
            throw SynthError("--midi-out \(name): no JACK or ALSA MIDI input by that name (ALSA destinations: \(list)); `etude devices` lists them")
        }
        let rc = etude_seq_out_connect(h, target.0, target.1)
        guard rc == 0 else {
            etude_seq_out_close(h)
            throw SynthError("--midi-out \(name): the ALSA sequencer refused to connect to \(target.2) (\(String(cString: etude_seq_strerror(rc))))")
        }
        handle = h
        port = target.2
    }

    /// Sends a channel message (1–3 bytes) at once.
    public func send(_ bytes: [UInt8]) {
        lock.withLock {
            guard !closed else { return }
            _ = etude_seq_out_send(handle, bytes, Int32(bytes.count))
        }
    }

    /// Sustain up and all notes off on every channel.
    public func allNotesOff() {
        for c in UInt8(0)..<16 {
            send([0xB0 | c, 64, 0])
            send([0xB0 | c, 123, 0])
        }
    }

    public func close() {
        lock.withLock {
            guard !closed else { return }
            closed = true
            etude_seq_out_close(handle)
        }
    }

    deinit { close() }
}
