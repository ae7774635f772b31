import Foundation
import Testing
import TestSupport
import MIDIFile
@testable import Lesson

/// Parts for voices and more parts than hands: a pianist plays soprano and alto with the right
/// hand, tenor and bass with the left, and shares out unnamed parts so each hand can reach its
/// notes. The fixtures are real four-part music (`Fixtures/voices`, see `Fixtures/README.md`).
@Suite struct VoiceTests {
    static func fixture(_ name: String) throws -> MIDIFile {
        let url = HandSetTests.fixtures.appendingPathComponent("voices").appendingPathComponent(name + ".mid")
        return try MIDIReader.read([UInt8](try Data(contentsOf: url))).file
    }

    /// Every hand, at every moment, holds notes within a tenth.
    static func expectPlayable(_ lesson: Lesson, sourceLocation: SourceLocation = #_sourceLocation) {
        for hand in Hand.allCases {
            let mine = lesson.notes.filter { $0.part == .hand(hand) }
            var worst = 0
            var worstAt = 0
            for n in mine {
                let sounding = mine.filter { $0.startTick <= n.startTick && $0.endTick > n.startTick }
                guard let lo = sounding.map(\.pitch).min(), let hi = sounding.map(\.pitch).max() else { continue }
                if Int(hi) - Int(lo) > worst { worst = Int(hi) - Int(lo); worstAt = n.startTick }
            }
            #expect(worst <= HandAssigner.playableSpan, "\(hand.name) spans \(worst) semitones at tick \(worstAt)", sourceLocation: sourceLocation)
        }
    }

    /// Tracks renamed (or unnamed with nil), programs kept.
    static func renamed(_ file: MIDIFile, _ names: [String?]) -> MIDIFile {
        var out = file
        for t in out.tracks.indices.dropFirst() {
            out.tracks[t].events.removeAll { if case .meta(MetaType.trackName, _) = $0.kind { return true }; return false }
            if t - 1 < names.count, let name = names[t - 1] {
                out.tracks[t].events.insert(MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(name.utf8))), at: 0)
            }
        }
        return out
    }

    @Test func aChoraleWithNamedVoicesIsPlayedSopranoAltoRightTenorBassLeft() throws {
        // Bach, BWV 269: four tracks "Soprano", "Alto", "Tenor", "Bass" on the choir program.
        let file = try Self.fixture("bach-chorale-bwv269-satb")
        let lesson = Lesson(file: file)
        #expect(lesson.handAssignment.method == .voiceNames)
        #expect(lesson.handAssignment.description == "voice names, soprano and alto right, tenor and bass left: \"Soprano\" → right, "
                + "\"Alto\" → right, \"Tenor\" → left, \"Bass\" → left (no piano program found; all non-drum parts used)")
        for n in lesson.notes {
            #expect(n.part == .hand(n.track <= 2 ? .right : .left), "\(n)")
        }
        #expect(lesson.noteCount(.accompaniment) == 0)
        #expect(lesson.noteCount(.hand(.right)) == lesson.tracks[1].noteCount + lesson.tracks[2].noteCount)
        // Practising one hand is no longer refused.
        try PracticePlan(hands: .right).validate(for: lesson)
        try PracticePlan(hands: .left).validate(for: lesson)
    }

    @Test func abbreviatedNamesOnPianoTracks() throws {
        // "Lift Every Voice and Sing": "Sop.", "Alt", "Ten.", "Bas" on program 0 (piano).
        let lesson = Lesson(file: try Self.fixture("johnson-lift-every-voice-satb"))
        #expect(lesson.handAssignment.method == .voiceNames)
        #expect(lesson.handAssignment.description.contains("\"Sop.\" (soprano) → right, \"Alt\" (alto) → right, \"Ten.\" (tenor) → left, \"Bas\" (bass) → left"))
        for n in lesson.notes { #expect(n.part == .hand(n.track <= 2 ? .right : .left)) }
    }

    @Test(arguments: [
        ("Soprano", Voice.soprano), ("Sopran", .soprano), ("Soprane", .soprano), ("Sop.", .soprano), ("S", .soprano),
        ("S1", .soprano), ("Soprano I", .soprano), ("Mezzo-soprano", .soprano), ("Canto", .soprano),
        ("Alto", .alto), ("Alt", .alto), ("Contralto", .alto), ("A.", .alto), ("Altus", .alto), ("Chor Alt", .alto),
        ("Tenor", .tenor), ("Tenore", .tenor), ("Ten.", .tenor), ("T", .tenor), ("Ténor", .tenor), ("Tenor II", .tenor),
        ("Bass", .bass), ("Basso", .bass), ("Bas", .bass), ("B", .bass), ("Baryton", .bass), ("Baritone", .bass), ("Basse", .bass),
    ])
    func voiceNames(name: String, voice: Voice) {
        #expect(Voice.from(name: name) == voice, "\(name)")
    }

    @Test func namesThatAreNotVoices() {
        for name in ["Piano", "Violin I", "Viola", "Bassoon", "Right Hand", "Track 1", "Organ", "Bright Piano", "Tuba", "Melody"] {
            #expect(Voice.from(name: name) == nil, "\(name)")
        }
    }

    @Test func trebleAndBassStayHandWords() throws {
        // "Bass" alone is a voice word and a hand word: with "Treble" it names the hands.
        let file = Self.renamed(try Self.fixture("bach-chorale-bwv269-satb"), ["Treble", nil, nil, "Bass"])
        let lesson = Lesson(file: file)
        #expect(lesson.handAssignment.method == .trackNames)
    }

    @Test func channelsNamedInOneTrack() throws {
        // Format 0: one track, each voice on its own channel named by a channel prefix and an
        // instrument name.
        let source = try Self.fixture("bach-chorale-bwv269-satb")
        var events: [MIDIEvent] = [Build.name("Chorale")]
        for (v, name) in ["Soprano", "Alto", "Tenor", "Bass"].enumerated() {
            events.append(MIDIEvent(tick: 0, .meta(type: MetaType.channelPrefix, data: [UInt8(v)])))
            events.append(MIDIEvent(tick: 0, .meta(type: MetaType.instrumentName, data: Array(name.utf8))))
        }
        for (t, track) in source.tracks.enumerated() where t > 0 {
            for e in track.events {
                switch e.kind {
                case .noteOn(_, let k, let vel): events.append(MIDIEvent(tick: e.tick, .noteOn(channel: UInt8(t - 1), key: k, velocity: vel)))
                case .noteOff(_, let k, let vel): events.append(MIDIEvent(tick: e.tick, .noteOff(channel: UInt8(t - 1), key: k, velocity: vel)))
                default: break
                }
            }
        }
        let lesson = Build.lesson(try Build.file([events], format: 0))
        #expect(lesson.handAssignment.method == .voiceNames)
        #expect(lesson.handAssignment.description.contains("\"Tenor\" → left"))
        for n in lesson.notes { #expect(n.part == .hand(n.channel <= 1 ? .right : .left)) }
    }

    @Test func voicesBesideAKeyboardPartLeaveTheHandsToTheKeyboard() throws {
        // A choir with an organ part: the organ is the pianist's, the voices are heard.
        var file = try Self.fixture("bach-chorale-bwv269-satb")
        var organ = Track(events: [Build.name("Organ"), MIDIEvent(tick: 0, .programChange(channel: 5, program: 19))])
        for track in file.tracks.dropFirst() {
            for e in track.events {
                switch e.kind {
                case .noteOn(_, let k, let vel): organ.events.append(MIDIEvent(tick: e.tick, .noteOn(channel: 5, key: k, velocity: vel)))
                case .noteOff(_, let k, let vel): organ.events.append(MIDIEvent(tick: e.tick, .noteOff(channel: 5, key: k, velocity: vel)))
                default: break
                }
            }
        }
        organ.events = Build.track(organ.events).events
        file.tracks.append(organ)
        let lesson = Lesson(file: try MIDIReader.read(MIDIWriter.write(file)).file)
        #expect(lesson.notes.filter { $0.track < 5 }.allSatisfy { $0.part == .accompaniment })
        #expect(lesson.notes.filter { $0.track == 5 }.allSatisfy { $0.part.hand != nil })
        #expect(lesson.handAssignment.description.contains("→ accompaniment (the other parts are the keyboard's)"))
    }

    @Test func aChoraleWithoutNamesIsSharedOutByRegisterAndVoiceLeading() throws {
        // The same chorale, tracks unnamed: four parts, no names to go by.
        let file = Self.renamed(try Self.fixture("bach-chorale-bwv269-satb"), [nil, nil, nil, nil])
        let lesson = Lesson(file: file)
        #expect(lesson.handAssignment.method == .voiceLeading)
        Self.expectPlayable(lesson)
        // Soprano and alto stay in the right hand, the bass in the left; the tenor goes where
        // a hand can reach it (here mostly the right: the bass lies more than a tenth below).
        func share(_ track: Int, _ hand: Hand) -> Double {
            let part = lesson.notes.filter { $0.track == track }
            return Double(part.filter { $0.part == .hand(hand) }.count) / Double(max(1, part.count))
        }
        print("unnamed chorale: soprano \(share(1, .right)), alto \(share(2, .right)), tenor \(share(3, .right)) right; "
              + "bass \(share(4, .left)) left; \(lesson.noteCount(.accompaniment)) accompaniment")
        #expect(share(1, .right) >= 0.95)
        #expect(share(2, .right) >= 0.95)
        #expect(share(4, .left) >= 0.95)
        #expect(lesson.noteCount(.accompaniment) <= lesson.notes.count / 20)

        // "Lift Every Voice" unnamed: its tenor lies close to the bass and goes left.
        let lift = Lesson(file: Self.renamed(try Self.fixture("johnson-lift-every-voice-satb"), [nil, nil, nil, nil]))
        #expect(lift.handAssignment.method == .voiceLeading)
        Self.expectPlayable(lift)
        let agree = lift.notes.filter { $0.part == .hand($0.track <= 2 ? .right : .left) }.count
        #expect(Double(agree) >= 0.95 * Double(lift.notes.count), "\(agree) of \(lift.notes.count)")
    }

    @Test func aStringQuartetBecomesTwoPlayableHands() throws {
        // Haydn op. 74 no. 1, bars 1–60: violins, viola and cello on string programs.
        let lesson = Lesson(file: try Self.fixture("haydn-op74-1-i-quartet"))
        #expect(lesson.handAssignment.method == .voiceLeading)
        #expect(lesson.handAssignment.description.contains("4 parts (\"Violin I\", \"Violin II\", \"Viola\", \"Violoncello\")"))
        #expect(lesson.hands == [.left, .right])
        Self.expectPlayable(lesson)
        let cello = lesson.notes.filter { $0.track == 4 }
        let violin = lesson.notes.filter { $0.track == 1 }
        print("quartet: cello \(cello.filter { $0.part == .hand(.left) }.count) of \(cello.count) left, first violin "
              + "\(violin.filter { $0.part == .hand(.right) }.count) of \(violin.count) right, \(lesson.noteCount(.accompaniment)) of \(lesson.notes.count) accompaniment")
        #expect(cello.filter { $0.part == .hand(.left) }.count >= cello.count * 9 / 10)
        #expect(violin.filter { $0.part == .hand(.right) }.count >= violin.count * 9 / 10)
        #expect(lesson.noteCount(.accompaniment) <= lesson.notes.count / 5)
    }
}

/// Staff annotations (`etude:hand=right|left`, one track per staff, as the MusicXML reader
/// writes them): those tracks go to that hand without guessing.
@Suite struct StaffHandTests {
    static func staff(_ hand: HandTag, name: String, channel: UInt8, pitches: [Int]) -> [MIDIEvent] {
        var events = [Build.name(name), Annotation.hand(hand).event(tick: 0)]
        for (i, p) in pitches.enumerated() { events += Build.note(p, at: i * 480, length: 480, channel: channel) }
        return events
    }

    @Test func taggedStavesGoToTheirHands() throws {
        // The lower staff climbs above the upper one and both are named "Piano": only the
        // tags can say which hand reads which.
        let upper = Self.staff(.right, name: "Piano", channel: 0, pitches: [60, 59, 57, 55])
        let lower = Self.staff(.left, name: "Piano", channel: 0, pitches: [62, 64, 65, 67])
        let lesson = Build.lesson(try Build.file([[Build.timeSignature(4, 4)], upper, lower]))
        #expect(lesson.handAssignment.method == .staves)
        #expect(lesson.handAssignment.description == "staves: \"Piano\" (track 2) → right, \"Piano\" (track 3) → left")
        for n in lesson.notes { #expect(n.part == .hand(n.track == 1 ? .right : .left)) }
    }

    @Test func tagsOutweighNames() throws {
        let upper = Self.staff(.right, name: "LH", channel: 0, pitches: [72])
        let lower = Self.staff(.left, name: "RH", channel: 1, pitches: [48])
        let lesson = Build.lesson(try Build.file([[], upper, lower]))
        #expect(lesson.handAssignment.method == .staves)
        #expect(lesson.notes.first { $0.pitch == 72 }?.part == .hand(.right))
    }

    @Test func anUntaggedPartBesideBothStavesIsAccompaniment() throws {
        // A song: the voice's single staff has no tag; the piano's two staves have.
        let voice = [Build.name("Voice")] + Build.note(76, at: 0, length: 960, channel: 2)
        let upper = Self.staff(.right, name: "Piano", channel: 0, pitches: [64, 67])
        let lower = Self.staff(.left, name: "Piano", channel: 1, pitches: [48, 43])
        let lesson = Build.lesson(try Build.file([[], voice, upper, lower]))
        #expect(lesson.handAssignment.method == .staves)
        #expect(lesson.notes.first { $0.pitch == 76 }?.part == .accompaniment)
        #expect(lesson.handAssignment.description.hasSuffix("\"Voice\" → accompaniment (no staff of the hands)"))
    }

    @Test func untaggedPartsFollowTheRulesWhenOneHandIsTagged() throws {
        let upper = Self.staff(.right, name: "Melody", channel: 0, pitches: [72, 74, 76])
        let other = [Build.name("Accompaniment")] + Build.note(40, at: 0, length: 480, channel: 1) + Build.note(64, at: 0, length: 480, channel: 1)
            + Build.note(43, at: 480, length: 480, channel: 1) + Build.note(62, at: 480, length: 480, channel: 1)
        let lesson = Build.lesson(try Build.file([[], upper, other]))
        #expect(lesson.handAssignment.method == .staves)
        #expect(lesson.handAssignment.description.contains("other parts: "))
        #expect(lesson.notes.filter { $0.track == 1 }.allSatisfy { $0.part == .hand(.right) })
        #expect(lesson.notes.first { $0.pitch == 40 }?.part == .hand(.left))
    }
}
