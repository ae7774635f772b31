import Clocks
import Testing
import TestSupport
import MIDIFile
@testable import Lesson

@Suite struct BarMapTests {
    @Test func noTimeSignatureMeansFourFour() throws {
        let lesson = Build.lesson(try Build.file([[Build.name("RH")] + Build.note(60, at: 0, length: 3 * Build.bar)]))
        #expect(lesson.bars.count == 3)
        #expect(lesson.bars.bar(number: 1)?.signature.description == "4/4")
        #expect(lesson.bars.bar(number: 3)?.startTick == 2 * Build.bar)
        #expect(lesson.bars.position(atTick: Build.bar + 3 * 480) == Position(bar: 2, beat: 4))
        #expect(lesson.bars.tick(at: Position(bar: 3, beat: 2)) == 2 * Build.bar + 480)
        #expect(lesson.bars.tick(at: Position(bar: 3, beat: 5)) == nil)
        #expect(lesson.bars.tick(at: Position(bar: 4)) == nil)
    }

    @Test func barsFollowTimeSignatureChanges() throws {
        // Two bars of 4/4, two of 3/4, one of 6/8.
        let conductor = [Build.timeSignature(4, 4), Build.timeSignature(3, 4, at: 3840), Build.timeSignature(6, 8, at: 3840 + 2880)]
        let lesson = Build.lesson(try Build.file([conductor, Build.note(60, at: 0, length: 3840 + 2880 + 1440)]))
        let bars = lesson.bars.bars
        #expect(bars.map(\.number) == [1, 2, 3, 4, 5])
        #expect(bars.map(\.startTick) == [0, 1920, 3840, 5280, 6720])
        #expect(bars.map(\.signature.description) == ["4/4", "4/4", "3/4", "3/4", "6/8"])
        #expect(bars[4].beats.map(\.tick) == [6720, 7440])  // dotted quarters
        #expect(lesson.bars.position(atTick: 7440) == Position(bar: 5, beat: 2))
        #expect(lesson.bars.position(atTick: 5280 + 960) == Position(bar: 4, beat: 3))
    }

    @Test func aSignatureChangeInsideABarEndsItEarly() throws {
        let conductor = [Build.timeSignature(4, 4), Build.timeSignature(3, 4, at: 1920 + 960)]
        let lesson = Build.lesson(try Build.file([conductor, Build.note(60, at: 0, length: 1920 + 960 + 1440)]))
        #expect(lesson.bars.bars.map(\.startTick) == [0, 1920, 2880])
        #expect(lesson.bars.bars.map(\.number) == [1, 2, 3])
    }

    @Test func aShortFirstBarIsAPickupNumberedZero() throws {
        // One-beat pickup written as 4/4 cut short by a second 4/4 at beat 2.
        let conductor = [Build.timeSignature(4, 4), Build.timeSignature(4, 4, at: 480)]
        let notes = Build.note(67, at: 0, length: 480) + Build.note(72, at: 480, length: 1920) + Build.note(74, at: 2400, length: 1920)
        let lesson = Build.lesson(try Build.file([conductor, [Build.name("RH")] + notes]))
        #expect(lesson.bars.hasPickup)
        #expect(lesson.bars.count == 2)
        #expect(lesson.bars.bars.map(\.number) == [0, 1, 2])
        #expect(lesson.bars.position(atTick: 0) == Position(bar: 0, beat: 4))
        #expect(lesson.bars.position(atTick: 480) == Position(bar: 1, beat: 1))
        #expect(lesson.bars.bar(number: 2)?.startTick == 2400)
        #expect(lesson.bars.beats(from: 0, to: 2400).map(\.beat) == [4, 1, 2, 3, 4])

        // The same written as 1/4 then 4/4, as notation programs export it.
        let other = Build.lesson(try Build.file([[Build.timeSignature(1, 4), Build.timeSignature(4, 4, at: 480)], [Build.name("RH")] + notes]))
        #expect(other.bars.bars.map(\.number) == [0, 1, 2])
        #expect(other.bars.bar(number: 0)?.signature.description == "4/4")

        // A pickup loop and validation count the bars as the score does.
        #expect(throws: PlanError(.bars, "1-3", "the lesson has 2 bars (0–2 counting the pickup bar 0)")) {
            try PracticePlan(bars: 1...3).validate(for: lesson)
        }
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 0...1), clock: clock)
        let events = runToEnd(&t, clock: clock)
        #expect(events.noteOns.map(\.pitch) == [67, 72])
        #expect(close(events.last?.time ?? 0, 2.5))
    }

    @Test func positionsParseBarAndBeat() {
        #expect(Position(parsing: "12") == Position(bar: 12, beat: 1))
        #expect(Position(parsing: "12.3") == Position(bar: 12, beat: 3))
        #expect(Position(parsing: "0.4") == Position(bar: 0, beat: 4))
        for bad in ["", "x", "12.", "12.0", "-1", "1.2.3", ".3"] { #expect(Position(parsing: bad) == nil, "\(bad)") }
        #expect(Position(bar: 7, beat: 2).description == "7.2")
    }

    @Test func sectionsFromMarkersElseEveryFourBars() throws {
        let plain = Build.lesson(try Build.twelveBars())
        #expect(plain.sections == [Section(name: "Bars 1–4", firstBar: 1, lastBar: 4),
                                   Section(name: "Bars 5–8", firstBar: 5, lastBar: 8),
                                   Section(name: "Bars 9–12", firstBar: 9, lastBar: 12)])
        let marked = Build.lesson(try Build.twelveBars(extraConductor: [Build.marker("A", at: 2 * Build.bar), Build.marker("B", at: 7 * Build.bar)]))
        #expect(marked.sections == [Section(name: "Start", firstBar: 1, lastBar: 2),
                                    Section(name: "A", firstBar: 3, lastBar: 7),
                                    Section(name: "B", firstBar: 8, lastBar: 12)])
    }

    @Test func smpteFilesGetBarsAtOneHundredTwentyBPM() throws {
        // 25 fps × 40 ticks per frame = 1000 ticks per second; a note of 4 s = two 4/4 bars.
        var f = MIDIFile(format: 0, division: .smpte(fps: 25, ticksPerFrame: 40), tracks: [Build.track(Build.note(60, at: 0, length: 4000))])
        f = try MIDIReader.read(MIDIWriter.write(f)).file
        let lesson = Build.lesson(f)
        #expect(lesson.bars.count == 2)
        #expect(close(lesson.durationSeconds, 4))
    }
}

@Suite struct UnmarkedPickupTests {
    /// A one-beat pickup written at its real length under a single 4/4: every bar's
    /// downbeat (bass note and melody) falls one beat after the file's own bar lines.
    static func piece(pickup: Int) throws -> Lesson {
        var rh = [Build.name("RH")] + Build.note(67, at: 0, length: pickup)
        var lh = [Build.name("LH")]
        for b in 0..<6 {
            let start = pickup + b * Build.bar
            rh += Build.note(72, at: start, length: 720) + Build.note(74, at: start + 720, length: 240) + Build.note(76, at: start + 960, length: 960)
            lh += Build.note(48, at: start, length: Build.bar)
        }
        return Build.lesson(try Build.file([[Build.timeSignature(4, 4)], rh, lh]))
    }

    @Test(arguments: [480, 960, 240])
    func downbeatsShowAPickupNoSignatureMarks(pickup: Int) throws {
        let lesson = try Self.piece(pickup: pickup)
        #expect(lesson.bars.hasPickup)
        #expect(lesson.bars.count == 6)
        #expect(lesson.bars.bar(number: 1)?.startTick == pickup)
        #expect(lesson.bars.position(atTick: pickup + Build.bar) == Position(bar: 2, beat: 1))
        // Loops and exports use the real bar lines.
        let clock = VirtualClock()
        var t = try Transport(lesson: lesson, plan: PracticePlan(bars: 2...2), clock: clock)
        #expect(runToEnd(&t, clock: clock).noteOns.map(\.pitch) == [48, 72, 74, 76])
        let back = Build.lesson(try MIDIReader.read(MIDIWriter.write(try LessonExport.midiFile(lesson: lesson, plan: PracticePlan()))).file)
        #expect(back.bars == lesson.bars)
    }

    @Test func musicOnTheBarLinesHasNoPickup() throws {
        #expect(!Build.lesson(try Build.twelveBars()).bars.hasPickup)
        // Syncopation alone (off-beat notes as many as downbeat notes) is not enough.
        var rh = [Build.name("RH")]
        for b in 0..<8 { rh += Build.note(72, at: b * Build.bar, length: 240) + Build.note(74, at: b * Build.bar + 720, length: 240) }
        #expect(!Build.lesson(try Build.file([[Build.timeSignature(4, 4)], rh])).bars.hasPickup)
    }
}

@Suite struct SectionIndexTests {
    @Test func sectionIndexFollowsMarkers() throws {
        let lesson = Build.lesson(try Build.twelveBars(extraConductor: [Build.marker("A", at: 2 * Build.bar), Build.marker("B", at: 7 * Build.bar)]))
        #expect(lesson.sectionIndex(atTick: 0) == 0)
        #expect(lesson.sectionIndex(atTick: 2 * Build.bar) == 1)
        #expect(lesson.sectionIndex(atTick: 7 * Build.bar - 1) == 1)
        #expect(lesson.sectionIndex(atTick: 11 * Build.bar) == 2)
        #expect(Part.hand(.left).key == "left" && Part.accompaniment.key == "accompaniment")
    }
}
