import Foundation
import Testing
import TestSupport
import MIDIFile
@testable import Lesson

/// The pitch-continuity split on files no music looks like: it must finish, in work that
/// grows with the notes, not with their square. Work is counted, never timed.
@Suite struct SplitScalingTests {
    static let n = 20_000

    /// Everything the split counted as work, in one figure.
    static func total(_ w: HandAssigner.SplitWork) -> Int {
        w.cuts + w.distanceTerms + w.phraseSteps + w.heldUpdates
    }

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
        #expect(lesson.handAssignment.method == .pitchContinuity)
        #expect(lesson.notes.allSatisfy { $0.part.hand != nil })
        // A close chord is not split to give notes to an idle hand: it stays whole, and with
        // the hands placed symmetrically around C4 the first cheapest cut gives it the right.
        #expect(lesson.noteCount(.hand(.right)) == Self.n)

        let line = lesson.notes.map { (start: $0.startTick, end: $0.endTick, pitch: Int($0.pitch)) }
        var work = HandAssigner.SplitWork()
        let hands = HandAssigner.continuitySplit(line, ticksPerQuarter: lesson.ticksPerQuarter, work: &work)
        #expect(hands.count == Self.n)
        #expect(work.bigChords == 1)
        // One chord: n + 1 cuts, two running sums, n notes taken on. The old split weighed
        // every cut note by note: n² / 2 = 200,000,000 distance terms.
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
        // One new note a beat, none ever released: every chord used to look at every held note.
        let tpq = 480
        let line = Self.pitches(Self.n).enumerated().map { (start: $0.offset * tpq, end: Self.n * tpq, pitch: $0.element) }
        var work = HandAssigner.SplitWork()
        let hands = HandAssigner.continuitySplit(line, ticksPerQuarter: tpq, work: &work)
        #expect(hands.count == Self.n)
        #expect(Set(hands) == [.left, .right])
        #expect(work.bigChords == 0)
        #expect(Self.total(work) <= 10 * Self.n, "\(work)")

        // Also through a whole lesson: the file's notes run to the track's end.
        var events: [MIDIEvent] = [Build.name("Piano")]
        for n in line { events.append(MIDIEvent(tick: n.start, .noteOn(channel: 0, key: UInt8(n.pitch), velocity: 64))) }
        let lesson = Build.lesson(try Build.file([[], events]))
        #expect(lesson.notes.count == Self.n)
        #expect(lesson.handAssignment.method == .pitchContinuity)
    }

    @Test func runningSumsWeighCutsAsTheNoteByNoteSumDoes() {
        // Chords of 20 to 60 notes over moving hands: the exact way (every chord within the
        // limit) and running sums (limit 0) give the same hands.
        let tpq = 480
        let pitches = Self.pitches(4_000, in: 36...96)
        var line: [(start: Int, end: Int, pitch: Int)] = []
        var k = 0, t = 0, size = 20
        while k + size <= pitches.count {
            for p in pitches[k..<(k + size)] { line.append((t, t + (p % 3 + 1) * tpq, p)) }
            k += size
            t += tpq
            size = 20 + (size * 7) % 41
        }
        line.sort { $0.start != $1.start ? $0.start < $1.start : $0.pitch < $1.pitch }
        var exactWork = HandAssigner.SplitWork(), sumsWork = HandAssigner.SplitWork()
        let exact = HandAssigner.continuitySplit(line, ticksPerQuarter: tpq, exactChordLimit: 64, work: &exactWork)
        let sums = HandAssigner.continuitySplit(line, ticksPerQuarter: tpq, exactChordLimit: 0, work: &sumsWork)
        #expect(exactWork.bigChords == 0)
        #expect(sumsWork.bigChords > 0)
        #expect(exact == sums)
        #expect(Set(exact) == [.left, .right])
    }

    @Test func thousandsOfPianoTracksAreSplitByMeanPitch() throws {
        // Every part's program and label used to be found by a pass over the whole file.
        var tracks: [[MIDIEvent]] = [[]]
        for i in 0..<3_000 {
            tracks.append([MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))] + Build.note(40 + i % 40, at: i, length: 10))
        }
        let lesson = Build.lesson(try Build.file(tracks))
        #expect(lesson.handAssignment.method == .partsByPitch)
        #expect(lesson.notes.count == 3_000)
        // More than two parts: at or above the mean of all (59.5) is right.
        #expect(lesson.notes.allSatisfy { $0.part == .hand(Int($0.pitch) >= 60 ? .right : .left) })
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
