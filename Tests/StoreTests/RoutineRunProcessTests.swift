import Foundation
import GRDB
import Testing
@testable import Store

/// `etude routine run` end to end: the built-in lessons, no audio device, stdin not a terminal.
@Suite("routine run (process)")
struct RoutineRunProcessTests {
    static var lessons: String { Repo.root.appendingPathComponent("Lessons").path }

    /// Runs etude with stdin from /dev/null (never the test runner's terminal).
    static func etude(_ args: [String], env: [String: String]) throws -> (Int32, String, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Repo.etude)
        p.arguments = args
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        let out = Pipe(), err = Pipe()
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let r = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: r, as: UTF8.self))
    }

    @Test func playsBothEntriesWithCountdownsFadeAndHistory() throws {
        guard FileManager.default.isExecutableFile(atPath: Repo.etude) else {
            Issue.record("build etude first (make test runs swift build)")
            return
        }
        let dir = try TempDir()
        let env = ["ETUDE_DB": dir.file("etude.sqlite"), "ETUDE_LESSONS": Self.lessons]
        var (status, out, err) = try Self.etude(["routine", "new", "short",
            "--entry", "lesson=C major five-finger position: parallel motion;bars=1-1;reps=1;pause=2",
            "--entry", "lesson=Minuet in G major;tempo=90;minutes=0.06;pause=1"], env: env)
        try #require(status == 0, "\(err)")
        (status, out, err) = try Self.etude(["routine", "run", "short", "--audio-driver", "no-such-driver"], env: env)
        #expect(status == 0, "\(err)")
        #expect(err.contains("no audio device (tried no-such-driver): continuing silently"))
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Next: 1/2 C major five-finger position: parallel motion in 2 s") }, "\(out)")
        #expect(lines.contains { $0.hasPrefix("Next: 1/2 C major five-finger position: parallel motion in 1 s") })
        #expect(lines.contains { $0.hasPrefix("Next: 2/2 Minuet in G major, BWV Anh. 114 (first half) in 1 s") })
        let first = try #require(lines.first { $0.hasPrefix("Played 1/2 C major five-finger position") })
        #expect(first.contains("1 pass") && !first.contains("faded"))
        let second = try #require(lines.first { $0.hasPrefix("Played 2/2 Minuet in G major") })
        #expect(second.contains("faded out"), "the time limit cut the minuet: \(second)")
        #expect(out.contains("Routine short done."))

        let store = try Store.open(path: dir.file("etude.sqlite"))
        let passes = try store.passes()
        #expect(passes.count == 2)
        #expect(passes.allSatisfy { $0.mode == "watch" })
        #expect(passes.map(\.tempoPercent) == [100, 90])
        #expect(passes.first?.firstBar == 1 && passes.first?.lastBar == 1)
        #expect((passes.last?.durationSeconds ?? 0) >= 3.0, "the minuet played to its limit")
    }

    @Test func planOnlyPrintsTheSchedule() throws {
        guard FileManager.default.isExecutableFile(atPath: Repo.etude) else { return }
        let dir = try TempDir()
        let env = ["ETUDE_DB": dir.file("etude.sqlite"), "ETUDE_LESSONS": Self.lessons]
        _ = try Self.etude(["routine", "new", "p", "--entry", "lesson=Minuet in G major;minutes=5"], env: env)
        let (status, out, _) = try Self.etude(["routine", "run", "p", "--plan"], env: env)
        #expect(status == 0 && out.contains("1. [0:00] Minuet in G major") && !out.contains("Played"))
        let store = try Store.open(path: dir.file("etude.sqlite"))
        #expect(try store.passes().isEmpty)
    }

    /// A running etude whose standard output is collected as it comes (to play along with it).
    final class Running: @unchecked Sendable {
        let process = Process()
        private let lock = NSLock()
        private var outText = ""
        private var errText = ""

        init(_ args: [String], env: [String: String]) throws {
            process.executableURL = URL(fileURLWithPath: Repo.etude)
            process.arguments = args
            var e = ProcessInfo.processInfo.environment
            for (k, v) in env { e[k] = v }
            process.environment = e
            let out = Pipe(), err = Pipe()
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = out
            process.standardError = err
            out.fileHandleForReading.readabilityHandler = { [weak self] h in
                let d = h.availableData
                if d.isEmpty { h.readabilityHandler = nil; return }  // end of file
                self?.lock.withLock { self?.outText += String(decoding: d, as: UTF8.self) }
            }
            err.fileHandleForReading.readabilityHandler = { [weak self] h in
                let d = h.availableData
                if d.isEmpty { h.readabilityHandler = nil; return }
                self?.lock.withLock { self?.errText += String(decoding: d, as: UTF8.self) }
            }
            try process.run()
        }

        var out: String { lock.withLock { outText } }
        var err: String { lock.withLock { errText } }

        /// Polls (the deadline only stops a broken test hanging; nothing is timed).
        func eventually(_ seconds: Double = 30, _ condition: (String) -> Bool) -> Bool {
            let end = Date(timeIntervalSinceNow: seconds)
            while Date() < end {
                if condition(out) { return true }
                usleep(20_000)
            }
            return condition(out)
        }

        /// Waits for the exit (killing a hung process after `seconds`) and the last output.
        func finish(_ seconds: Double = 60) -> Int32 {
            let end = Date(timeIntervalSinceNow: seconds)
            while process.isRunning && Date() < end { usleep(20_000) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            usleep(100_000)
            return process.terminationStatus
        }
    }

    /// Plays bar 1 of the right hand (C D E F) into the FIFO, each note held 0.3 s.
    static func playFirstBar(_ fd: Int32) {
        for pitch: UInt8 in [60, 62, 64, 65] {
            let on: [UInt8] = [0x90, pitch, 90]
            _ = on.withUnsafeBytes { write(fd, $0.baseAddress, 3) }
            usleep(300_000)
            let off: [UInt8] = [0x80, pitch, 0]
            _ = off.withUnsafeBytes { write(fd, $0.baseAddress, 3) }
        }
    }

    /// Without a terminal, a wait-mode entry is played on a MIDI input (a FIFO here): each
    /// repetition is a judged pass, printed and stored with mode "wait" and its figures; a
    /// play-mode entry the learner leaves alone is judged too (every note missed).
    @Test func waitAndPlayEntriesAreJudgedFromAFIFOAndStoredWithTheirScores() throws {
        guard FileManager.default.isExecutableFile(atPath: Repo.etude) else {
            Issue.record("build etude first (make test runs swift build)")
            return
        }
        let dir = try TempDir()
        let env = ["ETUDE_DB": dir.file("etude.sqlite"), "ETUDE_LESSONS": Self.lessons]
        let lesson = "C major five-finger position: parallel motion"
        let (status, _, err) = try Self.etude(["routine", "new", "played",
            "--entry", "lesson=\(lesson);hand=right;bars=1-1;mode=wait;reps=2",
            "--entry", "lesson=\(lesson);hand=right;bars=1-1;tempo=200;mode=play;reps=1"], env: env)
        try #require(status == 0, "\(err)")
        let fifo = dir.file("notes.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        // Held open for writing (O_RDWR never blocks on a FIFO) before etude opens it.
        let fd = open(fifo, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let run = try Running(["routine", "run", "played", "--input", fifo, "--audio-driver", "no-such-driver"], env: env)
        // Notes played before the entry starts go nowhere: wait for its turn.
        #expect(run.eventually { $0.contains("Your turn: 1/2 \(lesson) in wait mode on ") }, "\(run.out)\(run.err)")
        Self.playFirstBar(fd)
        #expect(run.eventually { $0.contains("  pass 1: ") }, "\(run.out)\(run.err)")
        Self.playFirstBar(fd)
        let status2 = run.finish()
        let out = run.out
        #expect(status2 == 0, "\(run.err)")
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "  pass 1: score 100, accuracy 100%, hit 4 missed 0 wrong 0 extra 0" }.count == 1, "\(out)")
        #expect(lines.contains("  pass 2: score 100, accuracy 100%, hit 4 missed 0 wrong 0 extra 0"), "\(out)")
        let first = try #require(lines.first { $0.hasPrefix("Played 1/2 \(lesson) (wait): ") }, "\(out)")
        #expect(first.hasSuffix(", 2 judged passes, scores 100 100 (best 100)"), "\(first)")
        #expect(lines.contains("  pass 1: score 0, accuracy 0%, hit 0 missed 4 wrong 0 extra 0"), "\(out)")
        let second = try #require(lines.first { $0.hasPrefix("Played 2/2 \(lesson) (play): ") }, "\(out)")
        #expect(second.hasSuffix(", 1 judged pass, score 0 (best 0)"), "\(second)")
        #expect(out.contains("Routine played done."))

        let store = try Store.open(path: dir.file("etude.sqlite"))
        let passes = try store.passes()
        #expect(passes.map(\.mode) == ["wait", "wait", "play"])
        #expect(passes.map(\.hit) == [4, 4, 0])
        #expect(passes.map(\.missed) == [0, 0, 4])
        #expect(passes.map(\.score) == [100, 100, 0])
        #expect(passes.allSatisfy { $0.hand == "right" && $0.firstBar == 1 && $0.lastBar == 1 })
        #expect(passes.map(\.tempoPercent) == [100, 100, 200])
        let (_, stats, _) = try Self.etude(["stats", "--json"], env: env)
        #expect(stats.contains("\"passes\":3,\"scoredPasses\":3"), "\(stats)")
        // `etude resume` goes on from the last entry played, in its mode, hand, tempo and bars.
        let (_, resumeText, resumeErr) = try Self.etude(["resume", "--json"], env: env)
        let resume = try #require(try JSONSerialization.jsonObject(with: Data(resumeText.utf8)) as? [String: Any], "\(resumeText)\(resumeErr)")
        #expect(resume["title"] as? String == lesson && resume["mode"] as? String == "play" && resume["hand"] as? String == "right"
                && resume["tempoPercent"] as? Int == 200, "\(resume)")
        #expect((resume["loop"] as? [String: Any])?["firstBar"] as? Int == 1 && (resume["loop"] as? [String: Any])?["lastBar"] as? Int == 1, "\(resume)")
    }

    /// The computer keyboard cannot be played without a terminal: such entries are skipped
    /// with a line saying what to do, and the rest of the routine plays.
    @Test func aPlayedEntryWithoutATerminalOrMIDIInputIsSkippedWithTheFix() throws {
        guard FileManager.default.isExecutableFile(atPath: Repo.etude) else { return }
        let dir = try TempDir()
        let env = ["ETUDE_DB": dir.file("etude.sqlite"), "ETUDE_LESSONS": Self.lessons]
        let lesson = "C major five-finger position: parallel motion"
        _ = try Self.etude(["routine", "new", "k", "--entry", "lesson=\(lesson);bars=1-1;mode=wait",
                            "--entry", "lesson=\(lesson);bars=1-1;tempo=200"], env: env)
        let (status, out, err) = try Self.etude(["routine", "run", "k", "--audio-driver", "no-such-driver"], env: env)
        #expect(status == 0, "\(err)")
        #expect(out.contains("Skipping \(lesson): wait mode needs you to play; run the routine in a terminal, or give --input midi or a FIFO"), "\(out)")
        #expect(out.contains("Played 2/2 \(lesson): "))
        let store = try Store.open(path: dir.file("etude.sqlite"))
        #expect(try store.passes().map(\.mode) == ["watch"])
        // Bad playing options are one line before anything plays.
        let bad = try Self.etude(["routine", "run", "k", "--window", "5"], env: env)
        #expect(bad.0 == 1 && bad.2 == "etude: --window 5: give the timing window in milliseconds, 10–2000 (e.g. 150)\n", "\(bad.2)")
        let mode = try Self.etude(["routine", "new", "m", "--entry", "lesson=\(lesson);mode=fast"], env: env)
        #expect(mode.0 == 1 && mode.2.contains("mode must be watch, wait, play or memory"), "\(mode.2)")
    }

    /// "N repetitions" of bars are planned as those bars at the entry's tempo, not the lesson.
    @Test func planTimesRepetitionsOfBarsAtTheEntrysTempo() throws {
        guard FileManager.default.isExecutableFile(atPath: Repo.etude) else { return }
        let dir = try TempDir()
        let env = ["ETUDE_DB": dir.file("etude.sqlite"), "ETUDE_LESSONS": Self.lessons]
        // 72 BPM in 4/4: a bar is 3.33 s; at 50 % 6.67 s; three of them 20 s. The whole lesson is 33 s.
        _ = try Self.etude(["routine", "new", "b", "--entry", "lesson=C major five-finger position: parallel motion;bars=2-2;tempo=50;reps=3;pause=5",
                            "--entry", "lesson=C major five-finger position: parallel motion;reps=1"], env: env)
        let (status, out, _) = try Self.etude(["routine", "run", "b", "--plan"], env: env)
        #expect(status == 0)
        #expect(out.hasPrefix("b: 2 steps, about 0:58\n"), "5 + 20 + 33 s: \(out)")
        #expect(out.contains("2. [0:25] C major five-finger position"), "\(out)")
    }
}
