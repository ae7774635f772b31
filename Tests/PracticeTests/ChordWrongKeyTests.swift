import Foundation
import Judge
import Lesson
import MIDIFile
import Testing
import TestSupport
@testable import Practice

/// Live, in play mode: a wrong key inside a chord of the shipped cadence and inversions
/// lessons is charged to the note it replaced (the chord's other notes are hits), as the
/// results panel, the review and the history read it from the pass report's notes.
@Suite struct ChordWrongKeyTests {
    static func lesson(_ relative: String) throws -> Lesson {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Repo.lesson(relative))))
        return Lesson(file: try MIDIReader.read(bytes).file, fileName: (relative as NSString).lastPathComponent)
    }

    @Test func plantedWrongKeysInTheCadenceAndInversionsAreChargedToTheKeyTheyReplaced() throws {
        var right = 0, planted = 0
        for path in ["level3/c-major-cadence.mid", "level3/a-minor-cadence.mid", "level6/c-major-inversions.mid", "level6/g-major-inversions.mid"] {
            let lesson = try Self.lesson(path)
            let run = try ScriptedRun(lesson: lesson, plan: PracticePlan(), mode: .play)
            // Each lesson note at its time; in every second chord of three notes or more, one key a semitone off.
            let notes = lesson.notes
            let starts = Dictionary(grouping: notes.indices, by: { notes[$0].startTick })
            var wrong: [Int: Int] = [:]  // lesson note index → key played instead
            for (n, tick) in starts.keys.sorted().enumerated() where n % 2 == 0 {
                guard let chord = starts[tick], chord.count >= 3 else { continue }
                let members = chord.sorted { notes[$0].pitch < notes[$1].pitch }
                let pick = members[(n / 2) % members.count]
                let pitches = Set(members.map { Int(notes[$0].pitch) })
                var key = Int(notes[pick].pitch) + (n % 4 == 0 ? 1 : -1)
                if pitches.contains(key) { key = Int(notes[pick].pitch) + (n % 4 == 0 ? -1 : 1) }
                wrong[pick] = key
            }
            run.performer = { pass, _, t0 in
                guard pass == 1 else { return [] }
                var out: [PlayedEvent] = []
                for (i, n) in notes.enumerated() {
                    let on = t0 + lesson.tempoMap.seconds(atTick: n.startTick) + Double(i % 3) * 0.008
                    let off = t0 + lesson.tempoMap.seconds(atTick: n.endTick) - 0.03
                    let p = wrong[i] ?? Int(n.pitch)
                    out.append(PlayedEvent(pitch: p, velocity: 80, time: on))
                    out.append(PlayedEvent(pitch: p, velocity: 0, time: max(on + 0.05, off), isOn: false))
                }
                return out
            }
            run.run()
            let report = try #require(run.reports.first, "\(path)")
            let verdicts = Dictionary(report.notes.map { ($0.id, $0.onset) }, uniquingKeysWith: { a, _ in a })
            for (note, _) in wrong {
                planted += 1
                if verdicts[note] == .wrong { right += 1 }
            }
            // The chords' other notes are hits; the wrong keys are wrong, not extra.
            #expect(report.wrong == wrong.count && report.extra == 0 && report.hit == report.notes.count - wrong.count,
                    "\(path): \(report.figures.summary)")
        }
        #expect(planted >= 20)
        #expect(Double(right) >= 0.95 * Double(planted), "\(right) of \(planted)")
    }
}
