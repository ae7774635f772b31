import Foundation
import GRDB
import Judge
import Lesson

/// Favourites, saved loops, history and the resume state.
extension Store {
    // MARK: Favourites

    /// Stars a lesson (idempotent).
    public func addFavourite(_ lessonID: String, now: Date = Date()) throws {
        try writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO favourite (lessonID, addedAt) VALUES (?, ?)", arguments: [lessonID, now])
        }
    }

    /// Unstars a lesson; false if it was not a favourite.
    @discardableResult
    public func removeFavourite(_ lessonID: String) throws -> Bool {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM favourite WHERE lessonID = ?", arguments: [lessonID])
            return db.changesCount > 0
        }
    }

    public func isFavourite(_ lessonID: String) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT COUNT(*) > 0 FROM favourite WHERE lessonID = ?", arguments: [lessonID]) ?? false
        }
    }

    /// Starred lessons, present or not (a favourite whose file is gone still shows, without a path).
    public func favourites() throws -> [LessonListing] {
        try writer.read { db in
            try LessonListing.fetchDecodable(db, sql: Store.listingSelect
                + " WHERE f.lessonID IS NOT NULL ORDER BY l.level IS NULL, l.level, l.title COLLATE NOCASE", table: "lesson")
        }
    }

    // MARK: Saved loops

    /// Saves a loop under its name for its lesson, replacing one of the same name.
    @discardableResult
    public func saveLoop(_ loop: SavedLoop, now: Date = Date()) throws -> SavedLoop {
        guard !loop.name.trimmingCharacters(in: .whitespaces).isEmpty else { throw StoreError("a saved loop needs a name") }
        // Bar 0 is a pickup bar, which a loop may start on.
        guard loop.firstBar >= 0, loop.lastBar >= loop.firstBar else {
            throw StoreError("bars \(loop.firstBar)-\(loop.lastBar): give FIRST-LAST with 0 ≤ FIRST ≤ LAST")
        }
        return try writer.write { db in
            var l = loop
            // The loop of that name, read by its id alone: a damaged one is replaced too.
            if let oldID = try Int64.fetchOne(db, sql: "SELECT id FROM savedLoop WHERE lessonID = ? AND name = ?",
                                              arguments: [loop.lessonID, loop.name]) {
                l.id = oldID
                l.createdAt = (try? Date.fetchOne(db, sql: "SELECT createdAt FROM savedLoop WHERE id = ?", arguments: [oldID])) ?? now
                l.updatedAt = now
                try l.update(db)
            } else {
                l.id = nil
                l.createdAt = now
                l.updatedAt = now
                try l.insert(db)
            }
            return l
        }
    }

    public func loops(for lessonID: String) throws -> [SavedLoop] {
        try writer.read { db in
            try SavedLoop.fetchDecodable(db, SavedLoop.filter(Column("lessonID") == lessonID).order(Column("firstBar"), Column("name")))
        }
    }

    public func loop(named name: String, for lessonID: String) throws -> SavedLoop? {
        try writer.read { db in
            try SavedLoop.fetchDecodable(db, SavedLoop.filter(Column("lessonID") == lessonID && Column("name") == name)).first
        }
    }

    /// Renames a saved loop (the practice screen's `s` names them automatically); the resume
    /// state follows. False when the lesson has no loop of the old name.
    @discardableResult
    public func renameLoop(_ name: String, to newName: String, for lessonID: String, now: Date = Date()) throws -> Bool {
        let new = newName.trimmingCharacters(in: .whitespaces)
        guard !new.isEmpty else { throw StoreError("a saved loop needs a name") }
        return try writer.write { db in
            guard var loop = try SavedLoop.fetchDecodable(db, SavedLoop.filter(Column("lessonID") == lessonID && Column("name") == name)).first else {
                return false
            }
            if new != name, try SavedLoop.filter(Column("lessonID") == lessonID && Column("name") == new).fetchCount(db) > 0 {
                throw StoreError("this lesson has a loop named \(new) already: delete it first or pick another name")
            }
            loop.name = new
            loop.updatedAt = now
            try loop.update(db)
            try db.execute(sql: "UPDATE resumeState SET loopName = ? WHERE lessonID = ? AND loopName = ?",
                           arguments: [new, lessonID, name])
            return true
        }
    }

    @discardableResult
    public func deleteLoop(named name: String, for lessonID: String) throws -> Bool {
        try writer.write { db in
            try SavedLoop.filter(Column("lessonID") == lessonID && Column("name") == name).deleteAll(db) > 0
        }
    }

    // MARK: History

    /// Stores one pass; committed when this returns (its id is then durable).
    @discardableResult
    public func recordPass(_ pass: PassRecord) throws -> Int64 {
        try writer.write { db in
            var p = pass
            p.id = nil
            try p.insert(db)
            return p.id ?? db.lastInsertedRowID
        }
    }

    /// Convenience form of `recordPass(_:)` with the figures the practice screen has at hand.
    @discardableResult
    public func recordPass(lessonID: String, startedAt: Date, mode: PassMode, hand: PracticePlan.Hands, tempoPercent: Int,
                           bars: ClosedRange<Int>? = nil, figures: ScoreFigures? = nil, durationSeconds: Double) throws -> Int64 {
        try recordPass(PassRecord(lessonID: lessonID, startedAt: startedAt, mode: mode, hand: hand,
                                  tempoPercent: tempoPercent, firstBar: bars?.lowerBound, lastBar: bars?.upperBound,
                                  durationSeconds: durationSeconds, figures: figures))
    }

    /// Passes in time order, of one lesson or all.
    public func passes(lessonID: String? = nil, since: Date? = nil) throws -> [PassRecord] {
        try writer.read { db in
            var q = PassRecord.all()
            if let lessonID { q = q.filter(Column("lessonID") == lessonID) }
            if let since { q = q.filter(Column("startedAt") >= since) }
            return try PassRecord.fetchDecodable(db, q.order(Column("startedAt"), Column("id")), valid: \.isSane)
        }
    }

    // MARK: Resume

    /// Remembers where the learner is (one row, replaced on every save).
    public func saveResume(_ state: ResumeState) throws {
        try writer.write { db in
            var s = state
            s.id = 1
            try s.save(db)
        }
    }

    /// The last lesson with its position, hand, tempo and loop, or nil if nothing was practised.
    public func resume() throws -> (state: ResumeState, lesson: LessonListing?)? {
        guard let state = try writer.read({ db in try ResumeState.fetchOneDecodable(db, key: 1) }) else { return nil }
        return (state, try listing(id: state.lessonID))
    }
}


/// How the learner last chose to practise a lesson from the browser.
public struct LessonChoice: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "lessonChoice"
    public var lessonID: String
    /// Stored as its raw value ("watch", "wait", "play" or "memory").
    public var mode: PracticeMode
    /// Stored as its raw value ("both", "right" or "left").
    public var hand: PracticePlan.Hands
    public var updatedAt: Date

    public init(lessonID: String, mode: PracticeMode, hand: PracticePlan.Hands, updatedAt: Date = Date()) {
        self.lessonID = lessonID
        self.mode = mode
        self.hand = hand
        self.updatedAt = updatedAt
    }
}

extension Store {
    /// The choice made for a lesson last time, if any.
    public func lessonChoice(for lessonID: String) throws -> LessonChoice? {
        try writer.read { db in try LessonChoice.fetchOneDecodable(db, key: lessonID) }
    }

    /// Remembers how the learner chose to practise a lesson.
    public func saveLessonChoice(_ choice: LessonChoice) throws {
        try writer.write { db in try choice.save(db) }
    }
}
