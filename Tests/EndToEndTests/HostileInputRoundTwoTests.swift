import Foundation
import GRDB
import MIDIFile
import Testing
import TestSupport

/// Issue 31: the second hostile-input probe. Every case generates its input here, runs the
/// built `etude` as a user would and checks what the user sees (`HostileInputTests.expectClean`:
/// the status, one `etude:` line for a failure, no control byte), and that inputs are unchanged.
@Suite("Hostile input, round two", .serialized)
struct HostileInputRoundTwoTests: HostileSuite {
    let etude: Etude
    let dir: TempDir
    let lesson: String

    init() throws { (etude, dir, lesson) = try Self.setUp("etude-hostile2") }

    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ProcessInfo.processInfo.systemUptime
        try body()
        return ProcessInfo.processInfo.systemUptime - start
    }

    // MARK: 1. Bars: no scan per section

    /// Division 1, one note from tick 0 to tick 268,435,455: a million bars (the bar map's cap).
    static func farNote() -> [UInt8] {
        func vlq(_ n: Int) -> [UInt8] {
            var out: [UInt8] = [UInt8(n & 0x7F)]
            var v = n >> 7
            while v > 0 { out.insert(UInt8(v & 0x7F) | 0x80, at: 0); v >>= 7 }
            return out
        }
        let track: [UInt8] = vlq(0) + [0x90, 60, 64] + vlq(268_435_455) + [0x80, 60, 0] + vlq(0) + [0xFF, 0x2F, 0]
        let n = track.count
        return Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 1] + Array("MTrk".utf8)
            + [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + track
    }

    @Test func aMillionBarsFinishInfoAndExportAndScoreSaysHowMany() throws {
        let far = try dir.write("far.mid", Self.farNote())
        let before = bytes(far)
        var r = try etude.run(["info", far], timeout: 60)
        Self.clean(r, status: 0, "info far.mid")
        r = try etude.run(["export", far, "-o", dir.file("far-out.mid")], timeout: 60)
        Self.clean(r, status: 0, "export far.mid")
        r = try etude.run(["score", far], timeout: 60)
        Self.clean(r, status: 1, message: "give --bars A-B", "score far.mid")
        Self.clean(try etude.run(["score", far, "--bars", "1-8"], timeout: 60), status: 0, "score far.mid --bars 1-8")
        #expect(bytes(far) == before)
    }

    // MARK: 2. A damaged .mxl in a library folder

    /// A zip built by hand: each entry's name, compression method (0 stored, 8 deflate), the
    /// bytes as stored, and what they unpack to; `pastTheEnd` moves the directory's offset
    /// that far beyond the file.
    static func zip(_ entries: [(name: String, method: Int, stored: [UInt8], unpacked: [UInt8])], pastTheEnd: Int = 0) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
        var locals: [UInt8] = [], central: [UInt8] = []
        for e in entries {
            let name = Array(e.name.utf8), crc = CRC32.of(e.unpacked)
            let offset = locals.count
            locals += [0x50, 0x4B, 3, 4] + le16(20) + le16(0) + le16(e.method) + le16(0) + le16(0) + le32(crc)
                + le32(e.stored.count) + le32(e.unpacked.count) + le16(name.count) + le16(0) + name + e.stored
            central += [0x50, 0x4B, 1, 2] + le16(20) + le16(20) + le16(0) + le16(e.method) + le16(0) + le16(0) + le32(crc)
                + le32(e.stored.count) + le32(e.unpacked.count) + le16(name.count) + le16(0) + le16(0) + le16(0) + le16(0)
                + le32(0) + le32(offset) + name
        }
        let end = [0x50, 0x4B, 5, 6] + le16(0) + le16(0) + le16(entries.count) + le16(entries.count) + le32(central.count)
            + le32(locals.count + pastTheEnd) + le16(0)
        return locals + central + end
    }

    /// An .mxl whose end-of-central-directory record points past the end of the file.
    static func mxlPointingPastItsEnd() -> [UInt8] {
        let container = Array("<container/>".utf8)
        return zip([("META-INF/container.xml", 0, container, container)], pastTheEnd: 5000)
    }

    /// An .mxl whose score is a deflate stream that never ends: one stored block not marked
    /// final (ZIPFoundation's inflater waited for the next block for ever).
    static func mxlWithAnEndlessStream() -> [UInt8] {
        let container = Array("<container><rootfiles><rootfile full-path=\"s.musicxml\"/></rootfiles></container>".utf8)
        let score = Array("<score-partwise/>".utf8)
        let block: [UInt8] = [0x00, UInt8(score.count), 0, ~UInt8(score.count), 0xFF] + score
        return zip([("META-INF/container.xml", 0, container, container), ("s.musicxml", 8, block, score)])
    }

    @Test func aDamagedMXLNeverStopsTheCommandsThatDoNotNeedIt() throws {
        let folder = dir.file("library")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let damaged = Self.mxlPointingPastItsEnd()
        for k in 0..<20 { _ = try dir.write("library/bad\(k).mxl", damaged) }
        Self.clean(try etude.run(["info", dir.file("library/bad0.mxl")]), status: 1, message: "central directory", "info bad.mxl")
        let endless = try dir.write("library/endless.mxl", Self.mxlWithAnEndlessStream())
        Self.clean(try etude.run(["info", endless], timeout: 60), status: 1, message: "ends too soon", "info endless.mxl")
        Self.clean(try etude.run(["library", "add", folder], timeout: 120), status: 0, "library add")
        for args in [["list"], ["info", "Ode to Joy"], ["stats"], ["library", "list"], ["export", "Ode to Joy", "-o", dir.file("ode.mid")]] {
            Self.clean(try etude.run(args, timeout: 120), status: 0, args.joined(separator: " "))
        }
        #expect(bytes(dir.file("library/bad3.mxl")) == damaged)
        if Tools.tmux.available {
            let pane = try TmuxPane(etude: etude, ["practice", "Ode to Joy", "--mode", "watch"])
            let screen = pane.waitFor { $0.contains("Ode to Joy") }
            #expect(screen.contains("Ode to Joy"), "\(screen)")
            try pane.keys("q")
            #expect(pane.exitStatus() == 0)
        }
    }

    // MARK: 3, 4, 10. MusicXML: attributes, huge documents, words for libxml2's errors, PIs

    @Test func twoMillionAttributesAreRefusedAtOnce() throws {
        var text = "<?xml version=\"1.0\"?>\n<score-partwise version=\"4.0\"><part-list"
        text.reserveCapacity(26_000_000)
        for k in 0..<2_000_000 { text += " a\(k)=\"1\"" }
        text += "/></score-partwise>\n"
        let path = try dir.write("attrs.musicxml", text)
        var r: ProcessResult?
        let took = try seconds { r = try etude.run(["info", path], timeout: 60) }
        Self.clean(try #require(r), status: 1, message: "more than 256 attributes", "2,000,000 attributes")
        #expect(took < 30, "took \(took) s")
    }

    /// A valid 13 MB score of 100,000 bars: over libxml2's 10 MB default, under Etude's 64 MB.
    @Test func aThirteenMegabyteScoreIsRead() throws {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <score-partwise version="4.0"><part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list><part id="P1">
            <measure number="1"><attributes><divisions>1</divisions><time><beats>4</beats><beat-type>4</beat-type></time></attributes><note><pitch><step>C</step><octave>4</octave></pitch><duration>4</duration><type>whole</type></note></measure>

            """
        text.reserveCapacity(14_000_000)
        for bar in 2...100_000 {
            text += "<measure number=\"\(bar)\"><note><pitch><step>C</step><octave>4</octave></pitch><duration>4</duration><type>whole</type></note></measure>\n"
        }
        text += "</part></score-partwise>\n"
        #expect(text.utf8.count > 12_000_000)
        let path = try dir.write("big.musicxml", text)
        let r = try etude.run(["info", path], timeout: 300)
        Self.clean(r, status: 0, "a 13 MB score")
        #expect(r.stdout.contains("100000") || r.stdout.contains("100,000"), "\(r.stdout.prefix(600))")
    }

    @Test func libxml2ErrorsAreWordsAndAnEmptyInstructionInABrokenTagIsNoCrash() throws {
        let cases: [(text: String, message: String)] = [
            ("<?xml encoding=\"UTF-8\"?>\n<score-partwise/>\n", "no version"),
            ("<?xml version=\"1.0\"?>\n<score-partwise><ste<?x?>\n</score-partwise>\n", "not well-formed XML"),
            ("<?xml version=\"1.0\"?>\n<score-partwise><part-list><ste<?x?><?y?></part-list></score-partwise>\n", "not well-formed XML"),
        ]
        for (k, c) in cases.enumerated() {
            let path = try dir.write("e\(k).musicxml", c.text)
            let r = try etude.run(["info", path])
            Self.clean(r, status: 1, message: c.message, c.text)
            #expect(!r.stderr.contains("XML error"), "\(r.stderr)")
        }
    }

    // MARK: 5. Sizes checked by stat before a byte is read

    @Test func hugeFilesAreRefusedByTheirSizeBeforeAByteIsRead() throws {
        let cases: [(name: String, args: (String) -> [String], message: String)] = [
            ("big.musicxml", { ["info", $0] }, "Etude reads MusicXML files up to 64 MB"),
            ("big.mxl", { ["info", $0] }, "Etude reads MusicXML files up to 64 MB"),
            ("big.mid", { ["info", $0] }, "Etude reads MIDI files up to 64 MB"),
            ("big.abc", { ["info", $0] }, "Etude reads ABC files up to 8 MB"),
            ("big.abc", { ["abc", $0, "-o", "x.mid"] }, "Etude reads ABC files up to 8 MB"),
            ("big.json", { ["routine", "import", $0] }, "Etude reads routine files up to 1 MB"),
        ]
        for c in cases {
            let path = dir.file(c.name)
            #expect(FileManager.default.createFile(atPath: path, contents: Data("X:1\n".utf8)))
            #expect(truncate(path, 3 << 30) == 0, "a sparse 3 GB file")
            var r: ProcessResult?
            let took = try seconds { r = try etude.run(c.args(path), timeout: 60) }
            Self.clean(try #require(r), status: 1, message: c.message, "\(c.args(c.name))")
            #expect(took < 10, "\(c.name): \(took) s")
            unlink(path)
        }
        // A library folder holding one: skipped with its reason, the rest listed.
        let folder = dir.file("lib")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder + "/huge.mid", contents: Data("MThd".utf8)))
        #expect(truncate(folder + "/huge.mid", 3 << 30) == 0)
        let added = try etude.run(["library", "add", folder], timeout: 60)
        Self.clean(added, status: 0, "library add a folder with a 3 GB file")
        #expect(added.stdout.contains("up to 64 MB"), "\(added.stdout)")
    }

    // MARK: 6. Short output names

    @Test func shortOutputNamesAreOneLineOrAFileInTheCurrentFolder() throws {
        let abc = try dir.write("t.abc", "X:1\nT:Tune\nK:C\nCDEF|GABc|\n")
        Self.clean(try etude.run(["routine", "new", "r", "--entry", "lesson=\(lesson);minutes=1"]), status: 0, "routine new")
        let commands: [(String) -> [String]] = [
            { ["export", self.lesson, "-o", $0] },
            { ["render", self.lesson, "-o", $0] },
            { ["abc", abc, "-o", $0] },
            { ["routine", "export", "r", "-o", $0] },
            { ["record", "-o", $0, "--input", "/dev/null"] },
        ]
        let refused: [(name: String, message: String)] = [
            ("-", "standard output"), ("~", "home folder"), (" ", "blanks"), ("x/", "names a folder"), ("..", "names a folder"),
        ]
        for command in commands {
            for n in refused {
                let r = try ProcessRunner.run(EtudeBinary.path, command(n.name), environment: etude.environment, directory: dir.path, timeout: 60)
                Self.clean(r, status: 1, message: n.message, command(n.name).joined(separator: " "))
            }
        }
        // A bare name is a file in the current folder.
        let r = try ProcessRunner.run(EtudeBinary.path, ["export", lesson, "-o", "a"], environment: etude.environment, directory: dir.path, timeout: 60)
        Self.clean(r, status: 0, "export -o a")
        #expect(FileManager.default.fileExists(atPath: dir.file("a")))
    }

    // MARK: 7. Database values that do not decode

    @Test func rowsThatDoNotDecodeAreSkippedAndReportedOnce() throws {
        Self.clean(try etude.run(["debug-write-history", "--count", "3"]), status: 0, "history")
        Self.clean(try etude.run(["loops", "save", lesson, "verse", "--bars", "1-4"]), status: 0, "loops save")
        let db = try DatabaseQueue(path: etude.database)
        try db.write { d in
            try d.execute(sql: "UPDATE pass SET startedAt = 'garbage-date' WHERE id = (SELECT MIN(id) FROM pass)")
            try d.execute(sql: "UPDATE pass SET tempoPercent = 1e300 WHERE id = (SELECT MAX(id) FROM pass)")
            try d.execute(sql: "UPDATE savedLoop SET createdAt = 'garbage-date'")
            try d.execute(sql: """
                INSERT INTO resumeState (id, lessonID, path, positionSeconds, hand, tempoPercent, mode, updatedAt)
                SELECT 1, lessonID, ?, 1e300, 'both', 1e300, 'watch', 'garbage-date' FROM pass LIMIT 1
                """, arguments: [lesson])
            for (device, value) in [("keys-a", "1e300"), ("keys-b", "9e999"), ("keys-c", "-9e999")] {
                try d.execute(sql: "INSERT INTO inputOffset (device, offsetMs, spreadMs, taps, calibratedAt) VALUES (?, \(value), 1, 3, '2026-01-01 00:00:00.000')",
                              arguments: [device])
            }
        }
        try db.close()
        let cases: [(args: [String], status: Int32)] = [
            (["list"], 0), (["list", "--json"], 0), (["info", "Ode to Joy"], 0), (["loops", "list", lesson], 0), (["stats"], 0),
            (["stats", "--json"], 0), (["resume", "--show"], 1), (["calibrate", "--show"], 0), (["loop", lesson, "--saved", "verse", "--dry-run"], 1),
        ]
        for c in cases {
            let r = try etude.run(c.args, timeout: 60)
            #expect(r.status == c.status, "\(c.args): \(r.status) \(r.stderr)")
            #expect(r.status < 128, "\(c.args): a trap")
            #expect(!r.stderr.contains("SQLite error") && !r.stderr.contains("database error") && !r.stderr.contains("could not decode"),
                    "\(c.args): \(r.stderr)")
            // The notice of skipped rows, and for a failure its one line (the loop's row is the damaged one).
            #expect(HostileInputTests.errorLines(r).count <= (r.status == 0 ? 1 : 2), "\(c.args): \(r.stderr)")
        }
        let stats = try etude.run(["stats"])
        #expect(stats.stderr.contains("rows Etude cannot read") && stats.stderr.contains("in pass"), "\(stats.stderr)")
        let shown = try etude.run(["calibrate", "--show"])
        #expect(shown.stderr.contains("3 in inputOffset"), "\(shown.stderr)")
    }

    // MARK: 8. --db never takes over a file

    @Test func databaseFlagRefusesAFileThatIsNotAnEtudeDatabase() throws {
        let before = bytes(lesson)
        let text = try dir.write("notes.txt", "my notes\n")
        let other = dir.file("other.sqlite")
        let q = try DatabaseQueue(path: other)
        try q.write { try $0.execute(sql: "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('a')") }
        try q.close()
        let otherBefore = bytes(other)
        for (path, message) in [(lesson, "is not an Etude database"), (text, "is not an Etude database"), (other, "of another program")] {
            Self.clean(try etude.run(["list", "--db", path]), status: 1, message: message, "--db \(path)")
            Self.clean(try etude.run(["stats"], extra: ["ETUDE_DB": path]), status: 1, message: message, "ETUDE_DB=\(path)")
        }
        #expect(bytes(lesson) == before)
        #expect(bytes(other) == otherBefore)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".corrupt-") || $0.hasSuffix(".lock") || $0.hasSuffix("-wal") }
        #expect(left.isEmpty, "\(left)")
    }

    // MARK: 9. Calibration believes no garbage

    @Test func calibrationRefusesAStreamNoHandPlays() throws {
        // 100 notes a second (well under the byte rate a stream is cut off at), and random bytes at 6 KB a second.
        let feeds: [(String, (Int32) -> Void)] = [
            ("100 notes a second", { fd in
                let end = ProcessInfo.processInfo.systemUptime + 12
                var k = 0
                while ProcessInfo.processInfo.systemUptime < end {
                    MIDIBytes.send(fd, [0x90, UInt8(48 + k % 24), 80, 0x80, UInt8(48 + k % 24), 0])
                    k += 1
                    usleep(10_000)
                }
            }),
            ("random bytes", { fd in
                var state: UInt64 = 0x9E37_79B9_7F4A_7C15
                let end = ProcessInfo.processInfo.systemUptime + 12
                while ProcessInfo.processInfo.systemUptime < end {
                    var chunk: [UInt8] = []
                    for _ in 0..<600 {
                        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                        chunk.append(UInt8(truncatingIfNeeded: state >> 33))
                    }
                    MIDIBytes.send(fd, chunk)
                    usleep(100_000)
                }
            }),
        ]
        // Etude may stop reading a stream it refuses: the writes then fail, never kill the tests.
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        for (k, feed) in feeds.enumerated() {
            let fifo = etude.home.file("cal\(k).fifo")
            #expect(mkfifo(fifo, 0o600) == 0)
            let r = try MIDIBytes.run(etude, ["calibrate", "--input", fifo], fifo: fifo, feed: feed.1)
            #expect(r.status != 0, "\(feed.0): \(r.stdout)")
            #expect(r.status < 128, "\(feed.0): a trap")
            #expect(!r.stdout.contains("stored for"), "\(feed.0): \(r.stdout)")
            #expect(HostileInputTests.errorLines(r).last?.contains("no hand plays so much") == true || feed.0 == "random bytes",
                    "\(feed.0): \(r.stderr)")
            let shown = try etude.run(["calibrate", "--show"])
            #expect(shown.stdout.contains("No input calibrated yet"), "\(feed.0): \(shown.stdout)")
        }
    }

    // MARK: 11. make install into a DESTDIR that does not exist yet

    @Test func installCreatesADestdirThatDoesNotExist() throws {
        // A stand-in stage (install.sh copies what it finds there), so no release build is needed.
        let stage = try TempDir("etude-stage")
        try FileManager.default.createDirectory(atPath: stage.file("completions"), withIntermediateDirectories: true)
        for name in ["etude", "etude.1", "completions/etude.bash", "completions/_etude", "completions/etude.fish"] {
            _ = try stage.write(name, "stand-in\n")
        }
        let root = try TempDir("etude-destdir")
        let destdir = root.file("new/folder")
        let r = try ProcessRunner.run("/bin/bash", [Repo.root.appendingPathComponent("scripts/install.sh").path, "install"],
                                      environment: ["PATH": "/usr/bin:/bin", "DESTDIR": destdir, "STAGE": stage.path,
                                                    "LESSONS": Repo.lessons.path], timeout: 60)
        #expect(r.status == 0, "\(r.output)")
        #expect(FileManager.default.fileExists(atPath: destdir + "/usr/local/bin/etude"))
        #expect(FileManager.default.fileExists(atPath: destdir + "/usr/local/share/etude/install-manifest"))
        let manifest = (try? String(contentsOfFile: destdir + "/usr/local/share/etude/install-manifest", encoding: .utf8)) ?? ""
        #expect(!manifest.contains(destdir), "the manifest lists paths without DESTDIR")
    }

    // MARK: 12. Smaller

    @Test func statusesAndLongArgumentsOfMistypedCommands() throws {
        let huge = String(repeating: "9", count: 5000)
        let cases: [(args: [String], status: Int32, message: String)] = [
            (["list", "--level", "0"], 64, "levels start at 1"),
            (["library", "remove", ""], 64, "name the folder"),
            (["help", "bogus"], 64, "no such command"),
            (["list", "--level", huge], 64, "characters"),
            (["export", lesson, "-o", dir.file("x.mid"), "--bars", "1-\(huge)"], 1, "characters"),
        ]
        for c in cases {
            let r = try etude.run(c.args)
            Self.clean(r, status: c.status, message: c.message, c.args.joined(separator: " ").prefix(60).description)
            #expect(r.stderr.utf8.count < 400, "\(r.stderr.utf8.count) bytes of error")
        }
        Self.clean(try etude.run(["help", "library", "add"]), status: 0, "help library add")
    }

    /// SIGUSR1 (and the other signals whose default action ends a process) restores the
    /// terminal before Etude dies of it: not left raw in the alternate screen.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func userSignalsRestoreTheTerminal() throws {
        for sig in [SIGUSR1, SIGALRM] {
            let pane = try TmuxPane(etude: etude, ["practice", lesson, "--mode", "watch"])
            _ = pane.waitFor { $0.contains("Ode to Joy") }
            let pid = try #require(HostileInputTests.etudeProcess(under: pane.pid))
            kill(pid, sig)
            #expect(pane.exitStatus() == 128 + sig, "signal \(sig)")
            #expect(pane.ttyRestored, "signal \(sig): the terminal is left raw")
        }
    }

    @Test func absurdScoreNumbersAndRepeatsAreSaidNotClampedSilently() throws {
        func score(_ attributes: String, _ duration: String, barline: String = "") -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <score-partwise version="4.0"><part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list><part id="P1">
            <measure number="1"><attributes>\(attributes)</attributes>
            <note><pitch><step>C</step><octave>4</octave></pitch><duration>\(duration)</duration></note>
            <note><pitch><step>D</step><octave>4</octave></pitch><duration>1</duration></note>\(barline)</measure>
            </part></score-partwise>
            """
        }
        let cases: [(text: String, warning: String)] = [
            (score("<divisions>0</divisions>", "1"), "is not a positive number"),
            (score("<divisions>-3</divisions>", "1"), "is not a positive number"),
            (score("<divisions>NaN</divisions>", "1"), "is not a positive number"),
            (score("<divisions>1</divisions>", "9.2e18"), "longer than a bar can be"),
            (score("<divisions>1</divisions>", "1", barline: "<barline location=\"right\"><repeat direction=\"backward\" times=\"2000000000\"/></barline>"),
             "played 64 times"),
        ]
        for (k, c) in cases.enumerated() {
            let path = try dir.write("n\(k).musicxml", c.text)
            let r = try etude.run(["info", path], timeout: 120)
            Self.clean(r, status: 0, c.warning)
            #expect(r.stdout.contains(c.warning), "\(c.warning): \(r.stdout)")
        }
        Self.clean(try etude.run(["export", lesson, "-o", dir.file("r.mid"), "--repeat", "9000000000000000000"]), status: 1,
                   message: "up to 10000 passes", "--repeat 9e18")
        #expect(!FileManager.default.fileExists(atPath: dir.file("r.mid")))
    }
}

/// CRC-32 (zip's), for archives built by hand in tests.
enum CRC32 {
    static func of(_ bytes: [UInt8]) -> Int {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
        }
        return Int(c ^ 0xFFFF_FFFF)
    }
}
