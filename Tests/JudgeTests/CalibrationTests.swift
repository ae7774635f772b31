import Foundation
import Testing
@testable import Judge

/// The calibration model fed with clock times: clicks every 0.6 s (100 BPM) from t = 1 s.
@Suite struct CalibrationModelTests {
    static func clicked(beats: Int = Calibration.defaultBeats) -> Calibration {
        var c = Calibration(beats: beats)
        for i in 0..<beats { c.clicked(at: 1 + Double(i) * c.beatSeconds) }
        return c
    }

    @Test func tapsThirtyMillisecondsAfterEachClickCalibrateToThirty() {
        var c = Self.clicked()
        for click in c.clicks { c.tapped(at: click + 0.030) }
        let r = c.result()
        #expect(abs((r.offsetMs ?? 0) - 30) <= 2)
        #expect(r.spreadMs <= 2)
        #expect(r.taps == 12 && r.countedBeats == 12)
        #expect(r.verdict == .trusted)
        #expect(r.line == "offset 30 ms, spread 0 ms")
        #expect(r.refusal == nil)
    }

    /// Issue 31: a sequence or a stream of garbage has taps near every click, tightly: its
    /// figures look trusted, yet no hand plays 20 keys a click or streams other messages.
    @Test func moreKeysOrMessagesThanAHandPlaysAreRefused() {
        var c = Self.clicked()
        for click in c.clicks { for k in 0..<20 { c.tapped(at: click + 0.030 + Double(k) * 0.02) } }
        #expect(c.result().verdict == .notAHand)
        #expect(c.result().refusal?.contains("no hand plays so much") == true)
        var m = Self.clicked()
        for click in m.clicks {
            m.tapped(at: click + 0.030)
            for _ in 0..<20 { m.otherMessage() }
        }
        #expect(m.result().verdict == .notAHand)
        // Aftertouch (not counted) and a chord of four a click are a hand.
        var a = Self.clicked()
        for click in a.clicks {
            for k in 0..<4 { a.tapped(at: click + 0.030 + Double(k) * 0.001) }
            for _ in 0..<50 { a.otherMessage(isCounted: false) }
        }
        #expect(a.result().verdict == .trusted)
    }

    @Test func earlyTapsGiveANegativeOffset() {
        var c = Self.clicked()
        for click in c.clicks { c.tapped(at: click - 0.045) }
        #expect(c.result().offsetMs == -45)
        #expect(c.result().verdict == .trusted)
    }

    @Test(arguments: 1...12)
    func tapsWithTwoHundredMillisecondsOfRandomSpreadAreRefused(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var c = Self.clicked()
        for click in c.clicks { c.tapped(at: click + 0.030 + Double.random(in: -0.2...0.2, using: &rng)) }
        let r = c.result()
        #expect(r.verdict != .trusted, "seed \(seed): \(r)")
        #expect(r.spreadMs > Calibration.trustedSpreadMs || r.taps < r.minimumTaps)
        #expect(r.refusal?.contains("nothing was saved: try again") == true)
    }

    @Test func aHumanSteadyHandWithSomeWobbleIsTrusted() {
        // ±25 ms of wobble around 40 ms late and one stray tap on the far side of the beat.
        var rng = SeededGenerator(seed: 7)
        var c = Self.clicked()
        for (i, click) in c.clicks.enumerated() {
            c.tapped(at: click + 0.040 + (i == 9 ? 0.2 : Double.random(in: -0.025...0.025, using: &rng)))
        }
        let r = c.result()
        #expect(r.verdict == .trusted, "\(r)")
        #expect(abs((r.offsetMs ?? 0) - 40) <= 10)
    }

    @Test func theCountInIsIgnoredAndEachTapPairsWithTheNearestClickWithinHalfABeat() {
        var c = Self.clicked()
        // Wild taps during the count-in count for nothing.
        c.tapped(at: c.clicks[1] + 0.25)
        c.tapped(at: c.clicks[2] - 0.2)
        // Beat 5: two taps, the nearer one counts.
        c.tapped(at: c.clicks[4] + 0.120)
        c.tapped(at: c.clicks[4] + 0.020)
        // Beat 6: 0.35 s after it is nearer beat 7 (0.25 s before it): it counts there.
        c.tapped(at: c.clicks[5] + 0.35)
        let pairs = c.pairs()
        #expect(pairs.map(\.click) == [1, 2, 4, 6])
        let counted = c.countedErrorsMs.map { ($0 * 10).rounded() / 10 }
        #expect(counted == [20, -250])
        // A tap more than half a beat past the last click pairs with nothing.
        c.tapped(at: c.clicks[15] + 0.31)
        #expect(c.pairs().count == 4)
    }

    @Test func tooFewTapsAreRefusedAndTheCalibrationCompletesHalfABeatAfterTheLastClick() {
        var c = Self.clicked()
        for click in c.clicks.suffix(5) { c.tapped(at: click + 0.01) }
        let r = c.result()
        #expect(r.verdict == .tooFewTaps)
        #expect(r.refusal?.hasPrefix("only 5 of the 12 counted beats had a key played near them") == true)
        #expect(!c.isComplete(now: c.clicks[15] + 0.29))
        #expect(c.isComplete(now: c.clicks[15] + 0.3))
        var empty = Calibration()
        #expect(empty.result().offsetMs == nil && empty.result().line == nil)
        empty.clicked(at: 1)
        #expect(!empty.isComplete(now: 100))
    }

    @Test func theHintIsForHitsConsistentlyOffByMoreThanFortyMilliseconds() {
        func figures(mean: Double, sd: Double, hit: Int = 8) -> ScoreFigures {
            ScoreFigures(hit: hit, missed: 0, wrong: 0, extra: 0, accuracy: 100, timingMeanMs: mean, timingSdMs: sd, score: 90)
        }
        #expect(Calibration.suggestsCalibrating(figures(mean: 62, sd: 12)))
        #expect(Calibration.suggestsCalibrating(figures(mean: -55, sd: 20)))
        #expect(!Calibration.suggestsCalibrating(figures(mean: 35, sd: 5)), "within 40 ms")
        #expect(!Calibration.suggestsCalibrating(figures(mean: 60, sd: 70)), "not consistent")
        #expect(!Calibration.suggestsCalibrating(figures(mean: 60, sd: 10, hit: 2)), "too few hits")
        #expect(!Calibration.suggestsCalibrating(ScoreFigures()), "nothing hit")
    }

    @Test func aPassReportCarriesItsOffsetAndOlderLinesReadAsZero() throws {
        var report = PassReport(judgements: [])
        report.offsetMs = 30
        let json = report.json()
        #expect(json.contains("\"offsetMs\":30"))
        #expect(try JSONDecoder().decode(PassReport.self, from: Data(json.utf8)) == report)
        let old = json.replacingOccurrences(of: "\"offsetMs\":30,", with: "")
        #expect(!old.contains("offsetMs"))
        #expect(try JSONDecoder().decode(PassReport.self, from: Data(old.utf8)).offsetMs == 0)
    }
}
