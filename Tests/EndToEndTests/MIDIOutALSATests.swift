import Foundation
import Testing
import TestSupport

/// `--midi-out PORT` on the ALSA sequencer when no JACK server takes it (issue 24.5): without a
/// sequencer (this machine has no /dev/snd/seq) one line naming both ways out; with one, the
/// lesson reaches an `aseqdump` port.
struct MIDIOutALSATests {
    static let sequencer = access("/dev/snd/seq", R_OK | W_OK) == 0

    @Test(.enabled(if: !MIDIOutALSATests.sequencer, "this machine has an ALSA sequencer: the no-sequencer line cannot be seen"))
    func withNeitherJackNorASequencerMidiOutIsOneLine() throws {
        let etude = try Etude()
        let r = try etude.run(["play", Repo.lesson("level1/c-major-five-finger-parallel.mid"), "--no-screen", "--midi-out", "piano"],
                              extra: ["JACK_DEFAULT_SERVER": "etude-no-such-server-\(getpid())"])
        #expect(r.status == 1)
        #expect(r.stderr == "etude: --midi-out piano: no JACK server answers (etude-no-such-server-\(getpid())) and no ALSA sequencer either (/dev/snd/seq is missing): start a JACK server (jackd, or PipeWire's pipewire-jack) or load the snd-seq module (sudo modprobe snd-seq)\n",
                "\(r.stderr)")
    }

    @Test(.enabled(if: MIDIOutALSATests.sequencer && Tools.which("aseqdump") != nil,
                   "no ALSA sequencer here (/dev/snd/seq is missing) or no aseqdump (alsa-utils): --midi-out to an ALSA port cannot be tried"))
    func theLessonReachesAnALSAPort() throws {
        let etude = try Etude()
        let dump = try Spawned("aseqdump", [], extra: [:])
        defer { dump.signal(SIGTERM); _ = dump.wait(timeout: 10) }
        usleep(500_000)
        let p = try etude.start(["play", Repo.lesson("level1/c-major-five-finger-parallel.mid"), "--no-screen", "--sound", "instrument",
                                 "--midi-out", "aseqdump"], extra: ["JACK_DEFAULT_SERVER": "etude-no-such-server-\(getpid())", "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf"])
        #expect(eventually(20) { dump.stdout.contains("Note on") }, "\(p.stderr)")
        p.signal(SIGTERM)
        _ = p.wait(timeout: 30)
        #expect(dump.stdout.contains("Control change") && dump.stdout.contains("controller 123"), "all notes off on exit: \(dump.stdout.suffix(400))")
    }
}
