import Foundation
import GRDB
import Judge
import Testing
import TestSupport
@testable import Store

/// Issue 40, point 4: `today`, `next` and `stats` read the history by day (`passDay`, kept by
/// triggers) and indexes, never every pass; what they read agrees with the passes themselves.
@Suite struct HistoryByDayTests {
    static let start = Date(timeIntervalSince1970: 1_780_000_000)

    /// Passes over 30 days on the fixture's lessons: play and wait, both hands and one, complete
    /// and not, scored and not, some bars, some damaged (a 1e308 score, a duration of 2 days).
    static func history() -> [PassRecord] {
        var out: [PassRecord] = []
        let lessons = ["aaaa1111", "bbbb2222", "cccc3333"]
        for i in 0..<600 {
            let lesson = lessons[i % 3]
            let day = Double(i / 20) * 86_400 + Double((i * 7919) % 80_000)
            let score: Double? = i % 5 == 0 ? nil : Double((i * 37) % 101)
            var p = PassRecord(lessonID: lesson, startedAt: start.addingTimeInterval(day), mode: i % 4 == 0 ? .wait : .play,
                               hand: i % 6 == 0 ? .right : .both, tempoPercent: [80, 100, 110][i % 3 == 0 ? 1 : i % 3],
                               firstBar: i % 7 == 0 ? 3 : 1, lastBar: i % 11 == 0 ? nil : 8 + i % 3, durationSeconds: Double(30 + i % 50),
                               figures: nil, complete: i % 9 != 0)
            if let score { p = PassRecord(id: nil, lessonID: p.lessonID, startedAt: p.startedAt, mode: p.mode, hand: p.hand,
                                          tempoPercent: p.tempoPercent, firstBar: p.firstBar, lastBar: p.lastBar,
                                          durationSeconds: p.durationSeconds, figures: Self.figures(score), complete: p.complete) }
            out.append(p)
        }
        return out
    }

    static func figures(_ score: Double) -> ScoreFigures {
        ScoreFigures(hit: 10, missed: 0, wrong: 0, extra: 0, early: 0, onTime: 10, late: 0, accuracy: score, timingMeanMs: 0, timingSdMs: 0, score: score)
    }

    @Test func theHistoryByDayAgreesWithThePassesAndSurvivesDamage() throws {
        let store = try StoreFixture.seeded()
        let passes = Self.history()
        for p in passes { _ = try store.recordPass(p) }
        // Damage after the fact, as a hand edit does: the triggers redo that lesson.
        try store.writer.write { db in
            try db.execute(sql: "UPDATE pass SET score = 1e308 WHERE id = 5")
            try db.execute(sql: "UPDATE pass SET durationSeconds = 172800 WHERE id = 6")
        }
        // Passes on days long past, after the later ones (an import, a clock put right): a new
        // first day, and a day already there: the days after each are folded again (`reviewInterval`).
        for (day, score) in [(-5.0, 95.0), (2, 20)] {
            _ = try store.recordPass(PassRecord(id: nil, lessonID: "aaaa1111", startedAt: Self.start.addingTimeInterval(day * 86_400 + 3600),
                                                mode: .play, hand: .both, tempoPercent: 100, firstBar: 1, lastBar: 10, durationSeconds: 40,
                                                figures: Self.figures(score), complete: true))
        }
        let stored = try store.passes()
        let fromSQL = try store.passDays().sorted { ($0.lessonID, $0.day) < ($1.lessonID, $1.day) }
        let fromSwift = PassDay.summarise(stored)
        #expect(fromSQL == fromSwift)
        #expect(fromSQL.count > 60)
        // And the method's answers are the same from days as from every pass.
        for lesson in ["aaaa1111", "bbbb2222", "cccc3333"] {
            let mine = stored.filter { $0.lessonID == lesson }
            let days = fromSQL.filter { $0.lessonID == lesson }
            #expect(Mastery.masteringDays(days: days) == Mastery.masteringDays(mine))
            #expect(Mastery.status(days: days) == Mastery.status(mine))
            #expect(Review.schedule(days: days) == Review.schedule(mine))
        }
        // The method's path reads the same answers from a few index look-ups per lesson.
        let path = try store.methodPath()
        for lesson in ["aaaa1111", "bbbb2222", "cccc3333"] {
            let mine = stored.filter { $0.lessonID == lesson }
            let l = try #require(path.first { $0.listing.lesson.id == lesson })
            #expect(l.status == Mastery.status(mine), "\(lesson)")
            #expect(l.firstMasteringDay == Mastery.masteringDays(mine).first, "\(lesson)")
            #expect(l.schedule == Review.schedule(mine), "\(lesson)")
            #expect(l.schedule != nil)
        }
        let all = PracticeStats.compute(stored, now: Self.start.addingTimeInterval(31 * 86_400))
        let fast = try store.practiceStats(now: Self.start.addingTimeInterval(31 * 86_400))
        #expect(fast.days == all.days && fast.weeks == all.weeks)
        #expect(fast.passCount == all.passCount && fast.scoredPassCount == all.scoredPassCount && fast.bestScore == all.bestScore)
        #expect(abs(fast.totalSeconds - all.totalSeconds) < 1e-6)
        #expect(fast.scores == Array(all.scores.suffix(40)) && fast.latestScore == all.latestScore)
    }

    /// The review interval kept per day (`reviewInterval`) is Review's fold whatever the order
    /// the passes come in: a pass on a day before the others, or a better one on a day already
    /// there, folds the later days again; the lesson's totals follow.
    @Test func aPassOnAnEarlierDayFoldsTheLaterDaysAgain() throws {
        let store = try StoreFixture.seeded()
        func pass(_ day: Double, _ score: Double) -> PassRecord {
            PassRecord(id: nil, lessonID: "aaaa1111", startedAt: Self.start.addingTimeInterval(day * 86_400 + 3600), mode: .play, hand: .both,
                       tempoPercent: 100, firstBar: 1, lastBar: 8, durationSeconds: 30, figures: Self.figures(score), complete: true)
        }
        var intervals: [Int] = []
        for (day, score) in [(10.0, 95.0), (11, 95), (12, 95), (5, 95), (11, 50), (3, 40), (4, 99), (12, 30)] {
            _ = try store.recordPass(pass(day, score))
            let mine = try store.passes(lessonID: "aaaa1111")
            let l = try #require(try store.methodPath().first { $0.listing.lesson.id == "aaaa1111" })
            #expect(l.schedule == Review.schedule(mine), "after day \(day) scored \(score)")
            intervals.append(l.schedule?.intervalDays ?? 0)
        }
        #expect(intervals == [2, 4, 8, 16, 16, 16, 32, 32], "\(intervals)")
        let stats = try store.practiceStats(now: Self.start.addingTimeInterval(13 * 86_400))
        #expect(stats.passCount == 8 && stats.scoredPassCount == 8 && stats.bestScore == 99 && stats.totalSeconds == 240)
    }

    /// The queries `today`, `next` and `stats` run never scan the whole `pass` table.
    @Test func noQueryOfTodayNextOrStatsScansEveryPass() throws {
        let store = try StoreFixture.seeded()
        let queries: [(String, StatementArguments)] = [
            ("SELECT * FROM passDay ORDER BY day, lessonID", []),
            ("SELECT * FROM pass WHERE lessonID = ? ORDER BY startedAt DESC, id DESC LIMIT 200", ["aaaa1111"]),
            ("""
             SELECT * FROM pass WHERE lessonID = ? AND complete AND mode = 'play' AND hand = 'both' AND score IS NOT NULL
                 AND score <= 100 ORDER BY score DESC, tempoPercent DESC LIMIT 8
             """, ["aaaa1111"]),
            ("SELECT * FROM pass WHERE complete AND score IS NOT NULL ORDER BY startedAt DESC LIMIT ?", [40]),
            ("SELECT * FROM pass WHERE complete ORDER BY startedAt DESC, id DESC LIMIT ?", [40]),
        ]
        for (sql, args) in queries {
            let plan = try store.writer.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: args).map { $0["detail"] as String? ?? "" }
            }
            #expect(!plan.contains { $0.hasPrefix("SCAN pass") && !$0.contains("INDEX") }, "\(sql): \(plan)")
            #expect(!plan.contains { $0 == "SCAN pass" }, "\(sql): \(plan)")
        }
    }
}
