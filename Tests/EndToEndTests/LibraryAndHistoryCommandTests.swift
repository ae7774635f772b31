import Foundation
import Judge
import GRDB
import Store
import Testing
import TestSupport

/// The library, favourites, loops, routines, stats and resume through the built binary:
/// crash safety, two processes at once, every command.
@Suite(.serialized) struct LibraryAndHistoryCommandTests {
    /// No built-in lessons: the catalogue holds only what a test adds.
    let etude: Etude
    let dir: TempDir
    init() throws {
        etude = try Etude(lessons: nil)
        dir = try TempDir("etude-store")
    }

    /// Ids `etude debug-write-history` printed (complete lines only).
    static func ids(_ output: String) -> [Int64] {
        var lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()   // an unfinished line, or the empty one after the last newline
        return lines.compactMap { Int64($0) }
    }

    /// Starts `etude debug-write-history`, reads committed ids from its output as they come, and
    /// SIGKILLs it after `killAfter` of them.
    func writeAndKill(db: String, count: Int, killAfter: Int) throws -> (printed: [Int64], killed: Bool) {
        let p = try etude.start(["debug-write-history", "--count", String(count), "--pause-ms", "1", "--db", db])
        var killed = false
        while p.isRunning {
            if Self.ids(p.stdout).count >= killAfter {
                p.signal(SIGKILL)
                killed = true
                break
            }
            usleep(1_000)
        }
        let status = p.wait(timeout: 120)
        return (Self.ids(p.stdout), killed && status == 128 + SIGKILL)
    }

    @Test func sigkillDuringWritesLosesNoCommittedRow() throws {
        let db = dir.file("etude.sqlite")
        var allPrinted: [Int64] = []
        var kills = 0
        for killAfter in [1, 17, 50, 70, 90] {
            let (printed, killed) = try writeAndKill(db: db, count: 100, killAfter: killAfter)
            #expect(printed.count >= killAfter)
            if killed { kills += 1 }
            allPrinted += printed
            let s = try Store.open(path: db)
            #expect(try s.integrityCheck() == "ok")
            let ids = Set(try s.writer.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM pass") })
            let lost = allPrinted.filter { !ids.contains($0) }
            #expect(lost.isEmpty, "committed rows lost: \(lost)")
            try (s.writer as? DatabasePool)?.close()
        }
        #expect(kills >= 3, "the writer finished before it could be killed too often")
    }

    /// `library add` killed (SIGKILL) part way through a big folder: the database is intact,
    /// what the scan committed is kept, and the next command's scan completes it.
    @Test func aScanKilledPartWayKeepsWhatItCommittedAndTheNextOneFinishes() throws {
        let db = dir.file("etude.sqlite")
        let lib = dir.file("big")
        let total = 1500
        for i in 0..<total {
            _ = try LessonMaker.write(lib + "/l\(String(format: "%03d", i)).mid", title: "Lesson \(i)", level: 1, salt: "\(i)")
        }
        // The database exists before the scan, so its progress can be watched from here.
        #expect(try etude.run(["library", "list", "--db", db]).status == 0)
        let scan = try etude.start(["library", "add", lib, "--db", db])
        var seen = 0
        var killed = false
        while scan.isRunning {
            seen = (try? DatabaseQueue(path: db).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM lessonFile") ?? 0 }) ?? seen
            if seen > 0 {
                scan.signal(SIGKILL)
                killed = true
                break
            }
            usleep(2_000)
        }
        let status = scan.wait(timeout: 120)
        try #require(killed && status == 128 + SIGKILL, "the scan ended before it could be killed (\(seen) files seen)")

        let s = try Store.open(path: db)
        #expect(try s.integrityCheck() == "ok")
        let kept = try s.lessons().count
        #expect(kept > 0 && kept < total, "kept \(kept) of \(total)")
        try (s.writer as? DatabasePool)?.close()
        // The folder was registered before the kill: the next command's scan reads the rest.
        let listed = try etude.run(["list", "--json", "--db", db])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(try Staged.lessonCount(listed.stdout) == total)
        let again = try etude.run(["library", "add", lib, "--db", db])
        #expect(again.status == 0 && again.stdout.hasPrefix("0 added, 0 updated, \(total) unchanged"), "\(again.output)")
        #expect(try Store.open(path: db).integrityCheck() == "ok")
    }

    @Test func twoProcessesWriteAtOnceWithoutLockErrors() throws {
        // Both race to create and migrate it (in a folder that exists: --db creates only the file).
        try FileManager.default.createDirectory(atPath: dir.file("fresh"), withIntermediateDirectories: true)
        let db = dir.file("fresh/etude.sqlite")
        let procs = try ["one", "two"].map { tag in
            try etude.start(["debug-write-history", "--count", "1000", "--tag", tag, "--db", db])
        }
        for p in procs {
            let r = p.result(timeout: 300)
            #expect(r.status == 0, "stderr: \(r.stderr)")
            #expect(!r.stderr.contains("locked"))
        }
        let s = try Store.open(path: db)
        let counts = try s.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT mode, COUNT(*) AS n FROM pass GROUP BY mode ORDER BY mode").map { [$0["mode"] as String: $0["n"] as Int] }
        }
        #expect(counts == [["one": 1000], ["two": 1000]])
        #expect(try s.integrityCheck() == "ok")
    }

    @Test func readersRunWhileAnotherProcessWrites() throws {
        let db = dir.file("etude.sqlite")
        let lib = dir.file("lib")
        for i in 0..<20 { try LessonMaker.write(lib + "/l\(i).mid", title: "Lesson \(i)", level: 1 + i % 3) }
        var r = try etude.run(["library", "add", lib, "--db", db])
        #expect(r.status == 0, "\(r.stderr)")
        let writer = try etude.start(["debug-write-history", "--count", "2000", "--db", db])
        var reads = 0
        while writer.isRunning || reads < 3 {
            r = try etude.run(["list", "--json", "--db", db])
            #expect(r.status == 0 && !r.stderr.contains("locked"), "\(r.stderr)")
            #expect(r.stdout.hasPrefix("[{"))
            r = try etude.run(["stats", "--db", db])
            #expect(r.status == 0 && !r.stderr.contains("locked"), "\(r.stderr)")
            reads += 1
            if reads > 200 { break }
        }
        #expect(writer.wait(timeout: 300) == 0)
    }

    @Test func commandsWorkEndToEnd() throws {
        let lib = dir.file("lib")
        // Twelve bars of 4/4, so the loop saved below (bars 9-12) is one the lesson has.
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        try Data(LessonMaker.bytes(title: "Minuet in G", level: 2, pitches: (0..<48).map { 60 + $0 % 12 }))
            .write(to: URL(fileURLWithPath: lib + "/minuet.mid"))
        try LessonMaker.write(lib + "/scale.mid", title: "C Scale", level: 1)
        let etude = self.etude
        func run(_ args: String..., extra: [String: String] = [:]) throws -> (Int32, String, String) {
            let r = try etude.run(args, extra: extra)
            return (r.status, r.stdout, r.stderr)
        }

        var (status, out, err) = try run("library", "add", lib)
        #expect(status == 0 && out.hasPrefix("2 added"), "\(err)")
        (status, out, _) = try run("list", "--level", "2", "--json")
        #expect(status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]]
        #expect(rows?.count == 1)
        #expect(rows?.first?["title"] as? String == "Minuet in G")
        #expect(rows?.first?["timeSignature"] as? String == "4/4")

        (status, out, _) = try run("fav", "add", "minuet")
        #expect(status == 0 && out.contains("★ Minuet in G"))
        (status, out, _) = try run("list", "--favourites")
        #expect(out.hasPrefix("★ L2") && out.contains("Minuet in G"))
        (status, out, err) = try run("fav", "add", "nothing-like-it")
        #expect(status == 1 && err.hasPrefix("etude: nothing-like-it: no such lesson") && err.split(separator: "\n").count == 1)

        (status, out, _) = try run("loops", "save", "Minuet in G", "run", "--bars", "9-12", "--hand", "right", "--tempo", "70")
        #expect(status == 0)
        (status, out, _) = try run("loops", "list", "Minuet in G")
        #expect(out == "run: bars 9-12, right hand, 70%, other hand play\n")
        (status, _, err) = try run("loops", "save", "Minuet in G", "bad", "--bars", "12-9")
        #expect(status == 1 && err.contains("--bars"))
        // A loop is checked as practice checks it, so a saved loop always plays.
        (status, _, err) = try run("loops", "save", "Minuet in G", "bad", "--bars", "40-44")
        #expect(status == 1 && err == "etude: --bars 40-44: the lesson has 12 bars\n", "\(err)")
        (status, _, err) = try run("loops", "save", "Minuet in G", "bad", "--bars", "1-2", "--other-hand", "hide")
        #expect(status == 1 && err == "etude: --other-hand hide: use play, quiet or mute\n", "\(err)")
        (status, _, err) = try run("loops", "save", "Minuet in G", "soft", "--bars", "1-4", "--hand", "right", "--tempo", "65%",
                                   "--other-hand", "quiet")
        #expect(status == 0, "\(err)")
        (status, out, _) = try run("loops", "list", "Minuet in G")
        #expect(out == "soft: bars 1-4, right hand, 65%, other hand quiet\nrun: bars 9-12, right hand, 70%, other hand play\n", "\(out)")
        // practice, loop and export take a title or id as fav and loops do.
        (status, out, err) = try run("loop", "Minuet in G", "--saved", "soft", "--dry-run")
        #expect(status == 0 && out.hasPrefix("Minuet in G: bars 1–4, right hand (other hand: quiet)")
                && out.contains("pass 1: 65%"), "\(out)\(err)")
        let exportedMid = dir.file("soft.mid")
        (status, out, err) = try run("export", "minuet", "-o", exportedMid, "--bars", "9-12")
        #expect(status == 0 && out.hasPrefix("Wrote \(exportedMid): bars 9–12"), "\(out)\(err)")
        (status, _, err) = try run("loop", "no-such-piece", "1-2", "--dry-run")
        #expect(status == 1 && err.hasPrefix("etude: no-such-piece: no such lesson or file"), "\(err)")
        (status, _, err) = try run("loop", "missing.mid", "1-2", "--dry-run")
        #expect(status == 1 && err == "etude: missing.mid: no such file\n", "\(err)")
        // A loop stored with the old `hide` mode still plays, with the other hand muted.
        do {
            let s = try Store.open(path: etude.database)
            let minuet = try s.resolveLesson("Minuet in G")
            try s.saveLoop(SavedLoop(lessonID: minuet.lesson.id, name: "old", firstBar: 2, lastBar: 3, hand: .right,
                                     tempoPercent: 80, otherHandMode: .mute))
        }
        // The word as older versions stored it (the typed record never writes it).
        try DatabaseQueue(path: etude.database).write { db in
            try db.execute(sql: "UPDATE savedLoop SET otherHandMode = 'hide' WHERE name = 'old'")
        }
        (status, out, err) = try run("loop", "Minuet in G", "--saved", "old", "--dry-run")
        #expect(status == 0 && out.hasPrefix("Minuet in G: bars 2–3, right hand (other hand: mute)"), "\(out)\(err)")
        (status, _, _) = try run("loops", "delete", "Minuet in G", "old")
        #expect(status == 0)
        // `etude loops LESSON` lists (as `etude loop --help` says); rename a loop.
        (status, out, err) = try run("loops", "rename", "Minuet in G", "soft", "quiet start")
        #expect(status == 0 && out == "Renamed loop soft to quiet start\n", "\(err)")
        (status, out, _) = try run("loops", "Minuet in G")
        #expect(out == "quiet start: bars 1-4, right hand, 65%, other hand quiet\nrun: bars 9-12, right hand, 70%, other hand play\n", "\(out)")
        (status, _, err) = try run("loops", "rename", "Minuet in G", "quiet start", "run")
        #expect(status == 1 && err.hasPrefix("etude: this lesson has a loop named run already") && err.split(separator: "\n").count == 1, "\(err)")
        (status, _, err) = try run("loops", "rename", "Minuet in G", "nope", "x")
        #expect(status == 1 && err.hasPrefix("etude: Minuet in G has no loop named nope"), "\(err)")

        (status, out, err) = try run("routine", "new", "warm-up", "--entry", "lesson=C Scale;hand=right;tempo=80;minutes=2",
                                     "--entry", "random=favourite;reps=2;pause=10")
        #expect(status == 0, "\(err)")
        let exported = dir.file("warm-up.json")
        (status, _, _) = try run("routine", "export", "warm-up", "--output", exported)
        #expect(status == 0)
        (status, out, _) = try run("routine", "import", exported, "--name", "copy")
        #expect(status == 0 && out.contains("Imported copy (2 entries)"))
        (status, out, _) = try run("routine", "export", "copy", "--format", "text")
        #expect(out == "copy\n1. C Scale — right hand, 80% — 2 min\n2. a random favourite — 2 times (pause 10 s before)\n")
        (status, out, _) = try run("routine", "edit", "copy", "--move", "2", "--to", "1", "--rename", "copy2")
        #expect(out.hasPrefix("copy2\n1. a random favourite"))
        (status, out, _) = try run("routine", "run", "warm-up", "--seed", "3", "--plan")
        #expect(status == 0 && out.contains("1. [0:00] C Scale") && out.contains("2. [2:10] Minuet in G"))

        (status, out, _) = try run("stats", "Minuet in G")
        #expect(status == 0 && out.contains("Passes:       0"))
        (status, _, err) = try run("resume")
        #expect(status == 1 && err.hasPrefix("etude: nothing to resume"))

        // Editing in $EDITOR: the routine JSON is handed to it and read back.
        (status, out, err) = try run("routine", "edit", "warm-up",
                                     extra: ["VISUAL": "", "EDITOR": "sed -i s/\\\"minutes\\\"\\ :\\ 2/\\\"minutes\\\":4/"])
        #expect(status == 0, "\(err)")
        #expect(out.contains("1. C Scale — right hand, 80% — 4 min"))
        (status, _, err) = try run("routine", "edit", "warm-up", extra: ["VISUAL": "", "EDITOR": "false"])
        #expect(status == 1 && err.contains("unchanged"))

        // History and resume written through the API show up in stats and resume.
        do {
            let s = try Store.open(path: etude.database)
            let minuet = try s.resolveLesson("Minuet in G")
            for (i, score) in [40.0, 55, 70, 90].enumerated() {
                try s.recordPass(lessonID: minuet.lesson.id, startedAt: Date(timeIntervalSinceNow: Double(i - 10)), mode: .play,
                                 hand: .right, tempoPercent: 60 + 10 * i,
                                 figures: ScoreFigures(hit: 10, missed: 0, wrong: 0, extra: 0, accuracy: 1, timingMeanMs: 0, timingSdMs: 0, score: score),
                                 durationSeconds: 120)
            }
            try s.saveResume(ResumeState(lessonID: minuet.lesson.id, path: minuet.path ?? "", positionSeconds: 75, hand: .right,
                                         tempoPercent: 70, mode: .play, loopFirstBar: 9, loopLastBar: 12, loopName: "run"))
        }
        (status, out, _) = try run("stats", "Minuet in G")
        #expect(out.contains("Passes:       4 (4 scored), 8 min in all"))
        #expect(out.contains("Best score:   90") && out.contains("Latest score: 90"))
        #expect(out.contains("Score:  ▄▅▆▇"))
        #expect(out.contains("Tempo:  ▅▆▇▇"))
        (status, out, _) = try run("resume", "--json")
        let resume = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        #expect(resume?["title"] as? String == "Minuet in G")
        #expect(resume?["positionSeconds"] as? Double == 75)
        #expect((resume?["loop"] as? [String: Any])?["name"] as? String == "run")
        (status, out, _) = try run("list", "minuet")
        #expect(out.contains("best 90"))
    }

    /// Issue 40 point 6: a damaged database (SQLite's header, then garbage) the user chose with
    /// `--db` or `ETUDE_DB` is refused in one line and left exactly as it was; at the default
    /// place, where only Etude put it, it is moved aside with the one line that says so. A file
    /// that is not SQLite at all, named by --db, is refused too (HostileInputRoundTwoTests).
    @Test func corruptDatabaseIsReportedInOneLineByTheCLI() throws {
        let db = dir.file("etude.sqlite")
        let damaged = Data("SQLite format 3\0".utf8) + Data(repeating: 0x42, count: 5000)
        try damaged.write(to: URL(fileURLWithPath: db))
        for (args, extra) in [(["library", "list", "--db", db], [String: String]()), (["stats"], ["ETUDE_DB": db])] {
            let r = try etude.run(args, extra: extra)
            #expect(r.status == 1, "\(args) \(extra): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(db) && r.stderr.contains("is damaged"), "\(r.stderr)")
            #expect(!r.stderr.contains("moved it to"), "\(r.stderr)")
            #expect(FileManager.default.contents(atPath: db) == damaged, "a chosen database is left exactly as it was")
            let aside = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".corrupt-") }
            #expect(aside.isEmpty, "\(aside)")
        }
        // The default place ($XDG_DATA_HOME/etude/etude.sqlite): a database Etude made and lost.
        var user = etude
        user.environment["ETUDE_DB"] = nil
        let folder = user.home.file("data/etude")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try damaged.write(to: URL(fileURLWithPath: folder + "/etude.sqlite"))
        let r = try user.run(["library", "list"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("moved it to") && r.stderr.contains(".corrupt-"), "\(r.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(names.contains { $0.hasPrefix("etude.sqlite.corrupt-") })
    }
}
