import Synth
import Testing

/// The PulseAudio buffer's rules (issue 24.3): an underrun grows it at once and marks a floor
/// never tried again; a clean default buffer is tried one notch smaller; a chosen one only grows.
struct BufferStepsTests {
    @Test func anUnderrunGrowsTheBufferOneNotchAndSaysSo() {
        var steps = BufferSteps(milliseconds: 10, probesDown: true)
        // The stream's first second is its start: an underrun then is not the buffer's.
        #expect(steps.observe(underruns: 1, elapsed: 0.25) == .none)
        let change = steps.observe(underruns: 2, elapsed: BufferSteps.settle)
        #expect(change == .up(from: 10, to: 12))
        #expect(steps.milliseconds == 12 && steps.floor == 10)
        #expect(BufferSteps.notice(change) == "audio gaps (underruns) with a 10 ms buffer: now 12 ms")
        #expect(BufferSteps.notice(.down(from: 12, to: 10)) == nil)
    }

    @Test func aCleanDefaultBufferIsTriedSmallerButNeverAtOrBelowAFloor() {
        var steps = BufferSteps(milliseconds: 40, probesDown: true)
        #expect(steps.observe(underruns: 0, elapsed: BufferSteps.probeAfter - 1) == .none)
        #expect(steps.observe(underruns: 0, elapsed: 1) == .down(from: 40, to: 30))
        #expect(steps.observe(underruns: 0, elapsed: BufferSteps.probeAfter) == .down(from: 30, to: 25))
        #expect(steps.observe(underruns: 1, elapsed: 0.25) == .none, "within a second of the change")
        #expect(steps.observe(underruns: 1, elapsed: BufferSteps.settle) == .up(from: 25, to: 30))
        // 25 ms underran: 30 ms stays, however long it plays cleanly.
        #expect(steps.observe(underruns: 0, elapsed: 100) == .none)
        #expect(steps.milliseconds == 30)
    }

    @Test func aChosenBufferOnlyGrowsAndTheLadderEnds() {
        var chosen = BufferSteps(milliseconds: 20, probesDown: false)
        #expect(chosen.observe(underruns: 0, elapsed: 60) == .none)
        #expect(chosen.observe(underruns: 1, elapsed: 0.25) == .up(from: 20, to: 25))
        var top = BufferSteps(milliseconds: 500, probesDown: true)
        #expect(top.observe(underruns: 1, elapsed: 2) == .none)
        // An odd size (2.2 ms at 44.1 kHz) steps to the next size on the ladder.
        var odd = BufferSteps(milliseconds: 2.18, probesDown: false)
        #expect(odd.observe(underruns: 1, elapsed: 2) == .up(from: 2.18, to: 5))
        #expect(BufferSteps.notice(.up(from: 2.18, to: 5)) == "audio gaps (underruns) with a 2.2 ms buffer: now 5 ms")
    }
}

/// What a device taught, resumed the next time (issue 24: the stepped buffer remembered per
/// device): its size and floor carry on, the rules unchanged; a size off the ladder or at its
/// own floor is no memory.
struct BufferMemoryTests {
    @Test func aLearnedBufferResumesWithItsFloor() throws {
        var steps = BufferSteps(milliseconds: 40, probesDown: true)
        _ = steps.observe(underruns: 0, elapsed: BufferSteps.probeAfter)  // 30
        _ = steps.observe(underruns: 0, elapsed: BufferSteps.probeAfter)  // 25
        _ = steps.observe(underruns: 1, elapsed: BufferSteps.settle)      // back to 30, 25 underran
        #expect(steps.learned == BufferSteps.Learned(milliseconds: 30, floor: 25))
        var next = try #require(BufferSteps.resumed(steps.learned))
        #expect(next.milliseconds == 30 && next.floor == 25 && next.probesDown)
        // It never goes to 25 again, and still grows on an underrun.
        #expect(next.observe(underruns: 0, elapsed: 100) == .none)
        #expect(next.observe(underruns: 1, elapsed: BufferSteps.settle) == .up(from: 30, to: 40))
        // A device that never underran keeps probing down from where it was.
        var clean = try #require(BufferSteps.resumed(.init(milliseconds: 12, floor: nil)))
        #expect(clean.observe(underruns: 0, elapsed: BufferSteps.probeAfter) == .down(from: 12, to: 10))
        #expect(BufferSteps.resumed(.init(milliseconds: 13, floor: nil)) == nil)
        #expect(BufferSteps.resumed(.init(milliseconds: 20, floor: 20)) == nil)
        #expect(BufferSteps.resumed(.init(milliseconds: .infinity, floor: nil)) == nil)
    }
}

/// Dating a recording as it arrives, and a key's latency from it.
struct KeyToSoundTests {
    @Test func framesAreDatedBackFromTheirChunksArrival() {
        // 1000 Hz: chunks of 100 frames arriving at 1.1, 1.2 and 1.3 s.
        let arrivals = [KeyToSound.Arrival(seconds: 1.1, frames: 100), .init(seconds: 1.2, frames: 200), .init(seconds: 1.3, frames: 300)]
        #expect(KeyToSound.date(of: 99, rate: 1000, arrivals: arrivals) == 1.1)
        #expect(abs((KeyToSound.date(of: 150, rate: 1000, arrivals: arrivals) ?? 0) - 1.151) < 1e-9)
        #expect(KeyToSound.date(of: 300, rate: 1000, arrivals: arrivals) == nil)
    }

    @Test func aKeysLatencyIsItsFirstLoudFrameAfterSilence() {
        var samples = [Float](repeating: 0, count: 300)
        for i in 160..<200 { samples[i] = 0.5 }  // the sound starts at frame 160 (dated 1.161 s)
        let arrivals = [KeyToSound.Arrival(seconds: 1.1, frames: 100), .init(seconds: 1.2, frames: 200), .init(seconds: 1.3, frames: 300)]
        let heard = KeyToSound.latencies(samples: samples, rate: 1000, arrivals: arrivals, keys: [1.15, 1.25], window: 0.05)
        #expect(abs((heard[0] ?? 0) - 0.011) < 1e-9)
        #expect(heard[1] == nil, "nothing within the window after the second key")
        let summary = KeyToSound.summary(heard)
        #expect(summary.map { abs($0.median - 11) < 1e-6 } == true)
    }
}
