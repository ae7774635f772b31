import Foundation
import Lesson
import MIDIFile

/// `etude-bench listen-material OUT KIND LESSON.mid… [KIND LESSON.mid…]`: the performances `make bench` renders
/// with held-out pianos for the listener beside basic-pitch (`Benchmarks/listen_peers.py`).
/// Each lesson is played as written (its own tempo, its own velocities, a little varied), one
/// second in, as `NAME-KIND.mid`, with what was played in `NAME-KIND.json`: every key struck,
/// the score's key it stands for, when (seconds in the recording), its hand, whether it was
/// planted wrong and whether it is in a chord of four notes or more. KIND is one of
///   right    the right hand alone (judged with --hand right)
///   both     both hands
///   pedal    both hands with the sustain pedal (CC64) changed at every bar, legato style
///   chords   both hands; the figures count the notes in chords of four or more
///   planted  both hands with every 10th key moved 1 or 2 semitones (the judge must call it wrong)
///   repeats  both hands, each key struck again 20–40 velocity steps softer than the strike before
///            (the figures count those soft repeats: a soft key struck again while it still rings)
///   runs     both hands sped up to 6 or 7 notes a second (alternately, lesson by lesson), every
///            velocity varied ±18; judged with `--tempo` at that speed (`tempo` in the truth)
///   left     the left hand alone (judged with --hand left): the noise sweep's material
enum ListenMaterialBench {
    static let kinds = ["right", "both", "pedal", "chords", "planted", "repeats", "runs", "left"]
    /// Silence before the first note (a microphone is opened before the learner plays).
    static let lead = 1.0

    static func run(_ args: [String]) -> Int32 {
        guard args.count >= 3, kinds.contains(args[1]) else {
            FileHandle.standardError.write(Data("usage: etude-bench listen-material OUT KIND LESSON.mid… [KIND LESSON.mid…]  (KIND: \(kinds.joined(separator: ", ")))\n".utf8))
            return 2
        }
        let out = args[0]
        var kind = args[1]
        try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        var written: [String] = []
        // Every performance also goes into one long file (`all.mid`), a few seconds apart, so a
        // SoundFont slow to load is loaded once; each one's `offset` there is in its truth.
        var all: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20])),
                                MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))]
        var offset = 0.0
        var runs = 0
        for path in args.dropFirst(2) {
            if kinds.contains(path) { kind = path; continue }
            guard let data = FileManager.default.contents(atPath: path), data.count < 4 << 20,
                  let file = try? MIDIReader.read(Array(data)).file else {
                FileHandle.standardError.write(Data("etude-bench: \(path): not a MIDI file\n".utf8))
                return 1
            }
            let lesson = Lesson(file: file, fileName: path)
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension + "-" + kind
            let base = (out as NSString).appendingPathComponent(name)
            // Runs at 6 and 7 notes a second, alternately.
            let rate = kind == "runs" ? 6.0 + Double(runs % 2) : nil
            if kind == "runs" { runs += 1 }
            let (performance, truth, tempo) = perform(lesson, kind: kind, notesPerSecond: rate)
            guard !truth.isEmpty else {
                FileHandle.standardError.write(Data("etude-bench: \(path): no notes for \(kind)\n".utf8))
                return 1
            }
            let seconds = (truth.map { $0.time + $0.duration }.max() ?? 0) + 2
            var json: [String: Any] = [
                "lesson": path, "kind": kind, "hand": kind == "right" || kind == "left" ? kind : "both", "seconds": seconds, "offset": offset,
                "notes": truth.map { ["pitch": $0.pitch, "expected": $0.expected, "time": $0.time, "hand": $0.hand,
                                      "planted": $0.planted, "chord4": $0.chord4, "softRepeat": $0.softRepeat,
                                      "velocity": $0.velocity] as [String: Any] },
            ]
            if let tempo { json["tempo"] = tempo }
            do {
                try Data(MIDIWriter.write(performance)).write(to: URL(fileURLWithPath: base + ".mid"))
                try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: URL(fileURLWithPath: base + ".json"))
            } catch {
                FileHandle.standardError.write(Data("etude-bench: \(base): \(error)\n".utf8))
                return 1
            }
            let shift = Int((offset * 960).rounded())
            all += performance.tracks[0].events.compactMap { e in
                switch e.kind {
                case .meta, .programChange: return nil
                default: var e = e; e.tick += shift; return e
                }
            }
            offset += (seconds + 4).rounded(.up)
            written.append(name)
        }
        all.append(MIDIEvent(tick: Int(offset * 960), .meta(type: MetaType.endOfTrack, data: [])))
        let long = MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: all)])
        guard (try? Data(MIDIWriter.write(long)).write(to: URL(fileURLWithPath: (out as NSString).appendingPathComponent("all.mid")))) != nil else {
            FileHandle.standardError.write(Data("etude-bench: \(out)/all.mid cannot be written\n".utf8))
            return 1
        }
        print(String(decoding: (try? JSONSerialization.data(withJSONObject: ["written": written, "seconds": offset])) ?? Data(), as: UTF8.self))
        return 0
    }

    struct Struck {
        var pitch: Int, expected: Int, time: Double, duration: Double, velocity: Int, hand: String
        var planted = false, chord4 = false, softRepeat = false
    }

    /// The performance of one row's kind as a MIDI file (120 BPM, 960 ticks a second), its truth,
    /// and (runs) the tempo in percent of the lesson's it is played at.
    static func perform(_ lesson: Lesson, kind: String, notesPerSecond: Double? = nil) -> (MIDIFile, [Struck], Int?) {
        let map = lesson.tempoMap
        var struck: [Struck] = lesson.notes.compactMap { n in
            guard let hand = n.part.hand, kind != "right" || hand == .right, kind != "left" || hand == .left else { return nil }
            let start = map.seconds(atTick: n.startTick)
            return Struck(pitch: Int(n.pitch), expected: Int(n.pitch), time: lead + start,
                          duration: max(0.05, map.seconds(atTick: n.endTick) - start), velocity: Int(n.velocity), hand: hand.rawValue)
        }
        struck.sort { $0.time != $1.time ? $0.time < $1.time : $0.pitch < $1.pitch }
        // Chords: the keys struck within 30 ms of each other.
        var i = 0
        while i < struck.count {
            var j = i
            while j + 1 < struck.count, struck[j + 1].time - struck[i].time < 0.03 { j += 1 }
            if j - i + 1 >= 4 { for k in i...j { struck[k].chord4 = true } }
            i = j + 1
        }
        // A learner's touch: each key's velocity varied by up to ±12 around the written one.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed }
        let spread = kind == "runs" ? 18 : 12
        for k in struck.indices {
            struck[k].velocity = max(30, min(120, struck[k].velocity + Int(next() % UInt64(2 * spread + 1)) - spread))
        }
        var tempo: Int?
        if let rate = notesPerSecond, struck.count > 2 {
            // The lesson's usual step between one hand's onsets (the median) played in 1/rate s:
            // the tempo the judge is told, in whole percent, and every time scaled by it.
            var steps: [Double] = []
            for hand in Set(struck.map(\.hand)) {
                let times = struck.filter { $0.hand == hand }.map(\.time)
                steps += zip(times, times.dropFirst()).map { $1 - $0 }.filter { $0 > 0.03 }
            }
            let step = steps.isEmpty ? 0.5 : steps.sorted()[steps.count / 2]
            let percent = Int((100 * step * rate).rounded())
            tempo = percent
            let scale = 100 / Double(percent)
            for k in struck.indices {
                struck[k].time = lead + (struck[k].time - lead) * scale
                struck[k].duration = max(0.05, struck[k].duration * scale)
            }
        }
        if kind == "repeats" {
            // A key struck again right after itself in the same hand (no other key of that hand
            // between) comes 20–40 steps softer than the strike before, which is played out
            // (at least 72) so the soft one stays above 30; a third strike in a row is played as
            // written and not counted (the one before it was the soft one).
            var last: [String: [Int]] = [:]  // per hand, the keys of its last onset
            var k = 0
            while k < struck.count {
                var j = k
                while j + 1 < struck.count, struck[j + 1].time - struck[k].time < 0.03 { j += 1 }
                for hand in Set(struck[k...j].map(\.hand)) {
                    let now = (k...j).filter { struck[$0].hand == hand }
                    if let before = last[hand] {
                        for i in now {
                            guard let b = before.first(where: { struck[$0].pitch == struck[i].pitch }),
                                  !struck[b].softRepeat else { continue }
                            struck[b].velocity = max(struck[b].velocity, 72 + Int(next() % 17))
                            struck[i].velocity = max(30, struck[b].velocity - 20 - Int(next() % 21))
                            struck[i].softRepeat = struck[b].velocity - struck[i].velocity >= 20
                        }
                    }
                    last[hand] = now
                }
                k = j + 1
            }
        }
        if kind == "planted" {
            // Every 10th key, 1 or 2 semitones up or down, never onto a key sounding with it.
            let moves = [1, -2, -1, 2]
            for (m, k) in stride(from: 4, to: struck.count, by: 10).enumerated() {
                let near = Set(struck.filter { abs($0.time - struck[k].time) < 0.3 }.map(\.pitch))
                for d in [moves[m % 4], -moves[m % 4], moves[(m + 1) % 4], -moves[(m + 1) % 4]] {
                    let p = struck[k].pitch + d
                    if (21...108).contains(p), !near.contains(p) { struck[k].pitch = p; struck[k].planted = true; break }
                }
            }
        }
        var events = [MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20])),  // 500,000 µs: 120 BPM
                      MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))]
        func tick(_ s: Double) -> Int { Int((s * 960).rounded()) }
        for n in struck {
            events.append(MIDIEvent(tick: tick(n.time), .noteOn(channel: 0, key: UInt8(n.pitch), velocity: UInt8(n.velocity))))
            events.append(MIDIEvent(tick: tick(n.time + n.duration * 0.95), .noteOff(channel: 0, key: UInt8(n.pitch), velocity: 0)))
        }
        if kind == "pedal" {
            // Legato pedalling: up at each bar's first beat, down again 80 ms after it.
            for bar in lesson.bars.bars {
                let at = lead + map.seconds(atTick: bar.startTick)
                events.append(MIDIEvent(tick: tick(at), .controlChange(channel: 0, controller: 64, value: 0)))
                events.append(MIDIEvent(tick: tick(at + 0.08), .controlChange(channel: 0, controller: 64, value: 127)))
            }
            let end = (struck.map { $0.time + $0.duration }.max() ?? 0) + 0.5
            events.append(MIDIEvent(tick: tick(end), .controlChange(channel: 0, controller: 64, value: 0)))
        }
        // Offs before ons at the same tick (a repeated key is released, then struck).
        events.sort { a, b in
            if a.tick != b.tick { return a.tick < b.tick }
            func rank(_ e: MIDIEvent) -> Int {
                switch e.kind {
                case .meta, .programChange: return 0
                case .noteOff: return 1
                case .controlChange: return 2
                default: return 3
                }
            }
            return rank(a) < rank(b)
        }
        events.append(MIDIEvent(tick: (events.last?.tick ?? 0) + 1920, .meta(type: MetaType.endOfTrack, data: [])))
        return (MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)]), struck, tempo)
    }
}
