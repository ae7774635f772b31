import Foundation
import Follow
import Testing

/// The offline aligner on performances of Ode to Joy and a cadence with the mistakes learners
/// make, each key timed on a virtual clock (the tempo curves below): which key played which note.
@Suite struct ScoreAlignerTests {
    let notes = Scores.odeToJoy
    var score: FollowScore { FollowScore(notes) }

    func aligned(_ p: Performance, _ notes: [ScoreNote]? = nil) -> (Alignment, Double) {
        let n = notes ?? self.notes
        let s = FollowScore(n)
        let a = ScoreAligner.align(p.keys, to: s)
        return (a, p.accuracy(a, notes: n, score: s))
    }

    @Test func aSteadyPerformanceIsMatchedNoteForNote() {
        let p = Performance(notes, warp: { 3.1 + $0 }, jitter: 0.02)
        let (a, accuracy) = aligned(p)
        #expect(accuracy == 1)
        #expect(a.restarts.isEmpty && a.attempts.count == 1)
        #expect(!a.roles.contains(.extra))
        #expect(abs(a.points.last!.tempo - 1) < 0.05)
    }

    @Test func aTempoDriftingTo75PercentAndBackIsFollowed() {
        // 100 % → 75 % over the first half, back to 100 % by the end: integrate the rate.
        let total = notes.last!.time
        func rate(_ s: Double) -> Double { 1 + (1 / 0.75 - 1) * (s < total / 2 ? s / (total / 2) : (total - s) / (total / 2)) }
        func warp(_ s: Double) -> Double {
            var t = 1.0, x = 0.0
            while x < s { t += rate(x) * 0.001; x += 0.001 }
            return t
        }
        let p = Performance(notes, warp: warp, jitter: 0.03)
        let (a, accuracy) = aligned(p)
        #expect(accuracy == 1)
        // Halfway the learner plays at 75 %: 1.33 performance seconds per score second.
        let middle = a.points[a.points.count / 2 - 1].tempo
        #expect(abs(middle - 1 / 0.75) < 0.12, "tempo halfway \(middle)")
    }

    @Test func rubatoIsFollowed() {
        let p = Performance(notes, warp: { 0.5 + $0 + 0.35 * sin($0 / 2.4 * .pi) }, jitter: 0.04, seed: 7)
        let (_, accuracy) = aligned(p)
        #expect(accuracy == 1)
    }

    @Test func aStopOfThreeSecondsChangesNothing() {
        let p = Performance(notes, warp: { $0 < 12 ? 1 + $0 : 4 + $0 }, jitter: 0.02)
        let (a, accuracy) = aligned(p)
        #expect(accuracy == 1)
        #expect(a.restarts.isEmpty)
    }

    @Test func aStrayKeyBeforeTheStartIsExtraAndNothingElseMoves() {
        var p = Performance(notes, warp: { 2 + $0 })
        p.insert(PerformedNote(pitch: 72, time: 1.4))
        let (a, accuracy) = aligned(p)
        #expect(accuracy == 1)
        #expect(a.roles.last == .before)
    }

    @Test func aStrayKeyOfTheFirstNotesPitchBeforeTheStartIsNotTakenForIt() {
        var p = Performance(notes, warp: { 2 + $0 })
        p.insert(PerformedNote(pitch: 64, time: 1.4))
        let (a, accuracy) = aligned(p)
        #expect(accuracy == 1)
        #expect(a.roles.last == .before || a.roles.last == .extra)
    }

    @Test func aMissedFirstNoteLeavesEveryOtherMatch() {
        let p = Performance(notes, warp: { 2 + $0 }, jitter: 0.02, drop: [0])
        let (a, accuracy) = aligned(p)
        #expect(accuracy == 1)
        #expect(a.match[0] == nil)
    }

    @Test func missedNotesAreLeftUnmatched() {
        let p = Performance(notes, warp: { 2 + $0 * 1.1 }, jitter: 0.02, drop: [0, 9, 20, 33, 47, 61])
        let (_, accuracy) = aligned(p)
        #expect(accuracy == 1)
    }

    @Test func wrongKeysAreExtraAndChargedToTheNoteTheyReplaced() {
        var rng = Seeded(3)
        var wrong: [Int: Int] = [:]
        for i in stride(from: 3, to: notes.count, by: 10) { wrong[i] = notes[i].pitch + (rng.unit() < 0.5 ? 1 : -1) }
        let p = Performance(notes, warp: { 2 + $0 }, jitter: 0.03, wrong: wrong)
        let s = score
        let a = ScoreAligner.align(p.keys, to: s)
        #expect(p.accuracy(a, notes: notes, score: s) == 1)
        let extras = a.roles.indices.filter { a.roles[$0] == .extra }
        #expect(extras.count == wrong.count)
        let unplayed = s.notes.indices.filter { a.match[$0] == nil }
        let charges = WrongKeys.charge(keys: extras.map { .init(index: $0, pitch: p.keys[$0].pitch, time: p.keys[$0].time) },
                                       notes: unplayed.map { .init(index: $0, pitch: s.notes[$0].pitch, time: a.due[$0]) }, window: 0.15)
        #expect(charges.count == wrong.count)
        for c in charges { #expect(p.keys[c.key].pitch == wrong[c.note]) }
    }

    @Test func tenPercentExtraKeysAreExtra() {
        var p = Performance(notes, warp: { 1 + $0 * 0.9 }, jitter: 0.03, seed: 5)
        var rng = Seeded(11)
        for i in stride(from: 2, to: notes.count, by: 10) {
            p.insert(PerformedNote(pitch: 55 + Int(rng.next() % 20), time: 1 + notes[i].time * 0.9 + 0.2 + rng.unit() * 0.1))
        }
        let (a, accuracy) = aligned(p)
        #expect(accuracy == 1)
        #expect(a.roles.filter { $0 == .extra || $0 == .before || $0 == .after }.count == 6)
    }

    @Test func aRestartTwoBarsBackIsNamedAndTheLastAttemptJudged() {
        // Bars 1–6, then bars 5–16: bars 5–6 twice.
        let firstEnd = 6 * 2.4, again = 4 * 2.4
        var p = Performance(notes.filter { $0.time < firstEnd - 1e-6 }, warp: { 1 + $0 })
        let firstCount = p.keys.count
        let rest = notes.filter { $0.time >= again - 1e-6 }
        let second = Performance(rest, warp: { 1 + firstEnd + 0.8 + ($0 - again) })
        p.keys += second.keys
        let s = score
        let a = ScoreAligner.align(p.keys, to: s)
        #expect(a.restarts.count == 1)
        if let r = a.restarts.first {
            #expect(Scores.bar(s.chordTime[r.chords.lowerBound]) == 5 && Scores.bar(s.chordTime[r.chords.upperBound]) == 6)
        }
        // Bars 5–6 are judged in the second attempt; the first attempt's keys there are set aside.
        for (k, n) in s.notes.enumerated() {
            let truth: Int = n.time >= again - 1e-6 ? firstCount + rest.firstIndex { $0.id == n.id }! : notes.firstIndex { $0.id == n.id }!
            #expect(a.match[k] == truth, "note \(k) at \(n.time)")
        }
        #expect(a.roles.filter { $0 == .superseded }.count == 8)
        #expect(!a.roles.contains(.extra))
    }

    @Test func aRestartFromTheTopIsFollowed() {
        var p = Performance(notes.filter { $0.time < 3 * 2.4 }, warp: { 1 + $0 })
        let second = Performance(notes, warp: { 1 + 3 * 2.4 + 1 + $0 })
        let offset = p.keys.count
        p.keys += second.keys
        let s = score
        let a = ScoreAligner.align(p.keys, to: s)
        #expect(a.restarts.count == 1)
        #expect(s.notes.indices.allSatisfy { a.match[$0] == offset + $0 })
    }

    @Test func aSkippedPassageLeavesItsNotesUnplayed() {
        // Bars 9–10 left out, the rest in time.
        let p = Performance(notes.filter { $0.time < 8 * 2.4 - 1e-6 || $0.time >= 10 * 2.4 - 1e-6 }, warp: { 1 + ($0 >= 19.2 ? $0 - 4.8 : $0) })
        let s = score
        let a = ScoreAligner.align(p.keys, to: s)
        for (k, n) in s.notes.enumerated() {
            let skipped = n.time >= 8 * 2.4 - 1e-6 && n.time < 10 * 2.4 - 1e-6
            #expect((a.match[k] == nil) == skipped, "note \(k)")
        }
    }

    @Test func rolledAndUnevenChordsAreMatched() {
        let cadence = Scores.cadence()
        let p = Performance(cadence, warp: { 1 + $0 * 1.1 }, jitter: 0.03, spread: 0.06)
        let (a, accuracy) = aligned(p, cadence)
        #expect(accuracy == 1)
        #expect(!a.roles.contains(.extra))
    }

    @Test func aWrongKeyInAChordIsChargedToTheNoteItReplaced() {
        let cadence = Scores.cadence()
        // In each chord of the cadence, one note replaced by the key next to it.
        var wrong: [Int: Int] = [:]
        var rng = Seeded(9)
        var i = 0
        while i < cadence.count {
            let k = i + Int(rng.next() % 4)
            wrong[k] = cadence[k].pitch + (rng.unit() < 0.5 ? 1 : -1)
            i += 4
        }
        let p = Performance(cadence, warp: { 1 + $0 }, jitter: 0.02, wrong: wrong, spread: 0.02)
        let s = FollowScore(cadence)
        let a = ScoreAligner.align(p.keys, to: s)
        #expect(p.accuracy(a, notes: cadence, score: s) == 1)
        let extras = a.roles.indices.filter { a.roles[$0] == .extra }
        let unplayed = s.notes.indices.filter { a.match[$0] == nil }
        let charges = WrongKeys.charge(keys: extras.map { .init(index: $0, pitch: p.keys[$0].pitch, time: p.keys[$0].time) },
                                       notes: unplayed.map { .init(index: $0, pitch: s.notes[$0].pitch, time: a.due[$0]) }, window: 0.15)
        var right = 0
        for c in charges where wrong[s.notes[c.note].id] == p.keys[c.key].pitch { right += 1 }
        #expect(right == wrong.count, "\(right) of \(wrong.count) charged to the note they replaced")
    }

    @Test func aSlipOntoTheNextKeyIsOneWrongNote() {
        // A fast run (6 notes a second): the second E slips onto F, 60 ms early.
        let run = Scores.odeToJoy.map { ScoreNote(id: $0.id, pitch: $0.pitch, time: $0.time / 0.6 / 6) }
        var p = Performance(run, warp: { 1 + $0 }, wrong: [1: 65])
        p.keys[1].time -= 0.06
        let s = FollowScore(run)
        let a = ScoreAligner.align(p.keys, to: s)
        #expect(p.accuracy(a, notes: run, score: s) == 1)
        #expect(a.roles[1] == .extra)
    }
}
