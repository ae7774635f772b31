import Follow
import Foundation
import Judge
import MIDIFile

/// `etude-bench follow LESSON.mid… --write DIR`: the score follower's note-alignment accuracy
/// (the share of score notes matched to the key that played them, or left unmatched when none
/// did) on performances made from the lessons — tempo drift to 75 % and back, rubato, 10 % extra
/// keys, 10 % wrong keys, 10 % missed notes (the first among them), a stray key first, a restart
/// two bars back, and all of these at once — and its work (CPU time, which other processes on a
/// loaded machine do not inflate; the worst key's wall time beside it): per key online, and a
/// 10,000-note performance aligned offline. Each performance is written to DIR as JSON (score, keys, truth)
/// for `Benchmarks/peers_follow.py`, which runs parangonar on the same files.
enum FollowBench {
    struct Case: Encodable {
        var lesson: String
        var kind: String
        /// Score notes: pitch, onset and length in score seconds.
        var score: [[Double]]
        /// Keys: pitch, onset and length in performance seconds.
        var keys: [[Double]]
        /// Per score note: the key that played it, -1 when none did.
        var truth: [Int]
    }

    static let kinds = ["drift", "rubato", "extra", "wrong", "missed", "stray", "restart", "all"]

    static func run(_ args: [String]) -> String {
        var files: [String] = []
        var dir: String?
        var i = 0
        while i < args.count {
            if args[i] == "--write", i + 1 < args.count { dir = args[i + 1]; i += 2; continue }
            files.append(args[i])
            i += 1
        }
        var cases: [Case] = []
        for f in files {
            guard let data = FileManager.default.contents(atPath: f), let file = try? MIDIReader.read([UInt8](data)).file else { continue }
            let tempo = TempoMap(file: file)
            let paired = NotePairing.notes(in: file).notes.filter { $0.channel != 9 }
            let score = paired.map { n in (pitch: Int(n.pitch), time: tempo.seconds(atTick: n.startTick), length: tempo.seconds(atTick: n.endTick) - tempo.seconds(atTick: n.startTick)) }
                .sorted { $0.time != $1.time ? $0.time < $1.time : $0.pitch < $1.pitch }
            guard score.count >= 8 else { continue }
            let beat = 60 / tempo.bpm(atTick: 0)
            for (k, kind) in kinds.enumerated() {
                cases.append(make(kind, score: score, beat: beat, seed: UInt64(k * 1000 + files.firstIndex(of: f)! + 1),
                                  name: (f as NSString).lastPathComponent))
            }
        }
        if let dir {
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            for (n, c) in cases.enumerated() {
                if let data = try? encoder.encode(c) { _ = FileManager.default.createFile(atPath: "\(dir)/\(String(format: "%03d", n))-\(c.kind).json", contents: data) }
            }
        }
        // Accuracy, per kind and overall.
        var right: [String: Int] = [:], total: [String: Int] = [:]
        var onlineKeys = 0
        var onlineSeconds = 0.0
        var worstKey = 0.0
        for c in cases {
            let notes = c.score.enumerated().map { ScoreNote(id: $0.offset, pitch: Int($0.element[0]), time: $0.element[1]) }
            let score = FollowScore(notes)
            let keys = c.keys.map { PerformedNote(pitch: Int($0[0]), time: $0[1]) }
            let a = ScoreAligner.align(keys, to: score)
            for (k, n) in score.notes.enumerated() where (a.match[k] ?? -1) == c.truth[n.id] { right[c.kind, default: 0] += 1 }
            total[c.kind, default: 0] += notes.count
            // Online: each key's work, in time order.
            var follower = ScoreFollower(score: score)
            let order = keys.indices.sorted { keys[$0].time < keys[$1].time }
            let cpu = clock()
            for k in order {
                let start = DispatchTime.now().uptimeNanoseconds
                follower.play(keys[k])
                worstKey = max(worstKey, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                onlineKeys += 1
            }
            onlineSeconds += Double(clock() - cpu) / Double(CLOCKS_PER_SEC)
        }
        let (offlineSeconds, offlineCPU, offlineAccuracy) = long(notes: 10_000)
        let perKind = kinds.map { "\"\($0)\":\(Double(right[$0] ?? 0) / Double(max(1, total[$0] ?? 0)))" }.joined(separator: ",")
        let all = Double(right.values.reduce(0, +)) / Double(max(1, total.values.reduce(0, +)))
        return "{\"bench\":\"follow\",\"performances\":\(cases.count),\"notes\":\(total.values.reduce(0, +)),\"accuracy\":\(all),"
            + "\"byKind\":{\(perKind)},\"onlineMsPerKey\":\(onlineSeconds / Double(max(1, onlineKeys)) * 1000),\"onlineWorstMs\":\(worstKey * 1000),"
            + "\"offline10kSeconds\":\(offlineSeconds),\"offline10kCPUSeconds\":\(offlineCPU),\"offline10kAccuracy\":\(offlineAccuracy)}"
    }

    /// One performance of `score` with the mistakes `kind` names.
    static func make(_ kind: String, score: [(pitch: Int, time: Double, length: Double)], beat: Double, seed: UInt64, name: String) -> Case {
        var rng = SeededGenerator(seed: seed)
        let total = max(score.last!.time, 1)
        let all = kind == "all"
        // Score time → performance time.
        func warp(_ s: Double) -> Double {
            var t = 1.5
            if kind == "drift" || all {
                // The rate climbs to 1/0.75 halfway and back: its integral.
                let peak = 1 / 0.75 - 1, h = total / 2
                let x = min(s, h), y = max(0, s - h)
                t += s + peak * (x * x / (2 * h)) + (y > 0 ? peak * (y - y * y / (2 * h)) : 0)
            } else {
                t += s
            }
            if kind == "rubato" || all { t += 0.12 * total / 8 * sin(s / (4 * beat) * .pi) }
            return t
        }
        var keys: [[Double]] = []
        var truth = Array(repeating: -1, count: score.count)
        func jitter() -> Double { Double.random(in: -0.03...0.03, using: &rng) }
        // Which notes are dropped or replaced.
        var dropped = Set<Int>(), replaced: [Int: Int] = [:]
        if kind == "missed" || all {
            dropped.insert(0)
            for i in score.indices where Double.random(in: 0..<1, using: &rng) < (all ? 0.05 : 0.1) { dropped.insert(i) }
        }
        if kind == "wrong" || all {
            for i in score.indices where !dropped.contains(i) && Double.random(in: 0..<1, using: &rng) < (all ? 0.05 : 0.1) {
                replaced[i] = score[i].pitch + (Bool.random(using: &rng) ? 1 : -1)
            }
        }
        func play(_ range: Range<Int>, shift: Double, record: Bool) {
            for i in range where !dropped.contains(i) {
                let n = score[i]
                let t = warp(n.time) + shift + jitter()
                if let w = replaced[i], record {
                    keys.append([Double(w), t, n.length * 0.9])
                } else {
                    if record { truth[i] = keys.count }
                    keys.append([Double(n.pitch), t, n.length * 0.9])
                }
            }
        }
        if kind == "restart" || all {
            // Up to 60 % of the piece, then back two bars (8 beats) and on to the end.
            let stop = score.firstIndex { $0.time >= total * 0.6 } ?? score.count
            let back = score.firstIndex { $0.time >= score[stop].time - 8 * beat } ?? 0
            play(0..<stop, shift: 0, record: true)
            let pause = warp(score[stop].time) - warp(score[back].time) + 1.0
            for i in back..<stop { truth[i] = -1 }
            play(back..<score.count, shift: pause, record: true)
        } else {
            play(0..<score.count, shift: 0, record: true)
        }
        if kind == "stray" || all { keys.append([Double(score[0].pitch + 7), warp(0) - 0.6, 0.2]) }
        if kind == "extra" || all {
            let count = max(1, score.count / (all ? 20 : 10))
            let end = keys.map { $0[1] }.max() ?? 1
            for _ in 0..<count {
                let t = Double.random(in: warp(0)...end, using: &rng)
                keys.append([Double(Int.random(in: 48...84, using: &rng)), t, 0.2])
            }
        }
        return Case(lesson: name, kind: kind, score: score.map { [Double($0.pitch), $0.time, $0.length] }, keys: keys, truth: truth)
    }

    /// A 10,000-note performance (a melody over a bass, rubato, 5 % wrong and extra keys): the
    /// offline aligner's wall and CPU time, best of 3, and its accuracy.
    static func long(notes count: Int) -> (seconds: Double, cpu: Double, accuracy: Double) {
        var rng = SeededGenerator(seed: 37)
        var notes: [ScoreNote] = []
        var t = 0.0
        var pitch = 67
        while notes.count < count {
            if notes.count % 8 == 0 { notes.append(ScoreNote(id: notes.count, pitch: 48 + Int.random(in: 0..<12, using: &rng), time: t)) }
            pitch = min(84, max(55, pitch + Int.random(in: -4...4, using: &rng)))
            notes.append(ScoreNote(id: notes.count, pitch: pitch, time: t))
            t += [0.25, 0.5, 0.5, 0.75][Int.random(in: 0..<4, using: &rng)]
        }
        var keys: [PerformedNote] = []
        var truth = Array(repeating: -1, count: notes.count)
        for n in notes {
            let when = 2 + n.time * 1.1 + 0.4 * sin(n.time / 4) + Double.random(in: -0.03...0.03, using: &rng)
            let r = Double.random(in: 0..<1, using: &rng)
            if r < 0.05 {
                keys.append(PerformedNote(pitch: n.pitch + 1, time: when))
            } else {
                truth[n.id] = keys.count
                keys.append(PerformedNote(pitch: n.pitch, time: when))
            }
            if r > 0.95 { keys.append(PerformedNote(pitch: 40 + Int.random(in: 0..<50, using: &rng), time: when + 0.13)) }
        }
        let score = FollowScore(notes)
        var best = Double.infinity, bestCPU = Double.infinity
        var accuracy = 0.0
        for _ in 0..<3 {
            let start = Date()
            let cpu = clock()
            let a = ScoreAligner.align(keys, to: score)
            bestCPU = min(bestCPU, Double(clock() - cpu) / Double(CLOCKS_PER_SEC))
            best = min(best, Date().timeIntervalSince(start))
            var right = 0
            for (k, n) in score.notes.enumerated() where (a.match[k] ?? -1) == truth[n.id] { right += 1 }
            accuracy = Double(right) / Double(notes.count)
        }
        return (best, bestCPU, accuracy)
    }
}
