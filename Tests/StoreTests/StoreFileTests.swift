import Foundation
import Judge
import GRDB
import MIDIFile
import Testing
import TestSupport
@testable import Store

@Suite struct DatabaseFileTests {
    @Test func createsAFreshDatabaseInMissingFolders() throws {
        let dir = try TempDir()
        let path = dir.file("a/b/etude.sqlite")
        let s = try Store.open(path: path)
        #expect(s.notices.isEmpty)
        #expect(try s.schemaVersion() == Schema.versions.last)
        #expect(try s.integrityCheck() == "ok")
        let mode = try s.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let fk = try s.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }
        #expect(fk == 1)
    }

    @Test func emptyFileIsMigratedNotMovedAside() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let s = try Store.open(path: path)
        #expect(s.notices.isEmpty)
        #expect(try s.schemaVersion() == Schema.versions.last)
    }

    /// A database left at each earlier schema version, holding data, upgrades in place and keeps it.
    @Test(arguments: Schema.versions.dropLast())
    func migratesFromEarlierVersion(_ version: String) throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        do {
            let old = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(old, upTo: version)
            try old.write { db in
                try db.execute(sql: "INSERT INTO lesson (id, title, level, firstSeen) VALUES ('aa', 'Old lesson', 2, '2025-01-01 10:00:00.000')")
                try db.execute(sql: "INSERT INTO lessonFile (path, lessonID, size, mtime, source, root) VALUES ('/x/old.mid', 'aa', 10, 1.5, 'folder', '/x')")
                try db.execute(sql: "INSERT INTO favourite (lessonID, addedAt) VALUES ('aa', '2025-01-01 10:00:00.000')")
                try db.execute(sql: """
                    INSERT INTO pass (lessonID, startedAt, mode, hand, tempoPercent, durationSeconds, score)
                    VALUES ('aa', '2025-01-02 10:00:00.000', 'play', 'right', 80, 42, 77)
                    """)
                try db.execute(sql: """
                    INSERT INTO resumeState (id, lessonID, path, positionSeconds, hand, tempoPercent, mode, updatedAt)
                    VALUES (1, 'aa', '/x/old.mid', 12, 'right', 80, 'play', '2025-01-02 10:00:00.000')
                    """)
            }
            try old.close()
        }
        let s = try Store.open(path: path)
        #expect(try s.schemaVersion() == Schema.versions.last)
        #expect(try s.integrityCheck() == "ok")
        let passes = try s.passes(lessonID: "aa")
        #expect(passes.count == 1 && passes[0].score == 77 && passes[0].durationSeconds == 42 && passes[0].figures == nil)
        #expect(try s.favourites().map(\.lesson.title) == ["Old lesson"])
        let listing = try #require(try s.listing(id: "aa"))
        #expect(listing.path == "/x/old.mid" && listing.passes == 1 && listing.bestScore == 77)
        #expect(listing.lastPractised == date("2025-01-02T10:00:00Z"))
        #expect(try s.resume()?.state.positionSeconds == 12)
        // The newer tables and columns work on the upgraded file.
        try s.saveLoop(SavedLoop(lessonID: "aa", name: "x", firstBar: 1, lastBar: 2, hand: .both, tempoPercent: 90, otherHandMode: .play))
        try s.recordPass(lessonID: "aa", startedAt: Date(), mode: .play, hand: .both, tempoPercent: 100,
                         figures: ScoreFigures(hit: 1, missed: 0, wrong: 0, extra: 0, accuracy: 1, timingMeanMs: 0, timingSdMs: 0, score: 100),
                         durationSeconds: 1)
        #expect(try s.passes(lessonID: "aa").last?.figures?.hit == 1)
        try s.saveStoredRoutine(StoredRoutine(name: "r", entries: #"[{"random":"favourite","repetitions":1}]"#))
        #expect(try s.storedRoutine(named: "r")?.entries == #"[{"random":"favourite","repetitions":1}]"#)
    }

    @Test func newerSchemaIsRefused() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        do {
            let q = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(q)
            try q.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99-future')") }
            try q.close()
        }
        #expect(throws: StoreError.self) { try Store.open(path: path) }
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func notADatabaseIsMovedAsideNeverOverwritten() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        let junk = Data("these are my notes, not a database\n".utf8)
        try junk.write(to: URL(fileURLWithPath: path))
        let s = try Store.open(path: path, now: date("2026-05-06T07:08:09Z"))
        #expect(s.notices.count == 1)
        #expect(s.notices[0].contains("etude.sqlite.corrupt-20260506-070809"))
        #expect(!s.notices[0].contains("\n"))
        let aside = path + ".corrupt-20260506-070809"
        #expect(FileManager.default.contents(atPath: aside) == junk)
        #expect(try s.integrityCheck() == "ok")
        #expect(try s.schemaVersion() == Schema.versions.last)
    }

    @Test func damagedPagesAreMovedAside() throws {
        let dir = try TempDir()
        let path = dir.file("etude.sqlite")
        do {
            let s = try Store.open(path: path)
            for i in 0..<200 { try s.register(LessonInfo(id: "id\(i)", title: String(repeating: "t", count: 200))) }
            try s.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try (s.writer as? DatabasePool)?.close()
        }
        // Overwrite everything after the header page with garbage.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.count > 8192)
        for i in 4096..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 131) }
        try bytes.write(to: URL(fileURLWithPath: path))
        let s = try Store.open(path: path)
        #expect(s.notices.count == 1)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(names.contains { $0.hasPrefix("etude.sqlite.corrupt-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        #expect(try s.integrityCheck() == "ok")
    }

    /// Issue 40 point 6: a damaged database the user chose (`--db`, `ETUDE_DB`) is refused in
    /// one line naming it, never moved aside; only the default place's is.
    @Test func aChosenDamagedDatabaseIsRefusedNeverMovedAside() throws {
        let dir = try TempDir()
        let path = dir.file("mine.sqlite")
        do {
            let s = try Store.open(path: path, chosen: true)
            for i in 0..<200 { try s.register(LessonInfo(id: "id\(i)", title: String(repeating: "t", count: 200))) }
            try s.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try (s.writer as? DatabasePool)?.close()
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for i in 4096..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 131) }
        try bytes.write(to: URL(fileURLWithPath: path))
        do {
            _ = try Store.open(path: path, chosen: true)
            Issue.record("a damaged chosen database was opened")
        } catch let error as StoreError {
            #expect(error.message.contains(path) && error.message.contains("is damaged") && !error.message.contains("\n"), "\(error.message)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "left exactly as it was")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(!names.contains { $0.contains(".corrupt-") }, "\(names)")
    }

    @Test func readOnlyLocationGivesAClearError() throws {
        let path: String
        var cleanup: (() -> Void)?
        if getuid() == 0 {
            // root may write anywhere on normal file systems; sysfs refuses everyone.
            path = "/sys/etude-store-test/etude.sqlite"
        } else {
            let dir = try TempDir()
            let ro = dir.file("ro")
            try FileManager.default.createDirectory(atPath: ro, withIntermediateDirectories: true)
            chmod(ro, 0o555)
            cleanup = { chmod(ro, 0o755); _ = dir }
            path = (ro as NSString).appendingPathComponent("etude.sqlite")
        }
        defer { cleanup?() }
        do {
            _ = try Store.open(path: path)
            Issue.record("opening \(path) should fail")
        } catch let e as StoreError {
            #expect(e.message.contains("--db"))
            #expect(e.message.contains("read-only") || e.message.contains("cannot create"))
            #expect(!e.message.contains("\n"))
        }
    }

    @Test func defaultPathFollowsOverridesAndXDG() {
        #expect(Store.defaultPath(override: "/a.sqlite", environment: ["ETUDE_DB": "/b.sqlite"]) == "/a.sqlite")
        #expect(Store.defaultPath(environment: ["ETUDE_DB": "/b.sqlite", "XDG_DATA_HOME": "/x"]) == "/b.sqlite")
        #expect(Store.defaultPath(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/etude/etude.sqlite")
        #expect(Store.defaultPath(environment: ["HOME": "/h"]) == "/h/.local/share/etude/etude.sqlite")
        #expect(Store.defaultPath(environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]) == "/h/.local/share/etude/etude.sqlite")
    }
}

@Suite struct CatalogueFileTests {
    @Test func movedAndRenamedFileKeepsFavouriteLoopsAndHistory() throws {
        let dir = try TempDir()
        let lib = dir.file("lib")
        try LessonMaker.write(lib + "/minuet.mid", title: "Minuet in G", level: 2)
        try LessonMaker.write(lib + "/scale.mid", title: "C Scale", level: 1)
        let s = try Store.open(path: dir.file("etude.sqlite"))
        let first = try s.addFolder(lib)
        #expect(first.added == 2 && first.failures.isEmpty)
        let minuet = try s.resolveLesson("Minuet in G")
        try s.addFavourite(minuet.lesson.id)
        try s.saveLoop(SavedLoop(lessonID: minuet.lesson.id, name: "A", firstBar: 1, lastBar: 4, hand: .right, tempoPercent: 70, otherHandMode: .play))
        try s.recordPass(lessonID: minuet.lesson.id, startedAt: Date(), mode: .play, hand: .right, tempoPercent: 70, durationSeconds: 20)

        try FileManager.default.createDirectory(atPath: lib + "/baroque", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: lib + "/minuet.mid", toPath: lib + "/baroque/bach-minuet-g.mid")
        let report = try s.rescan(builtinDirectory: nil)
        #expect(report.added == 1 && report.removed == 1 && report.unchanged == 1)
        let favs = try s.favourites()
        #expect(favs.map(\.lesson.id) == [minuet.lesson.id])
        #expect(favs[0].path == lib + "/baroque/bach-minuet-g.mid")
        #expect(try s.loops(for: minuet.lesson.id).map(\.name) == ["A"])
        #expect(favs[0].passes == 1)
        #expect(try s.lessons().count == 2)
    }

    @Test func builtInLessonsOfAnEarlierInstallAreNotListedBesideTheNewOnes() throws {
        // Installed once under /usr/local, then from a .deb under /usr: one catalogue, not two.
        let dir = try TempDir()
        let old = dir.file("usr-local/share/etude/Lessons"), new = dir.file("usr/share/etude/Lessons")
        _ = try LessonMaker.write(old + "/ode.mid", title: "Ode", level: 4)
        _ = try LessonMaker.write(new + "/ode.mid", title: "Ode", level: 4, salt: "new edition")
        let s = try Store.open(path: dir.file("etude.sqlite"))
        _ = try s.rescan(builtinDirectory: old)
        let first = try s.resolveLesson("Ode")
        try s.recordPass(lessonID: first.lesson.id, startedAt: Date(), mode: .watch, hand: .both, tempoPercent: 100, durationSeconds: 5)
        let report = try s.rescan(builtinDirectory: new)
        #expect(report.removed == 1 && report.added == 1)
        let listed = try s.lessons(matching: "ode")
        #expect(listed.map(\.path) == [new + "/ode.mid"], "\(listed.map(\.path))")
        // The first lesson's history is kept with it (it comes back if its file does).
        #expect(try s.listing(id: first.lesson.id)?.passes == 1)
    }

    @Test func rescanRereadsOnlyFilesWhoseSizeOrTimeChanged() throws {
        let dir = try TempDir()
        let lib = dir.file("lib")
        for i in 0..<5 { try LessonMaker.write(lib + "/l\(i).mid", title: "Lesson \(i)", level: 1) }
        let s = try Store.open(path: dir.file("etude.sqlite"))
        #expect(try s.addFolder(lib).added == 5)
        var again = try s.rescan(builtinDirectory: nil)
        #expect(again.unchanged == 5 && again.added == 0 && again.updated == 0)

        // Same size and mtime, different bytes: not re-read (the stamp is what rescans trust).
        let path = lib + "/l0.mid"
        var st = stat()
        stat(path, &st)
        let other = LessonMaker.bytes(title: "Lesson X", level: 1)
        #expect(other.count == Int(st.st_size))
        try Data(other).write(to: URL(fileURLWithPath: path))
        var times = [st.st_atim, st.st_mtim]
        utimensat(AT_FDCWD, path, &times, 0)
        again = try s.rescan(builtinDirectory: nil)
        #expect(again.unchanged == 5)
        #expect(try s.lessons(matching: "Lesson X").isEmpty)

        // A new mtime: re-read, and the new content is a new lesson.
        times[1].tv_sec += 10
        utimensat(AT_FDCWD, path, &times, 0)
        again = try s.rescan(builtinDirectory: nil)
        #expect(again.updated == 1 && again.unchanged == 4)
        #expect(try s.lessons(matching: "Lesson X").count == 1)
        #expect(try !s.lessons().map(\.lesson.title).contains("Lesson 0"))
    }

    @Test func unreadableAndOtherFilesAreSkipped() throws {
        let dir = try TempDir()
        let lib = dir.file("lib")
        try LessonMaker.write(lib + "/good.MID", title: "Good", level: 1)
        try Data("not midi".utf8).write(to: URL(fileURLWithPath: lib + "/bad.mid"))
        try Data("X:1\nK:C\nCDEF|\n".utf8).write(to: URL(fileURLWithPath: lib + "/tune.abc"))
        try LessonMaker.write(lib + "/.hidden/secret.mid", title: "Hidden")
        let s = try Store.open(path: dir.file("etude.sqlite"))
        let r = try s.addFolder(lib)
        #expect(r.added == 1)
        #expect(r.failures.map(\.path) == [lib + "/bad.mid"])
        #expect(try s.lessons().map(\.lesson.title) == ["Good"])
        // Still reported on the next rescan, without being re-read; re-read once it changes.
        let again = try s.rescan(builtinDirectory: nil)
        #expect(again.failures.map(\.path) == [lib + "/bad.mid"] && again.unchanged == 1)
        try LessonMaker.write(lib + "/bad.mid", title: "Fixed")
        let fixed = try s.rescan(builtinDirectory: nil)
        #expect(fixed.failures.isEmpty && fixed.added == 1)
        #expect(try s.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM unreadableFile") } == 0)
    }

    /// Another module (ABC) plugs its reader in when the store is opened.
    @Test func registeredFormatsAreCatalogued() throws {
        struct BadTune: Error, CustomStringConvertible { var description: String { "no K: line" } }
        let toy = LessonFormat(name: "abc", extensions: ["abc"]) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            guard text.contains("K:"), let t = text.split(separator: "\n").first(where: { $0.hasPrefix("T:") }) else { throw BadTune() }
            return try MIDIReader.read(LessonMaker.bytes(title: String(t.dropFirst(2)), level: 1)).file
        }
        let dir = try TempDir()
        let lib = dir.file("lib")
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        try Data("X:1\nT:Tune\nK:C\nCDEF|\n".utf8).write(to: URL(fileURLWithPath: lib + "/tune.abc"))
        try Data("X:2\nT:Broken\n".utf8).write(to: URL(fileURLWithPath: lib + "/broken.abc"))
        try LessonMaker.write(lib + "/song.mid", title: "Song")
        let s = try Store.open(path: dir.file("etude.sqlite"), formats: [.midi, toy])
        let r = try s.addFolder(lib)
        #expect(r.added == 2)
        #expect(r.failures.map(\.message) == ["no K: line"])
        let tune = try s.resolveLesson("Tune")
        #expect(tune.lesson.format == "abc" && tune.path == lib + "/tune.abc")
        #expect(tune.lesson.id == SHA256.hex(Array("X:1\nT:Tune\nK:C\nCDEF|\n".utf8)))
        // A store opened without the format ignores such files and refuses to open one directly.
        let plain = try Store.open(path: dir.file("plain.sqlite"))
        #expect(try plain.addFolder(lib).added == 1)
        #expect(throws: StoreError.self) { try plain.catalogue(fileAt: lib + "/tune.abc") }
    }

    @Test func openedFilesJoinTheCatalogueAndVanishWithTheirFile() throws {
        let dir = try TempDir()
        let path = dir.file("elsewhere/song.mid")
        try LessonMaker.write(path, title: "Opened song", level: 4)
        let s = try Store.open(path: dir.file("etude.sqlite"))
        let info = try s.catalogue(fileAt: path)
        #expect(info.title == "Opened song" && info.level == 4)
        #expect(try s.catalogue(fileAt: path).id == info.id)
        #expect(try s.lessons(level: 4).map(\.path) == [path])
        try s.addFavourite(info.id)
        try FileManager.default.removeItem(atPath: path)
        #expect(try s.rescan(builtinDirectory: nil).removed == 1)
        #expect(try s.lessons().isEmpty)
        // The favourite survives without a file, and comes back with it.
        #expect(try s.favourites().first?.path == nil)
        try LessonMaker.write(dir.file("again.mid"), title: "Opened song", level: 4)
        try s.catalogue(fileAt: dir.file("again.mid"))
        #expect(try s.favourites().first?.path == dir.file("again.mid"))
        #expect(throws: StoreError.self) { try s.catalogue(fileAt: dir.file("missing.mid")) }
    }

    @Test func removingAFolderKeepsItsHistory() throws {
        let dir = try TempDir()
        let lib = dir.file("lib")
        try LessonMaker.write(lib + "/a.mid", title: "A")
        let s = try Store.open(path: dir.file("etude.sqlite"))
        _ = try s.addFolder(lib)
        let a = try s.resolveLesson("A")
        try s.recordPass(lessonID: a.lesson.id, startedAt: Date(), mode: .watch, hand: .both, tempoPercent: 100, durationSeconds: 3)
        #expect(try s.removeFolder(lib))
        #expect(try !s.removeFolder(lib))
        #expect(try s.lessons().isEmpty)
        #expect(try s.passes(lessonID: a.lesson.id).count == 1)
        _ = try s.addFolder(lib)
        #expect(try s.listing(id: a.lesson.id)?.passes == 1)
    }

    @Test func builtinLessonsAreFoundByOverrideOrBesideTheExecutable() throws {
        let dir = try TempDir()
        #expect(BuiltinLessons.directory(environment: ["ETUDE_LESSONS": "/my/lessons"]) == "/my/lessons")
        try FileManager.default.createDirectory(atPath: dir.file("bin/Lessons"), withIntermediateDirectories: true)
        #expect(BuiltinLessons.directory(environment: [:], executablePath: dir.file("bin/etude")) == dir.file("bin/Lessons"))
        try FileManager.default.createDirectory(atPath: dir.file("repo/Lessons"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("repo/.build/debug"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.file("repo/Package.swift"), contents: Data())
        #expect(BuiltinLessons.directory(environment: [:], executablePath: dir.file("repo/.build/debug/etude")) == dir.file("repo/Lessons"))
    }
}
