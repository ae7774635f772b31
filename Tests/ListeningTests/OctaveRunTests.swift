import Foundation
import Listening
import Testing
import TestSupport

/// Issue 41 point 3, fast runs: the B♭ major scale as the bench plays it (right hand, left hand,
/// then both hands an octave apart, 7 notes a second, velocities 62–97), by a piano the listener
/// was never tuned on (MuseScore General's) in a room with pink noise 20 dB under the music, the
/// listener told each key's due time as `etude judge` tells it. Hands together, the right hand's
/// key lies wholly on the left hand's even partials and took 0–6 % of the fit: most of F5–C6 over
/// F4–C5 were missed (`NoteListener.octavesStruck`).
@Suite(.enabled(if: Tools.fluidsynth.available, Tools.fluidsynth.reason), .enabled(if: Tools.sox.available, Tools.sox.reason),
       .enabled(if: Tools.heldOutPiano.available, Tools.heldOutPiano.reason))
struct OctaveRunTests {
    /// The scale: (key, hand is right, seconds from the start), up two octaves and down.
    static var scale: [(key: Int, right: Bool, time: Double)] {
        let up = [0, 2, 4, 5, 7, 9, 11, 12, 14, 16, 17, 19, 21, 23, 24]
        let run = up + up.reversed().dropFirst()
        let step = 1 / 7.0
        var out: [(key: Int, right: Bool, time: Double)] = []
        for (i, d) in run.enumerated() { out.append((70 + d, true, Double(i) * step)) }
        var start = Double(run.count) * step + 0.5
        for (i, d) in run.enumerated() { out.append((58 + d, false, start + Double(i) * step)) }
        start += Double(run.count) * step + 0.5
        for (i, d) in run.enumerated() {
            out.append((58 + d, false, start + Double(i) * step))
            out.append((70 + d, true, start + Double(i) * step))
        }
        return out
    }

    /// What the listener heard of `played` (a subset of `score`'s notes, by index), rendered by
    /// the held-out piano in the room with noise, the score's keys expected ±300 ms and due at
    /// their times; with the notes played as truth, scored.
    static func hear(_ score: [PerformedNote], played: [Int], velocities: [Int], name: String) throws -> (heard: [HeardNote], score: ListeningScore)? {
        let dir = try TempDir("etude-octaves")
        let tick = { (t: Double) in Int((t * 960).rounded()) }
        let truth = played.map { score[$0] }
        let rendered = played.map { i in
            OtherPiano.Note(key: UInt8(score[i].pitch), tick: tick(score[i].time), length: max(1, tick(score[i].duration)), velocity: UInt8(velocities[i]))
        }
        let end = tick((score.map { $0.time + $0.duration }.max() ?? 0) + 1.5)
        guard let path = try OtherPiano.recording(rendered, endTick: end, in: dir, name: name, soundFont: Tools.heldOutPiano.path),
              var samples = try OtherPiano.samples(path, in: dir) else { return nil }
        PinkNoise.add(to: &samples, under: 20)
        let heard = BothHandsTests.listen(samples, expecting: score, window: 0.3, due: true)
        return (heard, BothHandsTests.score(heard, truth: truth, tolerance: 0.06, name: name))
    }

    static var notes: (score: [PerformedNote], velocities: [Int]) {
        let s = scale.sorted { ($0.time, $0.key) < ($1.time, $1.key) }
        // The bench's spread of velocities, ±18 around 80, the same every run.
        var seed: UInt64 = 41
        let velocities = s.map { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return 62 + Int((seed >> 33) % 36)
        }
        return (s.map { PerformedNote(pitch: $0.key, time: $0.time + 0.5, duration: 1 / 7.0, expectedPitch: $0.key) }, velocities)
    }

    /// The right hand's keys over the left hand's, the octave below struck with each.
    static func octaves(_ score: [PerformedNote]) -> [Int] {
        score.indices.filter { i in score.contains { abs($0.time - score[i].time) < 0.001 && $0.pitch == score[i].pitch - 12 } }
    }

    @Test func theRightHandsKeyAnOctaveOverTheLeftHandsIsHeard() throws {
        let (score, velocities) = Self.notes
        guard let (heard, s) = try Self.hear(score, played: Array(score.indices), velocities: velocities, name: "octaves") else {
            Issue.record("render failed"); return
        }
        let upper = Self.octaves(score)
        let found = upper.filter { i in heard.contains { $0.pitch == score[i].pitch && abs($0.time - s.offset - score[i].time) < 0.06 } }
        // (Before: 17–18 of the 29.)
        #expect(found.count >= upper.count - 2, "octaves heard \(found.count) of \(upper.count): missed \(Set(upper).subtracting(found).sorted().map { score[$0].pitch }); \(s.line)")
        #expect(s.foundRatio >= 0.96 && s.falseWrongs == 0, "\(s.line)")
    }

    /// The learner leaves out the right hand's key on every third note hands together (its octave
    /// below played alone), each third of them in turn: the octave is heard only on evidence of
    /// its own, not on the left hand's even partials. (10 of the 29 keys left out are heard all
    /// the same, as before `octavesStruck`: the fit's rescue takes them from the left hand's
    /// partials — 3, 5 and 2 by turns; the octave rule adds none.)
    @Test func aRightHandKeyLeftOutOverTheLeftHandsIsNotHeardForIt() throws {
        let (score, velocities) = Self.notes
        let upper = Self.octaves(score)
        var ghosts: [Int] = [], leftOut = 0
        for turn in 0..<3 {
            let left = upper.enumerated().filter { $0.offset % 3 == turn }.map(\.element)
            leftOut += left.count
            guard let (heard, s) = try Self.hear(score, played: score.indices.filter { !left.contains($0) }, velocities: velocities, name: "left-out-\(turn)") else {
                Issue.record("render failed"); return
            }
            ghosts += left.filter { i in heard.contains { $0.pitch == score[i].pitch && abs($0.time - s.offset - score[i].time) < 0.06 } }
            #expect(s.foundRatio >= 0.95, "\(s.line)")
        }
        #expect(leftOut == 29)
        #expect(ghosts.count <= 10, "keys left out but heard: \(ghosts.map { score[$0].pitch }) of \(leftOut)")
    }
}
