import Foundation
import MIDIFile
import Testing
import TestSupport
@testable import Judge

/// Cross-check: a recording must read back as the same notes in another MIDI library (mido).
@Suite struct PeerRecorderTests {
    @Test(.enabled(if: Tools.peerPython.available, Tools.peerPython.reason))
    func midoReadsTheRecordingAsTheSameNotes() throws {
        let python = try #require(Tools.peerPython.path)
        var rec = PerformanceRecorder(startTime: 5, bpm: 90, ticksPerQuarter: 96)
        let played: [(Int, Double, Double)] = [(60, 5.0, 5.4), (64, 5.0, 5.9), (67, 5.5, 6.0), (72, 6.25, 7.0)]
        var events: [PlayedEvent] = []
        for (p, on, off) in played {
            events += [PlayedEvent(pitch: p, velocity: 70, time: on), PlayedEvent(pitch: p, velocity: 0, time: off, isOn: false)]
        }
        for e in events.sorted(by: { $0.time < $1.time }) { rec.record(e) }
        let dir = try TempDir("etude-judge")
        let file = try dir.write("mine.mid", rec.bytes())

        let script = """
        import sys, mido
        f = mido.MidiFile(sys.argv[1])
        t = 0.0
        start = {}
        for m in f:
            t += m.time
            if m.type == 'note_on' and m.velocity > 0:
                start[m.note] = t
            elif m.type in ('note_off', 'note_on'):
                print(m.note, round(start.pop(m.note), 4), round(t, 4))
        """
        let mido = try ProcessRunner.run(python, ["-c", script, file])
        let out = mido.stdout
        #expect(mido.status == 0)
        var notes: [[Double]] = []
        for line in out.split(separator: "\n") {
            let fields: [Double] = line.split(separator: " ").compactMap { Double(String($0)) }
            if fields.count == 3 { notes.append(fields) }
        }
        notes.sort { a, b in a[1] != b[1] ? a[1] < b[1] : a[0] < b[0] }
        // mido plays the file in seconds; at 90 BPM, 96 tpq the tick grid is ~7 ms, so allow half of it.
        var expected: [[Double]] = played.map { p in [Double(p.0), p.1 - 5, p.2 - 5] }
        expected.sort { a, b in a[1] != b[1] ? a[1] < b[1] : a[0] < b[0] }
        #expect(notes.count == expected.count)
        for (a, b) in zip(notes, expected) {
            #expect(a[0] == b[0])
            #expect(abs(a[1] - b[1]) < 0.0036 && abs(a[2] - b[2]) < 0.0036, "mido \(a) vs played \(b)")
        }
    }
}
