import Clocks
import Foundation
import Testing
import TestSupport
import MIDIFile
@testable import Lesson

/// Every file of the shared edge-case corpus becomes a lesson that plays, loops and exports.
@Suite struct CorpusTests {
    static var corpus: URL { Repo.jazzSoft }

    @Test(.enabled(if: Tools.corpus.available, Tools.corpus.reason))
    func everyCorpusFilePlaysLoopsAndExports() throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Self.corpus.path))?.filter { $0.hasSuffix(".mid") }.sorted() ?? []
        try #require(!names.isEmpty, "no .mid files in \(Self.corpus.path)")
        var lessons = 0
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent(name)))
            guard let lesson = try? Lesson(bytes: bytes, fileName: name) else { continue }
            lessons += 1
            #expect(lesson.bars.count >= 1, "\(name)")
            // The whole lesson on a virtual clock: every note-on released, ends on time.
            let clock = VirtualClock()
            var t = try Transport(lesson: lesson, plan: PracticePlan(metronome: .init(enabled: true)), clock: clock)
            let events = runToEnd(&t, clock: clock)
            #expect(t.state == .finished, "\(name)")
            var sounding: [Int: Int] = [:]
            for e in events {
                switch e.event {
                case .synth(.noteOn(let c, let k, let v)) where v > 0: sounding[Int(c) << 8 | Int(k), default: 0] += 1
                case .synth(.noteOff(let c, let k, _)), .synth(.noteOn(let c, let k, _)): sounding[Int(c) << 8 | Int(k), default: 0] -= 1
                default: break
                }
            }
            #expect(sounding.values.allSatisfy { $0 == 0 }, "\(name): hanging notes")
            let end = lesson.tempoMap.seconds(atTick: lesson.bars.bars.last?.endTick ?? 0)
            #expect(abs((events.last?.time ?? 0) - end) < 1e-6, "\(name)")
            // A loop of the last bar twice at 70 %.
            let last = lesson.bars.lastNumber
            var loop = try Transport(lesson: lesson, plan: PracticePlan(tempo: .percent(70), bars: last...last, repeatMode: .times(2)), clock: clock)
            #expect(runToEnd(&loop, clock: clock).passes.count == 2, "\(name)")
            // Export and re-import: the same notes.
            let exported = try LessonExport.midiFile(lesson: lesson, plan: PracticePlan())
            let back = try Lesson(bytes: MIDIWriter.write(exported), fileName: name)
            #expect(back.notes.count == lesson.notes.count, "\(name)")
            #expect(back.notes.map(\.pitch) == lesson.notes.map(\.pitch), "\(name)")
            #expect(back.notes.map(\.part) == lesson.notes.map(\.part), "\(name)")
        }
        #expect(lessons >= 60)
    }
}
