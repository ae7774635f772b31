import Foundation
import Testing
import TestSupport
import MIDIFile
@testable import Lesson

@Suite struct ExportTests {
    /// Twelve bars with a program, a tempo change and a marker inside bars 5–8.
    static func source() throws -> Lesson {
        Build.lesson(try Build.twelveBars(
            extraConductor: [Build.tempo(bpm: 80, at: 6 * Build.bar), Build.marker("Bridge", at: 6 * Build.bar)],
            extraRight: [MIDIEvent(tick: 0, .programChange(channel: 0, program: 1)),
                         MIDIEvent(tick: Build.bar, .controlChange(channel: 0, controller: 7, value: 90))]))
    }

    static func reimport(_ file: MIDIFile) throws -> Lesson {
        Lesson(file: try MIDIReader.read(MIDIWriter.write(file)).file, fileName: "export.mid")
    }

    struct Plain: Equatable { var pitch: UInt8, velocity: UInt8, channel: UInt8, start: Int, end: Int, part: Part }

    static func plain(_ notes: [LessonNote], shift: Int = 0, clip: Int = .max) -> [Plain] {
        notes.map { Plain(pitch: $0.pitch, velocity: $0.velocity, channel: $0.channel, start: $0.startTick - shift, end: min($0.endTick, clip) - shift, part: $0.part) }
            .sorted { ($0.start, $0.pitch, $0.end) < ($1.start, $1.pitch, $1.end) }
    }

    @Test func barsCutAtReducedTempoReimportAsTheSameNotesAndSeconds() throws {
        let lesson = try Self.source()
        let s = 4 * Build.bar, e = 8 * Build.bar
        let exported = try LessonExport.midiFile(lesson: lesson, plan: PracticePlan(tempo: .percent(75), bars: 5...8))
        #expect(exported.format == 1)
        #expect(exported.tracks.map(\.name) == ["Twelve Bars", "Right Hand", "Left Hand"])
        let back = try Self.reimport(exported)
        #expect(back.title == lesson.title)
        #expect(back.bars.count == 4)
        #expect(back.handAssignment.method == .trackNames)
        let expected = Self.plain(lesson.notes.filter { $0.startTick >= s && $0.startTick < e }, shift: s, clip: e)
        #expect(Self.plain(back.notes) == expected)
        // The held note crossing the bar-9 line ends at it; the one held into bar 5 is absent.
        #expect(back.notes.first { $0.pitch == 91 }?.endTick == e - s)
        #expect(!back.notes.contains { $0.pitch == 90 })
        // Same seconds once the 75 % is undone, across the tempo change at bar 7.
        for n in back.notes {
            let original = lesson.tempoMap.seconds(atTick: n.startTick + s) - lesson.tempoMap.seconds(atTick: s)
            #expect(abs(back.tempoMap.seconds(atTick: n.startTick) * 0.75 - original) < 1e-5)
        }
        #expect(close(back.tempoMap.bpm(atTick: 0), 90, 0.01))
        #expect(close(back.tempoMap.bpm(atTick: 3 * Build.bar), 60, 0.01))
        // What was in force at bar 5 is carried to the cut: time and key signature, program, volume.
        #expect(back.timeSignatures.first?.tick == 0 && back.timeSignatures.first?.value.description == "4/4")
        #expect(back.keySignature(atTick: 0) == KeySignature(sharps: 1, minor: false))
        #expect(back.channelEvents.contains { $0.tick == 0 && $0.kind == .programChange(channel: 0, program: 1) })
        #expect(back.channelEvents.contains { $0.tick == 0 && $0.kind == .controlChange(channel: 0, controller: 7, value: 90) })
        #expect(back.markers == [TimedValue(tick: 2 * Build.bar, value: "Bridge")])
    }

    @Test func wholeLessonRoundTripsAsTheSameLesson() throws {
        let lesson = try Self.source()
        let back = try Self.reimport(try LessonExport.midiFile(lesson: lesson, plan: PracticePlan()))
        #expect(back.title == lesson.title)
        #expect(back.composer == lesson.composer)
        #expect(Self.plain(back.notes) == Self.plain(lesson.notes))
        #expect(back.bars == lesson.bars)
        #expect(back.keySignatures == lesson.keySignatures)
        #expect(back.markers == lesson.markers)
        #expect(back.sections == lesson.sections)
        #expect(close(back.durationSeconds, lesson.durationSeconds))
        #expect(back.tempoMap.changes.map(\.microsecondsPerQuarter) == lesson.tempoMap.changes.map(\.microsecondsPerQuarter))
    }

    /// Four printed bars on two staves, with what a score's import annotates.
    static func annotated() throws -> Lesson {
        let bar = Build.bar
        var conductor: [MIDIEvent] = [Build.timeSignature(4, 4)]
        for b in 0..<4 { conductor.append(Annotation.bar(b + 1).event(tick: b * bar)) }
        var right: [MIDIEvent] = [Annotation.hand(.right).event(tick: 0), Annotation.clef(.treble).event(tick: 0), Annotation.dynamic("p").event(tick: 0),
                                  Annotation.ottava(1).event(tick: bar), Annotation.dynamic("f").event(tick: 2 * bar), Annotation.ottava(0).event(tick: 3 * bar)]
        var left: [MIDIEvent] = [Annotation.hand(.left).event(tick: 0), Annotation.clef(.bass).event(tick: 0), Annotation.clef(.treble).event(tick: 2 * bar)]
        for b in 0..<4 {
            let p = 72 + b
            if b == 1 { right.append(Annotation.spelling(pitch: p, SpelledPitch(letter: 0, alter: 1)).event(tick: b * bar)) }  // C#5
            right += [Annotation.finger(pitch: p, finger: b + 1).event(tick: b * bar),
                      Annotation.value(pitch: p, WrittenValue(value: 1, ticks: bar / 2)).event(tick: b * bar),
                      Annotation.value(pitch: p, WrittenValue(value: 1, ticks: bar / 2)).event(tick: b * bar + bar / 2),
                      Annotation.marks(pitch: p, [.staccato]).event(tick: b * bar)]
            right += Build.note(p, at: b * bar, length: bar)
            left += Build.note(48, at: b * bar, length: bar)
        }
        return Lesson(file: try Build.file([conductor, right, left]), fileName: "annotated.mid")
    }

    @Test func aScoresAnnotationsGoWithTheExportedNotes() throws {
        let lesson = try Self.annotated()
        #expect(lesson.handAssignment.method == .staves)
        let back = try Self.reimport(try LessonExport.midiFile(lesson: lesson, plan: PracticePlan(bars: 2...3, repeatMode: .times(2))))
        let a = back.annotations, bar = Build.bar
        // The staves' hands, the printed bars (twice through), the fingering and spelling of each note.
        #expect(back.handAssignment.method == .staves)
        #expect(a.bars.map(\.printed) == [2, 3, 2, 3])
        let right = try #require(back.notes.first { $0.pitch == 73 }?.track)
        let left = try #require(back.notes.first { $0.pitch == 48 }?.track)
        #expect(a.fingers.filter { $0.key.track == right }.map { "\($0.key.tick):\($0.key.pitch):\($0.value)" }.sorted()
                == ["0:73:2", "\(bar):74:3", "\(2 * bar):73:2", "\(3 * bar):74:3"])
        #expect(a.spellings[Annotations.Key(track: right, tick: 0, pitch: 73)] == SpelledPitch(letter: 0, alter: 1))
        // Both written heads of each note, and its marks.
        #expect(a.values.filter { $0.key.track == right }.count == 8)
        #expect(a.values[Annotations.Key(track: right, tick: bar / 2, pitch: 73)]?.ticks == bar / 2)
        #expect(a.articulations.filter { $0.key.track == right }.count == 4)
        // What is in force at the cut: the right hand's ottava line, the left hand's bass clef.
        #expect(a.ottavas[right]?.first.map { [$0.tick, $0.octaves] } == [0, 1])
        #expect(a.clefs[left]?.map { "\($0.tick):\($0.clef.rawValue)" } == ["0:bass", "\(bar):treble", "\(2 * bar):bass", "\(3 * bar):treble"])
        #expect(a.dynamics[right]?.map { "\($0.tick):\($0.mark)" } == ["\(bar):f", "\(3 * bar):f"])
        #expect(a.dynamics[left] == nil)
    }

    @Test func singleTrackPieceExportsAsNamedHandTracks() throws {
        let (lesson, _, _) = try HandAssignmentTests.singleTrackPiece()
        let back = try Self.reimport(try LessonExport.midiFile(lesson: lesson, plan: PracticePlan()))
        #expect(back.handAssignment.method == .trackNames)
        #expect(Self.plain(back.notes) == Self.plain(lesson.notes))
    }

    @Test func pickupSurvivesTheRoundTrip() throws {
        let conductor = [Build.timeSignature(3, 4), Build.timeSignature(3, 4, at: 480)]
        let notes = Build.note(67, at: 0, length: 480) + Build.note(72, at: 480, length: 1440) + Build.note(74, at: 1920, length: 1440)
        let lesson = Build.lesson(try Build.file([conductor, [Build.name("RH")] + notes]))
        #expect(lesson.bars.hasPickup)
        let back = try Self.reimport(try LessonExport.midiFile(lesson: lesson, plan: PracticePlan()))
        #expect(back.bars == lesson.bars)
        let cut = try Self.reimport(try LessonExport.midiFile(lesson: lesson, plan: PracticePlan(bars: 0...1)))
        #expect(cut.bars.bars.map(\.number) == [0, 1])
        #expect(cut.notes.map(\.pitch) == [67, 72])
    }

    @Test func repeatsHandsMetronomeAndSpeedTrainer() throws {
        let lesson = try Self.source()
        let s = 4 * Build.bar, cut = 2 * Build.bar
        let plan = PracticePlan(hands: .left, otherHand: .mute, bars: 5...6, repeatMode: .times(3),
                                speedTrainer: .init(start: 50, target: 100, step: 25), metronome: .init(enabled: true, volume: 1))
        let exported = try LessonExport.midiFile(lesson: lesson, plan: plan)
        #expect(exported.tracks.map(\.name) == ["Twelve Bars", "Left Hand", "Metronome"])
        let back = try Self.reimport(exported)
        #expect(back.hands == [.left])
        #expect(back.bars.count == 6)
        #expect(back.markers.map(\.value) == ["Repeat 1/3", "Repeat 2/3", "Repeat 3/3"])
        #expect(back.markers.map(\.tick) == [0, cut, 2 * cut])
        let left = lesson.notes.filter { $0.part == .hand(.left) && $0.startTick >= s && $0.startTick < s + cut }
        for r in 0..<3 {
            let got = back.notes.filter { $0.part == .hand(.left) && $0.startTick >= r * cut && $0.startTick < (r + 1) * cut }
            #expect(Self.plain(got, shift: r * cut) == Self.plain(left, shift: s))
        }
        let clicks = back.notes.filter { $0.channel == 9 }
        #expect(clicks.count == 3 * 8)
        #expect(clicks.allSatisfy { $0.part == .accompaniment })
        #expect(clicks.filter { $0.pitch == Metronome.accentKey }.count == 3 * 2)
        // Tempo per pass: 50 %, 75 %, 100 % of 120 BPM.
        #expect(back.tempoMap.changes.map { (60_000_000 / Double($0.microsecondsPerQuarter)).rounded() } == [60, 90, 120])
    }

    @Test func exportRefusesEndlessRepeatsAndBadBars() throws {
        let lesson = try Self.source()
        #expect(throws: PlanError(.repeat, "forever", "an export needs a number of passes", suggestion: "4", style: .example)) {
            try LessonExport.midiFile(lesson: lesson, plan: PracticePlan(repeatMode: .forever))
        }
        #expect(throws: PlanError(.bars, "40-44", "the lesson has 12 bars")) {
            try LessonExport.midiFile(lesson: lesson, plan: PracticePlan(bars: 40...44))
        }
    }

    @Test(.enabled(if: Tools.peerPython.available, Tools.peerPython.reason))
    func symusicReadsTheSameNotes() throws {
        let python = try #require(Tools.peerPython.path)
        let lesson = try Self.source()
        let exported = try LessonExport.midiFile(lesson: lesson, plan: PracticePlan(hands: .right, otherHand: .quiet(0.5), bars: 2...7, repeatMode: .times(2)))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("etude-symusic-\(UInt32.random(in: 0...UInt32.max)).mid")
        try Data(MIDIWriter.write(exported)).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let script = """
        import sys, symusic
        s = symusic.Score(sys.argv[1])
        notes = sorted((n.time, n.pitch, n.duration, n.velocity) for t in s.tracks for n in t.notes)
        print(";".join("%d,%d,%d,%d" % n for n in notes))
        """
        let peer = try ProcessRunner.run(python, ["-c", script, path.path])
        let (status, output) = (peer.status, peer.stdout)
        #expect(status == 0, "\(peer.output)")
        let back = try Self.reimport(exported)
        let ours = back.notes.map { "\($0.startTick),\($0.pitch),\($0.endTick - $0.startTick),\($0.velocity)" }
        let theirs = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ";").map(String.init)
        #expect(theirs.sorted() == ours.sorted())
        #expect(ours.count == 2 * lesson.notes.filter { $0.startTick >= Build.bar && $0.startTick < 7 * Build.bar }.count)
    }

    @Test(.enabled(if: Tools.peerPython.available, Tools.peerPython.reason))
    func midoReadsTheExport() throws {
        let python = try #require(Tools.peerPython.path)
        let lesson = try Self.source()
        let plan = PracticePlan(tempo: .percent(60), bars: 3...9, repeatMode: .times(2), metronome: .init(enabled: true))
        let exported = try LessonExport.midiFile(lesson: lesson, plan: plan)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("etude-export-\(UInt32.random(in: 0...UInt32.max)).mid")
        try Data(MIDIWriter.write(exported)).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let script = """
        import sys, mido
        m = mido.MidiFile(sys.argv[1])
        ons = sum(1 for t in m.tracks for x in t if x.type == 'note_on' and x.velocity > 0)
        print(m.type, len(m.tracks), ons, round(m.length, 3))
        """
        let peer = try ProcessRunner.run(python, ["-c", script, path.path])
        let (status, output) = (peer.status, peer.stdout)
        #expect(status == 0, "\(peer.output)")
        let back = try Self.reimport(exported)
        let expectedLength = back.durationSeconds
        let fields = output.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        #expect(fields.count == 4)
        #expect(fields.first == "1")
        #expect(fields.dropFirst().first == String(exported.tracks.count))
        #expect(fields.dropFirst(2).first == String(back.notes.count))
        #expect(abs((Double(fields.last ?? "") ?? 0) - expectedLength) < 0.01)
    }
}

@Suite struct RestBarTests {
    @Test func barsEndingInRestsSurviveTheRoundTrip() throws {
        // Bars 3–4 of a piece whose bar 4 is a whole rest.
        let rh = [Build.name("RH")] + (0..<3).flatMap { Build.note(60 + $0, at: $0 * Build.bar, length: Build.bar) } + Build.note(70, at: 4 * Build.bar, length: 480)
        let lesson = Build.lesson(try Build.file([[Build.timeSignature(4, 4)], rh]))
        #expect(lesson.bars.count == 5)
        let back = Build.lesson(try MIDIReader.read(MIDIWriter.write(try LessonExport.midiFile(lesson: lesson, plan: PracticePlan(bars: 3...4)))).file)
        #expect(back.bars.count == 2)
        #expect(back.endTick == 2 * Build.bar)
        // A track end that is not on a bar line adds nothing.
        let ragged = Build.lesson(try Build.file([[Build.timeSignature(4, 4), MIDIEvent(tick: Build.bar + 100, .meta(type: MetaType.text, data: Array("x".utf8)))],
                                                  [Build.name("RH")] + Build.note(60, at: 0, length: 480)]))
        #expect(ragged.bars.count == 1)
    }
}
