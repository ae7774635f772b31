import Foundation
import Clocks
import Follow
import Testing

/// The online follower, key by key on a virtual clock: where it puts the learner and at what tempo.
@Suite struct ScoreFollowerTests {
    let notes = Scores.odeToJoy

    /// Plays `p` into a follower in time order; returns the share of keys that played a note
    /// and that the follower put on that note at once.
    func follow(_ p: Performance, _ notes: [ScoreNote]? = nil) -> (ScoreFollower, Double) {
        let n = notes ?? self.notes
        var f = ScoreFollower(score: FollowScore(n))
        var truthOf: [Int: Int] = [:]  // key → note id
        for (i, k) in p.truth.enumerated() { if let k { truthOf[k] = n[i].id } }
        var right = 0, played = 0
        for k in p.keys.indices.sorted(by: { p.keys[$0].time < p.keys[$1].time }) {
            let point = f.play(p.keys[k])
            guard let id = truthOf[k] else { continue }
            played += 1
            if let note = point.note, f.score.notes[note].id == id { right += 1 }
        }
        return (f, Double(right) / Double(max(1, played)))
    }

    @Test func steadyPlayingIsFollowedNoteByNote() {
        let (f, share) = follow(Performance(notes, warp: { 5 + $0 }, jitter: 0.02))
        #expect(share == 1)
        #expect(abs(f.tempoRatio - 1) < 0.05)
    }

    @Test func theTempoEstimateFollowsADrift() {
        // Slowing steadily to 75 % over the piece.
        let total = notes.last!.time
        let p = Performance(notes, warp: { 1 + $0 + 0.5 * (1 / 0.75 - 1) * $0 * $0 / total }, jitter: 0.02)
        let (f, share) = follow(p)
        #expect(share >= 0.98)
        #expect(abs(f.tempoRatio - 0.75) < 0.08, "tempo \(f.tempoRatio)")
    }

    @Test func rubatoAndMistakesKeepTheFollowerOnTheScore() {
        var rng = Seeded(21)
        var wrong: [Int: Int] = [:]
        for i in stride(from: 4, to: notes.count, by: 10) { wrong[i] = notes[i].pitch + 2 }
        var p = Performance(notes, warp: { 0.5 + $0 + 0.3 * sin($0 / 2.4 * .pi) }, jitter: 0.03, seed: 4, drop: [17, 40], wrong: wrong)
        for i in stride(from: 7, to: notes.count, by: 10) { p.insert(PerformedNote(pitch: 70 + Int(rng.next() % 5), time: 0.5 + notes[i].time + 0.25)) }
        let (_, share) = follow(p)
        #expect(share >= 0.95, "\(share)")
    }

    @Test func aStopIsWaitedForAtTheNextNoteAndPlayingOnIsFollowed() {
        let clock = VirtualClock(now: 0)
        var f = ScoreFollower(score: FollowScore(notes))
        // The first 20 notes in time, then 3 s of nothing.
        for n in notes.prefix(20) {
            clock.set(2 + n.time)
            f.play(PerformedNote(pitch: n.pitch, time: clock.now))
        }
        let stoppedAt = f.position(at: clock.now)!
        clock.advance(by: 3)
        let held = f.position(at: clock.now)!
        #expect(held <= notes[20].time + 1e-9 && held >= stoppedAt)
        // Playing on from note 20, 3 s late: followed at once.
        for n in notes[20...] {
            clock.set(5 + n.time)
            let p = f.play(PerformedNote(pitch: n.pitch, time: clock.now))
            #expect(p.note.map { f.score.notes[$0].id } == n.id)
        }
    }

    @Test func aRestartTwoBarsBackIsFollowedWithinABar() {
        var f = ScoreFollower(score: FollowScore(notes))
        let first = notes.filter { $0.time < 6 * 2.4 - 1e-6 }
        for n in first { f.play(PerformedNote(pitch: n.pitch, time: 1 + n.time)) }
        // Back to bar 5: within its first bar (4 notes) the follower is there.
        let again = notes.filter { $0.time >= 4 * 2.4 - 1e-6 }
        var wrongAfterBar = 0
        for (k, n) in again.enumerated() {
            let p = f.play(PerformedNote(pitch: n.pitch, time: 1 + 6 * 2.4 + 0.8 + n.time - 4 * 2.4))
            if k >= 4, p.note.map({ f.score.notes[$0].id }) != n.id { wrongAfterBar += 1 }
        }
        #expect(wrongAfterBar == 0)
    }

    @Test func aStrayFirstKeyAndAMissedFirstNoteAreFollowed() {
        var p = Performance(notes, warp: { 2 + $0 }, drop: [0])
        p.insert(PerformedNote(pitch: 71, time: 1.3))
        let (f, share) = follow(p)
        // The first E could be either E until the F after it says which: every key from there is placed right.
        #expect(share >= 60.0 / 61)
        #expect(f.current?.chord == f.score.chordCount - 1)
    }

    @Test func rolledChordsAreFollowed() {
        let cadence = Scores.cadence()
        let (_, share) = follow(Performance(cadence, warp: { 1 + $0 }, jitter: 0.02, spread: 0.05), cadence)
        #expect(share == 1)
    }

    @Test func thePositionMovesAtTheLearnersTempoBetweenKeys() {
        let clock = VirtualClock(now: 10)
        var f = ScoreFollower(score: FollowScore(notes))
        #expect(f.position(at: clock.now) == nil)
        // Playing at 80 %: each 0.6 s beat takes 0.75 s.
        for n in notes.prefix(8) {
            clock.set(10 + n.time / 0.8)
            f.play(PerformedNote(pitch: n.pitch, time: clock.now))
        }
        clock.advance(by: 0.375)  // half a beat at their tempo
        let at = f.position(at: clock.now)!
        #expect(abs(at - (notes[7].time + 0.3)) < 0.05, "\(at)")
        #expect(abs(f.tempoRatio - 0.8) < 0.06)
    }
}
