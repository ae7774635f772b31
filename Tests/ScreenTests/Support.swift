import Foundation
import Testing
import Terminal
@testable import Screen

/// Exact text snapshots under Tests/ScreenTests/Snapshots: `<name>.txt` is the characters,
/// `<name>.styles.txt` the style of every cell (one letter per cell plus a legend).
/// Set ETUDE_RECORD_SNAPSHOTS=1 to (re)write them after a deliberate change, then review the diff.
enum Snapshot {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    static func check(_ name: String, _ buffer: CellBuffer, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = buffer.plainText() + "\n"
        let styles = buffer.styleMap() + "\n"
        let textURL = directory.appendingPathComponent("\(name).txt")
        let stylesURL = directory.appendingPathComponent("\(name).styles.txt")
        if ProcessInfo.processInfo.environment["ETUDE_RECORD_SNAPSHOTS"] == "1" {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try? text.write(to: textURL, atomically: true, encoding: .utf8)
            try? styles.write(to: stylesURL, atomically: true, encoding: .utf8)
            return
        }
        let expectedText = try? String(contentsOf: textURL, encoding: .utf8)
        let expectedStyles = try? String(contentsOf: stylesURL, encoding: .utf8)
        #expect(expectedText != nil, "missing snapshot \(name).txt (record with ETUDE_RECORD_SNAPSHOTS=1)", sourceLocation: sourceLocation)
        #expect(expectedText == text, "text of \(name) differs:\n\(text)", sourceLocation: sourceLocation)
        #expect(expectedStyles == styles, "styles of \(name) differ", sourceLocation: sourceLocation)
    }
}

enum Fixture {
    /// C major chord in the right hand with F#, a left-hand bass, accompaniment, a learner key
    /// and a wrong key: every role on both key colours.
    static var keyboard: KeyboardState {
        KeyboardState([
            (60, .rightHand), (64, .rightHand), (67, .rightHand), (66, .rightHand),
            (48, .leftHand), (46, .leftHand),
            (74, .accompaniment), (73, .accompaniment),
            (72, .learner), (61, .wrong),
        ])
    }

    static let range = 43...79  // G2–G5

    static func model(overlay: Overlay? = nil) -> ScreenModel {
        var notes: [FallingNote] = []
        // a scale in the right hand, a bass line, an accompaniment chord, fingers on
        let scale = [60, 62, 64, 65, 67, 69, 71, 72]
        for (i, p) in scale.enumerated() {
            notes.append(FallingNote(pitch: p, start: Double(i) * 0.5 - 0.2, end: Double(i) * 0.5 + 0.25, role: .rightHand, finger: [1, 2, 3, 1, 2, 3, 4, 5][i]))
        }
        for (i, p) in [48, 43, 45, 41].enumerated() {
            notes.append(FallingNote(pitch: p, start: Double(i) * 1.0, end: Double(i) * 1.0 + 0.9, role: .leftHand, finger: 5))
        }
        for p in [76, 79, 73] { notes.append(FallingNote(pitch: p, start: 1.5, end: 2.5, role: .accompaniment)) }
        return ScreenModel(
            status: StatusInfo(title: "Minuet in G — BWV Anh. 114", playing: true, bar: 9, beat: 2, bars: 32, bpm: 86.4,
                               tempoPercent: 80, hand: "right", otherHand: "quiet",
                               loop: LoopStatus(startBar: 9, endBar: 12, enabled: true, pass: 3), metronome: true, mode: "watch"),
            timeline: TimelineInfo(position: 8.4, length: 32, loopStart: 8, loopEnd: 12, loopEnabled: true),
            keyboard: keyboard,
            notes: notes,
            barLines: [BarLine(seconds: 0.9, bar: 10), BarLine(seconds: 2.3, bar: 11)],
            loopStartSeconds: nil, loopEndSeconds: 3.0,
            lookaheadSeconds: 3.5,
            pitchRange: range, showNoteNames: false, noteNaming: .scientific, showFingers: true,
            overlay: overlay)
    }
}
