import Foundation
import MIDIFile
import Testing

/// Runs the `etude` binary (built by `swift build`) with MIDI bytes written into a FIFO.
enum CLI {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var etude: String { repoRoot.appendingPathComponent(".build/debug/etude").path }

    static func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "etude-practice-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// No audio device reachable: the synth warns once and runs silently (no sound in tests).
    static func silentEnvironment(_ dir: String) throws -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        try Data().write(to: URL(fileURLWithPath: dir + "/asound.conf"))
        env["XDG_RUNTIME_DIR"] = dir
        env["PULSE_SERVER"] = "unix:\(dir)/no-such-socket"
        env["PIPEWIRE_REMOTE"] = "\(dir)/no-such-pipewire"
        env["ALSA_CONFIG_PATH"] = dir + "/asound.conf"
        env["ETUDE_DB"] = dir + "/etude.sqlite"
        return env
    }

    struct Result {
        var status: Int32
        var out: String
        var err: String
    }

    /// Starts the command (stdin /dev/null, not a terminal), then runs `feed` with the FIFO's
    /// write end once the command has opened it; waits for the command to exit.
    static func run(_ args: [String], dir: String, fifo: String, feed: (Int32) -> Void) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: etude)
        p.arguments = args
        p.environment = try silentEnvironment(dir)
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        // Waits until the command opens the FIFO for reading (ENXIO until then); gives up if
        // the command exits first (an error before the input opens), so a test never hangs.
        var fd: Int32 = -1
        for _ in 0..<6000 where p.isRunning {
            fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { break }
            usleep(10_000)
        }
        if fd >= 0 {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            feed(fd)
            close(fd)
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, out: String(decoding: o, as: UTF8.self), err: String(decoding: e, as: UTF8.self))
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var b = bytes
        _ = write(fd, &b, b.count)
    }
}

@Suite("etude record", .serialized)
struct RecordCommandTests {
    @Test func recordsWhatIsPlayedThroughTheFifoToAValidMidiFile() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/in.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let out = dir + "/mine.mid"
        let r = try CLI.run(["record", "-o", out, "--input", fifo, "--bpm", "100"], dir: dir, fifo: fifo) { fd in
            CLI.send(fd, [0x90, 60, 100])
            usleep(300_000)
            CLI.send(fd, [0x90, 64, 80, 0xF8, 67, 70])  // a chord: running status, a clock byte inside
            usleep(200_000)
            CLI.send(fd, [0x80, 60, 0, 0x90, 64, 0, 67, 0])  // note-off, then note-on velocity 0 as offs
        }
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("recorded 3 notes"))
        #expect(r.err.contains("closed the FIFO"))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        let file = try MIDIReader.read(bytes, strict: true).file
        let notes = NotePairing.notes(in: file).notes.sorted { ($0.startTick, $0.pitch) < ($1.startTick, $1.pitch) }
        #expect(notes.map(\.pitch) == [60, 64, 67])
        #expect(notes.map(\.velocity) == [100, 80, 70])
        let map = TempoMap(file: file)
        #expect(abs(map.bpm(atTick: 0) - 100) < 0.01)
        // Lengths come from the note-offs: C held across both sleeps, the chord across the second.
        let c = notes[0], e = notes[1]
        #expect(map.seconds(atTick: c.endTick) - map.seconds(atTick: c.startTick) >= 0.45)
        #expect(map.seconds(atTick: e.endTick) - map.seconds(atTick: e.startTick) >= 0.15)
        #expect(e.startTick > c.startTick)
        #expect(e.endTick == c.endTick || abs(map.seconds(atTick: e.endTick) - map.seconds(atTick: c.endTick)) < 0.01)
    }

    @Test func stopsByItselfAfterTheBarsAsked() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/in.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let out = dir + "/bars.mid"
        // One 4/4 bar at 120 BPM is two seconds; the note comes a moment after the FIFO opens
        // (a busy machine may still be starting the recorder) and the writer keeps it open
        // for longer than the bar.
        let r = try CLI.run(["record", "-o", out, "--input", fifo, "--bpm", "120", "--bars", "1", "--metronome"], dir: dir, fifo: fifo) { fd in
            usleep(300_000)
            CLI.send(fd, [0x90, 72, 90])
            usleep(3_500_000)
        }
        #expect(r.status == 0, "\(r.err)")
        #expect(!r.err.contains("closed the FIFO"))
        let file = try MIDIReader.read(try [UInt8](Data(contentsOf: URL(fileURLWithPath: out))), strict: true).file
        let notes = NotePairing.notes(in: file).notes
        #expect(notes.map(\.pitch) == [72])
        // Held at the stop: it ends at the stop, within the bar.
        let map = TempoMap(file: file)
        #expect(map.seconds(atTick: notes[0].endTick) <= 2.2)
    }

    @Test func withoutAnyInputAndNoTerminalItSaysWhatToDo() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.etude)
        p.arguments = ["record", "-o", dir + "/x.mid", "--input", "keys"]
        p.environment = try CLI.silentEnvironment(dir)
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 1)
        #expect(e.contains("etude: nothing to record from"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.mid"))
        let missing = try CLI.run(["record", "-o", dir + "/y.mid", "--input", dir + "/nope"], dir: dir, fifo: "/nonexistent") { _ in }
        #expect(missing.status == 1)
        #expect(missing.err.contains("cannot read MIDI input"))
    }
}
