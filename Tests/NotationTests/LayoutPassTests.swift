import Foundation
import Lesson
import MIDIFile
import Testing
@testable import Notation

private typealias N = Music.N

/// A builder for a lesson and the draft the placing passes start from.
private func drafted(_ lesson: Lesson, width: Int = 200) -> (LayoutBuilder, LayoutDraft) {
    var builder = LayoutBuilder(lesson: lesson, options: NotationOptions(width: width))
    let draft = builder.startDraft()
    return (builder, draft)
}

/// Each placing pass of `LayoutBuilder.place`, run on its own over a draft the earlier passes made.
@Suite("Layout passes")
struct LayoutPassTests {
    @Test func groupChordsGathersHeadsOfOneTickWithTheirSteps() {
        // Right: C4+E4 together, then G4; left: C3.
        let lesson = Music.lesson(right: [N(pitch: 60, at: 0, length: 1), N(pitch: 64, at: 0, length: 1), N(pitch: 67, at: 1, length: 1)],
                                  left: [N(pitch: 48, at: 0, length: 2)])
        let (b, start) = drafted(lesson)
        var d = start
        b.groupChords(&d)
        let treble = d.chords[.treble] ?? [], bass = d.chords[.bass] ?? []
        #expect(treble.map(\.tick) == [0, Music.tpq])
        #expect(treble.map(\.steps) == [[-2, 0], [2]], "C4 below the staff, E4 on the bottom line, G4 on the second")
        #expect(bass.map(\.steps) == [[3]], "C3 in the bass clef's second space")
        #expect((treble + bass).allSatisfy { $0.ottava == 0 && $0.beamGroup == nil })
    }

    @Test func markOttavasMarksBeyondTheLedgerLimitAndHoldsTheRun() {
        // C7 A6 C7 E5: the Cs need 8va, A6 joins their run, E5 does not.
        let (b, start) = drafted(Music.lesson(right: Music.line([96, 93, 96, 76])))
        var d = start
        b.groupChords(&d)
        b.markOttavas(&d)
        let chords = d.chords[.treble] ?? []
        #expect(chords.map(\.ottava) == [1, 1, 1, 0])
        #expect(chords.map(\.steps) == [[19], [17], [19], [7]], "steps are not shifted yet")
    }

    @Test func settleChordsShiftsUnderTheMarkAndTurnsStems() {
        // E7 (8va, written E6: stem down), E4 (stem up); a chord of a half and a quarter is a quarter.
        let lesson = Music.lesson(right: [N(pitch: 100, at: 0, length: 1), N(pitch: 64, at: 1, length: 2), N(pitch: 67, at: 1, length: 1)])
        let (b, start) = drafted(lesson)
        var d = start
        b.groupChords(&d)
        b.markOttavas(&d)
        b.settleChords(&d)
        let chords = d.chords[.treble] ?? []
        #expect(chords.map(\.steps) == [[14], [0, 2]])
        #expect(chords.map(\.stemUp) == [false, true])
        #expect(chords.map(\.duration) == [NoteDuration(.quarter), NoteDuration(.quarter)])
    }

    @Test func beamJoinsFlaggedChordsOfOneBeat() {
        // Two eighths, a quarter, two eighths, an eighth and an eighth rest.
        let right = [N(pitch: 72, at: 0, length: 0.5), N(pitch: 74, at: 0.5, length: 0.5), N(pitch: 76, at: 1, length: 1),
                     N(pitch: 77, at: 2, length: 0.5), N(pitch: 79, at: 2.5, length: 0.5), N(pitch: 81, at: 3, length: 0.5)]
        let (b, start) = drafted(Music.lesson(right: right))
        var d = start
        b.groupChords(&d)
        b.markOttavas(&d)
        b.settleChords(&d)
        b.beam(&d)
        let groups = (d.chords[.treble] ?? []).map(\.beamGroup)
        #expect(groups == [0, 0, nil, 1, 1, nil])
    }

    @Test func findRestsFillsSilenceUpToTheBeatThenLongestFirst() {
        // 4/4: a quarter on beat 2 of bar 1, bar 2 empty.
        let right = [N(pitch: 72, at: 1, length: 1), N(pitch: 72, at: 8, length: 4)]
        let (b, start) = drafted(Music.lesson(right: right))
        var d = start
        b.findRests(&d)
        let q = Music.tpq
        #expect(d.rests[.treble] == [RestDraft(tick: 0, duration: NoteDuration(.quarter), wholeBar: false),
                                     RestDraft(tick: 2 * q, duration: NoteDuration(.half), wholeBar: false),
                                     RestDraft(tick: 4 * q, duration: NoteDuration(.whole), wholeBar: true)])
    }

    @Test func breakSystemsPutsWholeBarsInTheWidth() {
        let (b, start) = drafted(Music.lesson(right: Music.line(Array(repeating: 72, count: 32))), width: 60)
        var d = start
        b.breakSystems(&d)
        #expect(d.systems.count > 1)
        #expect(d.systems.flatMap(\.bars).map(\.number) == Array(1...8))
        for s in d.systems {
            #expect(s.width <= 60)
            #expect(s.bars[0].lineColumn == 1)
            for (a, c) in zip(s.bars, s.bars.dropFirst()) { #expect(a.endColumn == c.lineColumn) }
        }
    }

    @Test func placeChordsDrawsAnAccidentalOncePerBar() {
        // F#4 F#4 | F#4: the sharp in each bar's first.
        let (b, start) = drafted(Music.lesson(right: [N(pitch: 66, at: 0, length: 2), N(pitch: 66, at: 2, length: 2), N(pitch: 66, at: 4, length: 4)]))
        var d = start
        b.groupChords(&d)
        b.markOttavas(&d)
        b.settleChords(&d)
        b.breakSystems(&d)
        b.placeChords(&d)
        let heads = d.systems.flatMap(\.heads)
        #expect(heads.map(\.accidental) == [.sharp, nil, .sharp])
        #expect(d.systems.flatMap(\.chords).count == 3)
        #expect(d.extents[.treble] == 0...8, "F4 with stems up stays inside the staff's own extent")
    }

    @Test func placeRestsCentresAWholeBarRest() throws {
        let (b, start) = drafted(Music.lesson(right: [N(pitch: 72, at: 4, length: 4)]))
        var d = start
        b.findRests(&d)
        b.breakSystems(&d)
        b.placeRests(&d)
        let rest = try #require(d.systems[0].rests.first { $0.staff == .treble })
        let bar = d.systems[0].bars[0]
        #expect(rest.wholeBar && rest.column == (bar.contentColumn + bar.endColumn - 1) / 2)
    }

    @Test func placeClefChangesOnlyInsideABar() {
        // To bass at bar 2's start (drawn with the bar), back to treble mid-bar 3.
        let right = [N(pitch: 72, at: 0, length: 4), N(pitch: 55, at: 4, length: 4), N(pitch: 50, at: 8, length: 2), N(pitch: 76, at: 10, length: 2)]
        let lesson = Music.lesson(right: right, clefs: [("right", 0, .treble), ("right", 4, .bass), ("right", 10, .treble)])
        let (b, start) = drafted(lesson)
        var d = start
        b.breakSystems(&d)
        b.placeClefChanges(&d)
        #expect(d.systems[0].clefChanges.map(\.clef) == [.treble])
        #expect(d.systems[0].clefChanges.map(\.tick) == [10 * Music.tpq])
    }

    @Test func spanOttavasJoinsARunIntoOneLine() {
        let (b, start) = drafted(Music.lesson(right: Music.line([96, 93, 96, 76])))
        var d = start
        b.place(&d)
        let spans = d.systems[0].ottavas
        #expect(spans.count == 1)
        let chords = d.systems[0].chords
        #expect(spans.first?.fromColumn == chords[0].column && spans.first?.toColumn == chords[2].column + 1)
    }
}
