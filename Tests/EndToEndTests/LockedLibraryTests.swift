import Foundation
import GRDB
import Testing
import TestSupport

/// A database locked by another program while the practice screen runs (issue 36 step 4,
/// issue 40 point 5): the frames go on (the bar counter advances), the pass is stored when the
/// lock goes; a lock outlasting the session keeps the passes in a spool beside the database,
/// said in one line, and the next run stores them, saying so.
@Suite(.serialized) struct LockedLibraryTests {
    static var ode: String { PracticeScreenTests.ode }

    /// Another program's `BEGIN EXCLUSIVE` on the database, held until `release()`.
    final class Locker {
        let queue: DatabaseQueue
        init(_ path: String) throws {
            var config = Configuration()
            config.allowsUnsafeTransactions = true
            config.busyMode = .timeout(10)
            queue = try DatabaseQueue(path: path, configuration: config)
            try queue.inDatabase { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        }
        func release() throws {
            try queue.inDatabase { db in try db.execute(sql: "COMMIT") }
            try queue.close()
        }
    }

    /// Passes in the history (read beside the lock: the database is in WAL mode).
    static func passes(_ database: String) -> Int {
        guard let q = try? DatabaseQueue(path: database) else { return -1 }
        defer { try? q.close() }
        return (try? q.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pass") ?? 0 }) ?? -1
    }

    /// The bars shown over `seconds`.
    static func barsShown(_ pane: TmuxPane, over seconds: Double) -> Set<Int> {
        var seen = Set<Int>()
        let end = Date(timeIntervalSinceNow: seconds)
        while Date() < end {
            if let bar = ScreenText.bar(in: pane.screen()) { seen.insert(bar) }
            usleep(100_000)
        }
        return seen
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func aLockedLibraryNeverStopsTheFramesAndThePassIsStoredWhenTheLockGoes() throws {
        let etude = try Etude()
        // Four bars looped at 400 %: a pass ends every 2.4 s.
        let pane = try PracticeScreenTests.practice(etude, [Self.ode, "--bars", "1-4", "--tempo", "400%"])
        #expect(eventually { pane.screen().contains("loop 1–4") }, "\(pane.screen())")
        let locker = try Locker(etude.database)
        #expect(eventually(15) { pane.screen().contains("locked by another program") }, "the screen says so: \(pane.screen())")
        let before = Self.passes(etude.database)
        // A pass ended into the locked library, and the screen goes on: the bars still move.
        let seen = Self.barsShown(pane, over: 3)
        #expect(seen.count >= 3, "the bar counter advances under the lock: \(seen.sorted())")
        #expect(Self.passes(etude.database) == before, "nothing could be stored yet")
        try locker.release()
        #expect(eventually(10) { Self.passes(etude.database) > before }, "stored once the lock went")
        try pane.keys("q")
        #expect(pane.exitStatus(within: 10) == 0)
        #expect(!pane.stderr.contains("spool"), "\(pane.stderr)")
        #expect(!FileManager.default.fileExists(atPath: etude.database + ".spool"))
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func aLockOutlastingTheSessionKeepsThePassesAndTheNextRunStoresThem() throws {
        let etude = try Etude()
        let spool = etude.database + ".spool"
        let pane = try PracticeScreenTests.practice(etude, [Self.ode, "--bars", "1-2", "--tempo", "400%"])
        #expect(eventually { pane.screen().contains("loop 1–2") }, "\(pane.screen())")
        let locker = try Locker(etude.database)
        #expect(eventually(15) { pane.screen().contains("locked by another program") }, "\(pane.screen())")
        let before = Self.passes(etude.database)
        let quit = Date()
        try pane.keys("q")
        #expect(pane.exitStatus(within: 15) == 0)
        #expect(Date().timeIntervalSince(quit) < 8, "q ends the screen promptly, not after the store's 15 s")
        let said = pane.stderr.split(separator: "\n").filter { $0.contains("stayed locked") }
        #expect(said.count == 1, "one line: \(pane.stderr)")
        #expect(said.first?.contains("kept in \(spool), stored the next time Etude opens the library") == true, "\(pane.stderr)")
        #expect(FileManager.default.fileExists(atPath: spool))
        #expect(Self.passes(etude.database) == before)
        try locker.release()
        // The next run that opens the library stores them and says so, once.
        let stats = try etude.run(["stats", "--json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let stored = stats.stderr.split(separator: "\n").filter { $0.contains("kept in \(spool) while the library was locked") }
        #expect(stored.count == 1, "\(stats.stderr)")
        #expect(Self.passes(etude.database) > before)
        #expect(!FileManager.default.fileExists(atPath: spool))
        let again = try etude.run(["stats", "--json"])
        #expect(!again.stderr.contains("kept in"), "\(again.stderr)")
    }
}
