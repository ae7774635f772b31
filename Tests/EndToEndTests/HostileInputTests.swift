import Foundation
import GRDB
import MIDIFile
import Testing
import TestSupport

/// Issue 16: Etude probed as a hostile tester would. Every case runs the built `etude` on
/// generated files and arguments and checks what a user would see: the exit status (never a
/// trap: nothing at or above 128 but the deliberate 141 of a closed pipe), one `etude:` line
/// for a failure, no byte on stdout or stderr a terminal would act on, and every input file
/// byte-identical afterwards.
@Suite("Hostile input", .serialized)
struct HostileInputTests {
    let etude: Etude
    let dir: TempDir
    let lesson: String
    let lessonBytes: [UInt8]

    init() throws {
        etude = try Etude()
        dir = try TempDir("etude-hostile")
        lessonBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Repo.lesson("level4/ode-to-joy.mid"))))
        lesson = try dir.write("o.mid", lessonBytes)
    }

    // MARK: What every case checks

    /// Bytes a terminal could act on, described: C0 controls but the newline, DEL, C1 controls
    /// (UTF-8 C2 80–9F) and the bidi overrides, isolates and marks.
    static func controlBytes(_ bytes: [UInt8]) -> [String] {
        var found: [String] = []
        for u in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            let v = u.value
            let bidi = (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x061C || v == 0x200E || v == 0x200F
            if (v < 0x20 && v != 0x0A) || v == 0x7F || (0x80..<0xA0).contains(v) || bidi {
                found.append(String(format: "U+%04X", v))
            }
        }
        return found
    }

    /// The lines on stderr apart from the one warning a machine without sound gives.
    static func errorLines(_ r: ProcessResult) -> [String] {
        r.stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("etude: no audio device") }
    }

    /// Checks the status, that a failure is one `etude:` line containing `message`, and that
    /// nothing on either stream could act on a terminal.
    static func expectClean(_ r: ProcessResult, status: Int32, message: String? = nil, _ what: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "\(what): exit \(r.status), stderr: \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.status < 128 || r.status == 141, "\(what): a trap or a signal (\(r.status))", sourceLocation: sourceLocation)
        #expect(controlBytes(r.stdoutBytes).isEmpty, "\(what): control bytes on stdout \(controlBytes(r.stdoutBytes))",
                sourceLocation: sourceLocation)
        #expect(controlBytes(r.stderrBytes).isEmpty, "\(what): control bytes on stderr \(controlBytes(r.stderrBytes))",
                sourceLocation: sourceLocation)
        if status != 0 {
            let lines = errorLines(r)
            #expect(lines.count == 1 && lines[0].hasPrefix("etude: "), "\(what): not one line: \(r.stderr)", sourceLocation: sourceLocation)
            if let message {
                #expect(lines.first?.contains(message) == true, "\(what): \(r.stderr)", sourceLocation: sourceLocation)
            }
        }
    }

    func bytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// Runs a shell script with etude's environment (`$E` is the binary).
    func shell(_ script: String, directory: String? = nil) throws -> ProcessResult {
        var env = etude.environment
        env["E"] = EtudeBinary.path
        return try ProcessRunner.run("/bin/bash", ["-c", script], environment: env, directory: directory, timeout: 120)
    }

    // MARK: 1. Never over an input; written whole or not at all

    @Test func noCommandWritesOverOneOfItsInputs() throws {
        let abc = try dir.write("t.abc", "X:1\nT:Tune\nK:C\nCDEF|GABc|\n")
        let abcBytes = bytes(abc)
        let link = dir.file("link.mid")
        #expect(symlink(lesson, link) == 0)
        let hard = dir.file("hard.mid")
        #expect(hardLink(lesson, hard) == 0)
        _ = try etude.run(["list"])  // the database exists
        let db = etude.database
        let dbBytes = bytes(db)
        let cases: [(args: [String], what: String)] = [
            (["export", lesson, "-o", "./o.mid", "--bars", "1-2"], "export -o ./o.mid"),
            (["render", lesson, "-o", lesson], "render -o the lesson"),
            (["export", lesson, "-o", link], "export -o a symlink to the lesson"),
            (["export", lesson, "-o", hard], "export -o a hard link to the lesson"),
            (["abc", abc, "-o", "./t.abc"], "abc -o ./t.abc"),
            (["record", "-o", lesson, "--input", lesson], "record -o the input"),
            (["practice", lesson, "--report", hard], "practice --report the lesson"),
            (["export", lesson, "-o", db], "export -o the database"),
            (["routine", "export", "r", "-o", db], "routine export -o the database"),
        ]
        for c in cases {
            let r = try etude.run(c.args, directory: dir.path)
            Self.expectClean(r, status: 1, message: "that is the input file", c.what)
            #expect(bytes(lesson) == lessonBytes, "\(c.what) changed the lesson")
            #expect(bytes(abc) == abcBytes, "\(c.what) changed the ABC file")
        }
        #expect(bytes(db) == dbBytes, "the database changed")
        // Nothing half-written was left beside them.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp") }
        #expect(left.isEmpty, "\(left)")
    }

    /// A write that fails part-way (a file-size limit, as a full disk would) leaves the old file
    /// whole and no temporary file: the new one is renamed into place only when complete.
    @Test func aFailedWriteLeavesTheOldFileWholeAndNoPartialFile() throws {
        let old = try dir.write("old.wav", "precious")
        let oldMid = try dir.write("old.mid", "precious too")
        for (script, what, target, message) in [
            ("ulimit -f 40; exec \"$E\" render \(TmuxPane.quote(lesson)) -o old.wav", "render", old, "writing the WAV failed"),
            ("ulimit -f 40; exec \"$E\" export \(TmuxPane.quote(lesson)) -o old.mid --repeat 400", "export", oldMid, "cannot write it"),
        ] {
            let r = try shell(script, directory: dir.path)
            Self.expectClean(r, status: 1, message: message, what)
            #expect(bytes(target) == Array((target == old ? "precious" : "precious too").utf8), "\(what) damaged the old file")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["old.mid", "old.wav", "o.mid"].sorted(), "\(left)")
    }

    // MARK: 2. No control byte from a file, the database, a path or a name reaches the terminal

    @Test func controlBytesInFilesAndPathsNeverReachTheTerminal() throws {
        // A chord symbol, K: and Q: carrying an OSC title sequence; a MIDI file whose names,
        // marker and text carry ESC, a C1 CSI and a bidi override.
        let osc = "\u{1B}]0;pwned\u{07}"
        let chord = try dir.write("chord.abc", "X:1\nT:Tune\nK:C\n\"\(osc)\"C D E F|\n")
        let key = try dir.write("key.abc", "X:1\nT:Tune\nK:C \(osc)\nQ:1/4=120 \(osc)\nCDEF|\n")
        let evil = "A\u{1B}[2J\u{9B}31m\u{202E}B"
        var rh = [Build.name("Right \(evil)"), MIDIEvent(tick: 0, .meta(type: MetaType.text, data: Array("title=\(evil)".utf8)))]
        rh += Build.note(60, at: 0, length: 480) + Build.note(62, at: 480, length: 480)
        let midi = try dir.write("lib/evil.mid", MIDIWriter.write(try Build.file([[Build.marker(evil, at: 0)], rh])))
        let evilPath = dir.file("e\u{1B}]0;x\u{07}\u{202E}.mid")
        let cases: [(args: [String], status: Int32, what: String)] = [
            (["info", chord], 0, "info on an ABC chord symbol with OSC"),
            (["info", chord, "--strict"], 1, "info --strict"),
            (["abc", chord, "-o", dir.file("chord.mid")], 0, "abc warnings"),
            (["info", key], 1, "K:/Q: with OSC"),
            (["info", midi], 0, "info on names and markers with ESC, C1, bidi"),
            (["info", midi, "--json"], 0, "info --json"),
            (["events", midi, "--json"], 0, "events --json"),
            (["info", evilPath], 1, "a path with ESC"),
            (["export", lesson, "-o", evilPath], 0, "a written path with ESC"),
            (["library", "add", dir.file("lib")], 0, "library add"),
            (["list"], 0, "list"),
            (["list", "--json"], 0, "list --json"),
        ]
        let midiBytes = bytes(midi)
        for c in cases {
            Self.expectClean(try etude.run(c.args), status: c.status, c.what)
        }
        #expect(bytes(midi) == midiBytes)
    }

    /// Names the learner typed or imported: stored as given, shown cleaned, exact in JSON.
    @Test func routineAndLoopNamesWithControlBytes() throws {
        let name = "warm\u{1B}]0;x\u{07}\u{202E}up"
        Self.expectClean(try etude.run(["routine", "new", name, "--entry", "lesson=\(lesson);minutes=1"]), status: 0, "routine new")
        for args in [["routine", "list"], ["routine", "list", name], ["routine", "run", name, "--plan"], ["routine", "export", name, "--format", "text"]] {
            Self.expectClean(try etude.run(args), status: 0, args.joined(separator: " "))
        }
        let json = try etude.run(["routine", "export", name])
        Self.expectClean(json, status: 0, "routine export")
        #expect(json.stdout.contains(#""name" : "warm\u001b]0;x\u0007\u202eup""#), "\(json.stdout)")
        Self.expectClean(try etude.run(["loops", "save", lesson, name, "--bars", "1-2"]), status: 0, "loops save")
        Self.expectClean(try etude.run(["loops", "list", lesson]), status: 0, "loops list")
        let loops = try etude.run(["loops", "list", lesson, "--json"])
        Self.expectClean(loops, status: 0, "loops list --json")
        #expect(loops.stdout.contains(#"warm\u001b]0;x\u0007\u202eup"#), "\(loops.stdout)")
        Self.expectClean(try etude.run(["routine", "delete", name + "-missing"]), status: 1, message: "no routine named", "delete")
    }

    // MARK: 3. Numbers checked before use; no trap on any input; failed writes to stdout

    @Test func numbersOutOfRangeAreOneLineNeverATrap() throws {
        let long = try dir.write("long.mid", Self.millionsOfHours())
        let routineFile = try dir.write("r.json", #"{"etudeRoutine":1,"name":"r","entries":[{"lesson":"x","title":"Ode to Joy","minutes":1e308}]}"#)
        let cases: [(args: [String], status: Int32, message: String, what: String)] = [
            (["routine", "new", "r", "--entry", "lesson=\(lesson);minutes=1e308"], 1, "minutes must be at most", "minutes=1e308"),
            (["routine", "new", "r", "--entry", "lesson=\(lesson);minutes=1e18"], 1, "minutes must be at most", "minutes=1e18"),
            (["routine", "new", "r", "--entry", "lesson=\(lesson);reps=9223372036854775807"], 1, "repetitions", "reps=Int.max"),
            (["routine", "import", routineFile], 1, "minutes must be at most", "routine import minutes=1e308"),
            (["record", "-o", dir.file("x.mid"), "--bars", "9223372036854775807"], 64, "--bars must be", "record --bars Int.max"),
            (["render", lesson, "-o", dir.file("x.wav"), "--max-minutes", "nan"], 1, "--max-minutes", "--max-minutes nan"),
            (["render", lesson, "-o", dir.file("x.wav"), "--max-minutes", "1e9"], 1, "--max-minutes", "--max-minutes 1e9"),
            (["render", long, "-o", dir.file("long.wav")], 1, "longer than --max-minutes", "a lesson millions of hours long"),
            (["export", lesson, "-o", dir.file("x.mid"), "--bpm", "1e308"], 1, "--bpm", "--bpm 1e308"),
            (["export", lesson, "-o", dir.file("x.mid"), "--tempo", "nan"], 1, "--tempo", "--tempo nan"),
            (["practice", lesson, "--window", "1e308"], 1, "--window", "--window 1e308"),
            (["quiz", "notes", "--questions", "9223372036854775807"], 64, "--questions", "--questions Int.max"),
        ]
        for c in cases {
            Self.expectClean(try etude.run(c.args), status: c.status, message: c.message, c.what)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("long.wav")))
        // `routine edit` with entry numbers that overflow when counted from 1.
        Self.expectClean(try etude.run(["routine", "new", "r", "--entry", "lesson=\(lesson);minutes=1"]), status: 0, "routine new")
        for args in [["--remove=-9223372036854775808"], ["--move=-9223372036854775808", "--to", "1"], ["--set=-9223372036854775808=lesson=x"]] {
            Self.expectClean(try etude.run(["routine", "edit", "r"] + args), status: 1, "routine edit \(args)")
        }
    }

    /// A database holding numbers no Etude wrote (a damaged or hand-edited file): 1e308 minutes
    /// in a stored routine, an infinite duration and score in the catalogue and history.
    @Test func absurdNumbersInTheDatabaseAreNeverATrap() throws {
        Self.expectClean(try etude.run(["routine", "new", "r", "--entry", "lesson=\(lesson);minutes=1"]), status: 0, "routine new")
        Self.expectClean(try etude.run(["debug-write-history", "--count", "3"]), status: 0, "history")
        let db = try DatabaseQueue(path: etude.database)
        try db.write { d in
            let entries = try String.fetchOne(d, sql: "SELECT entries FROM routine WHERE name = 'r'") ?? ""
            try d.execute(sql: "UPDATE routine SET entries = ? WHERE name = 'r'",
                          arguments: [entries.replacingOccurrences(of: #""minutes":1"#, with: #""minutes":1e308"#)])
            try d.execute(sql: "UPDATE lesson SET durationSeconds = 1e308, tempoBPM = 9e999")
            try d.execute(sql: "UPDATE pass SET score = 9e999, durationSeconds = 1e308")
        }
        try db.close()
        let cases: [(args: [String], status: Int32, what: String)] = [
            (["routine", "run", "r", "--plan"], 1, "run --plan"),
            (["routine", "export", "r"], 0, "export"),
            (["routine", "list", "r"], 0, "list r"),
            (["list"], 0, "list"),
            (["list", "--json"], 0, "list --json"),
            (["stats"], 0, "stats"),
            (["stats", "--json"], 0, "stats --json"),
        ]
        for c in cases {
            Self.expectClean(try etude.run(c.args), status: c.status, c.what)
        }
    }

    @Test func failedWritesToStdoutEndWithOneLineOrSilentlyOnAClosedPipe() throws {
        let full = try shell("exec \"$E\" info \(TmuxPane.quote(lesson)) > /dev/full")
        Self.expectClean(full, status: 74, message: "cannot write the output", "info > /dev/full")
        // The reader of the pipe goes away: exit 141 without a word (with SIGPIPE ignored by
        // the shell too, the write itself fails), never a trap.
        let big = try dir.write("big.mid", MIDIWriter.write(try Build.file([(0..<20_000).flatMap { Build.note(60 + $0 % 12, at: $0 * 10, length: 10) }])))
        let pipe = try shell("trap '' PIPE; \"$E\" events \(TmuxPane.quote(big)) --json | head -c 100 > /dev/null; exit ${PIPESTATUS[0]}")
        #expect(pipe.status == 141, "events | head: \(pipe.status) \(pipe.stderr)")
        #expect(pipe.stderr.isEmpty, "\(pipe.stderr)")
    }

    // MARK: 6. --input: devices, FIFOs and ALSA ports only; a stream that is not MIDI ends

    @Test func inputThatIsNotAnInstrumentIsOneLine() throws {
        let out = dir.file("rec.mid")
        let cases: [(args: [String], message: String, what: String)] = [
            (["quiz", "notes", "--input", "/etc/passwd"], "is a regular file, not an instrument", "quiz --input /etc/passwd"),
            (["practice", lesson, "--input", "/etc/passwd"], "is a regular file, not an instrument", "practice --input /etc/passwd"),
            (["record", "-o", out, "--input", dir.path], "is a directory", "record --input a folder"),
            (["record", "-o", out, "--input", "/dev/zero"], "is not MIDI (no status byte in its first 1024 bytes)", "record --input /dev/zero"),
            (["quiz", "notes", "--input", "/dev/zero"], "is not MIDI", "quiz --input /dev/zero"),
            (["quiz", "notes", "--input", "/dev/urandom"], "faster than any keyboard", "quiz --input /dev/urandom"),
        ]
        for c in cases {
            let r = try etude.run(c.args, timeout: 60)
            Self.expectClean(r, status: 1, message: c.message, c.what)
            // The refusals of a path come before the synth opens: no audio warning first.
            if c.message.contains("regular file") || c.message.contains("directory") {
                #expect(!r.stderr.contains("no audio device"), "\(c.what): \(r.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: out), "nothing was recorded, nothing written")
    }

    /// On the practice screen /dev/zero stops being read at once, the screen says why (a line
    /// that comes before the session is attached is kept for it), and the session goes on
    /// without burning a core.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func practiceOnDevZeroNeitherSpinsNorEnds() throws {
        let pane = try TmuxPane(etude: etude, ["practice", lesson, "--input", "/dev/zero", "--mode", "play"])
        let screen = pane.waitFor { $0.contains("Ode to Joy") && $0.contains("is not MIDI") }
        #expect(screen.contains("Ode to Joy"), "\(screen)")
        #expect(screen.contains("is not MIDI"), "the reason is on the screen: \(screen)")
        let pid = try #require(Self.etudeProcess(under: pane.pid))
        let before = Self.cpuTicks(pid)
        sleep(3)
        let used = Double(Self.cpuTicks(pid) - before) / Double(sysconf(Int32(_SC_CLK_TCK)))
        #expect(used < 1.5, "used \(used) s of CPU in 3 s")
        try pane.keys("q")
        #expect(pane.exitStatus() == 0)
        #expect(pane.ttyRestored)
    }

    // MARK: 7. --db creates only the database and its sidecars

    @Test func databaseFlagCreatesNothingButTheDatabase() throws {
        let nested = dir.file("a/new/dir/x.sqlite")
        let cases: [(args: [String], extra: [String: String], message: String, what: String)] = [
            (["list", "--db", "/dev/null"], [:], "not a regular file", "--db /dev/null"),
            (["list", "--db", nested], [:], "does not exist", "--db in a new folder"),
            (["list"], ["ETUDE_DB": nested], "does not exist", "ETUDE_DB in a new folder"),
            (["stats", "--db", dir.path], [:], "is a folder", "--db a folder"),
        ]
        for c in cases {
            Self.expectClean(try etude.run(c.args, extra: c.extra), status: 1, message: c.message, c.what)
        }
        #expect(!FileManager.default.fileExists(atPath: "/dev/null.lock"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("a")))
        // In a folder that exists: the file and its sidecars only.
        let fresh = try TempDir("etude-db")
        Self.expectClean(try etude.run(["list", "--db", fresh.file("e.sqlite")]), status: 0, "--db in an existing folder")
        let made = try FileManager.default.contentsOfDirectory(atPath: fresh.path).filter { !$0.hasPrefix("e.sqlite") }
        #expect(made.isEmpty, "\(made)")
    }

    // MARK: 8. A terminal left raw by a killed Etude

    /// The browser is killed with SIGKILL (no cleanup runs: the terminal stays raw); the next
    /// `etude list` starts from the raw terminal and leaves it sane. Then, from `stty raw
    /// -echo`, the browser itself restores sane settings when it quits.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func theNextEtudeRepairsATerminalLeftRawByAKilledOne() throws {
        let afterList = dir.file("after-list.txt"), afterBrowser = dir.file("after-browser.txt")
        let script = """
            "$E" browse; "$E" list > /dev/tty; stty -a > \(TmuxPane.quote(afterList)); \
            stty raw -echo; "$E" browse; stty -a > \(TmuxPane.quote(afterBrowser))
            """
        var env = etude.environment
        env["E"] = EtudeBinary.path
        let pane = try TmuxPane(command: "sh -c " + TmuxPane.quote(script), environment: env)
        _ = pane.waitFor { $0.contains("Etude — lessons") }
        let browser = try #require(Self.etudeProcess(under: pane.pid))
        kill(browser, SIGKILL)
        #expect(eventually(20) { (try? String(contentsOfFile: afterList, encoding: .utf8))?.contains("icanon") == true })
        let list = (try? String(contentsOfFile: afterList, encoding: .utf8)) ?? ""
        for flag in ["icanon", "echo", "isig", "opost", "icrnl"] {
            #expect(Self.has(flag, in: list), "after the killed browser and etude list: -\(flag)\n\(list)")
        }
        // The second browser: a new etude under the shell. It flushes pending input as it
        // takes the terminal, so the key that quits it is sent until it has gone.
        _ = eventually(20) { Self.etudeProcess(under: pane.pid, within: 0.1).map { $0 != browser } ?? false }
        #expect(eventually(30, poll: 300_000) {
            try? pane.keys("C-q")
            return (try? String(contentsOfFile: afterBrowser, encoding: .utf8))?.contains("icanon") == true
        })
        let browsed = (try? String(contentsOfFile: afterBrowser, encoding: .utf8)) ?? ""
        for flag in ["icanon", "echo", "isig", "opost", "icrnl"] {
            #expect(Self.has(flag, in: browsed), "after the browser opened on a raw terminal: -\(flag)\n\(browsed)")
        }
    }

    // MARK: Helpers

    /// `flag` set (not `-flag`) in `stty -a` output.
    static func has(_ flag: String, in stty: String) -> Bool {
        let words = stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init)
        return words.contains(flag) && !words.contains("-" + flag)
    }

    /// The etude process running under the shell `pid` (its child, or itself after an exec).
    static func etudeProcess(under pid: pid_t?, within seconds: Double = 20) -> pid_t? {
        guard let pid else { return nil }
        var found: pid_t?
        _ = eventually(seconds) {
            if (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?.contains("etude") == true,
               (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"))?.hasSuffix("/etude") == true {
                found = pid
                return true
            }
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let child = pid_t(entry),
                      let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { continue }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 1, pid_t(fields[1]) == pid,
                   (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/exe"))?.hasSuffix("/etude") == true {
                    found = child
                    return true
                }
            }
            return false
        }
        return found
    }

    /// utime + stime of a process, in clock ticks.
    static func cpuTicks(_ pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15 (1-based over the whole line).
        guard fields.count > 13, let u = Int(fields[11]), let s = Int(fields[12]) else { return 0 }
        return u + s
    }

    /// A note at the largest tick a file can hold, at the slowest tempo, one tick a quarter:
    /// about 1.25 million hours.
    static func millionsOfHours() -> [UInt8] {
        func vlq(_ n: Int) -> [UInt8] {
            var out = [UInt8(n & 0x7F)]
            var v = n >> 7
            while v > 0 { out.insert(UInt8(0x80 | (v & 0x7F)), at: 0); v >>= 7 }
            return out
        }
        let track = vlq(0) + [0xFF, 0x51, 0x03, 0xFF, 0xFF, 0xFF] + vlq(0) + [0x90, 60, 64] + vlq(0x0FFF_FFFF) + [0x80, 60, 0]
            + vlq(0) + [0xFF, 0x2F, 0x00]
        return Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 1] + Array("MTrk".utf8)
            + [UInt8(track.count >> 24), UInt8(track.count >> 16 & 0xFF), UInt8(track.count >> 8 & 0xFF), UInt8(track.count & 0xFF)] + track
    }
}

/// `link(2)`: a second name for the same file.
private func hardLink(_ from: String, _ to: String) -> Int32 { link(from, to) }
