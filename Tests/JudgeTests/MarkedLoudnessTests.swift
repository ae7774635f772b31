import Testing
@testable import Judge

/// The dynamic marked at a note travels with its verdict to where a pass is reviewed.
@Suite struct MarkedLoudnessTests {
    @Test func aLoudnessFaultNamesTheDynamicMarked() {
        var report = PassReport(judgements: [])
        var loud = NoteVerdict(id: 0, bar: "9", pitch: 64, hand: "right", onset: .hit, loudness: .loud, velocity: 100, dynamic: "p")
        loud.barNumber = 9
        var short = NoteVerdict(id: 1, bar: "9", pitch: 62, hand: "right", onset: .hit, release: .short, heldRatio: 0.4, dynamic: "p")
        short.barNumber = 9
        report.notes = [short, loud]
        #expect(report.reviewLines() == ["bar 9: D4 short, E4 loud (p)"])
    }
}
