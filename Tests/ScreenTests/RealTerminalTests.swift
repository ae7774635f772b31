import Foundation
import Testing
import Terminal
@testable import Screen

/// Plays frame diffs into tmux (a real terminal emulator) and reads the screen back: what the
/// learner sees must be exactly the last frame, after a full redraw and after several diffs.
@Suite("Frames in a real terminal (tmux)")
struct RealTerminalTests {
    static func tmuxPath() -> String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs tmux and waits for the client only (posix_spawn + waitpid: Foundation's Process
    /// would wait for the tmux server, which inherits its bookkeeping descriptors).
    @discardableResult
    static func tmux(_ socket: String, _ args: [String]) throws -> String {
        let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("etude-tmux-out-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let path = tmuxPath() ?? "/usr/bin/tmux"
        let argv: [UnsafeMutablePointer<CChar>?] = ([path, "-u", "-L", socket] + args).map { a in a.withCString { strdup($0) } } + [nil]
        defer { for a in argv { free(a) } }
        let envStrings = ["LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=xterm-256color", "PATH=/usr/bin:/bin", "HOME=\(NSTemporaryDirectory())"]
        let env: [UnsafeMutablePointer<CChar>?] = envStrings.map { e in e.withCString { strdup($0) } } + [nil]
        defer { for e in env { free(e) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, path, &actions, nil, argv, env) == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    }

    @Test func diffedFramesShowTheLastFrame() throws {
        guard Self.tmuxPath() != nil else {
            print("skipping: tmux is not installed (apt-get install tmux)")
            return
        }
        let size = TerminalSize(columns: 80, rows: 24)
        let screen = PracticeScreen(depth: .palette256)
        var writer = FrameWriter(depth: .palette256)
        var bytes: [UInt8] = []
        var model = Fixture.model()
        var last = CellBuffer(size: size)
        for step in 0..<12 {
            for i in model.notes.indices {
                model.notes[i].start -= 0.11
                model.notes[i].end -= 0.11
            }
            model.status.beat = step % 4 + 1
            model.overlay = (4...6).contains(step) ? .help : nil
            model.status.playing = step % 5 != 0
            last = screen.render(model, size: size)
            bytes += writer.frame(last)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("etude-tmux-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("frames.bin")
        try Data(bytes).write(to: file)
        let socket = "etude-screen-test-\(getpid())"
        defer { _ = try? Self.tmux(socket, ["kill-server"]) }
        try Self.tmux(socket, ["new-session", "-d", "-s", "t", "-x", "80", "-y", "24",
                               "stty raw -echo; cat '\(file.path)'; touch '\(file.path).done'; sleep 60"])
        let expected = last.plainText().split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingTrailingSpaces }
        var shown: [String] = []
        for _ in 0..<200 {  // guard against a hung tmux, not a timing check
            if FileManager.default.fileExists(atPath: file.path + ".done") {
                shown = try Self.tmux(socket, ["capture-pane", "-p", "-t", "t"])
                    .split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingTrailingSpaces }
                if shown.count >= 24 { break }
            }
            usleep(50_000)
        }
        try #require(shown.count >= 24, "tmux showed: \(shown)")
        for row in 0..<24 {
            #expect(shown[row] == expected[row], "row \(row)")
        }
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
