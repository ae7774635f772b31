import Foundation
import Testing
import TestSupport

/// Options with a range or a fixed set of values are typed: help lists the values, the shell
/// completions offer them, and a bad value gets its type's one line on every command that
/// takes it.
@Suite struct TypedOptionsTests {
    static var ode: String { Repo.lesson("level4/ode-to-joy.mid") }

    @Test func helpListsTheValuesOfEachFixedSet() throws {
        let etude = try Etude()
        // The help wrapped to its width, read as one line of single spaces.
        func flat(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let help = flat(try etude.run(["practice", "--help"]).stdout)
        for values in ["(values: right, left, both; default: both)", "(values: play, quiet, mute)",
                       "(values: watch, wait, play, memory; default: watch)", "(values: scientific, yamaha; default: scientific)",
                       "(values: pipewire, pulseaudio, alsa, jack, sdl2, oss)"] {
            #expect(help.contains(values), "\(values) in: \(help)")
        }
        let render = flat(try etude.run(["render", "--help"]).stdout)
        #expect(render.contains("(values: s16, float; default: s16)"), "\(render)")
    }

    @Test func completionsOfferTheValues() throws {
        let bash = try Etude().run(["--generate-completion-script", "bash"]).stdout
        #expect(bash.contains("'scientific'$'\\n''yamaha'"), "--note-names completes its values")
        #expect(bash.contains("'pipewire'$'\\n''pulseaudio'$'\\n''alsa'$'\\n''jack'$'\\n''sdl2'$'\\n''oss'"), "--audio-driver completes its values")
        #expect(bash.contains("'s16'$'\\n''float'"), "render --format completes its values")
    }

    @Test func aBadValueGetsTheSameLineOnEveryCommand() throws {
        let etude = try Etude()
        let out = etude.home.file("out.mid")
        let hand = [["practice", Self.ode], ["export", Self.ode, "-o", out], ["loop", Self.ode, "1-2", "--dry-run"],
                    ["loops", "save", Self.ode, "n", "--bars", "1-2"]]
        for command in hand {
            let r = try etude.run(command + ["--hand", "middle"])
            #expect(r.status == 1 && r.stderr == "etude: --hand middle: use left, right or both\n", "\(command): \(r.stderr)")
        }
        for command in [["practice", Self.ode], ["export", Self.ode, "-o", out], ["loops", "save", Self.ode, "n", "--bars", "1-2"]] {
            let r = try etude.run(command + ["--tempo", "1000"])
            #expect(r.status == 1 && r.stderr == "etude: --tempo 1000: the tempo must be between 10% and 400%\n", "\(command): \(r.stderr)")
        }
        let other = try etude.run(["export", Self.ode, "-o", out, "--other", "hide"])
        #expect(other.stderr == "etude: --other hide: use play, quiet or mute\n", "\(other.stderr)")
        let format = try etude.run(["render", Self.ode, "-o", etude.home.file("x.wav"), "--format", "wav"])
        #expect(format.status == 1 && format.stderr == "etude: --format wav: use s16 or float\n", "\(format.stderr)")
        let split = try etude.run(["info", Self.ode, "--split", "H9"])
        #expect(split.status == 1 && split.stderr == "etude: --split H9: give a note such as C4 or F#3, or a MIDI number 0–127\n")
        let volume = try etude.run(["export", Self.ode, "-o", out, "--metronome-volume", "150"])
        #expect(volume.status == 1 && volume.stderr == "etude: --metronome-volume 150: use 0–100%\n", "\(volume.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "nothing written")
    }

    @Test func valuesAreReadAsBeforeInAnyCase() throws {
        let etude = try Etude()
        let out = etude.home.file("lh.mid")
        let r = try etude.run(["export", Self.ode, "-o", out, "--hand", "LH", "--other", "Quiet", "--tempo", "75"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("left hand, tempo 75% (75 BPM)"), "\(r.stdout)")
        let dry = try etude.run(["loop", Self.ode, "1-2", "--dry-run", "--repeat", "2", "--tempo", "50%", "--hand", "right", "--other", "mute"])
        #expect(dry.stdout == "Ode to Joy: bars 1–2, right hand (other hand: mute)\npass 1: 50% (50 BPM), 9.6 s\npass 2: 50% (50 BPM), 9.6 s\n", "\(dry.stdout)")
    }
}
