import Foundation
import Testing
import TestSupport

/// Issue 36 step 2, as a user runs Etude: one `etude practice` opens its database once (its
/// lock file once, watched by strace). A chosen database never moved aside (issue 40 point 6)
/// is `LibraryAndHistoryCommandTests.corruptDatabaseIsReportedInOneLineByTheCLI`.
@Suite(.serialized) struct OneStoreTests {
    static let strace = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var canTrace: Bool {
        guard let strace = strace, let r = try? ProcessRunner.run(strace, ["-f", "-e", "trace=openat", "-o", "/dev/null", "/bin/true"]) else { return false }
        return r.status == 0
    }
    static var ode: String { Repo.lesson("level4/ode-to-joy.mid") }

    /// Wait mode on a FIFO with a transposition, a keyboard and echo given: every part that
    /// remembers something (the transposition, the keyboard, echo, the offset, the history)
    /// reads and writes the one store the command opened.
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason), .enabled(if: canTrace, "strace cannot trace here (not installed, or ptrace refused)"))
    func practiceOpensTheDatabaseAndItsLockOnce() throws {
        let etude = try Etude()
        #expect(try etude.run(["list"]).status == 0, "the catalogue is made first, as on a learner's second day")
        let dir = try TempDir("etude-one-store")
        let fifo = dir.file("keys.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let fd = open(fifo, O_RDWR | O_CLOEXEC)  // held open for writing: never blocks on a FIFO
        try #require(fd >= 0)
        defer { close(fd) }
        let trace = dir.file("trace")
        let command = [try #require(Self.strace), "-f", "-e", "trace=openat", "-o", trace, EtudeBinary.path,
                       "practice", Self.ode, "--mode", "wait", "--input", fifo, "--transpose", "+2", "--keys", "61", "--echo", "off"]
        let pane = try TmuxPane(command: command.map(TmuxPane.quote).joined(separator: " "), environment: etude.environment)
        let screen = pane.waitFor(60) { $0.contains("mode: wait") }
        #expect(screen.contains("mode: wait"), "\(screen)\n\(pane.stderr)")
        try pane.keys("q")
        #expect(pane.exitStatus(within: 60) == 0, "\(pane.stderr)")
        let opens = dir.read("trace").split(separator: "\n").filter { $0.contains("openat(") && !$0.contains("ENOENT") }
        let locks = opens.filter { $0.contains("\"" + etude.database + ".lock\"") }
        #expect(locks.count == 1, "the database's lock file is opened once per command:\n\(locks.joined(separator: "\n"))")
        // What the command remembered went to that one store.
        let loops = try etude.run(["stats"])
        #expect(loops.status == 0, "\(loops.stderr)")
    }
}
