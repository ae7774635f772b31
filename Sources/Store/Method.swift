import Foundation
import GRDB
import Judge
import Lesson

/// What mastering a lesson means in the method, written once for `etude next`, `etude today`
/// and the browser's marks: both hands together in play mode at 100 % of the written tempo or
/// faster, scoring 90 % or more over the whole lesson, on two different days. One good day can
/// be luck; a second day shows the piece is learnt.
public enum Mastery {
    public static let minimumScore = 90.0
    public static let minimumTempo = 100
    public static let daysNeeded = 2
    /// The rule in words, for the help and the reasons `etude next` gives.
    public static let rule = "both hands together in play mode at 100 % tempo or faster, scoring 90 % or more from the first bar to the last, on two different days"

    public enum Status: String, Codable, Sendable {
        case new
        case inProgress = "in progress"
        case mastered
    }

    /// The passes of one lesson that count towards mastering it. A pass is over the whole lesson
    /// when it starts at the first bar (or the pickup) and reaches the furthest bar any pass of
    /// the lesson reached (the history keeps bars, not the lesson's length).
    public static func masteringPasses(_ passes: [PassRecord]) -> [PassRecord] {
        let furthest = passes.compactMap(\.lastBar).max()
        return passes.filter { p in
            p.complete && p.mode == .play && p.hand == .both && p.tempoPercent >= minimumTempo
                && (p.score ?? 0) >= minimumScore && (p.firstBar ?? 1) <= 1
                && (furthest == nil || (p.lastBar ?? Int.max) >= furthest ?? 0)
        }
    }

    /// The days (start of day) with a mastering pass, oldest first.
    public static func masteringDays(_ passes: [PassRecord], calendar: Calendar = .current) -> [Date] {
        Array(Set(masteringPasses(passes).map { calendar.startOfDay(for: $0.startedAt) })).sorted()
    }

    /// New (never practised), in progress, or mastered.
    public static func status(_ passes: [PassRecord], calendar: Calendar = .current) -> Status {
        if masteringDays(passes, calendar: calendar).count >= daysNeeded { return .mastered }
        return passes.isEmpty ? .new : .inProgress
    }

    /// `masteringDays` from the history by day (`PassDay`): the same days, read from a row per
    /// day instead of every pass.
    public static func masteringDays(days: [PassDay]) -> [Date] {
        let furthest = days.compactMap(\.maxLastBar).max()
        return Array(Set(days.filter { d in d.masterLastBar.map { furthest == nil || $0 >= furthest ?? 0 } ?? false }.map(\.day))).sorted()
    }

    /// `status` from the history by day.
    public static func status(days: [PassDay]) -> Status {
        if masteringDays(days: days).count >= daysNeeded { return .mastered }
        return days.isEmpty ? .new : .inProgress
    }
}

/// Spaced repetition of learnt pieces: after each day's best scored pass the interval to the
/// next review doubles when it was good (90 % or more) and halves when it was not, from one
/// day up to 64; the piece is due that many days after the day it was last played.
public enum Review {
    public static let goodScore = 90.0
    public static let longestDays = 64

    public struct Schedule: Equatable, Sendable {
        public var intervalDays: Int
        public var lastPlayed: Date
        public var due: Date
    }

    /// The schedule from one lesson's passes; nil when none was scored.
    public static func schedule(_ passes: [PassRecord], calendar: Calendar = .current) -> Schedule? {
        var best: [Date: Double] = [:]
        for p in passes where p.complete {
            guard let s = p.score, s.isFinite else { continue }
            let day = calendar.startOfDay(for: p.startedAt)
            best[day] = max(best[day] ?? -Double.infinity, s)
        }
        return schedule(best: best, calendar: calendar)
    }

    /// The schedule from one lesson's history by day (each day's best score).
    public static func schedule(days: [PassDay], calendar: Calendar = .current) -> Schedule? {
        var best: [Date: Double] = [:]
        for d in days { if let s = d.bestScore, s.isFinite { best[d.day] = max(best[d.day] ?? -Double.infinity, s) } }
        return schedule(best: best, calendar: calendar)
    }

    static func schedule(best: [Date: Double], calendar: Calendar) -> Schedule? {
        guard let last = best.keys.max() else { return nil }
        var interval = 1
        for day in best.keys.sorted() {
            interval = (best[day] ?? 0) >= goodScore ? min(interval * 2, longestDays) : max(1, interval / 2)
        }
        let due = calendar.date(byAdding: .day, value: interval, to: last) ?? last
        return Schedule(intervalDays: interval, lastPlayed: last, due: due)
    }
}

/// One lesson on the method's path with what the history says of it.
public struct PathLesson: Equatable, Sendable {
    public var listing: LessonListing
    public var status: Mastery.Status
    /// Passes of this lesson, oldest first. From the store: none, but for the current piece
    /// its last 200 (`Store.recentPasses`, read for the weakest section by `etude today`).
    public var passes: [PassRecord]
    /// The first day a pass mastered it (`Mastery.masteringDays`' first), nil before one did.
    public var firstMasteringDay: Date?
    /// Its review schedule (`Review`), nil when it was never scored.
    public var schedule: Review.Schedule?
    /// Its best complete pass with both hands in play mode (by score, then tempo); from the store
    /// only while it is not mastered (what `etude next` says of it).
    public var bestPlay: PassRecord?

    /// A path lesson from all its passes.
    public init(listing: LessonListing, status: Mastery.Status, passes: [PassRecord], calendar: Calendar = .current) {
        self.listing = listing
        self.status = status
        self.passes = passes
        firstMasteringDay = Mastery.masteringDays(passes, calendar: calendar).first
        schedule = Review.schedule(passes, calendar: calendar)
        bestPlay = passes.filter { $0.complete && $0.mode == .play && $0.hand == .both && $0.score != nil }
            .max { ($0.score ?? 0, $0.tempoPercent) < ($1.score ?? 0, $1.tempoPercent) }
    }

    /// A path lesson from what the store keeps of its history.
    public init(listing: LessonListing, status: Mastery.Status, firstMasteringDay: Date?, schedule: Review.Schedule?, bestPlay: PassRecord?) {
        self.listing = listing
        self.status = status
        passes = []
        self.firstMasteringDay = firstMasteringDay
        self.schedule = schedule
        self.bestPlay = bestPlay
    }

    public var place: CurriculumPlace {
        CurriculumPlace(level: listing.lesson.level ?? 0, keyName: listing.lesson.keyName, noteCount: listing.lesson.noteCount,
                        seconds: listing.lesson.durationSeconds, title: listing.lesson.title)
    }
}

extension Store {
    /// Every listed lesson with a level (the curriculum and any graded lesson added), in the
    /// path's order (`CurriculumPlace`), each with its mastery, its first mastering day, its
    /// review schedule and (while not mastered) its best play pass. Its cost grows with the
    /// lessons, never with the passes or the days: a few index look-ups per lesson in the
    /// history by day (`passDay`, its `reviewInterval` kept by the triggers) and in `pass`.
    public func methodPath(calendar: Calendar = .current) throws -> [PathLesson] {
        let leveled = try lessons().filter { $0.lesson.level != nil }
        return try writer.read { db in
            // Days a pass mastered the lesson reaching its furthest bar (`Mastery.masteringDays(days:)`;
            // a sane bar is -1 or more): two are enough to know it is mastered, fewer are all there are.
            let mastering = try db.cachedStatement(sql: """
                SELECT day FROM passDay WHERE lessonID = ?1 AND masterLastBar >=
                    coalesce((SELECT MAX(maxLastBar) FROM passDay WHERE lessonID = ?1), -1) LIMIT \(Mastery.daysNeeded)
                """)
            let practised = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM passDay WHERE lessonID = ?)")
            let lastScored = try db.cachedStatement(sql: """
                SELECT day, reviewInterval FROM passDay WHERE lessonID = ? AND bestScore IS NOT NULL ORDER BY day DESC LIMIT 1
                """)
            return try leveled.map { l in
                let id = l.lesson.id
                guard try Bool.fetchOne(practised, arguments: [id]) == true else {
                    return PathLesson(listing: l, status: .new, firstMasteringDay: nil, schedule: nil, bestPlay: nil)
                }
                let days = try String.fetchAll(mastering, arguments: [id]).compactMap { PassDay.date($0, calendar: calendar) }.sorted()
                let status: Mastery.Status = days.count >= Mastery.daysNeeded ? .mastered : .inProgress
                var schedule: Review.Schedule?
                if let row = try Row.fetchOne(lastScored, arguments: [id]), let text = try? row.decode(String.self, forColumn: "day"),
                   let day = PassDay.date(text, calendar: calendar), let interval = try? row.decode(Int.self, forColumn: "reviewInterval"),
                   (1...Review.longestDays).contains(interval) {
                    schedule = Review.Schedule(intervalDays: interval, lastPlayed: day,
                                               due: calendar.date(byAdding: .day, value: interval, to: day) ?? day)
                }
                return PathLesson(listing: l, status: status, firstMasteringDay: days.first, schedule: schedule,
                                  bestPlay: status == .mastered ? nil : try bestPlayPass(lessonID: id, db))
            }.sorted { $0.place < $1.place }
        }
    }
}

extension Store {
    /// The lesson chosen as the method's current piece (`etude next --set`), nil for the path's own.
    public func methodChoice() throws -> String? {
        try writer.read { db in try String.fetchOne(db, sql: "SELECT lessonID FROM methodChoice WHERE slot = 1") }
    }

    /// Chooses the current piece (nil: back to the path's own).
    public func setMethodChoice(_ lessonID: String?) throws {
        try writer.write { db in
            if let lessonID {
                try db.execute(sql: "INSERT OR REPLACE INTO methodChoice (slot, lessonID, chosenAt) VALUES (1, ?, ?)", arguments: [lessonID, Date()])
            } else {
                try db.execute(sql: "DELETE FROM methodChoice")
            }
        }
    }
}

/// A sight-reading exercise played: which level and seed made it, and the pass it scored
/// (`etude sight-read`; the seeds played are not offered again).
public struct SightReadingRecord: Codable, Equatable, Sendable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "sightReading"
    public var id: Int64?
    public var level: Int
    public var seed: Int64
    public var lessonID: String
    public var passID: Int64?
    public var score: Double?
    public var playedAt: Date

    public init(level: Int, seed: Int64, lessonID: String, passID: Int64?, score: Double?, playedAt: Date) {
        self.level = level
        self.seed = seed
        self.lessonID = lessonID
        self.passID = passID
        self.score = score
        self.playedAt = playedAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Decoded with every value checked: a level outside the method's (1–8), a score that
    /// is not 0–100 (1e308), a date that does not read make the row damaged (skipped and reported
    /// once, `DamagedRows`), never a trap or a refusal of the whole history.
    public init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        level = try row.decode(forColumn: "level")
        seed = try row.decode(forColumn: "seed")
        lessonID = try row.decode(forColumn: "lessonID")
        passID = try row.decode(forColumn: "passID")
        score = try row.decode(forColumn: "score")
        playedAt = try row.decode(forColumn: "playedAt")
        guard SightReadingExercise.levels.contains(level),
              score.map({ $0.isFinite && (0...100).contains($0) }) ?? true else { throw DamagedValue() }
    }
}

/// A value read from the database that is out of its range: the row is skipped (`DamagedRows`).
struct DamagedValue: Error {}

extension Store {
    public func recordSightReading(_ record: SightReadingRecord) throws {
        try writer.write { db in
            var r = record
            try r.insert(db)
        }
    }

    /// Sight-reading results, oldest first.
    public func sightReadings() throws -> [SightReadingRecord] {
        try writer.read { db in try SightReadingRecord.fetchDecodable(db, SightReadingRecord.order(Column("playedAt"), Column("id"))) }
    }
}
