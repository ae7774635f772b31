import Judge
import Testing

/// A wrong key is charged to the note it replaced — live (the play matcher, the wait gate) and
/// after the fact (`AlignedPass`, what `etude judge` runs) — and a slip onto the neighbour key is
/// one wrong note, not the next note early plus a miss.
@Suite struct WrongKeyTests {
    /// I–IV–V–I with inversions, both hands (bass, three-note chord), a chord every 0.8 s.
    static let chords: [[Int]] = [[48, 60, 64, 67], [53, 60, 65, 69], [55, 59, 62, 67], [48, 60, 64, 67],
                                  [52, 55, 60, 64], [53, 57, 60, 65], [47, 55, 59, 62], [48, 55, 60, 64]]

    static func cadence(repeats: Int = 3) -> [ExpectedNote] {
        var out: [ExpectedNote] = []
        for r in 0..<repeats {
            for (k, chord) in chords.enumerated() {
                for (j, p) in chord.enumerated() {
                    out.append(ExpectedNote(id: out.count, pitch: p, time: 1 + Double(r * chords.count + k) * 0.8, duration: 0.7,
                                            part: j == 0 ? "left" : "right", section: r))
                }
            }
        }
        return out
    }

    /// Each chord played with one note (a seeded choice) replaced by the key above or below that
    /// is not in the chord; keys of a chord in a seeded order, up to 30 ms apart.
    static func planted(_ expected: [ExpectedNote], seed: UInt64) -> (presses: [PlayedEvent], wrong: [Int: Int]) {
        var rng = SeededGenerator(seed: seed)
        var presses: [PlayedEvent] = []
        var wrong: [Int: Int] = [:]  // note id → key played instead
        let byTime = Dictionary(grouping: expected, by: \.time)
        for time in byTime.keys.sorted() {
            var chord = byTime[time]!.sorted { $0.pitch < $1.pitch }
            let replaced = chord[Int.random(in: 0..<chord.count, using: &rng)]
            let pitches = Set(chord.map(\.pitch))
            let up = Bool.random(using: &rng)
            var key = replaced.pitch + (up ? 1 : -1)
            if pitches.contains(key) { key = replaced.pitch + (up ? -1 : 1) }
            wrong[replaced.id] = key
            chord.shuffle(using: &rng)
            for (k, n) in chord.enumerated() {
                presses.append(PlayedEvent(pitch: n.id == replaced.id ? key : n.pitch, time: time + Double(k) * 0.01 + Double.random(in: 0..<0.01, using: &rng)))
            }
        }
        presses.sort { $0.time < $1.time }
        return (presses, wrong)
    }

    @Test func plantedWrongKeysInChordsAreChargedToTheNoteTheyReplacedLive() {
        let expected = Self.cadence()
        var right = 0, total = 0
        for seed in 1...4 as ClosedRange<UInt64> {
            let (presses, wrong) = Self.planted(expected, seed: seed)
            var m = PlayMatcher(expected: expected)
            for p in presses {
                _ = m.expire(upTo: p.time)
                _ = m.play(p)
            }
            let report = m.finish()
            let charged = m.judgements.filter { $0.verdict == .wrongPitch }
            for j in charged where wrong[j.expected?.id ?? -1] == j.played?.pitch { right += 1 }
            total += wrong.count
            // The chord's other notes are hits.
            #expect(report.hit == expected.count - wrong.count && report.extra == 0, "seed \(seed)")
        }
        #expect(Double(right) >= 0.95 * Double(total), "\(right) of \(total)")
    }

    @Test func plantedWrongKeysInChordsAreChargedToTheNoteTheyReplacedAfterTheFact() {
        let expected = Self.cadence()
        var right = 0, total = 0
        for seed in 1...4 as ClosedRange<UInt64> {
            let (presses, wrong) = Self.planted(expected, seed: seed)
            let judged = AlignedPass.judge(expected: expected, presses: presses.map { var p = $0; p.time += 3.2; return p })
            for n in judged.notes {
                guard let w = n.wrongKey else { continue }
                if wrong[n.id] == presses[w].pitch { right += 1 }
            }
            total += wrong.count
            let report = PassReport(judgements: judged.judgements)
            #expect(report.hit == expected.count - wrong.count && report.extra == 0 && report.wrong == wrong.count, "seed \(seed)")
        }
        #expect(Double(right) >= 0.95 * Double(total), "\(right) of \(total)")
    }

    @Test func aWrongKeyStruckBeforeTheChordNoteItLooksLikeMovesToTheOneLeftUnplayed() {
        // C E G: F struck first (nearest E), then E and C; G never comes: F replaced G.
        let expected = [ExpectedNote(id: 0, pitch: 60, time: 1), ExpectedNote(id: 1, pitch: 64, time: 1), ExpectedNote(id: 2, pitch: 67, time: 1)]
        var m = PlayMatcher(expected: expected)
        _ = m.play(PlayedEvent(pitch: 65, time: 1.0))
        _ = m.play(PlayedEvent(pitch: 64, time: 1.01))
        _ = m.play(PlayedEvent(pitch: 60, time: 1.02))
        let r = m.finish()
        #expect(r.hit == 2 && r.wrong == 1 && r.missed == 0)
        #expect(m.judgements.first { $0.verdict == .wrongPitch }?.expected?.id == 2)
        let heard = Ear().hear(expected: expected, judgements: m.judgements, events: [])
        #expect(heard.notes.map(\.onset) == [.hit, .hit, .wrong])
        #expect(heard.notes[1].wrongKeyFirst == nil)
    }

    /// A run at 7 notes a second: C D E F G.
    static let run = [60, 62, 64, 65, 67].enumerated().map { ExpectedNote(id: $0.offset, pitch: $0.element, time: 1 + Double($0.offset) / 7) }

    @Test func aSlipOntoTheNextKeyInAFastRunIsOneWrongNote() {
        var m = PlayMatcher(expected: Self.run)
        for (i, n) in Self.run.enumerated() {
            // E slips onto F, 60 ms early; F is then played in its place.
            let key = i == 2 ? PlayedEvent(pitch: 65, time: n.time - 0.06) : PlayedEvent(pitch: n.pitch, time: n.time)
            _ = m.expire(upTo: key.time)
            _ = m.play(key)
        }
        let r = m.finish()
        #expect(r.hit == 4 && r.wrong == 1 && r.missed == 0 && r.extra == 0)
        #expect(m.judgements.first { $0.verdict == .wrongPitch }?.expected?.id == 2)
        #expect(m.judgements.first { $0.expected?.id == 3 && $0.verdict.isHit }?.verdict == .onTime)
        // After the fact, the same.
        let presses = Self.run.enumerated().map { i, n in i == 2 ? PlayedEvent(pitch: 65, time: n.time - 0.06) : PlayedEvent(pitch: n.pitch, time: n.time) }
        let judged = AlignedPass.judge(expected: Self.run, presses: presses)
        let after = PassReport(judgements: judged.judgements)
        #expect(after.hit == 4 && after.wrong == 1 && after.missed == 0 && after.extra == 0)
        #expect(judged.notes[2].wrongKey == 2)
    }

    @Test func aNoteSkippedAndTheNextPlayedEarlyIsThatNoteEarly() {
        // E left out, F played 100 ms early (nearer E's time): F early, E missed, nothing wrong.
        var m = PlayMatcher(expected: Self.run)
        for (i, n) in Self.run.enumerated() where i != 2 {
            let key = PlayedEvent(pitch: n.pitch, time: i == 3 ? n.time - 0.1 : n.time)
            _ = m.expire(upTo: key.time)
            _ = m.play(key)
        }
        let r = m.finish()
        #expect(r.hit == 4 && r.wrong == 0 && r.missed == 1 && r.early == 1, "\(r.figures)")
    }

    @Test func theWaitGateChargesAWrongKeyToTheNearestNoteNotYetHeld() {
        let chord = [ExpectedNote(id: 0, pitch: 48, time: 1, part: "left"), ExpectedNote(id: 1, pitch: 60, time: 1),
                     ExpectedNote(id: 2, pitch: 64, time: 1), ExpectedNote(id: 3, pitch: 67, time: 1)]
        var gate = WaitGate(expected: chord)
        #expect(gate.replaced(by: 66)?.id == 3 || gate.replaced(by: 66)?.id == 2)
        #expect(gate.replaced(by: 63)?.id == 2)
        _ = gate.handle(PlayedEvent(pitch: 64, time: 1))
        #expect(gate.replaced(by: 63)?.id == 1 || gate.replaced(by: 63)?.id == 3)
        #expect(gate.replaced(by: 65)?.id == 3)
    }

    /// Ode to Joy's first phrase (15 notes) at 100 bpm.
    static let phrase: [ExpectedNote] = {
        let notes: [(Int, Double)] = [(64, 1), (64, 1), (65, 1), (67, 1), (67, 1), (65, 1), (64, 1), (62, 1), (60, 1), (60, 1), (62, 1), (64, 1),
                                      (64, 1.5), (62, 0.5), (62, 2)]
        var beat = 0.0
        return notes.enumerated().map { i, n in
            defer { beat += n.1 }
            return ExpectedNote(id: i, pitch: n.0, time: beat * 0.6, duration: n.1 * 0.6, section: i / 4)
        }
    }()

    func verdicts(_ presses: [PlayedEvent], _ expected: [ExpectedNote] = Self.phrase) -> [String] {
        let judged = AlignedPass.judge(expected: expected, presses: presses)
        return Ear().hear(expected: expected, judgements: judged.judgements, events: presses).notes.map { "\($0.onset)\($0.timingMs.map { " \(Int($0))" } ?? "")" }
    }

    @Test func aStrayKeyFirstOrAMissedFirstNoteChangesNoOtherVerdict() {
        let clean = Self.phrase.map { PlayedEvent(pitch: $0.pitch, time: 5 + $0.time + ($0.id % 3 == 0 ? 0.03 : 0)) }
        let reference = verdicts(clean)
        #expect(reference.filter { $0.hasPrefix("hit") }.count == 15)
        for stray in [64, 72, 50] {
            let judged = AlignedPass.judge(expected: Self.phrase, presses: [PlayedEvent(pitch: stray, time: 4.4)] + clean)
            #expect(judged.extras == [0], "stray \(stray)")
            #expect(verdicts([PlayedEvent(pitch: stray, time: 4.4)] + clean) == reference, "stray \(stray)")
        }
        let missedFirst = verdicts(Array(clean.dropFirst()))
        #expect(missedFirst[0] == "missed")
        #expect(Array(missedFirst.dropFirst()) == Array(reference.dropFirst()))
    }

    @Test func aRestartIsJudgedOnceInTheLastAttempt() {
        // Notes 0–10, then back to note 4 and on to the end; the first attempt of 4–10 had a wrong key.
        var presses = Self.phrase.prefix(11).map { PlayedEvent(pitch: $0.id == 6 ? 66 : $0.pitch, time: 2 + $0.time) }
        let restartAt = 2 + Self.phrase[10].time + 1.2
        presses += Self.phrase[4...].map { PlayedEvent(pitch: $0.pitch, time: restartAt + $0.time - Self.phrase[4].time) }
        let judged = AlignedPass.judge(expected: Self.phrase, presses: presses)
        #expect(judged.restarts.count == 1)
        #expect(judged.restarts.first.map { ($0.firstID, $0.lastID, $0.times) } ?? (0, 0, 0) == (4, 10, 2))
        let r = PassReport(judgements: judged.judgements)
        #expect(r.hit == 15 && r.wrong == 0 && r.extra == 0 && r.missed == 0)
        #expect(judged.setAside.count == 7)
        // Timing in the second attempt is judged from its own first note.
        #expect(judged.judgements.allSatisfy { ($0.errorMs ?? 0).magnitude < 1 })
    }
}
