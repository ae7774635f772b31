import Foundation
import Judge
import GRDB
import Testing
@testable import Store

/// End-to-end tests that run the real `etude` binary: crash safety, two processes, commands.
@Suite(.serialized) struct StoreProcessTests {
    func requireBinary() throws {
        guard FileManager.default.isExecutableFile(atPath: Repo.etude) else {
            throw StoreError("\(Repo.etude) is missing: run `swift build` (make test does) before these tests")
        }
    }

    /// Starts `etude debug-write-history`, reads committed ids from its output as they come, and
    /// SIGKILLs it after `killAfter` of them.
    func writeAndKill(db: String, count: Int, killAfter: Int) throws -> (printed: [Int64], killed: Bool) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Repo.etude)
        p.arguments = ["debug-write-history", "--count", String(count), "--pause-ms", "1", "--db", db]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        var printed: [Int64] = []
        var buffer = Data()
        var killed = false
        let reader = out.fileHandleForReading
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...nl)
                if let id = Int64(line) { printed.append(id) }
            }
            if !killed && printed.count >= killAfter {
                kill(p.processIdentifier, SIGKILL)
                killed = true
            }
        }
        p.waitUntilExit()
        return (printed, killed && p.terminationReason == .uncaughtSignal)
    }

    @Test func sigkillDuringWritesLosesNoCommittedRow() throws {
        try requireBinary()
        let dir = try TempDir()
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

    @Test func twoProcessesWriteAtOnceWithoutLockErrors() throws {
        try requireBinary()
        let dir = try TempDir()
        let db = dir.file("fresh/etude.sqlite")   // both also race to create and migrate it
        var procs: [(Process, Pipe)] = []
        for tag in ["one", "two"] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Repo.etude)
            p.arguments = ["debug-write-history", "--count", "1000", "--tag", tag, "--db", db]
            let err = Pipe()
            p.standardOutput = FileHandle.nullDevice
            p.standardError = err
            procs.append((p, err))
        }
        for (p, _) in procs { try p.run() }
        for (p, err) in procs {
            let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "stderr: \(e)")
            #expect(!e.contains("locked"))
        }
        let s = try Store.open(path: db)
        let counts = try s.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT mode, COUNT(*) AS n FROM pass GROUP BY mode ORDER BY mode").map { [$0["mode"] as String: $0["n"] as Int] }
        }
        #expect(counts == [["one": 1000], ["two": 1000]])
        #expect(try s.integrityCheck() == "ok")
    }

    @Test func readersRunWhileAnotherProcessWrites() throws {
        try requireBinary()
        let dir = try TempDir()
        let db = dir.file("etude.sqlite")
        let lib = dir.file("lib")
        for i in 0..<20 { try LessonMaker.write(lib + "/l\(i).mid", title: "Lesson \(i)", level: 1 + i % 3) }
        var (status, _, err) = try Repo.run(["library", "add", lib, "--db", db])
        #expect(status == 0, "\(err)")
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: Repo.etude)
        writer.arguments = ["debug-write-history", "--count", "2000", "--db", db]
        writer.standardOutput = FileHandle.nullDevice
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        var reads = 0
        while writer.isRunning || reads < 3 {
            var out: String
            (status, out, err) = try Repo.run(["list", "--json", "--db", db])
            #expect(status == 0 && !err.contains("locked"), "\(err)")
            #expect(out.hasPrefix("[{"))
            (status, out, err) = try Repo.run(["stats", "--db", db])
            #expect(status == 0 && !err.contains("locked"), "\(err)")
            reads += 1
            if reads > 200 { break }
        }
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
    }

    @Test func commandsWorkEndToEnd() throws {
        try requireBinary()
        let dir = try TempDir()
        let lib = dir.file("lib")
        // Twelve bars of 4/4, so the loop saved below (bars 9-12) is one the lesson has.
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        try Data(LessonMaker.bytes(title: "Minuet in G", level: 2, pitches: (0..<48).map { 60 + $0 % 12 }))
            .write(to: URL(fileURLWithPath: lib + "/minuet.mid"))
        try LessonMaker.write(lib + "/scale.mid", title: "C Scale", level: 1)
        let env = ["ETUDE_DB": dir.file("etude.sqlite")]
        func etude(_ args: String...) throws -> (Int32, String, String) { try Repo.run(args, environment: env) }

        var (status, out, err) = try etude("library", "add", lib)
        #expect(status == 0 && out.hasPrefix("2 added"), "\(err)")
        (status, out, _) = try etude("list", "--level", "2", "--json")
        #expect(status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]]
        #expect(rows?.count == 1)
        #expect(rows?.first?["title"] as? String == "Minuet in G")
        #expect(rows?.first?["timeSignature"] as? String == "4/4")

        (status, out, _) = try etude("fav", "add", "minuet")
        #expect(status == 0 && out.contains("★ Minuet in G"))
        (status, out, _) = try etude("list", "--favourites")
        #expect(out.hasPrefix("★ L2") && out.contains("Minuet in G"))
        (status, out, err) = try etude("fav", "add", "nothing-like-it")
        #expect(status == 1 && err.hasPrefix("etude: nothing-like-it: no such lesson") && err.split(separator: "\n").count == 1)

        (status, out, _) = try etude("loops", "save", "Minuet in G", "run", "--bars", "9-12", "--hand", "right", "--tempo", "70")
        #expect(status == 0)
        (status, out, _) = try etude("loops", "list", "Minuet in G")
        #expect(out == "run: bars 9-12, right hand, 70%, other hand play\n")
        (status, _, err) = try etude("loops", "save", "Minuet in G", "bad", "--bars", "12-9")
        #expect(status == 1 && err.contains("--bars"))
        // A loop is checked as practice checks it, so a saved loop always plays.
        (status, _, err) = try etude("loops", "save", "Minuet in G", "bad", "--bars", "40-44")
        #expect(status == 1 && err == "etude: --bars 40-44: the lesson has 12 bars\n", "\(err)")
        (status, _, err) = try etude("loops", "save", "Minuet in G", "bad", "--bars", "1-2", "--other-hand", "hide")
        #expect(status == 1 && err == "etude: --other-hand hide: use play, quiet or mute\n", "\(err)")
        (status, _, err) = try etude("loops", "save", "Minuet in G", "soft", "--bars", "1-4", "--hand", "right", "--tempo", "65%",
                                     "--other-hand", "quiet")
        #expect(status == 0, "\(err)")
        (status, out, _) = try etude("loops", "list", "Minuet in G")
        #expect(out == "soft: bars 1-4, right hand, 65%, other hand quiet\nrun: bars 9-12, right hand, 70%, other hand play\n", "\(out)")
        // practice, loop and export take a title or id as fav and loops do.
        (status, out, err) = try etude("loop", "Minuet in G", "--saved", "soft", "--dry-run")
        #expect(status == 0 && out.hasPrefix("Minuet in G: bars 1–4, right hand (other hand: quiet)")
                && out.contains("pass 1: 65%"), "\(out)\(err)")
        let exportedMid = dir.file("soft.mid")
        (status, out, err) = try etude("export", "minuet", "-o", exportedMid, "--bars", "9-12")
        #expect(status == 0 && out.hasPrefix("Wrote \(exportedMid): bars 9–12"), "\(out)\(err)")
        (status, _, err) = try etude("loop", "no-such-piece", "1-2", "--dry-run")
        #expect(status == 1 && err.hasPrefix("etude: no-such-piece: no such lesson or file"), "\(err)")
        (status, _, err) = try etude("loop", "missing.mid", "1-2", "--dry-run")
        #expect(status == 1 && err == "etude: missing.mid: no such file\n", "\(err)")
        // A loop stored with the old `hide` mode still plays, with the other hand muted.
        do {
            let s = try Store.open(path: env["ETUDE_DB"] ?? "")
            let minuet = try s.resolveLesson("Minuet in G")
            try s.saveLoop(SavedLoop(lessonID: minuet.lesson.id, name: "old", firstBar: 2, lastBar: 3, hand: "right",
                                     tempoPercent: 80, otherHandMode: "hide"))
        }
        (status, out, err) = try etude("loop", "Minuet in G", "--saved", "old", "--dry-run")
        #expect(status == 0 && out.hasPrefix("Minuet in G: bars 2–3, right hand (other hand: mute)"), "\(out)\(err)")
        (status, _, _) = try etude("loops", "delete", "Minuet in G", "old")
        #expect(status == 0)
        // `etude loops LESSON` lists (as `etude loop --help` says); rename a loop.
        (status, out, err) = try etude("loops", "rename", "Minuet in G", "soft", "quiet start")
        #expect(status == 0 && out == "Renamed loop soft to quiet start\n", "\(err)")
        (status, out, _) = try etude("loops", "Minuet in G")
        #expect(out == "quiet start: bars 1-4, right hand, 65%, other hand quiet\nrun: bars 9-12, right hand, 70%, other hand play\n", "\(out)")
        (status, _, err) = try etude("loops", "rename", "Minuet in G", "quiet start", "run")
        #expect(status == 1 && err.hasPrefix("etude: this lesson has a loop named run already") && err.split(separator: "\n").count == 1, "\(err)")
        (status, _, err) = try etude("loops", "rename", "Minuet in G", "nope", "x")
        #expect(status == 1 && err.hasPrefix("etude: Minuet in G has no loop named nope"), "\(err)")

        (status, out, err) = try etude("routine", "new", "warm-up", "--entry", "lesson=C Scale;hand=right;tempo=80;minutes=2",
                                       "--entry", "random=favourite;reps=2;pause=10")
        #expect(status == 0, "\(err)")
        let exported = dir.file("warm-up.json")
        (status, _, _) = try etude("routine", "export", "warm-up", "--output", exported)
        #expect(status == 0)
        (status, out, _) = try etude("routine", "import", exported, "--name", "copy")
        #expect(status == 0 && out.contains("Imported copy (2 entries)"))
        (status, out, _) = try etude("routine", "export", "copy", "--format", "text")
        #expect(out == "copy\n1. C Scale — right hand, 80% — 2 min\n2. a random favourite — 2 times (pause 10 s before)\n")
        (status, out, _) = try etude("routine", "edit", "copy", "--move", "2", "--to", "1", "--rename", "copy2")
        #expect(out.hasPrefix("copy2\n1. a random favourite"))
        (status, out, _) = try etude("routine", "run", "warm-up", "--seed", "3", "--plan")
        #expect(status == 0 && out.contains("1. [0:00] C Scale") && out.contains("2. [2:10] Minuet in G"))

        (status, out, _) = try etude("stats", "Minuet in G")
        #expect(status == 0 && out.contains("Passes:       0"))
        (status, _, err) = try etude("resume")
        #expect(status == 1 && err.hasPrefix("etude: nothing to resume"))

        // Editing in $EDITOR: the routine JSON is handed to it and read back.
        (status, out, err) = try Repo.run(["routine", "edit", "warm-up"],
                                          environment: env.merging(["VISUAL": "", "EDITOR": "sed -i s/\\\"minutes\\\"\\ :\\ 2/\\\"minutes\\\":4/"]) { $1 })
        #expect(status == 0, "\(err)")
        #expect(out.contains("1. C Scale — right hand, 80% — 4 min"))
        (status, _, err) = try Repo.run(["routine", "edit", "warm-up"], environment: env.merging(["VISUAL": "", "EDITOR": "false"]) { $1 })
        #expect(status == 1 && err.contains("unchanged"))

        // History and resume written through the API show up in stats and resume.
        do {
            let s = try Store.open(path: env["ETUDE_DB"] ?? "")
            let minuet = try s.resolveLesson("Minuet in G")
            for (i, score) in [40.0, 55, 70, 90].enumerated() {
                try s.recordPass(lessonID: minuet.lesson.id, startedAt: Date(timeIntervalSinceNow: Double(i - 10)), mode: "play",
                                 hand: "right", tempoPercent: 60 + 10 * i,
                                 figures: ScoreFigures(hit: 10, missed: 0, wrong: 0, extra: 0, accuracy: 1, timingMeanMs: 0, timingSdMs: 0, score: score),
                                 durationSeconds: 120)
            }
            try s.saveResume(ResumeState(lessonID: minuet.lesson.id, path: minuet.path ?? "", positionSeconds: 75, hand: "right",
                                         tempoPercent: 70, mode: "play", loopFirstBar: 9, loopLastBar: 12, loopName: "run"))
        }
        (status, out, _) = try etude("stats", "Minuet in G")
        #expect(out.contains("Passes:       4 (4 scored), 8 min in all"))
        #expect(out.contains("Best score:   90") && out.contains("Latest score: 90"))
        #expect(out.contains("Score:  ▄▅▆▇"))
        #expect(out.contains("Tempo:  ▅▆▇▇"))
        (status, out, _) = try etude("resume", "--json")
        let resume = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        #expect(resume?["title"] as? String == "Minuet in G")
        #expect(resume?["positionSeconds"] as? Double == 75)
        #expect((resume?["loop"] as? [String: Any])?["name"] as? String == "run")
        (status, out, _) = try etude("list", "minuet")
        #expect(out.contains("best 90"))
    }

    @Test func corruptDatabaseIsReportedInOneLineByTheCLI() throws {
        try requireBinary()
        let dir = try TempDir()
        let db = dir.file("etude.sqlite")
        try Data(repeating: 0x42, count: 5000).write(to: URL(fileURLWithPath: db))
        let (status, _, err) = try Repo.run(["library", "list", "--db", db])
        #expect(status == 0)
        #expect(err.split(separator: "\n").count == 1 && err.contains("moved it to") && err.contains(".corrupt-"))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(names.contains { $0.hasPrefix("etude.sqlite.corrupt-") })
    }
}
