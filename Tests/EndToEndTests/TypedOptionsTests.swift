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

    /// `--bars`, the fit options and the instrument's options are types too: a bad value is its
    /// one line on every command that takes it, said before any file is opened (the lesson
    /// named here does not exist), and the fixed sets are in help and completions.
    @Test func barsFitAndInstrumentValuesAreCheckedWhereTyped() throws {
        let etude = try Etude()
        let missing = etude.home.file("no-such-lesson.mid")
        let out = etude.home.file("o.mid")
        let cases: [(commands: [[String]], option: [String], line: String)] = [
            ([["practice", missing], ["export", missing, "-o", out], ["score", missing], ["judge", missing, missing], ["loops", "save", missing, "n"]],
             ["--bars", "9-3"], "etude: --bars 9-3: the first bar comes after the last; did you mean 3-9?\n"),
            ([["practice", missing], ["export", missing, "-o", out], ["score", missing]],
             ["--bars", "2@0"], "etude: --bars 2@0: after @ give which time through, 1 or more (e.g. 12-16@2)\n"),
            ([["practice", missing], ["play", missing], ["render", missing, "-o", etude.home.file("o.wav")], ["score", missing],
              ["export", missing, "-o", out], ["judge", missing, missing]],
             ["--transpose", "H"], "etude: --transpose H: not a key or a number of semitones; give a key such as D, Bb or F#m, or semitones such as +2\n"),
            ([["practice", missing], ["judge", missing, missing], ["routine", "run"]],
             ["--keys", "62"], "etude: --keys 62: give a keyboard size: 88, 76, 73, 61, 49, 37, 25; or --range LOW-HIGH, e.g. --range C2-C7\n"),
            ([["practice", missing], ["judge", missing, missing]],
             ["--range", "C4-D4"], "etude: --range C4-D4: a keyboard has at least 12 keys, lowest first; try --range C3-C5\n"),
            ([["practice", missing]], ["--fit", "sideways"], "etude: --fit sideways: use octave (move a hand that fits your keys by octaves) or none\n"),
            ([["practice", missing], ["calibrate"], ["record", "-o", out]],
             ["--echo", "maybe"], "etude: --echo maybe: use on (Etude sounds your notes) or off (your instrument does)\n"),
            ([["practice", missing], ["play", missing]],
             ["--sound", "loud"], "etude: --sound loud: use synth (Etude's sound), instrument (your instrument, through etude:midi_out) or both\n"),
            ([["practice", missing]], ["--lights", "17"], "etude: --lights 17: give the MIDI channel your keyboard's lights listen on, 1–16\n"),
            ([["practice", missing]], ["--gestures", "restart=A0,pause=A0"],
             "etude: --gestures restart=A0,pause=A0: use on, off, or NAME=KEY pairs such as restart=A0,pause=B0,slower=C1,faster=D1,loop=E1 (one key each)\n"),
            ([["judge", missing, missing]], ["--hand", "middle"], "etude: --hand middle: use left, right or both\n"),
            ([["judge", missing, missing]], ["--tempo", "5%"], "etude: --tempo 5%: the tempo must be between 10% and 400%\n"),
        ]
        for c in cases {
            for command in c.commands {
                let r = try etude.run(command + c.option)
                #expect(r.status == 1 && r.stderr == c.line, "\(command + c.option): \(r.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: out), "nothing written")
        func flat(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let help = flat(try etude.run(["practice", "--help"]).stdout)
        for values in ["(values: 88, 76, 73, 61, 49, 37, 25)", "(values: octave, none)", "(values: on, off)", "(values: synth, instrument, both)"] {
            #expect(help.contains(values), "\(values) in: \(help)")
        }
        let bash = try etude.run(["--generate-completion-script", "bash"]).stdout
        #expect(bash.contains("'88'$'\\n''76'$'\\n''73'$'\\n''61'$'\\n''49'$'\\n''37'$'\\n''25'"), "--keys completes its sizes")
        #expect(bash.contains("'octave'$'\\n''none'"), "--fit completes its values")
    }
}
