import Foundation
import GRDB
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
            p.complete && p.mode == "play" && p.hand == "both" && p.tempoPercent >= minimumTempo
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
    /// Passes of this lesson, oldest first.
    public var passes: [PassRecord]

    public init(listing: LessonListing, status: Mastery.Status, passes: [PassRecord]) {
        self.listing = listing
        self.status = status
        self.passes = passes
    }

    public var place: CurriculumPlace {
        CurriculumPlace(level: listing.lesson.level ?? 0, keyName: listing.lesson.keyName, noteCount: listing.lesson.noteCount,
                        seconds: listing.lesson.durationSeconds, title: listing.lesson.title)
    }
}

extension Store {
    /// Every listed lesson with a level (the curriculum and any graded lesson added), in the
    /// path's order (`CurriculumPlace`), each with its passes and mastery.
    public func methodPath(calendar: Calendar = .current) throws -> [PathLesson] {
        let leveled = try lessons().filter { $0.lesson.level != nil }
        let all = try passes()
        var byLesson: [String: [PassRecord]] = [:]
        for p in all { byLesson[p.lessonID, default: []].append(p) }
        return leveled.map { l in
            let passes = byLesson[l.lesson.id] ?? []
            return PathLesson(listing: l, status: Mastery.status(passes, calendar: calendar), passes: passes)
        }.sorted { $0.place < $1.place }
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
}

extension Store {
    public func recordSightReading(_ record: SightReadingRecord) throws {
        try writer.write { db in
            var r = record
            try r.insert(db)
        }
    }

    /// Sight-reading results, oldest first.
    public func sightReadings() throws -> [SightReadingRecord] {
        try writer.read { db in try SightReadingRecord.order(Column("playedAt"), Column("id")).fetchAll(db) }
    }
}
