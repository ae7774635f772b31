import Foundation
import Jack
import Testing
import TestSupport

/// Issue 38.1 end to end, each test on a `jackd -d dummy` of its own with a test client as the
/// piano: in wait and play mode Etude neither sounds the practised hand on `etude:left` nor sends
/// it on `etude:midi_out` (the default sound with `--midi-out` goes to both); `--guide on` makes
/// it heard quietly on `etude:left`, still never on `midi_out`; and a robot playing exactly the
/// keys lit on channel 1 — a channel the lesson uses — scores 100 % with the default sound.
@Suite(.serialized, .enabled(if: JackServer.available, JackServer.reason))
struct LearnerPartJackTests {
    static let lesson = Repo.lesson("level1/c-major-five-finger-parallel.mid")

    /// What the piano heard of one pass: the loudest sample on etude:left, every MIDI message on
    /// etude:midi_out, and the pass's report line.
    struct Heard {
        var peak: Float = 0
        var midi: [[UInt8]] = []
        var pass: [String: Any] = [:]
    }

    /// One pass of the right hand (the left muted, no metronome, no count-in) in `mode`, played
    /// by a robot on the lights of `lightsChannel` (1–16), with `extra` options.
    static func practise(_ mode: String, tag: String, lightsChannel: Int = 16, extra: [String] = []) throws -> Heard {
        // A 256-frame period: the robot's keys cross JACK twice per chord, and a cycle that misses
        // its deadline (an xrun, frequent at 64 frames on a loaded two-core machine: Etude's own
        // line says "use a larger period") loses the MIDI written in it — a lit key never
        // pressed, the pass waiting for it for ever. Nothing here measures timing.
        let server = try JackServer(tag: tag, period: 256)
        let etude = try Etude()
        let robot = try #require(JackMeter(name: "r\(tag)", server: server.name))
        robot.robot(channel: lightsChannel - 1)
        let report = etude.home.file("passes.jsonl")
        let tty = try PseudoTerminal(columns: 80, rows: 24)
        var args = ["practice", lesson, "--mode", mode, "--hand", "right", "--repeat", "1", "--tempo", "200%", "--no-count-in",
                    "--input", "jack", "--lights", String(lightsChannel), "--midi-out", robot.listenPort,
                    "--jack-name", "etude-\(tag)", "--report", report] + extra
        if let font = JackInstrumentTests.font { args += ["--soundfont", font] }
        let p = try etude.start(args, extra: server.environment, terminal: tty)
        #expect(eventually(20) { robot.connect(midi: "etude-\(tag):midi_in", audio: "etude-\(tag):left") }, "\(tty.text)")
        #expect(tty.waitFor("mode: \(mode)"), "\(tty.text)")
        var heard = Heard()
        usleep(300_000)
        heard.midi = robot.takeMIDI()
        _ = robot.takePeak()
        // No key starts either mode: wait mode stops at the first chord, lit at once, and the
        // robot's keys move it on. (A space here raced the robot: under load it came after the
        // robot had played every chord, paused the music with nothing left to play it on again,
        // and the pass never ended.)
        let ended = eventually(ProcessInfo.processInfo.environment["ETUDE_DEBUG_WAIT"].flatMap(Double.init) ?? 120, poll: 50_000) {
            tty.drain()
            heard.peak = max(heard.peak, robot.takePeak())
            heard.midi += robot.takeMIDI()
            return FileManager.default.fileExists(atPath: report) && !etude.home.read("passes.jsonl").isEmpty
        }
        #expect(ended, "the pass ends: \(Self.plain(tty.text).suffix(1500)); lights: \(heard.midi.filter { $0[0] & 0x0F == UInt8(lightsChannel - 1) }.suffix(12))")
        tty.send("q")
        #expect(p.wait(timeout: 30) == 0, "\(tty.text.suffix(400))")
        heard.midi += robot.takeMIDI()
        if let line = etude.home.read("passes.jsonl").split(separator: "\n").first,
           let pass = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] {
            heard.pass = pass
        }
        return heard
    }

    /// A terminal's output without its escape sequences (what it said, roughly, for a failure).
    static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: " ", options: .regularExpression)
            .replacingOccurrences(of: " +", with: " ", options: .regularExpression)
    }

    /// Note-ons (velocity > 0) on `etude:midi_out` on channels other than the lights'.
    static func lessonNotes(_ midi: [[UInt8]], lights: Int) -> [[UInt8]] {
        midi.filter { $0.count == 3 && $0[0] & 0xF0 == 0x90 && $0[2] > 0 && Int($0[0] & 0x0F) != lights - 1 }
    }

    @Test(arguments: ["wait", "play"])
    func thePractisedHandIsNeitherHeardNorSent(_ mode: String) throws {
        let heard = try Self.practise(mode, tag: "silent-\(mode)", extra: ["--other", "mute", "--echo", "off"])
        #expect(heard.peak < 1e-5, "\(mode): silence on etude:left (peak \(heard.peak))")
        #expect(Self.lessonNotes(heard.midi, lights: 16).isEmpty, "\(mode): no lesson note on midi_out: \(Self.lessonNotes(heard.midi, lights: 16))")
        #expect(heard.midi.contains { $0[0] == 0x9F }, "the lights went out on channel 16 all the same")
        #expect(heard.midi.contains { $0[0] & 0xF0 == 0xC0 }, "the program change reached the instrument (the lesson went to both)")
        #expect(!heard.pass.isEmpty, "the pass was judged and reported")
        // In wait mode the robot's chords move the lesson on (in play mode it plays each light
        // half a second early, its notes judged as early or extra).
        if mode == "wait" { #expect((heard.pass["hit"] as? Int ?? 0) > 0, "the robot played: \(heard.pass)") }
    }

    @Test(.enabled(if: JackInstrumentTests.font != nil, "needs a GM SoundFont to hear the guide"), arguments: ["wait", "play"])
    func theGuideIsHeardQuietlyOnTheSynthButNeverSent(_ mode: String) throws {
        let heard = try Self.practise(mode, tag: "guide-\(mode)", extra: ["--other", "mute", "--echo", "off", "--guide", "on"])
        #expect(heard.peak > 1e-4, "\(mode): the guide sounds on etude:left (peak \(heard.peak))")
        #expect(Self.lessonNotes(heard.midi, lights: 16).isEmpty, "\(mode): the guide never reaches midi_out: \(Self.lessonNotes(heard.midi, lights: 16))")
    }

    @Test func theRobotOnTheLightsOfALessonChannelScoresHundredWithTheDefaultSound() throws {
        // Channel 1 is the lesson's own: with the default sound and --midi-out the lesson goes to
        // the instrument too, but the lights' channel carries only lights.
        let heard = try Self.practise("wait", tag: "ch1", lightsChannel: 1, extra: ["--echo", "on"])
        #expect(heard.pass["missed"] as? Int == 0, "\(heard.pass)")
        #expect(heard.pass["wrong"] as? Int == 0, "\(heard.pass)")
        #expect(heard.pass["extra"] as? Int == 0, "\(heard.pass)")
        #expect(heard.pass["accuracy"] as? Double == 100, "\(heard.pass)")
        let programs = heard.midi.filter { $0.count >= 2 && $0[0] == 0xC0 }
        #expect(programs.isEmpty, "no program change of the lesson on the lights' channel: \(programs)")
    }
}
