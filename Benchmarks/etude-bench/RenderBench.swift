import Clocks
import Foundation
import MIDIFile
import Synth

/// `etude-bench render`: Etude's offline render against `fluidsynth -F` on the same file and
/// SoundFont in the same run (speed in × real time), and onset error in samples for both.
func renderBenchmark(arguments: [String]) -> Int32 {
    do {
        let font = try SoundFontLocator(explicit: arguments.first).locate()
        let dir = NSTemporaryDirectory() + "etude-bench-render-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fluidsynth = BenchTools.which("fluidsynth")
        print("SoundFont: \(font)")

        // 1. Speed: a dense two-minute piece, default effects on both sides, WAV on disk.
        let dense = BenchSongs.dense(seconds: 120)
        try Data(MIDIWriter.write(dense)).write(to: URL(fileURLWithPath: dir + "/dense.mid"))
        var etudeBest = Double.infinity, fsBest = Double.infinity
        var etudeAudio = 0.0, fsAudio = 0.0
        for _ in 0..<3 {
            let t0 = MonotonicClock.seconds()
            let renderer = try OfflineRenderer(soundFont: font)
            let result = try renderer.render(MessageSchedule(file: dense), to: dir + "/etude.wav")
            etudeBest = min(etudeBest, MonotonicClock.seconds() - t0)
            etudeAudio = result.seconds
            if let fluidsynth {
                let t1 = MonotonicClock.seconds()
                let status = BenchTools.run(fluidsynth, ["-ni", "-q", "-r", "44100", "-T", "wav", "-F", dir + "/fs.wav", font, dir + "/dense.mid"])
                fsBest = min(fsBest, MonotonicClock.seconds() - t1)
                if status != 0 { print("fluidsynth -F failed with status \(status)") }
                fsAudio = Double((try? WAVData(path: dir + "/fs.wav").frameCount) ?? 0) / 44_100
            }
        }
        let etudeSpeed = etudeAudio / etudeBest
        print(String(format: "render speed: etude %.1f× real time (%.2f s audio in %.3f s, incl. SoundFont load)", etudeSpeed, etudeAudio, etudeBest))
        if fluidsynth != nil {
            let fsSpeed = fsAudio / fsBest
            print(String(format: "render speed: fluidsynth -F %.1f× real time (%.2f s audio in %.3f s, incl. process start)", fsSpeed, fsAudio, fsBest))
            let ratio = etudeSpeed / fsSpeed
            print(String(format: "render speed ratio etude / fluidsynth -F: %.2f (target ≥ 0.95: %@)", ratio, ratio >= 0.95 ? "PASS" : "FAIL"))
        } else {
            print("fluidsynth CLI not installed: no comparison (apt-get install fluidsynth)")
        }

        // 2. Onset accuracy: 200 isolated notes at irregular times across tempo changes, dry.
        let (song, ideals) = BenchSongs.isolatedNotes(count: 200, rate: 44_100)
        try Data(MIDIWriter.write(song)).write(to: URL(fileURLWithPath: dir + "/onsets.mid"))
        var options = OfflineRenderer.Options()
        options.reverb = false
        options.chorus = false
        options.tail = 0.5
        let ours = try OfflineRenderer(soundFont: font, options: options).renderSamples(MessageSchedule(file: song)).left
        let ourOnsets = BenchTools.onsets(ours)
        guard ourOnsets.count == ideals.count, let voiceDelay = ourOnsets.first else {
            print("onsets: found \(ourOnsets.count) of \(ideals.count) in Etude's render")
            return 1
        }
        // The first note is at sample 0 (block-aligned): its delay is the voice's own start.
        let ourErrors = zip(ourOnsets, ideals).map { $0 - voiceDelay - $1 }
        let within = ourErrors.allSatisfy { $0 >= 0 && $0 < 64 }
        print("onset error etude (samples, 64-sample block floor): " + BenchTools.stats(ourErrors) + " (target 0…63: \(within ? "PASS" : "FAIL"))")
        if let fluidsynth {
            _ = BenchTools.run(fluidsynth, ["-ni", "-q", "-R", "0", "-C", "0", "-r", "44100", "-O", "float", "-T", "wav", "-F", dir + "/fs-onsets.wav", font, dir + "/onsets.mid"])
            let theirs = try WAVData(path: dir + "/fs-onsets.wav").samples[0]
            let theirOnsets = BenchTools.onsets(theirs)
            if theirOnsets.count == ideals.count {
                let errors = zip(theirOnsets, ideals).map { $0 - voiceDelay - $1 }
                print("onset error fluidsynth -F (samples): " + BenchTools.stats(errors))
            } else {
                print("onsets: found \(theirOnsets.count) of \(ideals.count) in fluidsynth's render")
            }
        }
        return 0
    } catch {
        print("render benchmark failed: \(error)")
        return 1
    }
}

/// Generated benchmark material (deterministic: a fixed linear congruential sequence).
enum BenchSongs {
    struct LCG {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
    }

    static func tempo(_ tick: Int, _ us: Int) -> MIDIEvent {
        MIDIEvent(tick: tick, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xFF), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)]))
    }

    /// Piano chords and a melody, bass, strings and drums: a busy lesson accompaniment.
    static func dense(seconds: Int) -> MIDIFile {
        var rng = LCG(state: 42)
        let tpq = 480
        let beats = seconds * 2  // 120 BPM
        var events: [MIDIEvent] = [
            MIDIEvent(tick: 0, .programChange(channel: 0, program: 0)),
            MIDIEvent(tick: 0, .programChange(channel: 1, program: 32)),
            MIDIEvent(tick: 0, .programChange(channel: 2, program: 48)),
            MIDIEvent(tick: 0, .controlChange(channel: 2, controller: 7, value: 70)),
        ]
        for beat in 0..<beats {
            let t = beat * tpq
            for n in 0..<3 {  // right-hand chord
                let key = UInt8(60 + rng.next(12) + n * 4)
                events.append(MIDIEvent(tick: t, .noteOn(channel: 0, key: key, velocity: UInt8(60 + rng.next(50)))))
                events.append(MIDIEvent(tick: t + tpq - 10, .noteOff(channel: 0, key: key, velocity: 0)))
            }
            for e in 0..<2 {  // eighth-note melody
                let key = UInt8(72 + rng.next(12))
                events.append(MIDIEvent(tick: t + e * tpq / 2, .noteOn(channel: 0, key: key, velocity: 90)))
                events.append(MIDIEvent(tick: t + (e + 1) * tpq / 2 - 5, .noteOff(channel: 0, key: key, velocity: 0)))
            }
            let bass = UInt8(36 + rng.next(12))
            events.append(MIDIEvent(tick: t, .noteOn(channel: 1, key: bass, velocity: 100)))
            events.append(MIDIEvent(tick: t + tpq - 20, .noteOff(channel: 1, key: bass, velocity: 0)))
            if beat % 4 == 0 {
                for k: UInt8 in [55, 59, 62] {
                    events.append(MIDIEvent(tick: t, .noteOn(channel: 2, key: k, velocity: 70)))
                    events.append(MIDIEvent(tick: t + 4 * tpq - 10, .noteOff(channel: 2, key: k, velocity: 0)))
                }
            }
            events.append(MIDIEvent(tick: t, .noteOn(channel: 9, key: beat % 2 == 0 ? 36 : 38, velocity: 100)))
            events.append(MIDIEvent(tick: t + 60, .noteOff(channel: 9, key: beat % 2 == 0 ? 36 : 38, velocity: 0)))
            events.append(MIDIEvent(tick: t + tpq / 2, .noteOn(channel: 9, key: 42, velocity: 80)))
            events.append(MIDIEvent(tick: t + tpq / 2 + 60, .noteOff(channel: 9, key: 42, velocity: 0)))
            if beat % 8 == 0 { events.append(MIDIEvent(tick: t, .controlChange(channel: 0, controller: 64, value: 127))) }
            if beat % 8 == 7 { events.append(MIDIEvent(tick: t + tpq - 1, .controlChange(channel: 0, controller: 64, value: 0))) }
        }
        events.sort { $0.tick < $1.tick }
        let end = beats * tpq
        events.append(MIDIEvent(tick: end, .meta(type: MetaType.endOfTrack, data: [])))
        let conductor = Track(events: [tempo(0, 500_000), MIDIEvent(tick: end, .meta(type: MetaType.endOfTrack, data: []))])
        return MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: [conductor, Track(events: events)])
    }

    /// Isolated middle Cs (each after CC 120, so the previous release is cut to digital
    /// silence) at irregular ticks, tempo changing every 16 notes; returns the ideal samples.
    static func isolatedNotes(count: Int, rate: Int) -> (MIDIFile, [Int]) {
        var rng = LCG(state: 7)
        let tpq = 480
        var tempos: [(Int, Int)] = []
        var events: [MIDIEvent] = [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))]
        var ticks: [Int] = []
        var tick = 0
        for i in 0..<count {
            if i % 16 == 0 { tempos.append((tick, [500_000, 612_345, 428_571, 750_000][i / 16 % 4])) }
            if i > 0 { events.append(MIDIEvent(tick: tick - 250, .controlChange(channel: 0, controller: 120, value: 0))) }
            events.append(MIDIEvent(tick: tick, .noteOn(channel: 0, key: 60, velocity: 100)))
            events.append(MIDIEvent(tick: tick + 100, .noteOff(channel: 0, key: 60, velocity: 0)))
            ticks.append(tick)
            tick += 400 + rng.next(400)
        }
        let end = tick + 480
        events.sort { $0.tick < $1.tick }
        events.append(MIDIEvent(tick: end, .meta(type: MetaType.endOfTrack, data: [])))
        var conductor = tempos.map { tempo($0.0, $0.1) }
        conductor.append(MIDIEvent(tick: end, .meta(type: MetaType.endOfTrack, data: [])))
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: [Track(events: conductor), Track(events: events)])
        // Ideal times computed by hand from the tempo list.
        let ideals = ticks.map { t -> Int in
            var s = 0.0, last = 0, us = 500_000
            for (tt, u) in tempos where tt <= t {
                s += Double(tt - last) * Double(us) / 1e6 / Double(tpq)
                last = tt
                us = u
            }
            s += Double(t - last) * Double(us) / 1e6 / Double(tpq)
            return Int((s * Double(rate)).rounded())
        }
        return (file, ideals)
    }
}

enum BenchTools {
    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    static func run(_ path: String, _ args: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        do { try p.run() } catch { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// First non-zero sample after at least 2000 exactly silent ones.
    static func onsets(_ x: [Float]) -> [Int] {
        var out: [Int] = []
        var quiet = 2000
        for (i, v) in x.enumerated() {
            if v != 0 {
                if quiet >= 2000 { out.append(i) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return out
    }

    static func stats(_ values: [Int]) -> String {
        let s = values.sorted()
        guard let lo = s.first, let hi = s.last else { return "no data" }
        return "min \(lo), median \(s[s.count / 2]), max \(hi) (n=\(s.count))"
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
    }
}
