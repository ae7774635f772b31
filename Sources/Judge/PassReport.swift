import Foundation

/// The figures of one pass or one section of it.
///
/// - accuracy = 100 × hit / (hit + missed + wrong + extra); 100 when there was nothing to
///   play and nothing was played. A wrong key therefore costs twice: once as wrong, once as
///   the missed right note.
/// - timingMeanMs / timingSdMs: mean and population standard deviation of (played − written)
///   time over hits, in ms (positive = late); 0 without hits.
/// - score (0–100) = 100 × Σ hit points / (hit + missed + wrong + extra), where an on-time hit
///   is worth 1 point and an early or late hit falls linearly from 1 at the on-time edge
///   (±50 ms) to 0.5 at the window edge (±150 ms). A perfect pass scores 100.
public struct ScoreFigures: Equatable, Sendable, Codable {
    public var hit = 0
    public var missed = 0
    public var wrong = 0
    public var extra = 0
    public var early = 0
    public var onTime = 0
    public var late = 0
    public var accuracy: Double = 100
    public var timingMeanMs: Double = 0
    public var timingSdMs: Double = 0
    public var score: Double = 100

    public init() {}

    init(_ judgements: [Judgement], window: TimingWindow) {
        var errors: [Double] = []
        var points = 0.0
        for j in judgements {
            switch j.verdict {
            case .early: early += 1
            case .onTime: onTime += 1
            case .late: late += 1
            case .wrongPitch: wrong += 1
            case .missed: missed += 1
            case .extra: extra += 1
            }
            if j.verdict.isHit, let e = j.errorMs {
                hit += 1
                errors.append(e)
                points += Self.points(errorMs: e, window: window)
            }
        }
        let total = hit + missed + wrong + extra
        accuracy = total == 0 ? 100 : Self.round(100 * Double(hit) / Double(total))
        score = total == 0 ? 100 : Self.round(100 * points / Double(total))
        if !errors.isEmpty {
            let mean = errors.reduce(0, +) / Double(errors.count)
            let variance = errors.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(errors.count)
            timingMeanMs = Self.round(mean)
            timingSdMs = Self.round(variance.squareRoot())
        }
    }

    /// Points for one hit: 1 when on time, down to 0.5 at the edge of the window.
    public static func points(errorMs: Double, window: TimingWindow) -> Double {
        let off = abs(errorMs) / 1000
        if off <= window.onTime { return 1 }
        let span = window.window - window.onTime
        guard span > 0 else { return 0.5 }
        return max(0.5, 1 - 0.5 * (off - window.onTime) / span)
    }

    static func round(_ x: Double) -> Double { (x * 100).rounded() / 100 }
}

/// One section's figures, with its index in the lesson.
public struct SectionReport: Equatable, Sendable, Codable {
    public var section: Int
    public var hit: Int
    public var missed: Int
    public var wrong: Int
    public var extra: Int
    public var early: Int
    public var onTime: Int
    public var late: Int
    public var accuracy: Double
    public var timingMeanMs: Double
    public var timingSdMs: Double
    public var score: Double

    init(section: Int, _ f: ScoreFigures) {
        self.section = section
        hit = f.hit; missed = f.missed; wrong = f.wrong; extra = f.extra
        early = f.early; onTime = f.onTime; late = f.late
        accuracy = f.accuracy; timingMeanMs = f.timingMeanMs; timingSdMs = f.timingSdMs; score = f.score
    }

    /// Notes the section asked for.
    public var expectedCount: Int { hit + missed }
}

/// The results of one pass, as the results panel shows it and `--report FILE` writes it.
public struct PassReport: Equatable, Sendable, Codable {
    public var hit: Int
    public var missed: Int
    public var wrong: Int
    public var extra: Int
    public var early: Int
    public var onTime: Int
    public var late: Int
    /// 0–100.
    public var accuracy: Double
    public var timingMeanMs: Double
    public var timingSdMs: Double
    /// 0–100, see `ScoreFigures`.
    public var score: Double
    public var windowMs: Double
    public var onTimeMs: Double
    /// Per-section figures, by section index.
    public var sections: [SectionReport]

    /// Builds the report from judgements; `sections` lists sections that must appear even
    /// when nothing in them was judged.
    public init(judgements: [Judgement], window: TimingWindow = TimingWindow(), sections: Set<Int> = []) {
        let all = ScoreFigures(judgements, window: window)
        hit = all.hit; missed = all.missed; wrong = all.wrong; extra = all.extra
        early = all.early; onTime = all.onTime; late = all.late
        accuracy = all.accuracy; timingMeanMs = all.timingMeanMs; timingSdMs = all.timingSdMs; score = all.score
        windowMs = ScoreFigures.round(window.window * 1000)
        onTimeMs = ScoreFigures.round(window.onTime * 1000)
        let indices = sections.union(judgements.map(\.section)).sorted()
        self.sections = indices.map { s in
            SectionReport(section: s, ScoreFigures(judgements.filter { $0.section == s }, window: window))
        }
    }

    /// The section to work on: lowest accuracy among sections with notes to play (ties: lower
    /// score, then the earlier section). Nil when every section is perfect.
    public var weakestSection: SectionReport? {
        let candidates = sections.filter { $0.expectedCount > 0 || $0.wrong + $0.extra > 0 }
        guard let worst = candidates.min(by: { a, b in
            a.accuracy != b.accuracy ? a.accuracy < b.accuracy
                : a.score != b.score ? a.score < b.score : a.section < b.section
        }) else { return nil }
        return worst.accuracy >= 100 ? nil : worst
    }

    /// Speed trainer: a pass at or above `threshold` % accuracy lets the tempo step up.
    public func isClean(threshold: Double = 90) -> Bool {
        accuracy >= threshold
    }

    /// The results panel's lines, e.g. "Accuracy 92% · score 88/100". `sectionName` turns a
    /// section index into what the learner sees (e.g. "bars 9–12").
    public func summaryLines(sectionName: (Int) -> String = { "section \($0 + 1)" }) -> [String] {
        func pct(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String((x * 10).rounded() / 10) }
        func ms(_ x: Double) -> String { (x >= 0 ? "+" : "−") + String(Int(abs(x).rounded())) }
        var lines = [
            "Accuracy \(pct(accuracy))% · score \(pct(score))/100",
            "Hit \(hit) (early \(early), on time \(onTime), late \(late)) · missed \(missed) · wrong \(wrong) · extra \(extra)",
            hit > 0 ? "Timing \(ms(timingMeanMs)) ms on average, spread ±\(Int(timingSdMs.rounded())) ms" : "Timing: no notes hit",
        ]
        if let weakest = weakestSection {
            lines.append("Work on \(sectionName(weakest.section)): \(pct(weakest.accuracy))% accuracy")
        }
        return lines
    }

    /// One JSON object (sorted keys) for `--report FILE`.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
