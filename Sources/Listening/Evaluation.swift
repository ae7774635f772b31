import Foundation

/// A note a simulated or real performance played, with what the score wanted there: the truth a
/// listening test scores the detector against.
public struct PerformedNote: Equatable, Sendable, Codable {
    public var pitch: Int
    public var time: Double
    public var duration: Double
    /// The key the score expected; differs from `pitch` for a planted wrong note.
    public var expectedPitch: Int
    public var isWrong: Bool { pitch != expectedPitch }

    public init(pitch: Int, time: Double, duration: Double, expectedPitch: Int) {
        self.pitch = pitch
        self.time = time
        self.duration = duration
        self.expectedPitch = expectedPitch
    }
}

/// How well the listener heard a performance: the three figures issue #30 sets targets for.
public struct ListeningScore: Equatable, Sendable, Codable {
    /// Right notes played / found with their key at their time.
    public var played = 0
    public var found = 0
    /// Heard notes that nobody played (they would be judged wrong notes).
    public var falseWrongs = 0
    /// Planted wrong notes / heard as that wrong key.
    public var planted = 0
    public var plantedFound = 0
    /// Median heard − played onset, seconds (the detector's latency in the timeline).
    public var offset = 0.0

    public static let zero = ListeningScore()

    public var foundRatio: Double { played == 0 ? 1 : Double(found) / Double(played) }
    public var falseWrongRatio: Double { played == 0 ? 0 : Double(falseWrongs) / Double(played + planted) }
    public var plantedRatio: Double { planted == 0 ? 1 : Double(plantedFound) / Double(planted) }

    public var line: String {
        String(format: "found %d/%d (%.1f %%), false wrongs %d (%.1f %%), planted wrong found %d/%d (%.1f %%), offset %+.0f ms",
               found, played, foundRatio * 100, falseWrongs, falseWrongRatio * 100, plantedFound, planted, plantedRatio * 100, offset * 1000)
    }
}

public enum ListeningEvaluation {
    /// Replaces every `every`-th note's key by a neighbour a semitone or a tone away (the
    /// mistakes a learner makes), never onto a key already sounding at that moment.
    public static func plantWrongNotes(_ notes: [(pitch: Int, time: Double, duration: Double)], every: Int) -> [PerformedNote] {
        var out: [PerformedNote] = []
        let shifts = [1, -1, 2, -2]
        for (i, n) in notes.enumerated() {
            var pitch = n.pitch
            if every > 0, i % every == every - 1 {
                let together = Set(notes.filter { abs($0.time - n.time) < 0.05 || ($0.time < n.time && $0.time + $0.duration > n.time) }.map(\.pitch))
                for s in shifts.dropFirst((i / every) % 2) where !together.contains(n.pitch + s) && (21...108).contains(n.pitch + s) {
                    pitch = n.pitch + s
                    break
                }
            }
            out.append(PerformedNote(pitch: pitch, time: n.time, duration: n.duration, expectedPitch: n.pitch))
        }
        return out
    }

    /// Scores heard notes against the performance: a constant offset (the detector's latency)
    /// is measured first, then each heard note matches at most one played note of its key within
    /// `tolerance` of it.
    public static func score(heard: [HeardNote], truth: [PerformedNote], tolerance: Double = 0.06) -> ListeningScore {
        var deltas: [Double] = []
        for h in heard {
            if let t = truth.filter({ $0.pitch == h.pitch && abs(h.time - $0.time) < 0.2 }).min(by: { abs(h.time - $0.time) < abs(h.time - $1.time) }) {
                deltas.append(h.time - t.time)
            }
        }
        deltas.sort()
        let offset = deltas.isEmpty ? 0 : deltas[deltas.count / 2]
        var used = Set<Int>()
        var score = ListeningScore.zero
        score.offset = offset
        var matchedTruth = Set<Int>()
        for h in heard {
            var best: (index: Int, distance: Double)?
            for (i, t) in truth.enumerated() where t.pitch == h.pitch && !matchedTruth.contains(i) {
                let d = abs(h.time - offset - t.time)
                if d <= tolerance, best == nil || d < best!.distance { best = (i, d) }
            }
            if let best {
                matchedTruth.insert(best.index)
                used.insert(best.index)
            } else {
                score.falseWrongs += 1
            }
        }
        for (i, t) in truth.enumerated() {
            if t.isWrong {
                score.planted += 1
                if matchedTruth.contains(i) { score.plantedFound += 1 }
            } else {
                score.played += 1
                if matchedTruth.contains(i) { score.found += 1 }
            }
        }
        return score
    }
}
