import Foundation
import GRDB

/// `etude-bench history --etude PATH [--passes N]`: a learner's history of N passes (default
/// 1,000,000: ten years of heavy daily practice) spread over the graded lessons and ten years,
/// then `etude today`, `etude next` and `etude stats` run on it as a user runs them: wall time
/// and peak memory of each (targets < 1 s and < 200 MB), printed beside the peer measured on the
/// same database in the same run: SQLite itself summing every pass (`SELECT COUNT(*),
/// SUM(durationSeconds), MAX(score) FROM pass`), the cost a command that reads the whole history
/// cannot go under. Prints one JSON object.
enum HistoryBench {
    static func run(_ args: [String]) throws -> String {
        var etude = ""
        var passes = 1_000_000
        var i = 0
        while i < args.count {
            if args[i] == "--etude", i + 1 < args.count { etude = args[i + 1]; i += 1 }
            if args[i] == "--passes", i + 1 < args.count, let n = Int(args[i + 1]) { passes = n; i += 1 }
            i += 1
        }
        guard !etude.isEmpty else { throw BenchError("give --etude PATH (the release etude)") }
        let dir = NSTemporaryDirectory() + "etude-history-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = dir + "/etude.sqlite"
        var env = ProcessInfo.processInfo.environment
        env["ETUDE_DB"] = db
        env["HOME"] = dir
        env["XDG_DATA_HOME"] = dir + "/data"
        // The catalogue first (the built-in lessons), then the passes, straight into SQLite.
        _ = try runEtude(etude, ["list"], env: env)
        let fill = Date()
        let queue = try DatabaseQueue(path: db)
        try queue.write { d in
            let lessons = try String.fetchAll(d, sql: "SELECT id FROM lesson WHERE level IS NOT NULL ORDER BY id")
            guard !lessons.isEmpty else { throw BenchError("the catalogue has no graded lessons (ETUDE_LESSONS?)") }
            try d.execute(sql: "CREATE TEMP TABLE graded (n INTEGER PRIMARY KEY, id TEXT)")
            for (n, id) in lessons.enumerated() { try d.execute(sql: "INSERT INTO graded VALUES (?, ?)", arguments: [n, id]) }
            // Ten years back from now, N passes evenly; every pass scored with all its figures (a
            // row Etude reads whole), some mastering.
            try d.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
                INSERT INTO pass (lessonID, startedAt, mode, hand, tempoPercent, firstBar, lastBar, durationSeconds,
                                  hit, missed, wrong, extra, early, onTime, late, timingMeanMs, timingSdMs, short, long, loud, soft,
                                  accuracy, score, complete)
                SELECT (SELECT id FROM graded WHERE n = i % ?),
                       strftime('%Y-%m-%d %H:%M:%f', 'now', printf('-%d seconds', (? - i) * 315360000 / ?)),
                       CASE WHEN i % 3 = 0 THEN 'wait' ELSE 'play' END, CASE WHEN i % 4 = 0 THEN 'right' ELSE 'both' END,
                       80 + i % 30, 1, 16, 60 + i % 120, 10, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 50 + i % 50, 50 + i % 50, i % 10 != 0
                FROM n
                """, arguments: [passes, lessons.count, passes, passes])
        }
        try queue.close()
        let filled = Date().timeIntervalSince(fill)
        var out: [String: Any] = ["bench": "history", "passes": passes, "fill_seconds": filled]
        for command in [["today"], ["next"], ["stats"]] {
            _ = try runEtude(etude, command, env: env)  // warm the page cache
            let r = try runEtude(etude, command, env: env)
            out[command[0]] = ["seconds": r.seconds, "max_rss_mb": r.maxRSSMB, "status": r.status,
                               "pass": r.status == 0 && r.seconds < 1 && r.maxRSSMB < 200]
        }
        // The peer: SQLite summing every pass of the same database.
        let peer = try DatabaseQueue(path: db)
        let t0 = Date()
        _ = try peer.read { d in try Row.fetchOne(d, sql: "SELECT COUNT(*), SUM(durationSeconds), MAX(score) FROM pass") }
        out["peer_sqlite_full_scan_seconds"] = Date().timeIntervalSince(t0)
        try peer.close()
        let data = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    struct BenchError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// Runs etude to its end under `/usr/bin/time` (its output discarded): wall seconds, its
    /// own peak RSS, and its status.
    static func runEtude(_ path: String, _ args: [String], env: [String: String]) throws -> (seconds: Double, maxRSSMB: Double, status: Int32) {
        let report = NSTemporaryDirectory() + "etude-history-bench-time-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        p.arguments = ["-f", "%e %M", "-o", report, path] + args
        p.environment = env
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let words = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard let last = words.last, let kb = Double(last), words.count >= 2, let seconds = Double(words[words.count - 2]) else {
            throw BenchError("/usr/bin/time gave no figures for etude \(args.joined(separator: " "))")
        }
        return (seconds, kb / 1024, p.terminationStatus)
    }
}
