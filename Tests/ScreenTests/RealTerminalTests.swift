import Foundation
import Testing
import TestSupport
import Terminal
@testable import Screen

/// Plays frame diffs into tmux (a real terminal emulator) and reads the screen back: what the
/// learner sees must be exactly the last frame, after a full redraw and after several diffs.
@Suite("Frames in a real terminal (tmux)")
struct RealTerminalTests {
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func diffedFramesShowTheLastFrame() throws {
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
        let dir = try TempDir("etude-tmux-frames")
        let file = try dir.write("frames.bin", bytes)
        // The frames on a raw tty; the pane then holds them (sleep) while they are read back.
        let pane = try TmuxPane(command: "sh -c " + TmuxPane.quote("stty raw -echo; cat \(TmuxPane.quote(file)); touch \(TmuxPane.quote(file + ".done")); sleep 60"),
                                environment: ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "xterm-256color", "PATH": "/usr/bin:/bin"],
                                width: 80, height: 24)
        let expected = last.plainText().split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingTrailingSpaces }
        var shown: [String] = []
        _ = eventually(10, poll: 50_000) {  // guard against a hung tmux, not a timing check
            guard FileManager.default.fileExists(atPath: file + ".done") else { return false }
            shown = pane.screen().split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingTrailingSpaces }
            return shown.count >= 24
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
