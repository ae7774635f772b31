import Foundation
import Testing

/// The programs and data some tests need. A test that needs one says so with
/// `.enabled(if: Tools.tmux.available, Tools.tmux.reason)`, so a run without it shows the test
/// as skipped, with the reason, instead of passing it silently.
public struct Tool: Sendable {
    public let name: String
    public let path: String?
    /// Why a test needing it is skipped (the package to install).
    public let reason: Comment

    public var available: Bool { path != nil }
}

public enum Tools {
    public static let tmux = Tool(name: "tmux", path: which("tmux"), reason: "tmux is not installed (apt-get install tmux)")
    public static let fluidsynth = Tool(name: "fluidsynth", path: which("fluidsynth"),
                                        reason: "the fluidsynth program is not installed (apt-get install fluidsynth)")
    public static let abc2midi = Tool(name: "abc2midi", path: which("abc2midi"), reason: "abc2midi is not installed (apt-get install abcmidi)")
    public static let pulseaudio = Tool(name: "pulseaudio", path: which("pulseaudio").flatMap { _ in which("parecord") },
                                        reason: "pulseaudio/parecord are not installed (apt-get install pulseaudio pulseaudio-utils)")
    public static let sox = Tool(name: "sox", path: which("sox"), reason: "sox is not installed (apt-get install sox)")
    /// A SoundFont other than the one Etude plays with, for recordings of "another piano".
    public static let otherPiano = Tool(name: "FluidR3_GM.sf2",
                                        path: FileManager.default.fileExists(atPath: "/usr/share/sounds/sf2/FluidR3_GM.sf2") ? "/usr/share/sounds/sf2/FluidR3_GM.sf2" : nil,
                                        reason: "FluidR3_GM.sf2 is not installed (apt-get install fluid-soundfont-gm)")
    /// A piano the listener was never tuned on (its defaults and `etude-bench listen` use FluidR3):
    /// MuseScore General's, for the listening tests of both hands, pedal and chords.
    public static let heldOutPiano = Tool(name: "MuseScore_General_Lite.sf3",
                                          path: ["/usr/share/sounds/sf3/MuseScore_General_Lite.sf3", "/usr/share/sounds/sf3/MuseScore_General.sf3"]
                                              .first { FileManager.default.fileExists(atPath: $0) },
                                          reason: "MuseScore General is not installed (apt-get install musescore-general-soundfont-small)")
    public static let sha256sum = Tool(name: "sha256sum", path: which("sha256sum"), reason: "sha256sum is not installed (coreutils)")
    public static let man = Tool(name: "man", path: which("man"), reason: "man is not installed (apt-get install man-db)")
    public static let dpkgDeb = Tool(name: "dpkg-deb", path: which("dpkg-deb"), reason: "dpkg-deb is not here (not a Debian system)")

    /// The peers' Python (mido, symusic, music21) from `$ETUDE_PEER_PYTHON`, which `make test`
    /// sets from scripts/peer-venv.sh.
    public static let peerPython: Tool = {
        let p = ProcessInfo.processInfo.environment["ETUDE_PEER_PYTHON"] ?? ""
        if p.isEmpty {
            return Tool(name: "peer python", path: nil, reason: "ETUDE_PEER_PYTHON is not set (make test makes the peer venv; PyPI may be unreachable)")
        }
        return Tool(name: "peer python", path: FileManager.default.isExecutableFile(atPath: p) ? p : nil,
                    reason: "ETUDE_PEER_PYTHON=\(p) is not executable")
    }()

    /// The shared jazz-soft corpus.
    public static let corpus = Tool(name: "jazz-soft corpus",
                                    path: FileManager.default.fileExists(atPath: Repo.jazzSoft.appendingPathComponent("test-c-major-scale.mid").path)
                                        || ((try? FileManager.default.contentsOfDirectory(atPath: Repo.jazzSoft.path))?.contains { $0.hasSuffix(".mid") } ?? false)
                                        ? Repo.jazzSoft.path : nil,
                                    reason: "no corpus at \(Repo.jazzSoft.path) (set ETUDE_CORPUS)")

    /// The ALSA sequencer a MIDI keyboard needs.
    public static let alsaSequencer = Tool(name: "ALSA sequencer", path: access("/dev/snd/seq", R_OK | W_OK) == 0 ? "/dev/snd/seq" : nil,
                                           reason: "no ALSA sequencer here (/dev/snd/seq is missing): MIDI keyboards are tested through a FIFO instead")

    /// Full path of a program on PATH (plus /usr/bin, /usr/local/bin), nil when not installed.
    public static func which(_ name: String) -> String? {
        var dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        dirs += ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]
        for dir in dirs {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }
}
