import Foundation
import Jack

/// `etude-bench jack-latency --etude PATH --soundfont SF2 [--notes N]`: key → sound in frames on
/// the JACK server the environment names (`make bench` starts `jackd -d dummy -r 48000 -p 64`),
/// Etude (`etude record --input jack`) beside `fluidsynth -a jack -m jack` in the same run. Each
/// note goes to the program's MIDI input at a random frame; the frames until its first sound on
/// `left` are counted by a second client. Prints JSON (frames and ms, median and max), and
/// Etude's callback's own work: its worst cycle against the period and the xruns the server
/// counted (from `--verbose`'s closing line).
enum JackBench {
    static func run(_ args: [String]) -> String {
        func value(_ flag: String) -> String? { args.firstIndex(of: flag).flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil } }
        guard let etude = value("--etude"), let font = value("--soundfont") else {
            return "{\"bench\":\"jack-latency\",\"error\":\"usage: jack-latency --etude PATH --soundfont SF2 [--notes N]\"}"
        }
        let notes = Int(value("--notes") ?? "") ?? 100
        let scratch = NSTemporaryDirectory() + "etude-jack-bench-\(getpid())"
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let clientName = "etude-bench-\(getpid())"
        guard let ours = measure(program: etude, ["record", "--output", scratch + "/take.mid", "--input", "jack", "--soundfont", font,
                                                  "--jack-name", clientName, "--verbose"],
                                 midi: "\(clientName):midi_in", audio: "\(clientName):left", notes: notes, tag: "e") else {
            return "{\"bench\":\"jack-latency\",\"error\":\"etude's JACK ports did not appear (is a JACK server running? JACK_DEFAULT_SERVER)\"}"
        }
        let port = 20_000 + Int(getpid() % 20_000)
        guard let peer = measure(program: "/usr/bin/fluidsynth", ["-a", "jack", "-m", "jack", "-is", "-o", "shell.port=\(port)",
                                                                   "-o", "audio.jack.id=fs-bench-\(getpid())",
                                                                   "-o", "midi.jack.id=fs-bench-\(getpid())", "-r", "48000", font],
                                 midi: "fs-bench-\(getpid()):midi_00", audio: "fs-bench-\(getpid()):left", notes: notes, tag: "f") else {
            return "{\"bench\":\"jack-latency\",\"error\":\"fluidsynth's JACK ports did not appear\"}"
        }
        return "{\"bench\":\"jack-latency\",\"rate\":\(ours.rate),\"period\":\(ours.period),\"etude\":\(ours.json),\"fluidsynth\":\(peer.json)"
            + ",\"callback\":\(callback(ours.log))}"
    }

    /// `{"worstMs":…,"periodMs":…,"xruns":…}` from the line `audio: JACK: … xruns; worst callback X ms
    /// of a Y ms period` Etude writes with `--verbose` when it closes; null when it is missing.
    static func callback(_ log: String) -> String {
        guard let line = log.split(separator: "\n").first(where: { $0.contains("worst callback") }) else { return "null" }
        let words = line.split(separator: " ")
        func number(before word: String, after: Int = 0) -> Double? {
            guard let i = words.firstIndex(where: { $0.hasPrefix(word) }), i > after else { return nil }
            return Double(words[i - 1 - after].trimmingCharacters(in: CharacterSet(charactersIn: ",;")))
        }
        guard let worst = words.firstIndex(of: "callback").flatMap({ $0 + 1 < words.count ? Double(words[$0 + 1]) : nil }),
              let period = words.firstIndex(of: "period").flatMap({ $0 >= 2 ? Double(words[$0 - 2]) : nil }),
              let xruns = number(before: "xruns") else { return "null" }
        return "{\"worstMs\":\(worst),\"periodMs\":\(period),\"xruns\":\(Int(xruns))}"
    }

    struct Result {
        var frames: [Int]
        var missed: Int
        var rate: Int
        var period: Int
        /// What the program wrote on stderr (Etude's `--verbose` lines).
        var log = ""
        var json: String {
            let s = JackMeter.summary(frames) ?? (median: 0, max: 0)
            let ms = { (f: Int) in String(format: "%.3f", Double(f) / Double(rate) * 1000) }
            return "{\"notes\":\(frames.count),\"missed\":\(missed),\"medianFrames\":\(s.median),\"maxFrames\":\(s.max),\"medianMs\":\(ms(s.median)),\"maxMs\":\(ms(s.max))}"
        }
    }

    /// Starts `program`, waits for its ports, measures, stops it.
    static func measure(program: String, _ arguments: [String], midi: String, audio: String, notes: Int, tag: String) -> Result? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        let logPath = NSTemporaryDirectory() + "etude-jack-bench-\(tag)-\(getpid()).log"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        p.standardError = FileHandle(forWritingAtPath: logPath) ?? FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        var stopped = false
        func stop() -> String {
            if !stopped {
                stopped = true
                p.terminate()
                p.waitUntilExit()
            }
            return (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        }
        defer { _ = stop() }
        guard let meter = JackMeter(name: "meter-\(tag)-\(getpid())") else { return nil }
        let deadline = Date(timeIntervalSinceNow: 20)
        while !meter.connect(midi: midi, audio: audio) {
            guard Date() < deadline, p.isRunning else { return nil }
            usleep(100_000)
        }
        // Ready once a probe note (C3) sounds: the program has loaded its SoundFont.
        let ready = Date(timeIntervalSinceNow: 20)
        while meter.measure(count: 1, key: 48, timeout: 0.3).first.flatMap({ $0 }) == nil {
            guard Date() < ready, p.isRunning else { return nil }
        }
        let measured = meter.measure(count: notes, seed: 7)
        let frames = measured.compactMap { $0 }
        let (rate, period) = (meter.sampleRate, meter.period)
        return Result(frames: frames, missed: measured.count - frames.count, rate: rate, period: period, log: stop())
    }
}
