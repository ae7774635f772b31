import Foundation
import GRDB
import MIDIFile

/// Practice statistics computed from passes: pure, so the day/week arithmetic is tested
/// with a fixed clock and time zone.
public struct PracticeStats: Sendable {
    public struct Period: Equatable, Sendable {
        /// Start of the day or week (in the calendar's time zone).
        public var start: Date
        public var seconds: Double
        public var passes: Int
    }

    /// The last `days` days, oldest first, including empty ones.
    public var days: [Period]
    /// The last `weeks` weeks (ISO weeks, Monday first), oldest first.
    public var weeks: [Period]
    public var passCount: Int
    public var scoredPassCount: Int
    public var totalSeconds: Double
    /// The best score played in time (play, memory, a judged recording: `PassMode.scoresInTime`),
    /// nil when none was; a wait-mode 100 is never this best.
    public var bestScore: Double?
    /// The best score of each mode practised with a score, the in-time modes first.
    public var bests: [(mode: PassMode, score: Double)] = []
    public var latestScore: Double?
    /// Scores of scored passes in time order.
    public var scores: [Double]
    /// Tempo percentages of all passes in time order.
    public var tempos: [Double]

    public static func compute(_ passes: [PassRecord], now: Date, calendar: Calendar = .current,
                               days: Int = 7, weeks: Int = 8) -> PracticeStats {
        var cal = calendar
        cal.firstWeekday = 2
        cal.minimumDaysInFirstWeek = 4
        let sorted = passes.sorted { ($0.startedAt, $0.id ?? 0) < ($1.startedAt, $1.id ?? 0) }
        let today = cal.startOfDay(for: now)
        var dayStarts: [Date] = []
        for i in stride(from: days - 1, through: 0, by: -1) {
            if let d = cal.date(byAdding: .day, value: -i, to: today) { dayStarts.append(d) }
        }
        let thisWeek = cal.dateInterval(of: .weekOfYear, for: now)?.start ?? today
        var weekStarts: [Date] = []
        for i in stride(from: weeks - 1, through: 0, by: -1) {
            if let d = cal.date(byAdding: .weekOfYear, value: -i, to: thisWeek) { weekStarts.append(d) }
        }
        var dayPeriods = dayStarts.map { Period(start: $0, seconds: 0, passes: 0) }
        var weekPeriods = weekStarts.map { Period(start: $0, seconds: 0, passes: 0) }
        for p in sorted {
            let d = cal.startOfDay(for: p.startedAt)
            // All practice time counts; only complete passes count as passes.
            let counted = p.complete ? 1 : 0
            if let i = dayStarts.firstIndex(of: d) {
                dayPeriods[i].seconds += p.durationSeconds
                dayPeriods[i].passes += counted
            }
            if let w = cal.dateInterval(of: .weekOfYear, for: p.startedAt)?.start, let i = weekStarts.firstIndex(of: w) {
                weekPeriods[i].seconds += p.durationSeconds
                weekPeriods[i].passes += counted
            }
        }
        let whole = sorted.filter(\.complete)
        let scores = whole.compactMap(\.score)
        var best: [PassMode: Double] = [:]
        var order: [PassMode] = []
        for p in whole {
            guard let s = p.score else { continue }
            if best[p.mode] == nil { order.append(p.mode) }
            best[p.mode] = max(best[p.mode] ?? s, s)
        }
        let bests = order.sorted { a, b in a.scoresInTime != b.scoresInTime ? a.scoresInTime : (best[a] ?? 0) > (best[b] ?? 0) }
            .map { (mode: $0, score: best[$0] ?? 0) }
        return PracticeStats(days: dayPeriods, weeks: weekPeriods, passCount: whole.count, scoredPassCount: scores.count,
                             totalSeconds: sorted.reduce(0) { $0 + $1.durationSeconds },
                             bestScore: bests.filter { $0.mode.scoresInTime }.map(\.score).max(), bests: bests,
                             latestScore: scores.last, scores: scores, tempos: whole.map { Double($0.tempoPercent) })
    }
}

/// Progress drawn in one line of block characters ▁▂▃▄▅▆▇█.
public enum Sparkline {
    static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// One block per value (the last `width` values), scaled between `lower` and `upper`, or the
    /// values' own range when not given. A flat series draws at mid height.
    public static func render(_ values: [Double], width: Int = 40, lower: Double? = nil, upper: Double? = nil) -> String {
        let v = Array(values.suffix(max(0, width)))
        guard !v.isEmpty else { return "" }
        let lo = lower ?? (v.min() ?? 0)
        let hi = upper ?? (v.max() ?? 0)
        if hi <= lo { return String(repeating: blocks[3], count: v.count) }
        return String(v.map { x in
            let t = (min(max(x, lo), hi) - lo) / (hi - lo)
            return blocks[max(0, min(7, Int(saturating: (t * 7).rounded())))]
        })
    }
}

extension Store {
    /// `etude stats` of every lesson without reading every pass: the totals from each lesson's
    /// (`passTotal`), the days and weeks shown from the history by day (`passDay`) since the
    /// first of them, the sparklines (and the latest score) from the last `recent` complete
    /// passes, read through an index: its cost grows with the lessons and what is shown.
    public func practiceStats(now: Date, calendar: Calendar = .current, days: Int = 7, weeks: Int = 8,
                              recent: Int = 40) throws -> PracticeStats {
        var cal = calendar
        cal.firstWeekday = 2
        cal.minimumDaysInFirstWeek = 4
        let empty = PracticeStats.compute([], now: now, calendar: calendar, days: days, weeks: weeks)
        var stats = empty
        let firstShown = min(empty.days.first?.start ?? now, empty.weeks.first?.start ?? now)
        try writer.read { db in
            // The totals: one row per lesson (`passTotal`, kept by the triggers).
            if let row = try Row.fetchOne(db, sql: "SELECT SUM(passes) AS passes, SUM(scored) AS scored, SUM(seconds) AS seconds, MAX(bestScore) AS best FROM passTotal") {
                stats.passCount = (try? row.decode(Int.self, forColumn: "passes")) ?? 0
                stats.scoredPassCount = (try? row.decode(Int.self, forColumn: "scored")) ?? 0
                stats.totalSeconds = (try? row.decode(Double.self, forColumn: "seconds")) ?? 0
                stats.bestScore = try? row.decode(Double.self, forColumn: "best")
            }
        }
        // The days and weeks shown: the days since the first one shown, through `passDay_day`.
        for d in try passDays(since: firstShown, calendar: calendar) {
            if let i = stats.days.firstIndex(where: { $0.start == d.day }) {
                stats.days[i].seconds += d.seconds
                stats.days[i].passes += d.passes
            }
            if let w = cal.dateInterval(of: .weekOfYear, for: d.day)?.start, let i = stats.weeks.firstIndex(where: { $0.start == w }) {
                stats.weeks[i].seconds += d.seconds
                stats.weeks[i].passes += d.passes
            }
        }
        let complete = try writer.read { db in
            try PassRecord.fetchDecodable(db, SQLRequest<Row>(sql: "SELECT * FROM pass WHERE complete ORDER BY startedAt DESC, id DESC LIMIT ?",
                                                              arguments: [recent]), table: "pass", valid: \.isSane).reversed()
        }
        stats.tempos = complete.map { Double($0.tempoPercent) }
        stats.scores = try recentScoredPasses(limit: recent).compactMap(\.score)
        stats.latestScore = stats.scores.last
        return stats
    }
}
