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
}
