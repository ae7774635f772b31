import Foundation
import MIDIFile
import Testing
@testable import Judge

/// Cross-check: a recording must read back as the same notes in another MIDI library (mido).
@Suite struct PeerRecorderTests {
    @Test func midoReadsTheRecordingAsTheSameNotes() throws {
        guard let python = ProcessInfo.processInfo.environment["ETUDE_PEER_PYTHON"],
              FileManager.default.isExecutableFile(atPath: python) else {
            print("mido cross-check skipped: ETUDE_PEER_PYTHON is not set to a Python with mido (make test sets it)")
            return
        }
        var rec = PerformanceRecorder(startTime: 5, bpm: 90, ticksPerQuarter: 96)
        let played: [(Int, Double, Double)] = [(60, 5.0, 5.4), (64, 5.0, 5.9), (67, 5.5, 6.0), (72, 6.25, 7.0)]
        var events: [PlayedEvent] = []
        for (p, on, off) in played {
            events += [PlayedEvent(pitch: p, velocity: 70, time: on), PlayedEvent(pitch: p, velocity: 0, time: off, isOn: false)]
        }
        for e in events.sorted(by: { $0.time < $1.time }) { rec.record(e) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("etude-judge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("mine.mid")
        try Data(rec.bytes()).write(to: file)

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
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
