import Foundation
import MIDIFile
import Testing

/// `etude record --input keys` on a pseudo-terminal: the computer keyboard plays, q stops,
/// the file holds the notes typed and the terminal modes are put back.
@Suite("etude record on a terminal", .serialized)
struct RecordTerminalTests {
    @Test func computerKeyboardNotesAreRecordedAndTheTerminalRestored() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/keys.mid"
        var m: Int32 = -1, s: Int32 = -1
        var ws = winsize(ws_row: 24, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        #expect(openpty(&m, &s, nil, nil, &ws) == 0)
        defer { close(m); close(s) }
        let before = Self.modes(s)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_adddup2(&actions, s, fd) }
        posix_spawn_file_actions_addclose(&actions, m)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t(); sigemptyset(&empty)
        var all = sigset_t(); sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let env = try CLI.silentEnvironment(dir).merging(["TERM": "xterm-256color"]) { _, b in b }
        let args = [CLI.etude, "record", "-o", out, "--input", "keys", "--bpm", "120"]
        let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, CLI.etude, &actions, &attr, argv, envp) == 0)
        _ = fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK)

        var output = ""
        func waitFor(_ marker: String) -> Bool {
            var buf = [UInt8](repeating: 0, count: 4096)
            for _ in 0..<2000 {
                let n = read(m, &buf, buf.count)
                if n > 0 { output += String(decoding: buf[0..<n], as: UTF8.self) }
                if output.contains(marker) { return true }
                usleep(10_000)
            }
            return false
        }
        func send(_ text: String) { var b = Array(text.utf8); _ = write(m, &b, b.count) }

        #expect(waitFor("● recording"))
        send("a")
        #expect(waitFor("1 notes"))
        send("s")
        #expect(waitFor("2 notes"))
        send("x")  // octave up: the next `a` is C5
        send("a")
        #expect(waitFor("3 notes"))
        send("q")
        #expect(waitFor("recorded 3 notes"))
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status == 0, "\(output)")
        let after = Self.modes(s)
        #expect(after.c_lflag == before.c_lflag)
        #expect(after.c_iflag == before.c_iflag)

        let file = try MIDIReader.read(try [UInt8](Data(contentsOf: URL(fileURLWithPath: out))), strict: true).file
        let notes = NotePairing.notes(in: file).notes.sorted { $0.startTick < $1.startTick }
        #expect(notes.map(\.pitch) == [60, 62, 72])
        // Onset-only keys: each note gets the fixed length (0.4 s = 384 ticks at 120 BPM, 480 tpq),
        // or less when stopped.
        for n in notes { #expect(n.endTick - n.startTick <= 384) }
    }

    static func modes(_ fd: Int32) -> termios {
        var t = termios()
        _ = tcgetattr(fd, &t)
        return t
    }
}
