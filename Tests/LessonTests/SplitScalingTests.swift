import Foundation
import Testing
import TestSupport
import MIDIFile
@testable import Lesson

/// The hand model on files no music looks like: it must finish, in work that grows with the
/// notes times the beam, not with their square. Work is counted, never timed.
@Suite struct SplitScalingTests {
    static let n = 20_000

    /// Everything the search counted as work, in one figure.
    static func total(_ w: HandModel.Work) -> Int {
        w.cuts + w.sums + w.heldUpdates
    }

    /// Work allowed per note: every kept history prices the cuts of a note's chord, sums its
    /// distances for both hands, and takes it on and lets it go (about six steps a history).
    static var perNote: Int { 8 * HandModel.Options().beam }

    /// Pseudo-random pitches (the same on every run).
    static func pitches(_ count: Int, in range: ClosedRange<Int> = 21...108) -> [Int] {
        var seed: UInt64 = 0x2545F4914F6CDD1D
        return (0..<count).map { _ in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return range.lowerBound + Int((seed >> 33) % UInt64(range.count))
        }
    }

    @Test func twentyThousandNotesStruckAtOnceAndReleasedOneByOne() throws {
        // The audit's stack file: note-ons of C4 at tick 0, then the note-offs a tick apart.
        var events: [MIDIEvent] = [Build.name("Piano")]
        for _ in 0..<Self.n { events.append(MIDIEvent(tick: 0, .noteOn(channel: 0, key: 60, velocity: 64))) }
        for i in 0..<Self.n { events.append(MIDIEvent(tick: i + 1, .noteOff(channel: 0, key: 60, velocity: 0))) }
        let lesson = Build.lesson(try Build.file([[], events]))
        #expect(lesson.notes.count == Self.n)
        #expect(lesson.handAssignment.method == .handModel)
        #expect(lesson.notes.allSatisfy { $0.part.hand != nil })

        let line = lesson.notes.map { HandModel.Note(start: $0.startTick, end: $0.endTick, pitch: Int($0.pitch)) }
        var work = HandModel.Work()
        let hands = HandModel.split(line, ticksPerQuarter: lesson.ticksPerQuarter, work: &work).hands
        #expect(hands.count == Self.n)
        #expect(work.chords == 1)
        #expect(work.largestChord == Self.n)
        // One chord: a history prices n + 1 cuts from running sums. Weighing each cut note by
        // note would be n² / 2 = 200,000,000 terms.
        #expect(Self.total(work) <= 5 * Self.n, "\(work)")
    }

    @Test func twentyThousandNotesNeverReleased() throws {
        // The audit's unreleased file: note-ons at tick 0 on random keys, no note-off at all.
        var events: [MIDIEvent] = [Build.name("Piano")]
        for p in Self.pitches(Self.n) { events.append(MIDIEvent(tick: 0, .noteOn(channel: 0, key: UInt8(p), velocity: 64))) }
        let lesson = Build.lesson(try Build.file([[], events]))
        #expect(lesson.notes.count == Self.n)
        #expect(lesson.notes.allSatisfy { $0.part.hand != nil })
        #expect(lesson.bars.count >= 1)
    }

    @Test func heldNotesPilingUpOverTimeStayCheap() throws {
        // One new note a beat, none ever released: a hand remembers a few held notes, not all.
        let tpq = 480
        let line = Self.pitches(Self.n).enumerated().map { HandModel.Note(start: $0.offset * tpq, end: Self.n * tpq, pitch: $0.element) }
        var work = HandModel.Work()
        let hands = HandModel.split(line, ticksPerQuarter: tpq, work: &work).hands
        #expect(hands.count == Self.n)
        #expect(Set(hands.compactMap { $0 }) == [.left, .right])
        #expect(work.chords == Self.n)
        #expect(Self.total(work) <= Self.perNote * Self.n, "\(work)")

        // Also through a whole lesson: the file's notes run to the track's end.
        var events: [MIDIEvent] = [Build.name("Piano")]
        for n in line { events.append(MIDIEvent(tick: n.start, .noteOn(channel: 0, key: UInt8(n.pitch), velocity: 64))) }
        let lesson = Build.lesson(try Build.file([[], events]))
        #expect(lesson.notes.count == Self.n)
        #expect(lesson.handAssignment.method == .handModel)
    }

    @Test func bigChordsAmongSmallOnesStayLinear() {
        // Chords of 20 to 60 notes over moving hands: work in proportion to the notes.
        let tpq = 480
        let pitches = Self.pitches(4_000, in: 36...96)
        var line: [HandModel.Note] = []
        var k = 0, t = 0, size = 20
        while k + size <= pitches.count {
            for p in pitches[k..<(k + size)] { line.append(HandModel.Note(start: t, end: t + (p % 3 + 1) * tpq, pitch: p)) }
            k += size
            t += tpq
            size = 20 + (size * 7) % 41
        }
        line.sort { $0.start != $1.start ? $0.start < $1.start : $0.pitch < $1.pitch }
        var work = HandModel.Work()
        let hands = HandModel.split(line, ticksPerQuarter: tpq, work: &work).hands
        #expect(Set(hands.compactMap { $0 }) == [.left, .right])
        #expect(Self.total(work) <= Self.perNote * line.count, "\(work)")
    }

    @Test func thousandsOfPianoTracksAreSharedOutByVoiceLeading() throws {
        // Every part's program and label used to be found by a pass over the whole file.
        var tracks: [[MIDIEvent]] = [[]]
        for i in 0..<3_000 {
            tracks.append([MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))] + Build.note(40 + i % 40, at: i, length: 10))
        }
        let lesson = Build.lesson(try Build.file(tracks))
        #expect(lesson.handAssignment.method == .voiceLeading)
        #expect(lesson.notes.count == 3_000)
        #expect(lesson.hands == [.left, .right])
        VoiceTests.expectPlayable(lesson)
    }

    @Test func theProgramInForceAtAPartsFirstNoteDecidesPiano() throws {
        // Channel 2 gets violin at tick 0 from another track: the part on it is not piano,
        // though its own track later picks a piano. Channel 3 has no change before its first
        // note: its own track's first program (organ, 19) decides, and it is not piano either.
        let conductor = [MIDIEvent(tick: 0, .programChange(channel: 1, program: 40))]
        let piano = [Build.name("Piano")] + Build.note(60, at: 0, length: 480) + Build.note(64, at: 480, length: 480)
        let onTwo = [MIDIEvent(tick: 960, .programChange(channel: 1, program: 0))] + Build.note(72, at: 0, length: 480, channel: 1)
        let onThree = Build.note(48, at: 0, length: 480, channel: 2) + [MIDIEvent(tick: 960, .programChange(channel: 2, program: 19))]
        let lesson = Build.lesson(try Build.file([conductor, piano, onTwo, onThree]))
        #expect(lesson.handAssignment.method == .singleHand)
        #expect(lesson.notes.filter { $0.part == .accompaniment }.map(\.pitch).sorted() == [48, 72])
    }
}
