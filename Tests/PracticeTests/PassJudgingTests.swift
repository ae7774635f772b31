import Foundation
import Judge
import Lesson
import MIDIFile
import Testing
import TestSupport
@testable import Practice

@Suite("Pass judging shared by play mode and etude judge")
struct PassJudgingTests {
    static func ode() throws -> Lesson {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Repo.lesson("level4/ode-to-joy.mid"))))
        return Lesson(file: try MIDIReader.read(bytes).file, fileName: "ode-to-joy.mid")
    }

    @Test func wLoopsTheSectionThatFailsMostAcrossPasses() throws {
        let lesson = try Self.ode()
        #expect(lesson.sections.count == 4)
        // Bar 10 fails 3 of 4 notes, bar 2 one of 4: the middle phrase (bars 9–12) is looped.
        let picture: [Int: (notes: Int, faults: Int)] = [2: (4, 1), 10: (4, 3), 11: (4, 0)]
        let index = try #require(PassJudging.weakestSection(picture: picture, lesson: lesson))
        #expect(lesson.sections[index].firstBar == 9 && lesson.sections[index].lastBar == 12)
        #expect(PassJudging.weakestSection(picture: [3: (4, 0)], lesson: lesson) == nil, "no faults, no section")
    }

    @Test func notesArePlacedInTheirBarsAndBeatsAndCountedPerBar() throws {
        let lesson = try Self.ode()
        // Bar 4 is E3/2 D/2 D2: the D eighth on beat 2.5.
        let d = try #require(lesson.notes.indices.first { lesson.notes[$0].pitch == 62 && lesson.notes[$0].startTick == 3 * 1920 + 720 })
        var notes = [NoteVerdict(id: d, pitch: 62, hand: "right", onset: .late),
                     NoteVerdict(id: 0, pitch: 64, hand: "right", onset: .hit, release: .ok)]
        PassJudging.place(&notes, lesson: lesson)
        #expect(notes[0].bar == "4" && notes[0].barNumber == 4 && notes[0].beat == 2.5)
        #expect(notes[1].bar == "1" && notes[1].beat == 1)
        let bars = PassJudging.bars(of: notes)
        #expect(bars.map(\.bar) == [1, 4] && bars.map(\.faults) == [0, 1] && bars.map(\.notes) == [1, 1])
        // Ode to Joy carries the dynamics its editions print (issue 39: the curriculum's loudness is learnt).
        #expect(PassJudging.hasDynamics(lesson), "Ode to Joy's p and f are read")
    }
}
