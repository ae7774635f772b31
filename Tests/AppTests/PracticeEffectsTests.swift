@testable import App
import Clocks
import Foundation
import GRDB
import Judge
import Lesson
@testable import LessonLibrary
import Practice
@testable import Reports
import Store
import Synth
import TestSupport
import Testing

/// A practice session's effects performed off the frame (issue 36 step 4) and a locked
/// library that never loses a pass (issue 40 point 5): in order, once; retried while another
/// connection holds `BEGIN EXCLUSIVE`; kept in the spool when the lock outlasts the session and
/// stored by the next opening.
@Suite(.serialized) struct PracticeEffectsTests {
    static var ode: String { Repo.lesson("level4/ode-to-joy.mid") }

    /// A database in a temporary folder with Ode to Joy catalogued, its history and a session.
    struct Fixture {
        let dir: TempDir
        let database: String
        let store: Store
        let history: StoreHistory
        let session: PracticeSession

        init() throws {
            dir = try TempDir("etude-effects")
            database = dir.file("etude.sqlite")
            store = try Store.open(path: database, chosen: true)
            let id = try store.catalogue(fileAt: PracticeEffectsTests.ode).id
            history = StoreHistory(store: store, lessonID: id, path: PracticeEffectsTests.ode)
            let lesson = try LessonOpener.open(PracticeEffectsTests.ode).lesson
            session = try PracticeSession(lesson: lesson, plan: PracticePlan(), clock: VirtualClock(), output: RecordingOutput())
        }

        /// A judged, complete pass `n` (its duration tells it apart).
        func pass(_ n: Int, complete: Bool = true) -> PassResult {
            let info = FinishedPassInfo(pass: n, tempoPercent: 100, startedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)),
                                        durationSeconds: Double(n) + 0.5, bars: 1...4, isLoop: false, hands: .both, complete: complete)
            var report = PassReport(judgements: [])
            report.figures.hit = n
            report.figures.missed = 10 - n
            return PassResult(info: info, mode: .play, report: complete ? report : nil)
        }

        func storedDurations() throws -> [Double] {
            try store.passes().map(\.durationSeconds)
        }
    }

    /// Another program holding the database with `BEGIN EXCLUSIVE` (a second connection).
    final class Locker: @unchecked Sendable {
        let queue: DatabaseQueue
        init(_ path: String) throws {
            var config = Configuration()
            config.allowsUnsafeTransactions = true
            queue = try DatabaseQueue(path: path, configuration: config)
            try queue.inDatabase { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        }
        func release() throws { try queue.inDatabase { db in try db.execute(sql: "COMMIT") } }
    }

    @Test func effectsArePerformedOnceAndInOrder() throws {
        let f = try Fixture()
        let reportPath = f.dir.file("report.jsonl")
        let report = try PassReportAppender(path: reportPath)
        let effects = PracticeEffects(session: f.session, history: f.history, report: report)
        effects.start()
        for n in 1...5 { f.session.emit(.pass(f.pass(n))) }
        f.session.emit(.pass(f.pass(6, complete: false)))
        let loop = LoopSnapshot(bars: 2...3, hands: .right, tempoPercent: 70, otherHand: .play)
        f.session.emit(.saveLoop(loop))
        let point = f.session.resumePoint()
        f.session.emit(.resume(point, mode: .play, loopName: loop.autoName))
        #expect(effects.finish().isEmpty, "nothing left to say")
        report.close()
        #expect(effects.performedCount == 8, "each effect once")
        // The history rows in the order the passes ended, each once; the unfinished one for its time.
        #expect(try f.storedDurations() == [1.5, 2.5, 3.5, 4.5, 5.5, 6.5])
        #expect(try f.store.passes().map(\.complete) == [true, true, true, true, true, false])
        // One report line per complete judged pass, in order.
        let lines = try String(contentsOfFile: reportPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.enumerated().allSatisfy { i, l in l.contains("\"hit\":\(i + 1)") }, "\(lines)")
        #expect(try f.store.loops(for: f.history.rows(for: f.pass(1)).record.lessonID).map(\.name) == [loop.autoName])
        #expect(try f.store.resume()?.0.loopName == loop.autoName)
        // The messages went to the screen's status line, not stderr.
        #expect(f.session.takeNotices().contains(.message("saved loop \"\(loop.autoName)\"")))
    }

    @Test func aLockedLibraryHoldsThePassUntilItIsFreeWithoutWaitingTheScreen() throws {
        let f = try Fixture()
        let effects = PracticeEffects(session: f.session, history: f.history, report: nil)
        effects.start()
        let locker = try Locker(f.database)
        let posted = Date()
        f.session.emit(.pass(f.pass(1)))
        #expect(Date().timeIntervalSince(posted) < 0.1, "emitting never waits")
        // Tried and found locked: said on the screen, not stored.
        var notices: [PracticeNotice] = []
        let deadline = Date(timeIntervalSinceNow: 5)
        while Date() < deadline, !notices.contains(where: { "\($0)".contains("locked by another program") }) {
            notices += f.session.takeNotices()
            usleep(20_000)
        }
        #expect(notices.contains(where: { "\($0)".contains("locked by another program") }), "\(notices)")
        usleep(600_000)
        try locker.release()
        let stored = Date(timeIntervalSinceNow: 5)
        while Date() < stored, (try? f.storedDurations()) != [1.5] { usleep(20_000) }
        #expect(try f.storedDurations() == [1.5], "stored once the lock went")
        #expect(effects.finish().isEmpty)
        #expect(try f.storedDurations() == [1.5], "once")
    }

    @Test func aLockOutlastingTheSessionKeepsThePassInTheSpoolAndTheNextOpeningStoresIt() throws {
        let f = try Fixture()
        let effects = PracticeEffects(session: f.session, history: f.history, report: nil)
        effects.start()
        let locker = try Locker(f.database)
        f.session.emit(.pass(f.pass(1)))
        f.session.emit(.pass(f.pass(2, complete: false)))
        let began = Date()
        let lines = effects.finish(grace: 0.5)
        #expect(Date().timeIntervalSince(began) < 5, "the session ends promptly, not after the store's 15 s")
        let spool = PassSpool.path(forDatabase: f.database)
        #expect(lines.count == 1)
        #expect(lines.first?.contains("2 passes kept in \(spool)") == true, "\(lines)")
        #expect(FileManager.default.fileExists(atPath: spool))
        // Still locked: the next opening leaves the spool where it is and says so.
        #expect(PassSpool.storeKept(in: f.store)?.contains("still waiting") == true)
        #expect(FileManager.default.fileExists(atPath: spool))
        try locker.release()
        let said = PassSpool.storeKept(in: f.store)
        #expect(said == "stored 2 practice passes kept in \(spool) while the library was locked", "\(said ?? "nil")")
        #expect(try f.storedDurations() == [1.5, 2.5])
        #expect(try f.store.passes().first?.figures?.hit == 1, "the figures kept whole")
        #expect(!FileManager.default.fileExists(atPath: spool))
        #expect(PassSpool.storeKept(in: f.store) == nil, "nothing twice")
    }

    /// The spool is written through the one writer: a symlink is written through, a folder in
    /// its place is refused in one line (and the passes are said to be lost, not silently).
    @Test func aSpoolThatCannotBeWrittenIsSaidInOneLine() throws {
        let f = try Fixture()
        let spool = PassSpool.path(forDatabase: f.database)
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: false)
        let line = PassSpool.keep([f.history.rows(for: f.pass(1))], database: f.database)
        #expect(line.contains("could not be kept"), "\(line)")
        #expect(!line.contains("\n"))
    }
}
