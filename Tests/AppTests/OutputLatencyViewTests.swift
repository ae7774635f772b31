import Clocks
import Foundation
import Practice
import Screen
import TestSupport
import Testing

/// The falling notes reach the keyboard line when the sound leaves the speakers (issue 24):
/// shifted by the output's latency, on the screen only; the judge's times stay the lesson's.
@Suite struct OutputLatencyViewTests {
    @Test func fallingNotesAndLitKeysWaitForTheOutputLatency() throws {
        let modes = PlayingModesTests()
        let (s, _, clock, _) = try modes.make(.watch)
        s.start()
        modes.play(s, clock, until: 0.02)
        let plain = s.snapshot()
        s.display.outputLatency = 0.04
        let late = s.snapshot()
        let first = try #require(plain.notes.min { $0.start < $1.start })
        let shifted = try #require(late.notes.first { $0.pitch == first.pitch && abs($0.start - first.start - 0.04) < 1e-9 })
        #expect(abs(shifted.end - first.end - 0.04) < 1e-9)
        // Sounding in the lesson 20 ms ago, but not yet out of the speakers: not lit yet.
        #expect(plain.keyboard[first.pitch] != nil)
        #expect(late.keyboard[first.pitch] == nil)
    }
}
