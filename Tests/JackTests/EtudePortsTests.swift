import Jack
import Testing

/// Etude's own JACK ports are told apart from an instrument's (issue 38.5): a client with all
/// four of Etude's ports is an Etude, whatever `--jack-name` called it.
@Suite struct EtudePortsTests {
    static let ports = ["etude:midi_in", "etude:midi_out", "etude:left", "etude:right",
                        "etude-2:midi_in", "etude-2:midi_out", "etude-2:left", "etude-2:right",
                        "piano:out", "piano:in", "fluidsynth:midi_00", "fluidsynth:left", "fluidsynth:right",
                        "half:midi_in", "half:left"]

    @Test func clientsWithEtudesFourPortsAreEtudes() {
        #expect(EtudePorts.clients(in: Self.ports) == ["etude", "etude-2"])
    }

    @Test func foreignLeavesOutEveryEtudeAndTheOwnClient() {
        let midi = ["etude:midi_out", "etude-2:midi_out", "piano:out", "half:midi_in", "mine:midi_out"]
        #expect(EtudePorts.foreign(midi, etudes: ["etude", "etude-2"], own: "mine") == ["piano:out", "half:midi_in"])
        #expect(EtudePorts.isEtudes("etude-2:midi_out", etudes: ["etude", "etude-2"], own: nil))
        #expect(!EtudePorts.isEtudes("piano:out", etudes: ["etude", "etude-2"], own: "mine"))
    }
}
