import Foundation
import Judge

/// `etude-bench judge [--notes N]`: judging a recorded performance of N notes (default 10,000)
/// as `etude judge` does — onsets by `PlayMatcher`, releases and loudness by `Ear` — best of 5.
/// The performance is played near the written times (±40 ms), each note held 30–120 % of its
/// value, under a sustain pedal changed every 4 notes, with a wrong key every 50th note.
enum JudgeBench {
    static func run(_ args: [String]) -> String {
        var count = 10_000
        if let i = args.firstIndex(of: "--notes"), i + 1 < args.count, let n = Int(args[i + 1]), n > 0 { count = n }
        var rng = SeededGenerator(seed: 25)
        var expected: [ExpectedNote] = []
        var events: [PlayedEvent] = []
        var pedal: [(time: Double, down: Bool)] = []
        expected.reserveCapacity(count)
        events.reserveCapacity(count * 2)
        for i in 0..<count {
            let t = Double(i) * 0.25
            let pitch = 48 + (i * 7) % 36
            expected.append(ExpectedNote(id: i, pitch: pitch, time: t, duration: 0.25, part: i % 2 == 0 ? "right" : "left",
                                         section: i / 16, marked: i / 64 % 2 == 0 ? 49 : 96))
            let played = i % 50 == 0 ? pitch + 1 : pitch
            let on = t + Double(Int.random(in: -40...40, using: &rng)) / 1000
            events.append(PlayedEvent(pitch: played, velocity: Int.random(in: 40...110, using: &rng), time: on))
            events.append(PlayedEvent(pitch: played, velocity: 0, time: on + 0.25 * Double(Int.random(in: 30...120, using: &rng)) / 100, isOn: false))
            if i % 4 == 0 { pedal += [(t + 0.02, false), (t + 0.05, true)] }
        }
        events.sort { $0.time < $1.time }
        var best = Double.infinity, bestMatcher = Double.infinity, bestEar = Double.infinity
        var counts = ScoreFigures()
        for _ in 0..<5 {
            let start = Date()
            var matcher = PlayMatcher(expected: expected)
            for e in events where e.isOn {
                _ = matcher.expire(upTo: e.time)
                _ = matcher.play(e)
            }
            var report = matcher.finish()
            let matched = Date()
            let hearing = Ear().hear(expected: expected, judgements: matcher.judgements, events: events, pedal: pedal,
                                     endTime: events.last?.time)
            report.add(hearing) { $0.id / 16 }
            let end = Date()
            best = min(best, end.timeIntervalSince(start))
            bestMatcher = min(bestMatcher, matched.timeIntervalSince(start))
            bestEar = min(bestEar, end.timeIntervalSince(matched))
            counts = report.figures
        }
        return "{\"bench\":\"judge\",\"notes\":\(count),\"seconds\":\(best),\"matcherSeconds\":\(bestMatcher),\"earSeconds\":\(bestEar),"
            + "\"hit\":\(counts.hit),\"wrong\":\(counts.wrong),"
            + "\"short\":\(counts.short),\"long\":\(counts.long),\"loud\":\(counts.loud),\"soft\":\(counts.soft)}"
    }
}
