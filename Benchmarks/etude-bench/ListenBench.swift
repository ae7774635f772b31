import Clocks
import Foundation
import Listening
import MIDIFile
import Synth

/// `etude-bench listen SOUNDFONT LESSON.mid...`: renders each lesson as a performance with
/// every 7th note wrong, through a SoundFont other than Etude's, with room reverb and noise
/// added by sox; runs the listener over it; prints what it found and its CPU per audio second.
enum ListenBench {
    static func run(_ arguments: [String]) -> Int32 {
        let json = arguments.contains("--json")
        let args = arguments.filter { $0 != "--json" }
        guard args.count >= 2 else { print("usage: etude-bench listen SOUNDFONT LESSON.mid..."); return 2 }
        let font = args[0]
        let dir = NSTemporaryDirectory() + "etude-bench-listen-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var total = ListeningScore.zero
        var cpu = 0.0, audio = 0.0
        var decisions: [Double] = []
        // The one-minute set-up: a few keys across the range, each struck alone, in the room.
        var keys: [PartialTemplates.Key] = []
        for pitch in stride(from: 33, through: 96, by: 5) {
            let one = [PerformedNote(pitch: pitch, time: 0.3, duration: 0.8, expectedPitch: pitch)]
            if let samples = Rehearsal.record(one, soundFont: font, dir: dir, room: true),
               let key = NoteListener.measureKey(pitch, samples: samples, sampleRate: 44_100) { keys.append(key) }
        }
        let templates = ProcessInfo.processInfo.environment["LISTEN_NO_TEMPLATES"] == nil ? PartialTemplates(keys: keys) : nil
        if !json { print("calibrated \(keys.count) keys") }
        for path in args.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path),
                  let file = try? MIDIReader.read([UInt8](data)).file else { print("\(path): unreadable"); continue }
            let map = TempoMap(file: file)
            let notes = NotePairing.notes(in: file).notes.filter { $0.channel != 9 }
                .map { (pitch: Int($0.pitch), time: map.seconds(atTick: $0.startTick) + 0.5, duration: map.seconds(atTick: $0.endTick) - map.seconds(atTick: $0.startTick)) }
                .sorted { $0.time < $1.time }
            let truth = ListeningEvaluation.plantWrongNotes(notes, every: 7)
            guard let samples = Rehearsal.record(truth, soundFont: font, dir: dir, room: true) else { print("render failed"); return 1 }
            let listener = NoteListener(sampleRate: 44_100, profile: ListeningProfile(templates: templates))
            listener.expectedAt = { t in Set(truth.filter { abs($0.time - t) < 0.15 }.map(\.expectedPitch)) }
            var heard: [HeardNote] = []
            let t0 = MonotonicClock.seconds()
            var i = 0
            while i < samples.count {
                let chunk = Array(samples[i..<min(samples.count, i + 441)])
                let now = Double(i + chunk.count) / 44_100
                let got = listener.push(chunk)
                for h in got { decisions.append(now - h.time) }
                heard += got
                i += chunk.count
            }
            heard += listener.flush()
            cpu += MonotonicClock.seconds() - t0
            audio += Double(samples.count) / 44_100
            let s = ListeningEvaluation.score(heard: heard, truth: truth)
            if ProcessInfo.processInfo.environment["LISTEN_DEBUG"] != nil {
                for t in truth {
                    let near = heard.filter { abs($0.time - s.offset - t.time) < 0.08 }
                    let ok = near.contains { $0.pitch == t.pitch }
                    print(String(format: "%@ %7.3f %3d (exp %3d) heard: %@", ok ? "  " : "XX", t.time, t.pitch, t.expectedPitch,
                                 near.map { String(format: "%d@%.3f/%.1f", $0.pitch, $0.time, $0.strength) }.joined(separator: " ")))
                }
                let extra = heard.filter { h in !truth.contains { abs(h.time - s.offset - $0.time) < 0.08 && $0.pitch == h.pitch } }
                print("extra:", extra.map { String(format: "%d@%.3f/%.1f", $0.pitch, $0.time, $0.strength) }.joined(separator: " "))
            }
            if !json { print("\((path as NSString).lastPathComponent): \(s.line)") }
            total.played += s.played; total.found += s.found; total.falseWrongs += s.falseWrongs
            total.planted += s.planted; total.plantedFound += s.plantedFound
        }
        decisions.sort()
        let cpuMs = cpu / max(audio, 1e-9) * 1000
        let latencyMs = (decisions.isEmpty ? 0 : decisions[decisions.count / 2]) * 1000
        if json {
            print("{\"played\":\(total.played),\"found\":\(total.found),\"falseWrongs\":\(total.falseWrongs),\"planted\":\(total.planted),"
                  + "\"plantedFound\":\(total.plantedFound),\"cpuMsPerSecond\":\(String(format: "%.1f", cpuMs)),\"decisionLatencyMs\":\(String(format: "%.0f", latencyMs))}")
        } else {
            print("all: \(total.line)")
            print(String(format: "detector CPU: %.1f ms per second of audio (%.1f %% of one core); decision latency median %.0f ms, max %.0f ms",
                         cpuMs, cpuMs / 10, latencyMs, (decisions.last ?? 0) * 1000))
        }
        return 0
    }
}

/// A performance made audible as a microphone would hear it: rendered by FluidSynth with the
/// given SoundFont, mixed to mono, then (with `room`) reverb and pink noise added by sox.
enum Rehearsal {
    static func record(_ notes: [PerformedNote], soundFont: String, dir: String, room: Bool) -> [Float]? {
        var events: [MIDIEvent] = [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))]
        for n in notes {
            let on = Int(n.time * 960), off = Int((n.time + max(0.05, n.duration * 0.95)) * 960)
            events.append(MIDIEvent(tick: on, .noteOn(channel: 0, key: UInt8(n.pitch), velocity: 80)))
            events.append(MIDIEvent(tick: off, .noteOff(channel: 0, key: UInt8(n.pitch), velocity: 0)))
        }
        events.sort { $0.tick < $1.tick }
        let file = MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)])
        guard let renderer = try? OfflineRenderer(soundFont: soundFont),
              let stereo = try? renderer.renderSamples(MessageSchedule(file: file)) else { return nil }
        var mono = zip(stereo.left, stereo.right).map { ($0 + $1) * 0.5 }
        guard room, let sox = BenchTools.which("sox") else { return mono }
        let dry = dir + "/dry.wav", wet = dir + "/wet.wav"
        guard (try? Data(WAVWriter.mono16(mono, rate: 44_100)).write(to: URL(fileURLWithPath: dry))) != nil else { return mono }
        // A living room: 40 % reverberance, then pink noise 40 dB under full scale.
        guard BenchTools.run(sox, ["-R", dry, wet, "reverb", "40", "50", "60"]) == 0 else { return mono }
        let noisy = dir + "/noisy.wav"
        let noise = dir + "/noise.wav"
        _ = BenchTools.run(sox, ["-R", "-n", "-r", "44100", "-c", "1", noise, "synth", String(format: "%.2f", Double(mono.count) / 44_100 + 2), "pinknoise", "vol", "0.01"])
        _ = BenchTools.run(sox, ["-R", "-m", wet, noise, noisy, "trim", "0", String(format: "%.2f", Double(mono.count) / 44_100)])
        if let back = try? WAVData(path: noisy) { mono = back.samples[0] }
        return mono
    }
}

enum WAVWriter {
    /// A 16-bit mono PCM WAV.
    static func mono16(_ samples: [Float], rate: Int) -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: Int) { for s in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> s) & 0xFF)) } }
        func u16(_ v: Int) { out.append(UInt8(v & 0xFF)); out.append(UInt8((v >> 8) & 0xFF)) }
        out += Array("RIFF".utf8); u32(36 + samples.count * 2); out += Array("WAVEfmt ".utf8)
        u32(16); u16(1); u16(1); u32(rate); u32(rate * 2); u16(2); u16(16)
        out += Array("data".utf8); u32(samples.count * 2)
        for s in samples { u16(Int(Int16(max(-1, min(1, s)) * 32767)) & 0xFFFF) }
        return out
    }
}
