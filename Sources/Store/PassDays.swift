import Foundation
import GRDB

/// The history of one lesson on one (local) day, as `passDay` keeps it (migration v13, kept by
/// triggers on `pass`): what the method and the stats need of that day's passes, so `today`,
/// `next` and `stats` read days and indexes instead of every pass a learner ever played. Only
/// passes whose numbers are sane (`PassRecord.isSane`) count, as when passes are read.
public struct PassDay: Equatable, Sendable {
    public var lessonID: String
    /// The start of the day (local time).
    public var day: Date
    /// Complete passes (a pass left before its end counts its time only).
    public var passes: Int
    /// Complete passes with a score.
    public var scored: Int
    /// Practice time, every pass.
    public var seconds: Double
    /// The day's best score of a complete pass (the spaced repetition's day score).
    public var bestScore: Double?
    /// The furthest last bar (`Int.max` for a pass without bars) of a pass that day that masters
    /// the lesson if it reaches the lesson's furthest bar (`Mastery`'s rule but the bar).
    public var masterLastBar: Int?
    /// The furthest last bar of any pass that day.
    public var maxLastBar: Int?

    public init(lessonID: String, day: Date, passes: Int = 0, scored: Int = 0, seconds: Double = 0, bestScore: Double? = nil,
                masterLastBar: Int? = nil, maxLastBar: Int? = nil) {
        self.lessonID = lessonID
        self.day = day
        self.passes = passes
        self.scored = scored
        self.seconds = seconds
        self.bestScore = bestScore
        self.masterLastBar = masterLastBar
        self.maxLastBar = maxLastBar
    }

    /// The same summary made from passes in memory (what the triggers keep, for a path built
    /// from passes and for the tests that check the two agree).
    public static func summarise(_ passes: [PassRecord], calendar: Calendar = .current) -> [PassDay] {
        var out: [String: PassDay] = [:]
        for p in passes where p.isSane {
            let day = calendar.startOfDay(for: p.startedAt)
            let key = "\(p.lessonID)\u{0}\(day.timeIntervalSince1970)"
            var d = out[key] ?? PassDay(lessonID: p.lessonID, day: day)
            d.passes += p.complete ? 1 : 0
            d.scored += p.complete && p.score != nil ? 1 : 0
            d.seconds += p.durationSeconds
            if p.complete, let s = p.score { d.bestScore = max(d.bestScore ?? s, s) }
            if isCandidate(p) { d.masterLastBar = max(d.masterLastBar ?? Int.min, p.lastBar ?? Int.max) }
            if let b = p.lastBar { d.maxLastBar = max(d.maxLastBar ?? b, b) }
            out[key] = d
        }
        return out.values.sorted { ($0.lessonID, $0.day) < ($1.lessonID, $1.day) }
    }

    /// `Mastery.masteringPasses`' rule without the furthest bar.
    static func isCandidate(_ p: PassRecord) -> Bool {
        guard p.complete, p.mode == .play, p.hand == .both else { return false }
        let score: Double = p.score ?? 0
        let first: Int = p.firstBar ?? 1
        return p.tempoPercent >= Mastery.minimumTempo && score >= Mastery.minimumScore && first <= 1
    }

    // MARK: The SQL the triggers and the migration share (`p` is `NEW.`, `OLD.` or "")

    /// A pass `PassRecord.isSane` keeps, in SQL.
    static func sane(_ p: String) -> String {
        """
        (typeof(\(p)durationSeconds) IN ('real', 'integer') AND \(p)durationSeconds BETWEEN 0 AND \(PassRecord.longestSeconds) \
        AND typeof(\(p)tempoPercent) = 'integer' AND \(p)tempoPercent BETWEEN 1 AND 1000 \
        AND (\(p)score IS NULL OR (typeof(\(p)score) IN ('real', 'integer') AND \(p)score BETWEEN 0 AND 100)) \
        AND (\(p)accuracy IS NULL OR (typeof(\(p)accuracy) IN ('real', 'integer') AND \(p)accuracy BETWEEN 0 AND 100)) \
        AND (\(p)firstBar IS NULL OR (typeof(\(p)firstBar) = 'integer' AND \(p)firstBar BETWEEN -1 AND 1000000)) \
        AND (\(p)lastBar IS NULL OR (typeof(\(p)lastBar) = 'integer' AND \(p)lastBar BETWEEN -1 AND 1000000)) \
        AND \(day(p)) IS NOT NULL)
        """
    }

    /// `isCandidate` in SQL.
    static func candidate(_ p: String) -> String {
        "(\(p)complete AND \(p)mode = 'play' AND \(p)hand = 'both' AND \(p)tempoPercent >= \(Mastery.minimumTempo) "
            + "AND \(p)score >= \(Mastery.minimumScore) AND coalesce(\(p)firstBar, 1) <= 1)"
    }

    /// The pass's local day, `YYYY-MM-DD`.
    static func day(_ p: String) -> String { "date(\(p)startedAt, 'localtime')" }

    /// Fills `passDay` from the passes `filter` selects.
    static func fill(_ filter: String) -> String {
        """
        INSERT INTO passDay (lessonID, day, passes, scored, seconds, bestScore, masterLastBar, maxLastBar)
            SELECT lessonID, d, SUM(complete != 0), SUM(complete != 0 AND score IS NOT NULL), SUM(durationSeconds),
                   MAX(CASE WHEN complete THEN score END), MAX(CASE WHEN c THEN coalesce(lastBar, \(Int.max)) END), MAX(lastBar)
            FROM (SELECT *, \(day("")) AS d, \(candidate("")) AS c FROM pass WHERE \(sane("")) AND (\(filter)))
            GROUP BY lessonID, d;
        """
    }

    /// What a sane pass inserted adds to its day (the v14 trigger's body; v16 adds the review
    /// interval and the lesson's totals after it).
    static let onInsert = """
                    INSERT INTO passDay (lessonID, day, passes, scored, seconds) VALUES (NEW.lessonID, \(PassDay.day("NEW.")), 0, 0, 0)
                        ON CONFLICT DO NOTHING;
                    UPDATE passDay SET
                        passes = passes + (NEW.complete != 0),
                        scored = scored + (NEW.complete != 0 AND NEW.score IS NOT NULL),
                        seconds = seconds + NEW.durationSeconds,
                        bestScore = CASE WHEN NEW.complete AND NEW.score IS NOT NULL AND (bestScore IS NULL OR NEW.score > bestScore)
                                         THEN NEW.score ELSE bestScore END,
                        masterLastBar = CASE WHEN \(PassDay.candidate("NEW."))
                                               AND (masterLastBar IS NULL OR coalesce(NEW.lastBar, \(Int.max)) > masterLastBar)
                                             THEN coalesce(NEW.lastBar, \(Int.max)) ELSE masterLastBar END,
                        maxLastBar = CASE WHEN NEW.lastBar IS NOT NULL AND (maxLastBar IS NULL OR NEW.lastBar > maxLastBar)
                                          THEN NEW.lastBar ELSE maxLastBar END
                    WHERE lessonID = NEW.lessonID AND day = \(PassDay.day("NEW."));
        """

    /// Review's fold (`Review.schedule`) kept in SQL: sets `reviewInterval`, the interval after
    /// each scored day, on `lesson`'s days from `from` on (SQL expressions: `NEW.lessonID`, a day
    /// `YYYY-MM-DD`). Each day folds from the last interval stored before `from`: a day changed
    /// in the past redoes the days after it (none after the latest day: no row, no work).
    static func review(lesson: String, from: String) -> String {
        """
        UPDATE passDay SET reviewInterval = (
            WITH RECURSIVE s(n, best) AS (
                SELECT row_number() OVER (ORDER BY d.day), d.bestScore FROM passDay AS d
                WHERE d.lessonID = passDay.lessonID AND d.bestScore IS NOT NULL AND d.day >= \(from) AND d.day <= passDay.day),
            f(n, iv) AS (
                SELECT 0, coalesce((SELECT p.reviewInterval FROM passDay AS p
                                    WHERE p.lessonID = passDay.lessonID AND p.bestScore IS NOT NULL AND p.day < \(from)
                                    ORDER BY p.day DESC LIMIT 1), 1)
                UNION ALL
                SELECT s.n, CASE WHEN s.best >= \(Review.goodScore) THEN min(f.iv * 2, \(Review.longestDays)) ELSE max(1, f.iv / 2) END
                FROM f JOIN s ON s.n = f.n + 1)
            SELECT iv FROM f ORDER BY n DESC LIMIT 1)
        WHERE lessonID = \(lesson) AND bestScore IS NOT NULL AND day >= \(from);
        """
    }

    /// `reviewInterval` of `lesson`'s one day `day` (SQL expressions), folded from the last scored
    /// day before it: a pass on the latest day, the usual case, in two index look-ups.
    static func reviewDay(lesson: String, day: String) -> String {
        """
        UPDATE passDay SET reviewInterval = (
            SELECT CASE WHEN passDay.bestScore >= \(Review.goodScore) THEN min(prev.iv * 2, \(Review.longestDays)) ELSE max(1, prev.iv / 2) END
            FROM (SELECT coalesce((SELECT p.reviewInterval FROM passDay AS p
                                   WHERE p.lessonID = passDay.lessonID AND p.bestScore IS NOT NULL AND p.day < passDay.day
                                   ORDER BY p.day DESC LIMIT 1), 1) AS iv) AS prev)
        WHERE lessonID = \(lesson) AND day = \(day) AND bestScore IS NOT NULL;
        """
    }

    /// `passTotal`'s row of `lesson` made again from its days (after a pass was changed or deleted).
    static func total(lesson: String) -> String {
        """
        DELETE FROM passTotal WHERE lessonID = \(lesson);
        INSERT INTO passTotal (lessonID, passes, scored, seconds, bestScore)
            SELECT lessonID, SUM(passes), SUM(scored), SUM(seconds), MAX(bestScore) FROM passDay WHERE lessonID = \(lesson) GROUP BY lessonID;
        """
    }

    /// A stored day, `YYYY-MM-DD`, as the start of that day in `calendar`; nil when it does not read.
    static func date(_ text: String, calendar: Calendar) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
    }

    /// A row of `passDay`; `days` remembers the days read so far (a day is read once, not once per lesson).
    init(row: Row, calendar: Calendar, days: inout [String: Date]) throws {
        lessonID = try row.decode(forColumn: "lessonID")
        let text: String = try row.decode(forColumn: "day")
        guard let date = days[text] ?? Self.date(text, calendar: calendar) else { throw DamagedValue() }
        days[text] = date
        day = date
        passes = try row.decode(forColumn: "passes")
        scored = try row.decode(forColumn: "scored")
        seconds = try row.decode(forColumn: "seconds")
        bestScore = try row.decode(forColumn: "bestScore")
        masterLastBar = try row.decode(forColumn: "masterLastBar")
        maxLastBar = try row.decode(forColumn: "maxLastBar")
    }
}

extension Store {
    /// The history by lesson and day, oldest first (of one lesson, or from a day on).
    public func passDays(lessonID: String? = nil, since: Date? = nil, calendar: Calendar = .current) throws -> [PassDay] {
        var sql = "SELECT * FROM passDay"
        var args: [any DatabaseValueConvertible] = []
        var terms: [String] = []
        if let lessonID { terms.append("lessonID = ?"); args.append(lessonID) }
        if let since {
            let c = calendar.dateComponents([.year, .month, .day], from: since)
            terms.append("day >= ?")
            args.append(String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 1, c.day ?? 1))
        }
        if !terms.isEmpty { sql += " WHERE " + terms.joined(separator: " AND ") }
        sql += " ORDER BY day, lessonID"
        return try writer.read { db in
            var out: [PassDay] = []
            var days: [String: Date] = [:]
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(args))
            while let row = try cursor.next() {
                do { out.append(try PassDay(row: row, calendar: calendar, days: &days)) } catch { DamagedRows.note(table: "passDay", row: row) }
            }
            return out
        }
    }

    /// The last `limit` passes of a lesson, oldest first (an index range: never the whole history).
    public func recentPasses(lessonID: String, limit: Int = 200) throws -> [PassRecord] {
        try writer.read { db in
            try PassRecord.fetchDecodable(db, PassRecord.filter(Column("lessonID") == lessonID)
                .order(Column("startedAt").desc, Column("id").desc).limit(limit), valid: \.isSane).reversed()
        }
    }

    /// The lesson's best complete pass with both hands in play mode (by score, then tempo).
    public func bestPlayPass(lessonID: String) throws -> PassRecord? {
        try writer.read { db in try bestPlayPass(lessonID: lessonID, db) }
    }

    func bestPlayPass(lessonID: String, _ db: Database) throws -> PassRecord? {
        try PassRecord.fetchDecodable(db, SQLRequest<Row>(sql: """
            SELECT * FROM pass WHERE lessonID = ? AND complete AND mode = 'play' AND hand = 'both' AND score IS NOT NULL
                AND score <= 100 ORDER BY score DESC, tempoPercent DESC LIMIT 8
            """, arguments: [lessonID]), table: "pass", valid: \.isSane).first
    }

    /// The last `limit` complete scored passes of all lessons, oldest first (the stats' sparklines).
    public func recentScoredPasses(limit: Int = 40) throws -> [PassRecord] {
        try writer.read { db in
            try PassRecord.fetchDecodable(db, SQLRequest<Row>(sql: """
                SELECT * FROM pass WHERE complete AND score IS NOT NULL ORDER BY startedAt DESC LIMIT ?
                """, arguments: [limit]), table: "pass", valid: \.isSane).reversed()
        }
    }
}
