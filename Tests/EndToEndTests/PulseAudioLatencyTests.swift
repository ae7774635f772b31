import Foundation
import Store
import Synth
import Testing
import TestSupport

/// Issue 24.3 on PulseAudio/PipeWire without JACK: a private PulseAudio server with a null sink,
/// the built `etude` echoing keys from a FIFO through its own PulseAudio stream, the sink's
/// monitor recorded with parecord and dated as it arrives: key → sound in ms; and the buffer
/// grows, said once, when it underruns.
@Suite(.serialized, .enabled(if: Tools.pulseaudio.available, Tools.pulseaudio.reason))
struct PulseAudioLatencyTests {
    static let font: String? = try? SoundFontLocator(explicit: nil).locate()

    /// `etude record --input FIFO --echo on` (or `arguments`) on `pulse`, the FIFO held open for writing.
    static func recorder(_ etude: Etude, pulse: PrivatePulseAudio, arguments: [String]? = nil) throws -> (Spawned, Int32) {
        let fifo = etude.home.file("keys.fifo")
        unlink(fifo)
        try #require(mkfifo(fifo, 0o600) == 0)
        let fd = open(fifo, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        // Etude's own database and folders, with the private server reachable (its runtime
        // folder and cookie) and no JACK server.
        var env = etude.environment
        for key in ["XDG_RUNTIME_DIR", "HOME"] { env[key] = pulse.environment[key] }
        env.removeValue(forKey: "PULSE_SERVER")
        env["JACK_DEFAULT_SERVER"] = "etude-no-jack-\(getpid())"
        var args = (arguments ?? ["record", "--output", etude.home.file("take.mid"), "--input", fifo, "--echo", "on"]) + ["--verbose"]
        if let font { args += ["--soundfont", font] }
        return (try Spawned(EtudeBinary.path, args, environment: env), fd)
    }

    @Test func keyToSoundThroughPulseAudioIsMeasuredFromTheSinksMonitor() throws {
        let font = try #require(Self.font, "a GM SoundFont is installed")
        _ = font
        let parecord = try #require(Tools.which("parecord"))
        let (started, why) = try PrivatePulseAudio.start(sinks: ["etude_lat"])
        guard let pulse = started else {
            Issue.record(Comment(rawValue: "skipped: \(why)"))
            return
        }
        defer { pulse.stop() }
        let etude = try Etude()
        let (p, fd) = try Self.recorder(etude, pulse: pulse)
        defer { close(fd) }
        #expect(eventually(30) { p.stderr.contains("audio: pulseaudio") }, "\(p.stderr)")
        let meter = try #require(PulseMeter(parecord: parecord, device: "etude_lat.monitor", environment: pulse.environment))
        #expect(eventually(10) { meter.frames > 4_800 }, "parecord records the monitor")
        let keys = PulseMeter.play(count: 12, into: fd)
        let heard = meter.finish(keys: keys)
        p.signal(SIGTERM)
        _ = p.wait(timeout: 20)
        let figures = try #require(KeyToSound.summary(heard), "no key was heard: \(p.stderr)")
        print("PulseAudio key → sound: median \(String(format: "%.1f", figures.median)) ms, max \(String(format: "%.1f", figures.max)) ms over \(heard.compactMap { $0 }.count)/\(keys.count) keys; \(p.stderr)")
        #expect(heard.compactMap { $0 }.count >= keys.count - 1, "every key sounds: \(heard)")
        // The buffer (40 ms at most by default) plus the server's and the recorder's share.
        #expect(figures.median < 150, "median \(figures.median) ms")
    }

    /// A buffer too small for the machine underruns: Etude grows it and says so once.
    @Test func underrunsGrowTheBufferAndAreSaidOnce() throws {
        _ = try #require(Self.font, "a GM SoundFont is installed")
        let (started, why) = try PrivatePulseAudio.start(sinks: ["etude_under"])
        guard let pulse = started else {
            Issue.record(Comment(rawValue: "skipped: \(why)"))
            return
        }
        defer { pulse.stop() }
        let etude = try Etude()
        // The lesson played with a 2 ms buffer (play takes --audio-buffer; record does not).
        let (p, fd) = try Self.recorder(etude, pulse: pulse, arguments: ["play", Repo.lesson("level1/c-major-five-finger-parallel.mid"),
                                                                          "--no-screen", "--audio-buffer", "2"])
        defer { close(fd) }
        #expect(eventually(30) { p.stderr.contains("audio: pulseaudio") }, "\(p.stderr)")
        // 2 ms asked: about 2 ms at the server's rate (whole 16-frame periods), then the ladder's 5 ms.
        let said = eventually(10) { p.stderr.contains("etude: audio gaps (underruns) with a 2") && p.stderr.contains("ms buffer: now 5 ms") }
        p.signal(SIGTERM)
        _ = p.wait(timeout: 20)
        #expect(said, "\(p.stderr)")
        #expect(p.stderr.components(separatedBy: "audio gaps").count - 1 == 1, "said once: \(p.stderr)")
    }

    /// The buffer learned on a device is remembered there (issue 24): a first session steps the
    /// default 40 ms down after 8 clean seconds (and back up if it underruns) and the library
    /// keeps where it ended for the sink; the next
    /// session on that sink starts from it and says so under --verbose.
    @Test func theBufferLearnedOnASinkIsWhereTheNextSessionStarts() throws {
        _ = try #require(Self.font, "a GM SoundFont is installed")
        let (started, why) = try PrivatePulseAudio.start(sinks: ["etude_mem"])
        guard let pulse = started else {
            Issue.record(Comment(rawValue: "skipped: \(why)"))
            return
        }
        defer { pulse.stop() }
        let etude = try Etude()
        let lesson = Repo.lesson("level1/c-major-five-finger-parallel.mid")
        let (first, fd) = try Self.recorder(etude, pulse: pulse, arguments: ["play", lesson, "--no-screen"])
        defer { close(fd) }
        #expect(eventually(30) { first.stderr.contains("audio: pulseaudio") }, "\(first.stderr)")
        let stepped = eventually(20) { first.stderr.contains("audio: no underruns for 8 s: buffer now") }
        first.signal(SIGTERM)
        _ = first.wait(timeout: 20)
        try #require(stepped, "the default buffer stepped down: \(first.stderr)")
        let learned = try #require(try Store.open(path: etude.database).audioBuffer(device: "pulse:etude_mem"), "remembered for the sink")
        // What it learned is where the buffer was last moved to (down, or back up on a busy
        // machine).
        let last = first.stderr.components(separatedBy: "buffer now ").last?.prefix { $0 != " " }
        #expect(last.map(String.init) == NumberFormat.ms(learned.milliseconds), "\(learned) \(first.stderr)")
        let (second, fd2) = try Self.recorder(etude, pulse: pulse, arguments: ["play", lesson, "--no-screen"])
        defer { close(fd2) }
        let said = eventually(30) { second.stderr.contains("buffer \(NumberFormat.ms(learned.milliseconds)) ms, as learned there before") }
        second.signal(SIGTERM)
        _ = second.wait(timeout: 20)
        #expect(said, "\(second.stderr)")
        // A buffer the learner gives stays theirs.
        let (chosen, fd3) = try Self.recorder(etude, pulse: pulse, arguments: ["play", lesson, "--no-screen", "--audio-buffer", "40"])
        defer { close(fd3) }
        #expect(eventually(30) { chosen.stderr.contains("audio: pulseaudio") }, "\(chosen.stderr)")
        usleep(500_000)
        chosen.signal(SIGTERM)
        _ = chosen.wait(timeout: 20)
        #expect(!chosen.stderr.contains("as learned there before"), "\(chosen.stderr)")
    }
}
