import Foundation
import Jack

/// What `etude devices` says about JACK: the server Etude would use (it never starts one), its
/// rate and period, and the MIDI ports to name in `--input jack:PORT` and `--midi-out PORT`.
public struct JackDevices: Encodable, Sendable {
    /// `JACK_DEFAULT_SERVER`, else `default`.
    public var server: String
    public var running: Bool
    /// Etude's client as the server named it (`etude`, or `--jack-name`).
    @Nullable public var client: String?
    @Nullable public var sampleRate: Int?
    @Nullable public var period: Int?
    /// MIDI sources (keyboards): `--input jack:PORT`.
    public var midiSources: [String]
    /// MIDI destinations (an instrument's input, a light strip): `--midi-out PORT`.
    public var midiDestinations: [String]
    /// Why JACK is not used, when it is not.
    @Nullable public var reason: String?

    /// Asks the server (opening Etude's client if no other part did yet).
    public static func scan() -> JackDevices {
        let server = JackClient.serverName
        do {
            let client = try JackClient.shared()
            // Never Etude's own ports, this process's or another Etude's.
            return JackDevices(server: server, running: true, client: client.name, sampleRate: client.sampleRate, period: client.period,
                               midiSources: client.instrumentPorts(output: true),
                               midiDestinations: client.instrumentPorts(output: false), reason: nil)
        } catch {
            return JackDevices(server: server, running: false, client: nil, sampleRate: nil, period: nil, midiSources: [],
                               midiDestinations: [], reason: error.message)
        }
    }

    /// The lines `etude devices` prints.
    public var lines: [String] {
        guard running, let sampleRate, let period else {
            return ["JACK: \(reason ?? "no server")"]
        }
        var out = ["JACK server \(safe(server)): \(sampleRate) Hz, \(period)-frame periods (\(String(format: "%.1f", Double(period) / Double(sampleRate) * 1000)) ms); Etude's ports are \(safe(client ?? "etude")):midi_in, :midi_out, :left, :right"]
        out.append(midiSources.isEmpty ? "  no JACK MIDI sources (connect one to \(safe(client ?? "etude")):midi_in, or use --input jack)"
                   : "  JACK MIDI sources (use --input jack:PORT):")
        out += midiSources.map { "    \(safe($0))" }
        if !midiDestinations.isEmpty {
            out.append("  JACK MIDI destinations (use --midi-out PORT):")
            out += midiDestinations.map { "    \(safe($0))" }
        }
        return out
    }
}
