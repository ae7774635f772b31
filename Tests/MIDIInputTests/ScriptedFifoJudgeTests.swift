import Foundation
import Judge
import Testing
@testable import MIDIInput

/// The whole chain a learner's keyboard goes through: bytes in a FIFO → parser → played notes
/// stamped by a virtual clock → the judge. Exact timestamps, no timing assertions.
@Suite struct ScriptedFifoJudgeTests {
    static let melody: [(pitch: UInt8, time: Double)] = [(60, 1.0), (62, 1.5), (64, 2.0), (65, 2.5), (67, 3.0)]

    func playThroughFifo(shift: Double, pitches: [UInt8]? = nil) throws -> PassReport {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("play.fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        let clock = FixedClock(0)
        let input = ByteStreamInput(path: path, clock: clock)
        let box = EventBox()
        try input.start { box.add($0) }
        let fd = open(path, O_WRONLY)
        #expect(fd >= 0)
        for (i, note) in Self.melody.enumerated() {
            let pitch = pitches?[i] ?? note.pitch
            clock.set(note.time + shift)
            var on: [UInt8] = [0x90, pitch, 90, 0xF8]
            _ = write(fd, &on, on.count)
            #expect(box.waitForNotes(2 * i + 1))
            clock.set(note.time + shift + 0.3)
            var off: [UInt8] = [pitch, 0]  // running status, velocity 0
            _ = write(fd, &off, off.count)
            #expect(box.waitForNotes(2 * i + 2))
        }
        close(fd)
        #expect(box.waitForEnd())
        input.stop()

        let expected = Self.melody.enumerated().map { i, n in
            ExpectedNote(id: i, pitch: Int(n.pitch), time: n.time, duration: 0.3, part: "right", section: i < 3 ? 0 : 1)
        }
        var matcher = PlayMatcher(expected: expected, parts: ["right"])
        for n in box.notes {
            _ = matcher.play(PlayedEvent(pitch: Int(n.pitch), velocity: Int(n.velocity), time: n.time, isOn: n.isOn, channel: Int(n.channel)))
        }
        return matcher.finish()
    }

    @Test func aPerfectPerformanceThroughTheFifoScoresOneHundred() throws {
        let r = try playThroughFifo(shift: 0)
        #expect(r.hit == 5 && r.accuracy == 100 && r.score == 100)
    }

    @Test func aShiftOfFortyMillisecondsMeasuresPlusForty() throws {
        let r = try playThroughFifo(shift: 0.040)
        #expect(abs(r.timingMeanMs - 40) < 0.01)
        #expect(r.timingSdMs < 0.01)
    }

    @Test func aWrongKeyIsWrongAndNotAlsoMissed() throws {
        let r = try playThroughFifo(shift: 0, pitches: [60, 62, 64, 66, 67])
        #expect(r.wrong == 1 && r.missed == 0 && r.hit == 4 && r.extra == 0)
        #expect(r.weakestSection?.section == 1)
    }
}
