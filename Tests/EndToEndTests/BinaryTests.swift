import Foundation
import Testing
import TestSupport

/// The harness itself: the built binary is found, runs, and a pane restores the terminal.
@Suite struct BinaryTests {
    @Test func theBuiltBinaryIsFoundAndListsTheBuiltInLessons() throws {
        try #require(EtudeBinary.isBuilt, "build etude first: \(EtudeBinary.path)")
        let etude = try Etude()
        let r = try etude.run("list", "--json")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Ode to Joy"))
    }

    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func aPaneRunsEtudeAndRecordsTheExit() throws {
        let etude = try Etude()
        let pane = try TmuxPane(etude: etude, ["list"], width: 80, height: 24)
        #expect(pane.exitStatus() == 0)
        #expect(pane.ttyRestored)
        #expect(pane.waitFor { $0.contains("EXIT=0") }.contains("EXIT=0"))
    }
}
