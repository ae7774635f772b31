import Foundation
import MIDIFile
import Testing
@testable import Judge

/// A lesson of three sections, four right-hand notes each, every 0.5 s from t = 1 s,
/// with a left-hand note under each beat that the right-hand practice must ignore.
enum Script {
    static let rightPitches = [60, 62, 64, 65, 67, 69, 71, 72, 71, 69, 67, 65]

    static var expected: [ExpectedNote] {
        var notes: [ExpectedNote] = []
        for (i, p) in rightPitches.enumerated() {
            let t = 1.0 + Double(i) * 0.5
            notes.append(ExpectedNote(id: i, pitch: p, time: t, duration: 0.4, part: "right", section: i / 4))
            notes.append(ExpectedNote(id: 100 + i, pitch: 48, time: t, duration: 0.4, part: "left", section: i / 4))
        }
        return notes
    }

    /// The right hand played exactly, shifted by `shift` seconds, with each note released 0.3 s later.
    static func performance(shift: Double = 0, change: (Int, inout PlayedEvent) -> Void = { _, _ in }) -> [PlayedEvent] {
        var out: [PlayedEvent] = []
        for (i, p) in rightPitches.enumerated() {
            var on = PlayedEvent(pitch: p, velocity: 80, time: 1.0 + Double(i) * 0.5 + shift, isOn: true)
            change(i, &on)
            out.append(on)
            out.append(PlayedEvent(pitch: on.pitch, velocity: 0, time: on.time + 0.3, isOn: false))
        }
        return out.sorted { $0.time < $1.time }
    }

    static func judge(_ played: [PlayedEvent], window: TimingWindow = TimingWindow()) -> PassReport {
        var matcher = PlayMatcher(expected: expected, parts: ["right"], window: window)
        for e in played { _ = matcher.play(e) }
        return matcher.finish()
    }
}

@Suite struct PlayModeTests {
    @Test func aPerfectPerformanceScoresOneHundred() {
        let r = Script.judge(Script.performance())
        #expect(r.hit == 12)
        #expect(r.onTime == 12)
        #expect(r.missed == 0 && r.wrong == 0 && r.extra == 0)
        #expect(r.accuracy == 100)
        #expect(r.score == 100)
        #expect(r.timingMeanMs == 0 && r.timingSdMs == 0)
        #expect(r.sections.map(\.section) == [0, 1, 2])
        #expect(r.sections.allSatisfy { $0.accuracy == 100 && $0.hit == 4 })
        #expect(r.weakestSection == nil)
        #expect(r.isClean())
    }

    @Test func aPerformanceShiftedByFortyMillisecondsMeasuresPlusForty() {
        let r = Script.judge(Script.performance(shift: 0.040))
        #expect(abs(r.timingMeanMs - 40) < 0.01)
        #expect(r.timingSdMs < 0.01)
        #expect(r.onTime == 12)  // within ±50 ms
        #expect(r.accuracy == 100)
        let early = Script.judge(Script.performance(shift: -0.040))
        #expect(abs(early.timingMeanMs + 40) < 0.01)
    }

    @Test func earlyAndLateBeyondFiftyMillisecondsAndTheScoreFallsWithThem() {
        let late = Script.judge(Script.performance(shift: 0.100))
        #expect(late.late == 12 && late.hit == 12)
        #expect(late.accuracy == 100)
        #expect(late.score == 75)  // 1 − 0.5 × (100 − 50) / (150 − 50)
        let early = Script.judge(Script.performance(shift: -0.080))
        #expect(early.early == 12)
        #expect(abs(early.timingMeanMs + 80) < 0.01)
    }

    @Test func outsideTheWindowIsExtraAndTheNoteMissed() {
        // 200 ms late: each press is 300 ms before the next note, 200 ms after its own.
        let r = Script.judge(Script.performance(shift: 0.200))
        #expect(r.hit == 0)
        #expect(r.missed == 12)
        #expect(r.extra == 12)
        #expect(r.accuracy == 0)
        // A wider window catches them.
        let wide = Script.judge(Script.performance(shift: 0.200), window: TimingWindow(window: 0.25))
        #expect(wide.hit == 12)
        #expect(wide.late == 12)
    }

    @Test func aWrongPitchIsCountedOnceAsWrongNotAlsoMissed() {
        let r = Script.judge(Script.performance { i, e in if i == 5 { e.pitch = 70 } })
        #expect(r.wrong == 1)
        #expect(r.missed == 0)
        #expect(r.hit == 11)
        #expect(r.extra == 0)
        // Twelve notes, each counted once.
        #expect(abs(r.accuracy - 100 * 11 / 12) < 0.01)
        let s1 = r.sections[1]
        #expect(s1.wrong == 1 && s1.missed == 0 && s1.hit == 3)
        #expect(s1.expectedCount == 4)
    }

    @Test func aSlipCorrectedInTimeIsAHitAndItsStrayKeyAnExtra() {
        // Note 5 is struck right 40 ms after a wrong key; note 8 gets two wrong keys and never comes.
        var m = PlayMatcher(expected: Script.expected, parts: ["right"])
        var played: [PlayedEvent] = []
        for (i, p) in Script.rightPitches.enumerated() {
            let t = 1.0 + Double(i) * 0.5
            if i == 5 { played.append(PlayedEvent(pitch: p + 1, time: t - 0.04)) }
            if i == 8 {
                played.append(PlayedEvent(pitch: p + 1, time: t))
                played.append(PlayedEvent(pitch: p + 2, time: t + 0.01))
                continue
            }
            played.append(PlayedEvent(pitch: p, time: t))
        }
        for e in played { _ = m.expire(upTo: e.time); _ = m.play(e) }
        let r = m.finish()
        // Note 8: wrong once (the second wrong key an extra); note 5 hit, its slip an extra.
        #expect(r.hit == 11 && r.wrong == 1 && r.missed == 0 && r.extra == 2, "\(r.figures.summary)")
        let hearing = Ear(judgesReleases: false, judgesLoudness: false).hear(expected: m.expected, judgements: m.judgements, events: played)
        let slip = hearing.notes.first { $0.id == 5 }
        #expect(slip?.onset == .hit && slip?.wrongKeyFirst == true && slip?.played == 70 && slip?.worst == .wrongKeyFirst)
        let wrong = hearing.notes.first { $0.id == 8 }
        #expect(wrong?.onset == .wrong && wrong?.played == 72 && wrong?.pitchText == "B4 → C5", "the first wrong key is named")
    }

    @Test func aStrayKeyAfterTheRightOneIsNotWrongKeyFirst() {
        // The right key, then 5 ms later a wrong one near it: a hit and an extra, never "first".
        let expected = [ExpectedNote(id: 0, pitch: 60, time: 1.0), ExpectedNote(id: 1, pitch: 64, time: 1.0)]
        let played = [PlayedEvent(pitch: 60, time: 1.0), PlayedEvent(pitch: 61, time: 1.005), PlayedEvent(pitch: 64, time: 1.01)]
        var m = PlayMatcher(expected: expected)
        for e in played { _ = m.play(e) }
        let r = m.finish()
        #expect(r.hit == 2 && r.wrong == 0 && r.extra == 1 && r.missed == 0, "\(r.figures.summary)")
        let hearing = Ear(judgesReleases: false, judgesLoudness: false).hear(expected: expected, judgements: m.judgements, events: played)
        #expect(hearing.notes.allSatisfy { $0.wrongKeyFirst == nil && $0.worst == .ok }, "\(hearing.notes)")
    }

    @Test func eachJudgementSaysWhatHappenedAsItHappens() throws {
        var m = PlayMatcher(expected: Script.expected, parts: ["right"])
        let first = m.play(PlayedEvent(pitch: 60, time: 0.93))
        let hit = try #require(first)
        #expect(hit.verdict == .early)
        #expect(hit.expected?.id == 0)
        #expect(abs((hit.errorMs ?? 0) + 70) < 1e-6)
        #expect(m.play(PlayedEvent(pitch: 60, time: 1.2, isOn: false)) == nil)
        // A duplicate strike of a matched note is extra, not wrong.
        #expect(m.play(PlayedEvent(pitch: 60, time: 1.05))?.verdict == .extra)
        // The left-hand note (48) is not practised: playing it is a wrong pitch.
        #expect(m.play(PlayedEvent(pitch: 48, time: 1.5))?.verdict == .wrongPitch)
        // Missed notes appear only once their window has closed.
        #expect(m.expire(upTo: 1.6).isEmpty)
        let missed = m.expire(upTo: 1.66)
        #expect(missed.map(\.verdict) == [.missed])
        #expect(missed.first?.expected?.id == 1)
    }

    @Test func theNearestUnmatchedNoteOfThePitchIsTaken() {
        // Two C4s 200 ms apart; a press between them goes to the nearer one, the next press to the other.
        let expected = [ExpectedNote(id: 1, pitch: 60, time: 1.0), ExpectedNote(id: 2, pitch: 60, time: 1.2)]
        var m = PlayMatcher(expected: expected)
        #expect(m.play(PlayedEvent(pitch: 60, time: 1.13))?.expected?.id == 2)
        #expect(m.play(PlayedEvent(pitch: 60, time: 1.14))?.expected?.id == 1)
        let r = m.finish()
        #expect(r.hit == 2 && r.missed == 0)
    }

    @Test func theWeakestSectionIsTheOneWithInjectedMistakes() throws {
        // Section 2 gets two wrong notes, section 0 one late-but-hit note.
        let played = Script.performance { i, e in
            if i == 9 || i == 10 { e.pitch += 1 }
            if i == 1 { e.time += 0.12 }
        }
        let r = Script.judge(played)
        let weakest = try #require(r.weakestSection)
        #expect(weakest.section == 2)
        #expect(weakest.wrong == 2 && weakest.missed == 0)
        #expect(r.sections[0].accuracy == 100)
        #expect(r.sections[0].score < 100)
        #expect(!r.isClean(threshold: 90))
        #expect(r.isClean(threshold: 60))
    }

    @Test func theReportIsJSONWithTheAgreedFields() throws {
        let r = Script.judge(Script.performance(shift: 0.040) { i, e in if i == 0 { e.pitch = 61 } })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.json().utf8)) as? [String: Any])
        for key in ["hit", "missed", "wrong", "extra", "accuracy", "timingMeanMs", "timingSdMs", "score", "sections"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(object["hit"] as? Int == 11)
        #expect(object["wrong"] as? Int == 1)
        let sections = try #require(object["sections"] as? [[String: Any]])
        #expect(sections.count == 3)
        for s in sections {
            for key in ["hit", "missed", "wrong", "extra", "accuracy", "timingMeanMs", "timingSdMs", "score"] {
                #expect(s[key] != nil, "section missing \(key)")
            }
        }
        let decoded = try JSONDecoder().decode(PassReport.self, from: Data(r.json().utf8))
        #expect(decoded == r)
    }

    @Test func nothingExpectedAndNothingPlayedIsNotAFailure() {
        var m = PlayMatcher(expected: [])
        let r = m.finish()
        #expect(r.accuracy == 100 && r.score == 100 && r.sections.isEmpty)
        var m2 = PlayMatcher(expected: [])
        #expect(m2.play(PlayedEvent(pitch: 60, time: 1))?.verdict == .extra)
        #expect(m2.finish().accuracy == 0)
    }
}

@Suite struct WaitGateTests {
    let expected = [
        ExpectedNote(id: 0, pitch: 60, time: 1.0), ExpectedNote(id: 1, pitch: 64, time: 1.005),
        ExpectedNote(id: 2, pitch: 67, time: 1.0),
        ExpectedNote(id: 3, pitch: 36, time: 1.0, part: "left"),
        ExpectedNote(id: 4, pitch: 60, time: 2.0),
        ExpectedNote(id: 5, pitch: 62, time: 3.0),
    ]

    @Test func itAdvancesOnlyWhenTheWholeChordIsHeld() {
        var gate = WaitGate(expected: expected, parts: ["right"])
        #expect(gate.chords.count == 3)
        #expect(gate.waitingAt == 1.0)
        #expect(gate.handle(PlayedEvent(pitch: 60, time: 5)) == .waiting(missing: [64, 67]))
        #expect(gate.handle(PlayedEvent(pitch: 64, time: 5.1)) == .waiting(missing: [67]))
        #expect(gate.handle(PlayedEvent(pitch: 65, time: 5.2)) == .wrong(pitch: 65))
        #expect(gate.handle(PlayedEvent(pitch: 36, time: 5.2)) == .wrong(pitch: 36))  // left hand not practised
        // Letting go of C before G is down takes C back out.
        #expect(gate.handle(PlayedEvent(pitch: 60, time: 5.3, isOn: false)) == .waiting(missing: [60, 67]))
        #expect(gate.handle(PlayedEvent(pitch: 67, time: 5.4)) == .waiting(missing: [60]))
        #expect(gate.index == 0)
        #expect(gate.handle(PlayedEvent(pitch: 60, time: 5.5)) == .advanced(chord: 0, resumeAt: 1.0))
        #expect(gate.waitingAt == 2.0)
    }

    @Test func aKeyStillHeldFromTheLastChordMustBeStruckAgain() {
        var gate = WaitGate(expected: expected, parts: ["right"])
        for p in [60, 64, 67] { _ = gate.handle(PlayedEvent(pitch: p, time: 1)) }
        #expect(gate.waitingAt == 2.0)
        // C4 is still down from the chord, but the next chord (C4 alone) waits for a new strike.
        #expect(gate.handle(PlayedEvent(pitch: 64, time: 1.5, isOn: false)) == .waiting(missing: [60]))
        #expect(gate.handle(PlayedEvent(pitch: 60, time: 1.6, isOn: false)) == .waiting(missing: [60]))
        #expect(gate.handle(PlayedEvent(pitch: 60, time: 1.7)) == .advanced(chord: 1, resumeAt: 2.0))
        #expect(gate.handle(PlayedEvent(pitch: 62, time: 3.5)) == .advanced(chord: 2, resumeAt: 3.0))
        #expect(gate.isFinished)
        #expect(gate.handle(PlayedEvent(pitch: 62, time: 4)) == .finished)
    }

    @Test func resetMovesToTheChordAtALoopStart() {
        var gate = WaitGate(expected: expected, parts: nil)
        #expect(gate.chords.first?.pitches == [36, 60, 64, 67])
        gate.reset(to: 1.5)
        #expect(gate.waitingAt == 2.0)
        gate.reset()
        #expect(gate.waitingAt == 1.0)
    }
}

@Suite struct RecorderTests {
    @Test func aRecordedPerformanceReReadsAsTheSameNotes() throws {
        // 120 BPM at 480 ticks per quarter: 1 s = 960 ticks. Clock starts at 100 s.
        var rec = PerformanceRecorder(startTime: 100, bpm: 120, timeSignature: TimeSignature(numerator: 3, denominatorPower: 2))
        let script: [(pitch: Int, on: Double, off: Double, vel: Int)] = [
            (60, 100.0, 100.5, 80), (64, 100.5, 101.0, 90), (67, 100.5, 101.25, 70), (60, 101.0, 102.0, 100),
        ]
        var events: [PlayedEvent] = []
        for n in script {
            events.append(PlayedEvent(pitch: n.pitch, velocity: n.vel, time: n.on, isOn: true))
            events.append(PlayedEvent(pitch: n.pitch, velocity: 0, time: n.off, isOn: false))
        }
        for e in events.sorted(by: { $0.time < $1.time }) { rec.record(e) }

        let read = try MIDIReader.read(rec.bytes(), strict: true)
        #expect(read.warnings.isEmpty)
        let notes = NotePairing.notes(in: read.file).notes.sorted { ($0.startTick, $0.pitch) < ($1.startTick, $1.pitch) }
        #expect(notes.map { [Int($0.pitch), $0.startTick, $0.endTick, Int($0.velocity)] } == [
            [60, 0, 480, 80], [64, 480, 960, 90], [67, 480, 1200, 70], [60, 960, 1920, 100],
        ])
        let tempo = TempoMap(file: read.file)
        #expect(abs(tempo.bpm(atTick: 0) - 120) < 1e-9)
        let signature = read.file.tracks[0].events.compactMap { e -> TimeSignature? in
            if case .timeSignature(let ts)? = e.kind.meta { return ts } else { return nil }
        }
        #expect(signature.first?.numerator == 3)
    }

    @Test func onsetOnlyNotesGetTheFixedLengthCutAtTheNextStrike() throws {
        var rec = PerformanceRecorder(startTime: 0, bpm: 60, onsetOnly: true, fixedLength: 0.5)  // 1 s = 480 ticks
        rec.record(PlayedEvent(pitch: 60, time: 0))
        rec.record(PlayedEvent(pitch: 60, time: 0.25))
        rec.record(PlayedEvent(pitch: 62, time: 1.0))
        rec.record(PlayedEvent(pitch: 62, time: 1.3, isOn: false))  // ignored: onset-only
        let read = try MIDIReader.read(rec.bytes(), strict: true)
        let notes = NotePairing.notes(in: read.file).notes.sorted { ($0.startTick, $0.pitch) < ($1.startTick, $1.pitch) }
        #expect(notes.map { [Int($0.pitch), $0.startTick, $0.endTick] } == [[60, 0, 120], [60, 120, 360], [62, 480, 720]])
    }

    @Test func aNoteStillHeldEndsAtTheRecordingsEnd() {
        var rec = PerformanceRecorder(startTime: 10)
        rec.record(PlayedEvent(pitch: 60, time: 11))
        #expect(rec.notes(endTime: 13).first?.end == 3)
        #expect(rec.notes().first?.end == 1.4)
    }
}

@Suite struct QuizTests {
    @Test func rangesParseFromNoteNames() throws {
        #expect(try PitchRange.parse("C3-C6") == PitchRange(lower: 48, upper: 84))
        #expect(try PitchRange.parse("F#2-Bb4") == PitchRange(lower: 42, upper: 70))
        #expect(try PitchRange.parse("c-1-c1") == PitchRange(lower: 0, upper: 24))
        #expect(try PitchRange.parse("48-84") == PitchRange(lower: 48, upper: 84))
        #expect(try PitchRange.parse(" C3 - C6 ") == PitchRange(lower: 48, upper: 84))
        #expect(throws: QuizError.self) { try PitchRange.parse("C6-C3") }
        #expect(throws: QuizError.self) { try PitchRange.parse("middle C") }
        #expect(throws: QuizError.self) { try PitchRange.parse("H2-C3") }
    }

    @Test func theSameSeedGivesTheSameQuestionsWithinTheRange() throws {
        let range = try PitchRange.parse("C3-C6")
        for kind in QuizKind.allCases {
            let a = try Quiz(kind: kind, count: 50, range: range, seed: 42)
            let b = try Quiz(kind: kind, count: 50, range: range, seed: 42)
            let c = try Quiz(kind: kind, count: 50, range: range, seed: 43)
            #expect(a.questions == b.questions)
            #expect(a.questions != c.questions)
            for q in a.questions {
                #expect(q.pitches.allSatisfy { (48...84).contains($0) })
                #expect(q.pitches.count == (kind == .notes ? 1 : kind == .intervals ? 2 : q.pitches.count))
            }
        }
    }

    @Test func answersAreCheckedAndScoredAsAPercentage() throws {
        var quiz = try Quiz(kind: .intervals, count: 4, range: PitchRange(lower: 60, upper: 72), seed: 7)
        var i = 0
        while let q = quiz.current {
            var collector = QuizAnswerCollector(size: q.answerSize)
            var answer: Set<Int>?
            let keys = i % 2 == 0 ? q.pitches : q.pitches.map { $0 + 1 }
            for k in keys { answer = collector.add(PlayedEvent(pitch: k, time: 0)) }
            let played = try #require(answer)
            let result = quiz.answer(played)
            #expect(result != nil)
            #expect(result?.correct == (i % 2 == 0))
            i += 1
        }
        #expect(quiz.isFinished)
        #expect(quiz.percentage == 50)
        let second = quiz.results[1].question
        #expect(second.answerText.split(separator: " ").compactMap { PitchName.parse(String($0)) } == second.pitches, "\(second.answerText)")
    }

    @Test func intervalsAndChordsAreSpelledFromTheirRoot() {
        // A minor sixth above D is B flat, a major third above E flat is G, a tritone above F is B.
        #expect(PitchName.name(70, letter: PitchName.rootLetter(62) + Quiz.intervalLetters[7]) == "Bb4")
        #expect(PitchName.name(67, letter: PitchName.rootLetter(63) + Quiz.intervalLetters[3]) == "G4")
        #expect(PitchName.name(71, letter: PitchName.rootLetter(65) + Quiz.intervalLetters[5]) == "B4")
        #expect(PitchName.name(60, letter: 6) == "B#3" && PitchName.name(59, letter: 0) == "Cb4")
        #expect(PitchName.name(61, letter: 6) == "B##3")
        // Every question of every kind: its answer names its own pitches, one letter per
        // interval step (a third two letters up; B♭ augmented is B♭ D F♯).
        for kind in [QuizKind.intervals, .chords] {
            for seed in 0..<200 as Range<UInt64> {
                guard let q = try? Quiz(kind: kind, count: 1, seed: seed).questions[0] else { continue }
                let names = q.answerText.split(separator: " ").map(String.init)
                #expect(names.compactMap { PitchName.parse($0) } == q.pitches, "\(q.prompt): \(q.answerText)")
                let letters = names.map { "CDEFGAB".firstIndex(of: $0.first ?? "?").map { "CDEFGAB".distance(from: "CDEFGAB".startIndex, to: $0) } ?? -1 }
                if kind == .chords {
                    for (a, b) in zip(letters, letters.dropFirst()) { #expect((b - a + 7) % 7 == 2, "\(q.prompt): \(q.answerText)") }
                }
            }
        }
    }

    @Test func namedNotesAndChordVoicings() throws {
        let notes = try Quiz(kind: .notes, count: 1, range: PitchRange(lower: 64, upper: 64), seed: 1)
        #expect(notes.questions[0].prompt == "Play E4")
        #expect(notes.questions[0].isCorrect([64]))
        #expect(!notes.questions[0].isCorrect([76]))
        let chord = QuizQuestion(kind: .chords, prompt: "Play C major (from C4)", pitches: [60, 64, 67], answerText: "C4 E4 G4")
        #expect(chord.isCorrect([60, 64, 67]))
        #expect(chord.isCorrect([52, 60, 67]))   // another voicing
        #expect(!chord.isCorrect([60, 63, 67]))  // minor
        #expect(throws: QuizError.self) { try Quiz(kind: .chords, count: 3, range: PitchRange(lower: 60, upper: 62), seed: 1) }
        #expect(throws: QuizError.self) { try Quiz(kind: .notes, count: 0, seed: 1) }
    }
}

@Suite struct OnsetOnlyAndSummaryTests {
    @Test func onsetOnlyChordsCanBeTypedKeyByKey() {
        let chord = [ExpectedNote(id: 0, pitch: 60, time: 1), ExpectedNote(id: 1, pitch: 64, time: 1)]
        var gate = WaitGate(expected: chord, ignoresReleases: true)
        _ = gate.handle(PlayedEvent(pitch: 60, time: 2))
        // The synthetic release of the computer keyboard does not take C back out.
        #expect(gate.handle(PlayedEvent(pitch: 60, time: 2.4, isOn: false)) == .waiting(missing: [64]))
        #expect(gate.handle(PlayedEvent(pitch: 64, time: 3)) == .advanced(chord: 0, resumeAt: 1))
    }

    @Test func theResultsPanelLinesNameTheWeakestSection() {
        let r = Script.judge(Script.performance(shift: 0.02) { i, e in if i == 6 { e.pitch = 40 } })
        let lines = r.summaryLines { "bars \($0 * 4 + 1)–\($0 * 4 + 4)" }
        #expect(lines[0].hasPrefix("Accuracy"))
        #expect(lines[2].contains("+20 ms"))
        // Section 2 (index 1): 3 hits of 3 + 1 wrong = 75 % (the wrong note is not also missed).
        #expect(lines.last == "Work on bars 5–8: 75% accuracy")
        #expect(Script.judge(Script.performance()).summaryLines().count == 3)
    }
}
