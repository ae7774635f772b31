import Clocks
import Foundation
import Synth

/// `etude-bench pulse-latency --etude PATH --soundfont SF2 --sink NAME [--notes N] [--settle S]`: key → sound
/// on the PulseAudio server the environment reaches (`make bench` starts a private one with a
/// null sink), no JACK: Etude (`etude record --input FIFO --echo on`, its own stream and buffer
/// steps) beside `fluidsynth -a pulseaudio` (its defaults; keys typed into its shell) in the same
/// run. `parecord` records the sink's monitor; each note's latency is dated from the recording's
/// arrival (an upper bound: it includes parecord's own 2 ms fragments). Prints JSON (ms).
enum PulseBench {
    static func run(_ args: [String]) -> String {
        func value(_ flag: String) -> String? { args.firstIndex(of: flag).flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil } }
        guard let etude = value("--etude"), let font = value("--soundfont"), let sink = value("--sink"),
              let parecord = ["/usr/bin/parecord", "/usr/local/bin/parecord"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return "{\"bench\":\"pulse-latency\",\"error\":\"usage: pulse-latency --etude PATH --soundfont SF2 --sink NAME [--notes N] (needs parecord)\"}"
        }
        let notes = Int(value("--notes") ?? "") ?? 30
        // Seconds Etude plays before the keys: its buffer steps down while nothing underruns
        // (`BufferSteps`), so the figure is the one a learner gets after the first minute.
        let settle = Double(value("--settle") ?? "") ?? 40
        var env = ProcessInfo.processInfo.environment
        env["JACK_DEFAULT_SERVER"] = "etude-bench-no-jack-\(getpid())"
        let scratch = NSTemporaryDirectory() + "etude-pulse-bench-\(getpid())"
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        // Etude: keys into a FIFO its `record --input` reads.
        let fifo = scratch + "/keys.fifo"
        guard mkfifo(fifo, 0o600) == 0 else { return "{\"bench\":\"pulse-latency\",\"error\":\"mkfifo failed\"}" }
        let fd = open(fifo, O_RDWR | O_CLOEXEC)
        defer { close(fd) }
        let log = scratch + "/etude.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let ours = Process()
        ours.executableURL = URL(fileURLWithPath: etude)
        ours.arguments = ["record", "--output", scratch + "/take.mid", "--input", fifo, "--echo", "on", "--soundfont", font, "--verbose"]
        ours.environment = env
        ours.standardInput = FileHandle.nullDevice
        ours.standardOutput = FileHandle.nullDevice
        ours.standardError = FileHandle(forWritingAtPath: log)
        guard (try? ours.run()) != nil else { return "{\"bench\":\"pulse-latency\",\"error\":\"etude did not start\"}" }
        let text = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        let started = wait(20) { text().contains("audio: pulseaudio") }
        if started { usleep(UInt32(max(0, settle) * 1_000_000)) }
        let etudeFigures = started ? measure(parecord: parecord, sink: sink, env: env, notes: notes) { on in
            var bytes: [UInt8] = on ? [0x90, 72, 127] : [0x80, 72, 0]
            return write(fd, &bytes, 3) == 3
        } : nil
        ours.terminate()
        ours.waitUntilExit()
        let etudeLog = text()
        guard let etudeFigures else {
            return "{\"bench\":\"pulse-latency\",\"error\":\"etude did not play through pulseaudio: \(jsonEscaped(etudeLog))\"}"
        }
        let start = etudeLog.split(separator: "\n").first { $0.hasPrefix("audio: pulseaudio") }.map(String.init) ?? ""
        let steps = etudeLog.split(separator: "\n").filter { $0.hasPrefix("audio: ") && $0.contains("buffer now") }
        let last = steps.last.map { String($0.split(separator: " ").suffix(2).first ?? "") } ?? ""

        // The peer: fluidsynth's own pulseaudio driver with its defaults, keys typed into its shell.
        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: "/usr/bin/fluidsynth")
        peer.arguments = ["-a", "pulseaudio", font]
        peer.environment = env
        let input = Pipe()
        peer.standardInput = input
        peer.standardOutput = FileHandle.nullDevice
        peer.standardError = FileHandle.nullDevice
        var peerFigures: String?
        if (try? peer.run()) != nil {
            usleep(2_000_000)  // its SoundFont loads
            let handle = input.fileHandleForWriting
            peerFigures = measure(parecord: parecord, sink: sink, env: env, notes: notes) { on in
                (try? handle.write(contentsOf: Data((on ? "noteon 0 72 127\n" : "noteoff 0 72\n").utf8))) != nil
            }
            peer.terminate()
            peer.waitUntilExit()
        }
        return "{\"bench\":\"pulse-latency\",\"settleSeconds\":\(settle),\"etude\":\(etudeFigures),\"etudeStart\":\"\(jsonEscaped(start))\",\"etudeBufferSteps\":\(steps.count),"
            + "\"etudeLastBuffer\":\"\(jsonEscaped(last))\",\"fluidsynth\":\(peerFigures ?? "null")}"
    }

    /// Key → sound of whatever `key` plays, recorded from the sink's monitor: JSON figures.
    static func measure(parecord: String, sink: String, env: [String: String], notes: Int, key: (Bool) -> Bool) -> String? {
        guard let meter = PulseMeter(parecord: parecord, device: sink + ".monitor", environment: env) else { return nil }
        guard wait(10, { meter.frames > 4_800 }) else { return nil }
        // One key first (not counted): a fresh stream's first sound can be late.
        _ = PulseMeter.play(count: 1, key: key)
        let keys = PulseMeter.play(count: notes, key: key)
        let heard = meter.finish(keys: keys)
        guard let s = KeyToSound.summary(heard) else { return "{\"notes\":\(keys.count),\"heard\":0}" }
        return "{\"notes\":\(keys.count),\"heard\":\(heard.compactMap { $0 }.count),\"medianMs\":\(String(format: "%.1f", s.median)),\"maxMs\":\(String(format: "%.1f", s.max))}"
    }

    static func wait(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.seconds() + seconds
        while MonotonicClock.seconds() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    static func jsonEscaped(_ s: String) -> String {
        s.unicodeScalars.map { c -> String in
            switch c {
            case "\"": return "\\\""
            case "\\": return "\\\\"
            case "\n": return "\\n"
            default: return c.value < 0x20 ? String(format: "\\u%04x", c.value) : String(c)
            }
        }.joined()
    }
}
