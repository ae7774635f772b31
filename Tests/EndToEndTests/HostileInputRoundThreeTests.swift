import Foundation
import GRDB
import Testing
import TestSupport

/// Issue 40: the third hostile-input probe. Every case is made here in a temporary folder (a
/// device node is made with `mknod` there, never a real system path) and run through the built
/// `etude` as a user runs it.
@Suite("Hostile input, round three", .serialized)
struct HostileInputRoundThreeTests: HostileSuite {
    let etude: Etude
    let dir: TempDir
    let lesson: String

    init() throws { (etude, dir, lesson) = try Self.setUp("etude-hostile3") }

    /// What `lstat` says of a path: its type bits, device and inode (nil when there is none).
    static func entry(_ path: String) -> [UInt64]? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return [UInt64(st.st_mode & S_IFMT), UInt64(st.st_dev), UInt64(st.st_ino)]
    }

    static let isRoot = getuid() == 0
    static let smallSoundFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    // MARK: 1. One writer for every file Etude writes

    /// Every writer (`-o`, `--export`, `--report`) against every kind of target: an input of the
    /// command, the database and its sidecars (there or not yet), a SoundFont played through, a
    /// device node, a FIFO, a folder, a symlink to each; each refused in one line naming the file,
    /// with the target untouched (a symlink still the same link). A symlink to a file and a
    /// dangling one are written *through*: the link stays, the file it names gets the bytes.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: smallSoundFont), "TimGM6mb.sf2 is not installed (apt-get install timgm6mb-soundfont)"))
    func everyWriterAgainstEveryKindOfTarget() throws {
        let font = try dir.write("font.sf2", [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.smallSoundFont))))
        let abc = try dir.write("t.abc", "X:1\nT:Tune\nK:C\nCDEF|GABc|\n")
        let inputFIFO = dir.file("in.fifo")
        #expect(mkfifo(inputFIFO, 0o600) == 0)
        Self.clean(try etude.run(["routine", "new", "r", "--entry", "lesson=\(lesson);minutes=1"]), status: 0, "routine new")
        let db = etude.database
        #expect(FileManager.default.fileExists(atPath: db))
        let fifo = dir.file("out.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let folder = dir.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        var device: String?
        if Self.isRoot {
            // A character device (1, 3) made in the test's own folder: never a real system path.
            let node = dir.file("node")
            if mknod(node, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 { device = node }
        }

        struct Writer {
            var name: String
            var args: (String) -> [String]
            /// The targets that are this writer's own inputs.
            var inputs: [String]
            /// Whether the test can see this writer succeed (record and practice need a player).
            var succeeds: Bool
        }
        let writers = [
            Writer(name: "export -o", args: { ["export", lesson, "-o", $0] }, inputs: [lesson], succeeds: true),
            Writer(name: "render -o", args: { ["render", lesson, "-o", $0, "--soundfont", font, "--tail", "0"] }, inputs: [lesson, font], succeeds: true),
            Writer(name: "abc -o", args: { ["abc", abc, "-o", $0] }, inputs: [abc], succeeds: true),
            Writer(name: "record -o", args: { ["record", "-o", $0, "--input", inputFIFO, "--soundfont", font] }, inputs: [inputFIFO, font], succeeds: false),
            Writer(name: "sight-read --export", args: { ["sight-read", "--export", $0] }, inputs: [], succeeds: true),
            Writer(name: "routine export -o", args: { ["routine", "export", "r", "-o", $0] }, inputs: [], succeeds: true),
            Writer(name: "practice --report", args: { ["practice", lesson, "--report", $0, "--soundfont", font, "--input", inputFIFO] },
                   inputs: [lesson, font, inputFIFO], succeeds: false),
        ]
        var refused: [(target: String, kind: String, message: String)] = [
            (db, "the database", "that is the input file"),
            (db + "-wal", "its -wal (not there)", "that is the input file"),
            (db + "-shm", "its -shm", "that is the input file"),
            (db + "-journal", "its -journal (not there)", "that is the input file"),
            (fifo, "a FIFO", "a FIFO"),
            (folder, "a folder", "is a directory"),
        ]
        if let device { refused.append((device, "a device node", "a device node")) }
        var n = 0
        for writer in writers {
            var targets = refused
            for input in writer.inputs {
                targets.append((input, "its input \((input as NSString).lastPathComponent)", input == inputFIFO ? "" : "that is the input file"))
            }
            // A symlink to each: refused the same way, and left a symlink to it.
            for t in targets {
                n += 1
                let link = dir.file("link-\(n)")
                #expect(symlink(t.target, link) == 0)
                targets.append((link, "a symlink to \(t.kind)", t.message))
            }
            for t in targets {
                let before = Self.entry(t.target)
                // The database's own bytes are SQLite's to change (a lesson catalogued on the way).
                let content = !t.kind.contains("database") && !t.kind.contains("its -") ? bytes(t.target) : nil
                let r = try etude.run(writer.args(t.target), directory: dir.path, timeout: 60)
                let what = "\(writer.name) \(t.kind)"
                Self.clean(r, status: 1, message: t.message.isEmpty ? nil : t.message, what)
                #expect(r.stderr.contains((t.target as NSString).lastPathComponent), "\(what): the line does not name the file: \(r.stderr)")
                if content != nil || !t.target.hasPrefix(db) {
                    #expect(Self.entry(t.target) == before, "\(what): the target changed")
                }
                if let content { #expect(bytes(t.target) == content, "\(what): the target's bytes changed") }
                // The database's files are SQLite's: none holds what the writer makes.
                let head = content == nil ? Array((bytes(t.target) ?? []).prefix(4)) : []
                #expect(head != Array("MThd".utf8) && head != Array("RIFF".utf8) && head.first != UInt8(ascii: "{"), "\(what): written over")
            }
            guard writer.succeeds else { continue }
            // Written through a symlink to a file, and through a dangling one.
            n += 1
            let file = try dir.write("file-\(n)", "old bytes")
            let link = dir.file("link-\(n)")
            #expect(symlink(file, link) == 0)
            let dangling = dir.file("dangling-\(n)")
            let missing = dir.file("missing-\(n)")
            #expect(symlink(missing, dangling) == 0)
            for (target, written) in [(link, file), (dangling, missing)] {
                let r = try etude.run(writer.args(target), directory: dir.path, timeout: 120)
                Self.clean(r, status: 0, "\(writer.name) through a symlink")
                var st = stat()
                #expect(lstat(target, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK, "\(writer.name): the symlink was replaced")
                let got = bytes(written) ?? []
                #expect(got.count > 9 && got != Array("old bytes".utf8), "\(writer.name): nothing written through the link")
            }
        }
        #expect(FileManager.default.fileExists(atPath: db + "-journal") == false)
        // Nothing half-written was left anywhere.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp") }
        #expect(left.isEmpty, "\(left)")
        // The database is still the database: the routine is there.
        Self.clean(try etude.run(["routine", "list"]), status: 0, "routine list")
    }

    /// F19: `--report` onto the SoundFont played through is refused before a byte of it changes.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: smallSoundFont), "TimGM6mb.sf2 is not installed (apt-get install timgm6mb-soundfont)"))
    func theReportIsNeverTheSoundFont() throws {
        let font = try dir.write("font.sf2", [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.smallSoundFont))))
        let before = bytes(font)
        let r = try etude.run(["practice", lesson, "--soundfont", font, "--report", font], timeout: 30)
        Self.clean(r, status: 1, message: "that is the input file", "--report the SoundFont")
        #expect(bytes(font) == before)
    }

    // MARK: 2. Recordings: every header number checked, in bounded memory

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: UInt64) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
    static func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }

    /// A WAV header (and `data`) saying what it is given; `ds64`: RF64 with that data size.
    static func wav(rate: UInt64, bits: Int = 16, data: [UInt8], ds64: UInt64? = nil, dataSize: UInt64? = nil) -> [UInt8] {
        let align = max(1, bits / 8)
        let fmt = le16(1) + le16(1) + le32(rate) + le32(rate &* UInt64(align)) + le16(align) + le16(bits)
        var body: [UInt8] = Array("WAVE".utf8)
        if let ds64 { body += Array("ds64".utf8) + le32(28) + le64(0) + le64(ds64) + le64(0) + le32(0) }
        body += Array("fmt ".utf8) + le32(16) + fmt + Array("data".utf8) + le32(ds64 != nil ? 0xFFFF_FFFF : dataSize ?? UInt64(data.count)) + data
        return Array((ds64 != nil ? "RF64" : "RIFF").utf8) + le32(UInt64(body.count)) + body
    }

    /// F1–F5 from headers of a few KB: rates of 460 kHz, 12.3 MHz and 2³²−1, an RF64 data size of
    /// 2⁶³, a 500 MB 8-bit recording (a sparse file: a few KB on disk): each one line, no trap, in
    /// seconds, never gigabytes.
    @Test func hostileRecordingHeadersAreOneLineNeverATrap() throws {
        let silence = [UInt8](repeating: 0, count: 4_000)
        let noise = (0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let cases: [(name: String, bytes: [UInt8], message: String)] = [
            ("f1.wav", Self.wav(rate: 460_000, data: noise), "sample rate 460000 Hz is outside 8 kHz–384 kHz"),
            ("f2.wav", Self.wav(rate: 12_300_000, data: noise), "sample rate 12300000 Hz is outside"),
            ("f3.wav", Self.wav(rate: 0xFFFF_FFFF, data: noise), "sample rate 4294967295 Hz is outside"),
            // Silence: the data size read is what the file holds, and a listener at 384 kHz runs.
            ("f4.wav", Self.wav(rate: 44_100, data: silence, ds64: 1 << 63), "no piano note heard"),
            ("f4b.wav", Self.wav(rate: 384_000, data: silence), "no piano note heard"),
            ("12bit.wav", Self.wav(rate: 44_100, bits: 12, data: noise), "unsupported: 12-bit PCM"),
        ]
        for c in cases {
            let path = try dir.write(c.name, c.bytes)
            let r = try etude.run(["judge", lesson, path], timeout: 60)
            Self.clean(r, status: 1, message: c.message, "judge \(c.name)")
        }
        // F5: 500 MB of 8-bit samples at 8 kHz (17 hours) is refused from its header, before a sample is read.
        let big = try dir.write("f5.wav", Self.wav(rate: 8_000, bits: 8, data: [], dataSize: 500_000_000))
        #expect(truncate(big, 500_000_044) == 0)
        let started = ProcessInfo.processInfo.systemUptime
        let r = try etude.run(["judge", lesson, big], timeout: 60)
        Self.clean(r, status: 1, message: "Etude judges recordings up to 60 min", "judge a 500 MB 8-bit WAV")
        #expect(ProcessInfo.processInfo.systemUptime - started < 20)
    }

    /// F5: a recording of the lesson as 8-bit PCM, µ-law and 64-bit float is heard, not called silence.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: smallSoundFont), "TimGM6mb.sf2 is not installed"),
          .enabled(if: Tools.sox.available, Tools.sox.reason), .enabled(if: Tools.fluidsynth.available, Tools.fluidsynth.reason))
    func eightBitMuLawAndDoubleRecordingsAreHeard() throws {
        let bars = ["--bars", "1-4"]
        let dry = dir.file("dry.wav")
        let short = try dir.write("short.mid", [UInt8](try Data(contentsOf: URL(fileURLWithPath: lesson))))
        #expect(try ProcessRunner.run(Tools.fluidsynth.path ?? "", ["-ni", "-q", "-r", "22050", "-T", "wav", "-F", dry, Self.smallSoundFont, short]).status == 0)
        for (name, sox) in [("u8.wav", ["-b", "8", "-e", "unsigned-integer"]), ("mu.wav", ["-e", "mu-law"]), ("f64.wav", ["-b", "64", "-e", "floating-point"])] {
            let out = dir.file(name)
            #expect(try ProcessRunner.run(Tools.sox.path ?? "", [dry] + sox + [out, "trim", "0", "12"]).status == 0)
            let r = try etude.run(["judge", lesson, out, "--json"] + bars, timeout: 300)
            Self.clean(r, status: 0, "judge \(name)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let hit = report["hit"] as? Int ?? 0, missed = report["missed"] as? Int ?? 0
            #expect(Double(hit) / Double(max(1, hit + missed)) >= 0.8, "\(name): hit \(hit), missed \(missed)")
        }
    }

    // MARK: 3. The history never traps or hangs

    /// F7–F9: a sight-reading score of 1e308, a date that does not read, levels 0 and 99: each row
    /// skipped and reported once; `stats`, `today`, `next` and `sight-read` go on. F6: a
    /// performance whose last key lies 37,000 hours on is stored as the span it was played in.
    @Test func damagedSightReadingRowsAreSkippedAndAFarNoteIsNotHoursOfPractice() throws {
        Self.clean(try etude.run(["debug-write-history", "--count", "3"]), status: 0, "history")
        let db = try DatabaseQueue(path: etude.database)
        try db.write { d in
            let lessonID = try String.fetchOne(d, sql: "SELECT lessonID FROM pass LIMIT 1") ?? "x"
            // F7 in a pass: a score and a duration of 1e308, a tempo of -5 %.
            try d.execute(sql: "UPDATE pass SET durationSeconds = 1e308, score = 1e308 WHERE id = (SELECT MIN(id) FROM pass)")
            try d.execute(sql: "UPDATE pass SET tempoPercent = -5 WHERE id = (SELECT MAX(id) FROM pass)")
            for (level, score, date) in [(2, "1e308", "'2026-01-01 00:00:00.000'"), (2, "50", "'garbage-date'"), (0, "50", "'2026-01-02 00:00:00.000'"),
                                          (99, "50", "'2026-01-03 00:00:00.000'"), (3, "80", "'2026-01-04 00:00:00.000'")] {
                try d.execute(sql: "INSERT INTO sightReading (level, seed, lessonID, passID, score, playedAt) VALUES (?, 1, ?, NULL, \(score), \(date))",
                              arguments: [level, lessonID])
            }
        }
        try db.close()
        for args in [["stats"], ["stats", "--json"], ["today"], ["next"], ["sight-read", "--export", dir.file("sr.mid")]] {
            let r = try etude.run(args, timeout: 60)
            Self.clean(r, status: 0, args.joined(separator: " "))
            #expect(!r.output.contains("--level 0") && !r.output.contains("--level 99"), "\(args): \(r.output)")
            if args != ["next"] {
                #expect(r.stderr.contains("rows Etude cannot read") && r.stderr.contains("4 in sightReading"), "\(args): \(r.stderr)")
            }
        }
        let stats = try etude.run(["stats", "--json"])
        #expect(stats.stderr.contains("2 in pass") && !stats.stdout.contains("inf") && !stats.stdout.contains("e+308") && !stats.stdout.contains("-5"),
                "\(stats.output)")
        // The one good row counts: level 3 is the level now.
        #expect(try etude.run(["stats"]).stdout.contains("level 3 now"))

        // F6: 55 bytes: a key at 0 and one 37,000 hours on (one tick per quarter note).
        func vlq(_ n: Int) -> [UInt8] {
            var out: [UInt8] = [UInt8(n & 0x7F)]
            var v = n >> 7
            while v > 0 { out.insert(UInt8(v & 0x7F) | 0x80, at: 0); v >>= 7 }
            return out
        }
        let track: [UInt8] = vlq(0) + [0x90, 64, 80] + vlq(480) + [0x80, 64, 0] + vlq(0x0FFF_FFFF) + [0x90, 64, 80] + vlq(480) + [0x80, 64, 0]
            + vlq(0) + [0xFF, 0x2F, 0]
        let far = try dir.write("far.mid", Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 1] + Array("MTrk".utf8) + Self.le32(UInt64(track.count)).reversed() + track)
        Self.clean(try etude.run(["judge", lesson, far], timeout: 60), status: 0, "judge a far note")
        let check = try DatabaseQueue(path: etude.database)
        let seconds = try check.read { d in try Double.fetchOne(d, sql: "SELECT durationSeconds FROM pass WHERE mode = 'judge'") } ?? -1
        #expect(seconds >= 0 && seconds < 10 * 60, "stored \(seconds) s")
    }

    /// F10: with every one of level 3's 1,000,000 exercises in the history, `sight-read` (the level
    /// given, or the level the history suggests) says so in one line naming the level and the
    /// ways on, and exits 1 instead of spinning; another level still gives a fresh exercise.
    @Test func whenEveryExerciseOfALevelIsPlayedSightReadSaysSoInOneLine() throws {
        Self.clean(try etude.run(["list"]), status: 0, "list")
        let db = try DatabaseQueue(path: etude.database)
        try db.write { d in
            try d.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999999)
                INSERT INTO sightReading (level, seed, lessonID, passID, score, playedAt)
                    SELECT 3, i, 'x', NULL, 50, '2026-01-01 00:00:00.000' FROM n
                """)
        }
        try db.close()
        let line = "every sight-reading exercise of level 3 has been played (1000000 of them); choose another --level, or give --seed N to play one again"
        for args in [["sight-read", "--level", "3", "--export", dir.file("l3.mid")], ["sight-read", "--export", dir.file("next.mid")]] {
            let r = try etude.run(args, timeout: 120)
            Self.clean(r, status: 1, message: line, args.joined(separator: " "))
            #expect(!FileManager.default.fileExists(atPath: args.last ?? ""), "nothing written")
        }
        let other = try etude.run(["sight-read", "--level", "4", "--export", dir.file("l4.mid")], timeout: 120)
        Self.clean(other, status: 0, "another level")
        #expect(FileManager.default.fileExists(atPath: dir.file("l4.mid")))
    }

    // MARK: 8. The minor ones

    /// `routine import` refuses the keys `--entry` refuses (keys, range, fit) instead of dropping
    /// them unsaid; `library add ""` names the folder instead of adding the current one.
    @Test func routineImportRefusesUnknownKeysAndLibraryAddNeedsAFolder() throws {
        let file = try dir.write("r.json", #"{"etudeRoutine":1,"name":"r","entries":[{"lesson":"x","title":"Ode to Joy","minutes":1,"keys":61}]}"#)
        Self.clean(try etude.run(["routine", "import", file]), status: 1, message: "unknown key \"keys\"", "routine import with keys")
        Self.clean(try etude.run(["routine", "new", "r", "--entry", "lesson=\(lesson);minutes=1;keys=61"]), status: 1, message: "unknown key keys",
                   "--entry keys=61")
        Self.clean(try etude.run(["routine", "list"]), status: 0, "routine list")
        let r = try etude.run(["library", "add", ""], directory: dir.path)
        #expect(r.status == 64 && r.stderr.contains("name the folder to add"), "\(r.stderr)")
        #expect(try etude.run(["library", "list"]).stdout.contains(dir.path) == false)
    }

    /// `--transpose Cb` on a minor lesson suggests Bm, a key (not Cbm).
    @Test func aMinorLessonsSuggestionIsAKey() throws {
        let minor = try dir.write("m.abc", "X:1\nT:Minor\nK:Am\nABcd|e4|\n")
        for (given, hint) in [("Cb", "Bm"), ("Gb", "F#m"), ("Db", "C#m")] {
            let r = try etude.run(["export", minor, "-o", dir.file("t.mid"), "--transpose", given])
            Self.clean(r, status: 1, message: "try --transpose \(hint)", "--transpose \(given)")
        }
    }

    /// On a full disk the commands that only read still work (the database is opened for
    /// reading); one that saves says so. A 3 MB tmpfs mounted in the test's own folder (root).
    @Test(.enabled(if: isRoot, "needs root to mount a small tmpfs"))
    func onAFullDiskReadingCommandsStillWork() throws {
        let disk = dir.file("full")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        guard try ProcessRunner.run("/bin/mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", disk]).status == 0 else { return }
        defer { _ = try? ProcessRunner.run("/bin/umount", [disk]) }
        let db = disk + "/etude.sqlite"
        Self.clean(try etude.run(["list", "--db", db]), status: 0, "list on an empty disk")
        _ = try ProcessRunner.run("/bin/dd", ["if=/dev/zero", "of=\(disk)/fill", "bs=1k", "count=5000"])
        for args in [["list"], ["stats"], ["next"], ["today"]] {
            Self.clean(try etude.run(args + ["--db", db], timeout: 60), status: 0, "\(args[0]) on a full disk")
        }
        Self.clean(try etude.run(["library", "add", dir.path, "--db", db], timeout: 60), status: 1, message: "the disk is full", "library add on a full disk")
    }
}
