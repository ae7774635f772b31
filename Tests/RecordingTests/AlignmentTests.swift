import Foundation
import Testing
@testable import Recording

/// Tones as a recording would hold them: each chord a sum of sines with a few partials, with
/// a decay, at the analysis rate.
enum Tones {
    static func render(_ chords: [(start: Double, length: Double, pitches: [Int])], seconds: Double, rate: Int = AlignmentFeatures.analysisRate) -> [Float] {
        var out = [Float](repeating: 0, count: Int(seconds * Double(rate)))
        for c in chords {
            let from = Int(c.start * Double(rate)), to = min(out.count, Int((c.start + c.length) * Double(rate)))
            guard from < to else { continue }
            for p in c.pitches {
                let f = 440 * pow(2, Double(p - 69) / 12)
                for h in 1...3 where f * Double(h) < Double(rate) / 2 {
                    let w = 2 * Double.pi * f * Double(h) / Double(rate)
                    for i in from..<to {
                        let t = Double(i - from) / Double(rate)
                        out[i] += Float(0.1 / Double(h) * exp(-2 * t) * sin(w * Double(i - from)))
                    }
                }
            }
        }
        return out
    }

    /// A little tune: one chord a beat (0.5 s at 120 BPM), `beats` of them, from C major's chords.
    static func tune(beats: Int) -> [[Int]] {
        let chords = [[60, 64, 67], [62, 65, 69], [64, 67, 71], [65, 69, 72], [67, 71, 74], [57, 60, 64], [59, 62, 65], [55, 59, 62]]
        var g = UInt64(7)
        return (0..<beats).map { _ in
            g = g &* 6364136223846793005 &+ 1442695040888963407
            return chords[Int(g >> 33) % chords.count]
        }
    }
}

@Suite("Recording alignment: features, multiscale DTW, bars, repeats, taps")
struct AlignmentTests {
    @Test("a tone's chroma peaks at its pitch class; its onset is found where it starts")
    func chromaAndOnset() {
        let samples = Tones.render([(1.0, 1.0, [69])], seconds: 2.5)
        let f = AlignmentFeatures.of(samples)
        #expect(abs(f.count - 125) <= 1)
        let mid = 75 * 12
        let peak = (0..<12).max { f.chroma[mid + $0] < f.chroma[mid + $1] }
        #expect(peak == 9)  // A
        let onsetFrame = (0..<f.count).max { f.onsets[$0 * 12 + 9] < f.onsets[$1 * 12 + 9] } ?? 0
        #expect(abs(onsetFrame - 50) <= 3, "onset at frame \(onsetFrame), expected 50 (1.0 s)")
    }

    @Test("a downsampled sine keeps its frequency and length")
    func downsampler() {
        let rate = 44_100
        let sine = (0..<rate).map { Float(sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
        let out = Downsampler.resample(sine, from: rate)
        #expect(abs(out.count - AlignmentFeatures.analysisRate) <= 2)
        var crossings = 0
        for i in 1..<out.count where (out[i - 1] < 0) != (out[i] < 0) { crossings += 1 }
        #expect(abs(crossings - 880) <= 4)
    }

    @Test("the multiscale DTW finds a known time warp within a frame or two, in a narrow band")
    func warpFound() throws {
        let tune = Tones.tune(beats: 120)
        // Score: a chord each 0.5 s. Performance: beats stretched by a tempo curve ±25 %.
        var score: [(Double, Double, [Int])] = [], played: [(Double, Double, [Int])] = []
        var t = 0.5
        var truth: [(Double, Double)] = []
        for (k, c) in tune.enumerated() {
            let factor = 1 + 0.25 * sin(Double(k) / 9)
            score.append((0.5 + Double(k) * 0.5, 0.5, c))
            played.append((t, 0.5 * factor, c))
            truth.append((0.5 + Double(k) * 0.5, t))
            t += 0.5 * factor
        }
        let a = AlignmentFeatures.of(Tones.render(score, seconds: 0.5 + Double(tune.count) * 0.5 + 1))
        let b = AlignmentFeatures.of(Tones.render(played, seconds: t + 1))
        let path = try #require(MultiscaleDTW.align(a, b))
        let map = BarAligner.PathMap(path)
        var errors: [Double] = []
        for (s, p) in truth { errors.append(abs(map.second(at: s * a.rate) / b.rate - p)) }
        errors.sort()
        #expect(errors[errors.count / 2] < 0.03, "median error \(errors[errors.count / 2]) s")
        #expect(errors[errors.count * 95 / 100] < 0.1)
    }

    @Test("a score's repeats: played, skipped, and with a second ending")
    func repeatOrders() {
        func bars(_ printed: [Int]) -> [ScoreBar] {
            printed.enumerated().map { ScoreBar(label: "\($0.element)", printed: $0.element, pass: 1, start: Double($0.offset), end: Double($0.offset + 1), beats: [Double($0.offset)]) }
        }
        #expect(BarAligner.orders(bars([1, 2, 3])) == [[0, 1, 2]])
        // |: 1 2 :| 3
        #expect(BarAligner.orders(bars([1, 2, 1, 2, 3])) == [[0, 1, 2, 3, 4], [2, 3, 4]])
        // |: 1 2 [1. 3 :| [2. 4 — skipping plays 1 2 4
        #expect(BarAligner.orders(bars([1, 2, 3, 1, 2, 4])) == [[0, 1, 2, 3, 4, 5], [3, 4, 5]])
    }

    @Test("bars are found in a recording that skips the score's repeat")
    func repeatSkipped() throws {
        // Score: |: A B :| C D, a bar of 4 beats each (2 s); bars A B A B C D.
        let tune = Tones.tune(beats: 16)
        let sections = [Array(tune[0..<4]), Array(tune[4..<8]), Array(tune[8..<12]), Array(tune[12..<16])]
        let scoreOrder = [0, 1, 0, 1, 2, 3], playedOrder = [0, 1, 2, 3]
        func render(_ order: [Int], beat: Double) -> [Float] {
            var chords: [(Double, Double, [Int])] = []
            for (k, s) in order.enumerated() {
                for (b, c) in sections[s].enumerated() { chords.append((0.5 + (Double(k) * 4 + Double(b)) * beat, beat, c)) }
            }
            return Tones.render(chords, seconds: 0.5 + Double(order.count * 4) * beat + 1)
        }
        let bars = scoreOrder.enumerated().map { k, s in
            ScoreBar(label: "\(s + 1)", printed: s + 1, pass: k >= 2 && k < 4 ? 2 : 1, start: 0.5 + Double(k) * 2, end: 0.5 + Double(k + 1) * 2,
                     beats: (0..<4).map { 0.5 + Double(k) * 2 + Double($0) * 0.5 })
        }
        let a = AlignmentFeatures.of(render(scoreOrder, beat: 0.5))
        let b = AlignmentFeatures.of(render(playedOrder, beat: 0.6))
        let found = try #require(BarAligner.align(render: a, bars: bars, recording: b))
        #expect(!found.repeatsPlayed)
        #expect(found.bars.map(\.bar) == ["1", "2", "3", "4"])
        for (k, bar) in found.bars.enumerated() {
            #expect(abs(bar.start - (0.5 + Double(k) * 2.4)) < 0.06, "bar \(bar.bar) at \(bar.start)")
            #expect(bar.confidence > 0.5)
        }
        #expect(!found.isUnsure)
    }

    @Test("an unrelated recording is unsure")
    func unrelatedIsUnsure() throws {
        let tune = Tones.tune(beats: 32)
        let bars = (0..<8).map { k in
            ScoreBar(label: "\(k + 1)", printed: k + 1, pass: 1, start: 0.5 + Double(k) * 2, end: 0.5 + Double(k + 1) * 2, beats: [0.5 + Double(k) * 2])
        }
        let a = AlignmentFeatures.of(Tones.render(tune.enumerated().map { (0.5 + Double($0.offset) * 0.5, 0.5, $0.element) }, seconds: 17.5))
        // Noise-like: a chromatic cluster changing every 0.13 s.
        let other: [(start: Double, length: Double, pitches: [Int])] = (0..<120).map { (k: Int) -> (start: Double, length: Double, pitches: [Int]) in
            let low: Int = 40 + (k * 7) % 40, high: Int = 41 + (k * 5) % 43
            return (0.13 * Double(k), 0.13, [low, high])
        }
        let b = AlignmentFeatures.of(Tones.render(other, seconds: 16))
        let found = try #require(BarAligner.align(render: a, bars: bars, recording: b))
        #expect(found.isUnsure, "confidence \(found.confidence)")
    }

    @Test("taps are the beats: the k-th tap starts the k-th beat, repeats chosen by the count")
    func taps() throws {
        let bars = [1, 2, 1, 2, 3].enumerated().map { k, p in
            ScoreBar(label: "\(p)", printed: p, pass: 1, start: Double(k) * 2, end: Double(k + 1) * 2, beats: (0..<4).map { Double(k) * 2 + Double($0) * 0.5 })
        }
        // 12 taps: the repeat skipped (bars 1 2 3).
        let taps = (0..<12).map { 1.0 + Double($0) * 0.7 }
        let a = try #require(TapAligner.align(taps: taps, bars: bars))
        #expect(a.method == .taps)
        #expect(a.bars.map(\.bar) == ["1", "2", "3"])
        #expect(a.bars.map(\.start) == [taps[0], taps[4], taps[8]])
        #expect(a.bars[1].beats == Array(taps[4..<8]))
        #expect(!a.isUnsure)
    }
}
