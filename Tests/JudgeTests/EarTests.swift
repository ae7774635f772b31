import Foundation
import Testing
@testable import Judge

/// The ear on generated performances: eight quarter notes (0.5 s each, a bar of four then
/// another), the first bar marked p (49), the second f (96).
enum EarScript {
    static let pitches = [60, 62, 64, 65, 67, 65, 64, 62]

    static func expected(dynamics: Bool = true, articulation: Articulation? = nil) -> [ExpectedNote] {
        pitches.enumerated().map { i, p in
            ExpectedNote(id: i, pitch: p, time: Double(i) * 0.5, duration: 0.5, part: "right", section: i / 4,
                         marked: dynamics ? (i < 4 ? 49 : 96) : nil, articulation: articulation)
        }
    }

    /// Each note played on time, held `held` of its value, at `velocity(i)`; `pitch` may change a key.
    static func performance(held: Double = 0.95, velocity: (Int) -> Int = { $0 < 4 ? 50 : 95 },
                            pitch: (Int) -> Int = { pitches[$0] }) -> [PlayedEvent] {
        var out: [PlayedEvent] = []
        for i in pitches.indices {
            let t = Double(i) * 0.5
            out.append(PlayedEvent(pitch: pitch(i), velocity: velocity(i), time: t, isOn: true))
            out.append(PlayedEvent(pitch: pitch(i), velocity: 0, time: t + 0.5 * held, isOn: false))
        }
        return out.sorted { $0.time < $1.time }
    }

    /// The sustain pedal changed at each bar line (up and down again a moment later).
    static let pedalAtBarLines: [(time: Double, down: Bool)] = [(0.01, true), (1.99, false), (2.01, true), (3.99, false)]

    static func hear(_ played: [PlayedEvent], expected: [ExpectedNote] = expected(),
                     pedal: [(time: Double, down: Bool)] = [], ear: Ear = Ear()) -> (PassReport, Ear.Hearing) {
        var matcher = PlayMatcher(expected: expected)
        for e in played where e.isOn { _ = matcher.expire(upTo: e.time); _ = matcher.play(e) }
        var report = matcher.finish()
        let hearing = ear.hear(expected: expected, judgements: matcher.judgements, events: played, pedal: pedal, endTime: 4)
        report.add(hearing) { $0.id / 4 }
        return (report, hearing)
    }
}

@Suite struct EarTests {
    @Test func anExactPerformanceIsAllOk() {
        let (report, hearing) = EarScript.hear(EarScript.performance())
        #expect(report.figures.hit == 8 && report.figures.short == 0 && report.figures.long == 0)
        #expect(report.figures.loud == 0 && report.figures.soft == 0)
        #expect(hearing.hasDynamics)
        #expect(hearing.notes.allSatisfy { $0.onset == .hit && $0.release == .ok && $0.loudness == .ok })
        #expect(hearing.notes.map(\.heldRatio) == Array(repeating: 0.95, count: 8))
        #expect(report.figures.score == 100, "the ear never enters the score")
    }

    @Test func releasedAtFortyPercentIsShortEveryNote() {
        let (report, hearing) = EarScript.hear(EarScript.performance(held: 0.4))
        #expect(report.figures.short == 8 && report.figures.long == 0)
        #expect(hearing.notes.allSatisfy { $0.heldRatio == 0.4 })
        #expect(report.sections.map(\.figures.short) == [4, 4], "per section too")
    }

    @Test func releasedAtFortyPercentUnderThePedalChangedAtBarLinesIsNotShort() {
        let (report, hearing) = EarScript.hear(EarScript.performance(held: 0.4), pedal: EarScript.pedalAtBarLines)
        #expect(report.figures.short == 0 && report.figures.long == 0, "\(hearing.notes.map(\.heldRatio))")
        // The last note of each bar sounds until the pedal comes up just before the bar line.
        #expect(hearing.notes[3].heldRatio == 0.98)
    }

    @Test func heldIntoTheNextNoteIsLongButARestrikeEndsIt() {
        let (report, _) = EarScript.hear(EarScript.performance(held: 1.6))
        #expect(report.figures.long == 8)
        // The same key struck again ends the note there (60 … 60): a re-strike cannot be long.
        let exp = [ExpectedNote(id: 0, pitch: 60, time: 0, duration: 0.5), ExpectedNote(id: 1, pitch: 60, time: 0.5, duration: 0.5)]
        let played = [PlayedEvent(pitch: 60, time: 0), PlayedEvent(pitch: 60, time: 0.5), PlayedEvent(pitch: 60, velocity: 0, time: 0.95, isOn: false)]
        let (r2, h2) = EarScript.hear(played, expected: exp)
        #expect(r2.figures.long == 0 && r2.figures.short == 0, "\(h2.notes)")
    }

    @Test func staccatoAndTenutoChangeTheExpectation() {
        let staccato = EarScript.expected(articulation: .staccato)
        #expect(EarScript.hear(EarScript.performance(held: 0.4), expected: staccato).0.figures.short == 0)
        #expect(EarScript.hear(EarScript.performance(held: 0.95), expected: staccato).0.figures.long == 8)
        let tenuto = EarScript.expected(articulation: .tenuto)
        // 0.7 of a 0.5 s note: ok normally (80 % − 80 ms = 0.32 s), short when tenuto (90 % − 80 ms = 0.37 s).
        #expect(EarScript.hear(EarScript.performance(held: 0.7)).0.figures.short == 0)
        #expect(EarScript.hear(EarScript.performance(held: 0.7), expected: tenuto).0.figures.short == 8)
    }

    @Test func pAndFReversedAreLoudThenSoft() {
        let (report, hearing) = EarScript.hear(EarScript.performance(velocity: { $0 < 4 ? 95 : 50 }))
        #expect(report.figures.loud == 4 && report.figures.soft == 4)
        #expect(hearing.notes.prefix(4).allSatisfy { $0.loudness == .loud })
        #expect(hearing.notes.suffix(4).allSatisfy { $0.loudness == .soft })
    }

    @Test func aSofterKeyboardWithTheContrastIsOk() {
        // Another keyboard's curve: p at 30, f at 60: relative to the learner's own mean, right.
        let (report, _) = EarScript.hear(EarScript.performance(velocity: { $0 < 4 ? 30 : 60 }))
        #expect(report.figures.loud == 0 && report.figures.soft == 0)
        // No contrast at all (everything at 70) is not: p too loud, f too soft.
        let (flat, _) = EarScript.hear(EarScript.performance(velocity: { _ in 70 }))
        #expect(flat.figures.loud == 4 && flat.figures.soft == 4)
    }

    @Test func withoutDynamicsThereAreNoLoudnessVerdictsButAnEvennessFigure() {
        let (report, hearing) = EarScript.hear(EarScript.performance(velocity: { $0 == 5 ? 110 : 70 }), expected: EarScript.expected(dynamics: false))
        #expect(!hearing.hasDynamics && !report.dynamics)
        #expect(hearing.notes.allSatisfy { $0.loudness == nil })
        #expect(report.figures.loud == 0)
        #expect(hearing.evennessSpread == 13.2, "one note 40 louder among 8: σ = 40·√7/8")
        // An even scale under one dynamic: the note sticking out is loud.
        let one = EarScript.expected().map { n -> ExpectedNote in var m = n; m.marked = 80; return m }
        let (even, h) = EarScript.hear(EarScript.performance(velocity: { $0 == 5 ? 110 : 70 }), expected: one)
        #expect(even.figures.loud == 1 && h.notes[5].loudness == .loud)
    }

    @Test func oneSemitoneWrongIsWrongOnTheNoteDue() {
        let (report, hearing) = EarScript.hear(EarScript.performance(pitch: { $0 == 2 ? 63 : EarScript.pitches[$0] }))
        // Counted once: wrong, not also missed; the key played named.
        #expect(report.figures.wrong == 1 && report.figures.missed == 0 && report.figures.hit == 7 && report.figures.extra == 0)
        #expect(hearing.notes[2].onset == .wrong && hearing.notes[2].release == nil && hearing.notes[2].isFault)
        #expect(hearing.notes[2].played == 63 && hearing.notes[2].pitchText == "E4 → D#4")
        #expect(hearing.notes.filter(\.isFault).count == 1)
    }

    @Test func onsetOnlyInputGetsNoReleaseOrLoudnessVerdicts() {
        let ear = Ear(judgesReleases: false, judgesLoudness: false)
        let (report, hearing) = EarScript.hear(EarScript.performance(held: 0.2, velocity: { _ in 90 }), ear: ear)
        #expect(hearing.notes.allSatisfy { $0.release == nil && $0.loudness == nil })
        #expect(hearing.evennessSpread == nil && report.earLine == nil)
    }

    @Test func theReportCarriesTheNotesAndReadsOlderLines() throws {
        let (report, _) = EarScript.hear(EarScript.performance(held: 0.4))
        let json = report.json()
        #expect(json.contains("\"short\":8") && json.contains("\"notes\":[") && json.contains("\"heldRatio\":0.4"))
        let back = try JSONDecoder().decode(PassReport.self, from: Data(json.utf8))
        #expect(back == report)
        let old = #"{"accuracy":100,"early":0,"extra":0,"hit":1,"late":0,"missed":0,"onTime":1,"score":100,"sections":[],"timingMeanMs":0,"timingSdMs":0,"windowMs":150,"onTimeMs":50,"wrong":0}"#
        let older = try JSONDecoder().decode(PassReport.self, from: Data(old.utf8))
        #expect(older.figures.short == 0 && older.notes.isEmpty && older.figures.score == 100)
    }

    @Test func releaseToleranceEdges() {
        let t = ReleaseTolerance()
        #expect(t.verdict(sounded: 0.33, keyHeld: 0.33, written: 0.5) == .ok)
        #expect(t.verdict(sounded: 0.31, keyHeld: 0.31, written: 0.5) == .short)
        #expect(t.verdict(sounded: 0.67, keyHeld: 0.67, written: 0.5) == .ok)
        #expect(t.verdict(sounded: 0.69, keyHeld: 0.69, written: 0.5) == .long)
        #expect(t.verdict(sounded: 2, keyHeld: 0.5, written: 0.5) == .ok, "the pedal's sustain is never long")
    }
}
