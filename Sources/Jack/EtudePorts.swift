/// Etude's own JACK ports, told apart from an instrument's: `etude devices` never offers them,
/// `--input jack:PORT` never asks whether they make their own sound, and `--midi-out` never
/// picks another Etude's `midi_in`. A client is an Etude when it has Etude's four ports
/// (`midi_in`, `midi_out`, `left`, `right`); the running process's own client (`--jack-name`)
/// always is.
public enum EtudePorts {
    /// The short names every Etude client registers.
    public static let shortNames: Set<String> = ["midi_in", "midi_out", "left", "right"]

    /// The client names among `ports` (full `client:port` names, audio and MIDI) that have all
    /// of Etude's ports.
    public static func clients(in ports: [String]) -> Set<String> {
        var seen: [String: Set<String>] = [:]
        for p in ports {
            guard let colon = p.firstIndex(of: ":") else { continue }
            let short = String(p[p.index(after: colon)...])
            if shortNames.contains(short) { seen[String(p[..<colon]), default: []].insert(short) }
        }
        return Set(seen.filter { $0.value == shortNames }.keys)
    }

    /// `candidates` without the ports of an Etude client (`etudes`) or of `own`.
    public static func foreign(_ candidates: [String], etudes: Set<String>, own: String?) -> [String] {
        candidates.filter { p in
            guard let colon = p.firstIndex(of: ":") else { return true }
            let client = String(p[..<colon])
            return client != own && !etudes.contains(client)
        }
    }

    /// Whether `port` belongs to an Etude client (`etudes`) or to `own`.
    public static func isEtudes(_ port: String, etudes: Set<String>, own: String?) -> Bool {
        foreign([port], etudes: etudes, own: own).isEmpty
    }
}

extension JackClient {
    /// The Etude clients on this server (this process's among them).
    public func etudeClients() -> Set<String> {
        var all = ports(midi: true, output: true) + ports(midi: true, output: false)
        all += ports(midi: false, output: true) + ports(midi: false, output: false)
        return EtudePorts.clients(in: all).union([name])
    }

    /// MIDI ports of a kind that belong to no Etude: an instrument's, a light strip's.
    public func instrumentPorts(output: Bool, physical: Bool = false) -> [String] {
        EtudePorts.foreign(ports(midi: true, output: output, physical: physical), etudes: etudeClients(), own: name)
    }
}
