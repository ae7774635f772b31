import Foundation

/// One bar of the lesson as its render plays it: where it starts and ends in the render and its
/// beats, with the number printed on it and which time through a repeat it is.
public struct ScoreBar: Sendable, Equatable {
    /// The bar's place in the lesson as performed (`Bar.number`: 0 a pickup, then 1, 2 …).
    public var number: Int
    /// The printed bar's label ("9", "0" for a pickup).
    public var label: String
    /// The printed number, to find the score's repeats (a bar whose number is not above the
    /// previous one's starts a repeat).
    public var printed: Int
    public var pass: Int
    /// Seconds in the render.
    public var start: Double
    public var end: Double
    /// Seconds in the render of each counted beat, the first at `start` (a pickup's later).
    public var beats: [Double]

    public init(number: Int? = nil, label: String, printed: Int, pass: Int, start: Double, end: Double, beats: [Double]) {
        self.number = number ?? printed
        self.label = label
        self.printed = printed
        self.pass = pass
        self.start = start
        self.end = end
        self.beats = beats
    }
}

/// Where a bar of the lesson falls in the recording.
public struct AlignedBar: Sendable, Equatable, Codable {
    public var bar: String
    public var pass: Int
    /// The lesson's bar as performed (`ScoreBar.number`).
    public var number: Int
    /// Seconds from the recording's start.
    public var start: Double
    /// Where the bar ends in the recording (the next bar's start, or the last beat's length on).
    public var end: Double
    /// 0…1: how well the recording's sound in this bar matches the lesson's.
    public var confidence: Double
    /// Seconds of each counted beat in the recording.
    public var beats: [Double]

    public init(bar: String, pass: Int, number: Int, start: Double, end: Double, confidence: Double, beats: [Double]) {
        self.bar = bar
        self.pass = pass
        self.number = number
        self.start = start
        self.end = end
        self.confidence = confidence
        self.beats = beats
    }
}

/// A recording's bars, found automatically or tapped.
public struct RecordingAlignment: Sendable, Equatable, Codable {
    public enum Method: String, Sendable, Codable { case audio, taps }
    public var bars: [AlignedBar]
    public var method: Method
    /// Whether the recording plays every repeat of the score (false: it skips some).
    public var repeatsPlayed: Bool

    public init(bars: [AlignedBar], method: Method, repeatsPlayed: Bool) {
        self.bars = bars
        self.method = method
        self.repeatsPlayed = repeatsPlayed
    }

    /// The median bar confidence below which the alignment is called unsure.
    public static let unsureBelow = 0.5

    /// The median of the bars' confidences (1 for taps).
    public var confidence: Double {
        let c = bars.map(\.confidence).sorted()
        guard !c.isEmpty else { return 0 }
        return c[c.count / 2]
    }

    /// Too unsure to practise by: the median bar is unsure, or a fifth of the bars are.
    public var isUnsure: Bool {
        guard !bars.isEmpty else { return true }
        let weak = bars.filter { $0.confidence < 0.35 }.count
        return confidence < Self.unsureBelow || weak * 5 > bars.count
    }
}

/// Finding a lesson's bars in a recording from their features.
public enum BarAligner {
    /// The orders the recording may play the score's bars in: each repeat played or skipped
    /// (every combination up to 3 repeats, else all or none), the fullest first.
    public static func orders(_ bars: [ScoreBar]) -> [[Int]] {
        // A repeat: bar k+1's printed number is not above bar k's. Skipping it drops the bars
        // from the first bar printed as k+1 up to k (a first ending drops with them).
        var repeats: [ClosedRange<Int>] = []
        for k in 0..<max(0, bars.count - 1) where bars[k + 1].printed <= bars[k].printed {
            if let from = (0...k).last(where: { bars[$0].printed == bars[k + 1].printed }) { repeats.append(from...k) }
        }
        let all = Array(bars.indices)
        guard !repeats.isEmpty else { return [all] }
        var subsets: [[ClosedRange<Int>]] = []
        if repeats.count <= 3 {
            for mask in 1..<(1 << repeats.count) {
                subsets.append(repeats.indices.filter { mask & (1 << $0) != 0 }.map { repeats[$0] })
            }
        } else {
            subsets.append(repeats)
        }
        return [all] + subsets.map { skip in all.filter { i in !skip.contains { $0.contains(i) } } }
    }

    /// Aligns `recording` with the lesson's render: `render`'s bars at their render times
    /// (`bars`). Each order of the repeats is tried; the one whose path costs least wins.
    public static func align(render: AlignmentFeatures, bars: [ScoreBar], recording: AlignmentFeatures) -> RecordingAlignment? {
        guard !bars.isEmpty, render.count > 0, recording.count > 0 else { return nil }
        let rate = render.rate
        func frame(_ seconds: Double) -> Int { max(0, min(render.count, Int((seconds * rate).rounded()))) }
        var best: (path: MultiscaleDTW.Path, order: [Int], starts: [Int], seq: AlignmentFeatures)?
        let all = orders(bars)
        for order in all {
            // The render's lead-in, each bar in this order, then the tail after the last bar.
            var parts = [render.slice(0..<frame(bars[0].start))]
            var starts: [Int] = []
            var at = parts[0].count
            for i in order {
                starts.append(at)
                let part = render.slice(frame(bars[i].start)..<frame(bars[i].end))
                parts.append(part)
                at += part.count
            }
            parts.append(render.slice(frame(bars[bars.count - 1].end)..<render.count))
            let seq = AlignmentFeatures.joined(parts, rate: rate)
            guard let path = MultiscaleDTW.align(seq, recording) else { continue }
            if best == nil || path.meanCost < best!.path.meanCost { best = (path, order, starts, seq) }
        }
        guard let best else { return nil }
        let map = PathMap(best.path)
        var out: [AlignedBar] = []
        for (k, i) in best.order.enumerated() {
            let bar = bars[i]
            let startFrame = Double(best.starts[k])
            let shift = startFrame / rate - bar.start
            let endFrame = Double(best.starts[k]) + (bar.end - bar.start) * rate
            let start = map.second(at: startFrame) / rate
            let beats = bar.beats.map { map.second(at: ($0 + shift) * rate) / rate }
            let confidence = self.confidence(path: best.path, seq: best.seq, recording: recording,
                                             frames: Int(startFrame)..<max(Int(startFrame) + 1, Int(endFrame)),
                                             scoreSeconds: bar.end - bar.start,
                                             recordedSeconds: map.second(at: endFrame) / rate - start)
            out.append(AlignedBar(bar: bar.label, pass: bar.pass, number: bar.number, start: start, end: map.second(at: endFrame) / rate,
                                  confidence: confidence, beats: beats))
        }
        return RecordingAlignment(bars: out, method: .audio, repeatsPlayed: best.order.count == bars.count)
    }

    /// How much better the path's pairs fit than pairs two seconds off (1: far better, 0: no
    /// better than a guess), halved where the bar's tempo would be under a third or over three
    /// times the lesson's.
    static func confidence(path: MultiscaleDTW.Path, seq: AlignmentFeatures, recording: AlignmentFeatures,
                           frames: Range<Int>, scoreSeconds: Double, recordedSeconds: Double) -> Double {
        var on: Float = 0, off: Float = 0, n: Float = 0
        let shift = Int(2 * recording.rate)
        for k in 0..<path.count where frames.contains(Int(path.first[k])) {
            let i = Int(path.first[k]), j = Int(path.second[k])
            on += seq.cost(i, recording, j)
            let early = j - shift, late = j + shift
            var guess: Float = 0, g: Float = 0
            if early >= 0 { guess += seq.cost(i, recording, early); g += 1 }
            if late < recording.count { guess += seq.cost(i, recording, late); g += 1 }
            off += g > 0 ? guess / g : 1
            n += 1
        }
        guard n > 0 else { return 0 }
        var c = Double(max(0, min(1, 1 - on / max(off, 1e-3))))
        // Rescaled so a good match (a third of a guess's cost) is near 1.
        c = min(1, c * 1.4)
        let ratio = recordedSeconds / max(scoreSeconds, 1e-3)
        if !(ratio > 1.0 / 3 && ratio < 3) { c *= 0.5 }
        return (c * 100).rounded() / 100
    }

    /// A path read as a function: the second sequence's (fractional) frame at a first-sequence frame.
    struct PathMap {
        var middle: [Double]

        init(_ path: MultiscaleDTW.Path) {
            let n = Int(path.first.last ?? 0) + 1
            var lo = [Int32](repeating: .max, count: n), hi = [Int32](repeating: .min, count: n)
            for k in 0..<path.count {
                let i = Int(path.first[k])
                lo[i] = min(lo[i], path.second[k])
                hi[i] = max(hi[i], path.second[k])
            }
            middle = (0..<n).map { Double(lo[$0]) / 2 + Double(hi[$0]) / 2 }
        }

        func second(at frame: Double) -> Double {
            guard !middle.isEmpty else { return 0 }
            let f = max(0, min(Double(middle.count - 1), frame))
            let i = Int(f), t = f - Double(i)
            return i + 1 < middle.count ? middle[i] * (1 - t) + middle[i + 1] * t : middle[i]
        }
    }
}

/// The learner's taps (one per counted beat, in seconds of the recording) as the alignment:
/// the k-th tap is the k-th beat of the bars as the recording plays them (the order of the
/// repeats whose beat count is nearest the taps').
public enum TapAligner {
    public static func align(taps: [Double], bars: [ScoreBar]) -> RecordingAlignment? {
        let taps = taps.filter(\.isFinite).sorted()
        guard !taps.isEmpty, !bars.isEmpty else { return nil }
        let all = BarAligner.orders(bars)
        func beatCount(_ order: [Int]) -> Int { order.reduce(0) { $0 + max(1, bars[$1].beats.count) } }
        let order = all.min { abs(beatCount($0) - taps.count) < abs(beatCount($1) - taps.count) } ?? all[0]
        var out: [AlignedBar] = []
        var t = 0
        for i in order {
            let n = max(1, bars[i].beats.count)
            guard t < taps.count else { break }
            let beats = Array(taps[t..<min(taps.count, t + n)])
            // Ends at the next tap, else one beat (the mean tapped beat) after its last.
            let spacing = taps.count > 1 ? (taps[taps.count - 1] - taps[0]) / Double(taps.count - 1) : 0.5
            let end = t + n < taps.count ? taps[t + n] : beats[beats.count - 1] + spacing
            out.append(AlignedBar(bar: bars[i].label, pass: bars[i].pass, number: bars[i].number, start: beats[0], end: end, confidence: 1, beats: beats))
            t += n
        }
        return RecordingAlignment(bars: out, method: .taps, repeatsPlayed: order.count == bars.count)
    }
}
