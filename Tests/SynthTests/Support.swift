import Foundation
import MIDIFile
import Synth

/// Paths and helpers shared by the Synth tests.
enum TestEnv {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var etude: String { repoRoot.appendingPathComponent(".build/debug/etude").path }

    /// The SoundFont every test renders with (the same one the CLI would pick).
    static func soundFont() throws -> String {
        try SoundFontLocator(explicit: nil, repositoryRoots: [repoRoot.path]).locate()
    }

    static func tempDir() -> String {
        let dir = NSTemporaryDirectory() + "etude-synth-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func remove(_ dir: String) {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Full path of an executable on PATH, nil when not installed.
    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a program to completion with stdin from /dev/null.
    static func run(_ path: String, _ args: [String], env: [String: String]? = nil) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        if let env { p.environment = env }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }
}

/// A type-1 file built from notes (seconds are derived through the file's own tempo map).
struct TestSong {
    var tpq = 480
    /// (tick, µs per quarter)
    var tempos: [(Int, Int)] = [(0, 500_000)]
    /// (tick, message) on track 1.
    var events: [(Int, MIDIEvent.Kind)] = []
    var endTick: Int

    func file() -> MIDIFile {
        var conductor = tempos.map { t, us in
            MIDIEvent(tick: t, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xFF), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)]))
        }
        conductor.append(MIDIEvent(tick: endTick, .meta(type: MetaType.endOfTrack, data: [])))
        var notes = events.sorted { $0.0 < $1.0 }.map { MIDIEvent(tick: $0.0, $0.1) }
        notes.append(MIDIEvent(tick: endTick, .meta(type: MetaType.endOfTrack, data: [])))
        return MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: [Track(events: conductor), Track(events: notes)])
    }

    func write(to path: String) throws {
        try Data(MIDIWriter.write(file())).write(to: URL(fileURLWithPath: path))
    }

    /// Seconds at a tick computed by hand from the tempo list (independent of TempoMap).
    func seconds(atTick tick: Int) -> Double {
        var s = 0.0, lastTick = 0, us = 500_000
        for (t, u) in tempos.sorted(by: { $0.0 < $1.0 }) where t <= tick {
            s += Double(t - lastTick) * Double(us) / 1e6 / Double(tpq)
            lastTick = t
            us = u
        }
        return s + Double(tick - lastTick) * Double(us) / 1e6 / Double(tpq)
    }
}

enum Signal {
    /// Onsets: first sample whose magnitude exceeds `threshold` after at least `gap` samples at
    /// or below it (the piece starts in silence).
    static func onsets(_ x: [Float], threshold: Float = 1e-5, gap: Int = 2000) -> [Int] {
        var out: [Int] = []
        var quiet = gap
        for (i, v) in x.enumerated() {
            if abs(v) > threshold {
                if quiet >= gap { out.append(i) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return out
    }

    static func peak(_ x: ArraySlice<Float>) -> Float { x.reduce(0) { max($0, abs($1)) } }

    /// Magnitudes at the first `count` harmonics of `f0` (Goertzel), normalised to sum 1.
    static func harmonicProfile(_ x: ArraySlice<Float>, f0: Double, rate: Double, count: Int = 12) -> [Double] {
        var mags: [Double] = []
        for h in 1...count {
            let w = 2 * Double.pi * f0 * Double(h) / rate
            var re = 0.0, im = 0.0
            for (n, v) in x.enumerated() {
                // Hann window to keep leakage out of neighbouring harmonics.
                let win = 0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(x.count - 1))
                re += Double(v) * win * cos(w * Double(n))
                im -= Double(v) * win * sin(w * Double(n))
            }
            mags.append((re * re + im * im).squareRoot())
        }
        let total = mags.reduce(0, +)
        return total > 0 ? mags.map { $0 / total } : mags
    }

    static func distance(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) }
    }
}

/// A child process started with posix_spawn and a clean signal mask (Foundation's Process
/// blocks every signal in its children, so daemons and recorders would ignore SIGINT/SIGTERM).
/// Output goes to files, so nothing can deadlock on a full pipe.
final class Spawned {
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String

    init(_ path: String, _ args: [String], env: [String: String], dir: String, name: String, stdoutPath: String? = nil) throws {
        self.stdoutPath = stdoutPath ?? "\(dir)/\(name).out"
        self.stderrPath = "\(dir)/\(name).err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, self.stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, self.stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attr, argv, envp)
        guard rc == 0 else { throw SynthError("posix_spawn \(path) failed: \(rc)") }
        pid = child
    }

    /// Waits for exit; returns the exit status, or 128 + signal.
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status & 0x7F == 0 { return (status >> 8) & 0xFF }
        return 128 + (status & 0x7F)
    }

    func signal(_ sig: Int32) { kill(pid, sig) }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
}
