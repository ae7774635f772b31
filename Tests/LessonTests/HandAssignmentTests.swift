import Testing
import TestSupport
import MIDIFile
@testable import Lesson

@Suite struct HandAssignmentTests {
    static func twoNamedTracks(_ right: String, _ left: String) throws -> Lesson {
        var r = [Build.name(right)], l = [Build.name(left)]
        for i in 0..<8 {
            r += Build.note(60 + i, at: i * 480, length: 480)
            l += Build.note(62 - i, at: i * 480, length: 480, channel: 1)  // left part sits higher here: names must win
        }
        // The left track is listed first so order cannot be what decides either.
        return Build.lesson(try Build.file([[Build.timeSignature(4, 4)], l, r]))
    }

    @Test(arguments: [
        ("Right Hand", "Left Hand"), ("RH", "LH"), ("R.H.", "L.H."), ("Piano - RIGHT", "piano left"),
        ("Treble", "Bass"), ("Rechte Hand", "Linke Hand"), ("Pravá ruka", "Levá ruka"), ("PRAVÁ", "levá"),
        ("Main droite", "Main gauche"), ("RightHand", "LeftHand"),
    ])
    func assignsHandsFromTrackNames(right: String, left: String) throws {
        let lesson = try Self.twoNamedTracks(right, left)
        #expect(lesson.handAssignment.method == .trackNames)
        #expect(lesson.handAssignment.description.contains(right))
        for n in lesson.notes {
            #expect(n.part == .hand(n.track == 2 ? .right : .left), "\(n)")
        }
        #expect(lesson.hands == [.left, .right])
    }

    @Test func namesThatSayNothingAboutHandsAreIgnored() {
        #expect(HandAssigner.hand(fromName: "Rhythm") == nil)
        #expect(HandAssigner.hand(fromName: "Piano") == nil)
        #expect(HandAssigner.hand(fromName: "Left and right") == nil)
        #expect(HandAssigner.hand(fromName: "Bright Piano") == nil)
    }

    @Test func oneNamedHandMakesTheOtherPianoPartTheOtherHand() throws {
        var r = [Build.name("Melody RH")], other = [Build.name("Piano")]
        r += Build.note(72, at: 0, length: 480)
        other += Build.note(48, at: 0, length: 480, channel: 1)
        let lesson = Build.lesson(try Build.file([[], r, other]))
        #expect(lesson.handAssignment.method == .trackNames)
        #expect(lesson.notes.first { $0.pitch == 48 }?.part == .hand(.left))
    }

    @Test func twoChannelsOfOneTrackByMeanPitch() throws {
        // Format 0: one track, channel 1 low, channel 2 high, interleaved.
        var events: [MIDIEvent] = [Build.timeSignature(3, 4)]
        for i in 0..<6 {
            events += Build.note(43 + i, at: i * 480, length: 480, channel: 0)
            events += Build.note(67 - i, at: i * 480, length: 240, channel: 1)
        }
        let lesson = Build.lesson(try Build.file([events], format: 0))
        #expect(lesson.handAssignment.method == .partsByPitch)
        for n in lesson.notes { #expect(n.part == .hand(n.channel == 1 ? .right : .left)) }
    }

    @Test func twoUnnamedTracksByMeanPitch() throws {
        let high = Build.note(76, at: 0, length: 480) + Build.note(79, at: 480, length: 480)
        let low = Build.note(40, at: 0, length: 960, channel: 1)
        let lesson = Build.lesson(try Build.file([[], low, high]))
        #expect(lesson.handAssignment.method == .partsByPitch)
        #expect(lesson.notes.filter { $0.part == .hand(.right) }.map(\.pitch) == [76, 79])
        #expect(lesson.notes.filter { $0.part == .hand(.left) }.map(\.pitch) == [40])
    }

    /// A single piano track with both hands, where the melody dips below middle C (A3) and
    /// later the bass line climbs above it (D4): any fixed split point gets some notes wrong.
    static func singleTrackPiece() throws -> (lesson: Lesson, right: [(Int, Int)], left: [(Int, Int)]) {
        let rh: [[Int]] = [[72, 74, 76, 77], [79, 77, 76, 74], [72, 71, 69, 67], [65, 64, 62, 60],
                           [59, 57, 59, 60], [62, 64, 65, 67], [69, 71, 72, 74], [76]]
        let lh: [[Int]] = [[48, 55], [47, 55], [45, 52], [41, 48], [45, 48], [52, 55], [59, 62], [48]]
        var events: [MIDIEvent] = [Build.name("Piano")]
        var right: [(Int, Int)] = [], left: [(Int, Int)] = []
        for bar in 0..<8 {
            let start = bar * Build.bar
            let rl = Build.bar / rh[bar].count, ll = Build.bar / lh[bar].count
            for (i, p) in rh[bar].enumerated() {
                events += Build.note(p, at: start + i * rl, length: rl)
                right.append((p, start + i * rl))
            }
            for (i, p) in lh[bar].enumerated() {
                events += Build.note(p, at: start + i * ll, length: ll)
                left.append((p, start + i * ll))
            }
        }
        return (Build.lesson(try Build.file([[Build.timeSignature(4, 4)], events])), right, left)
    }

    @Test func singleTrackTwoHandPieceFollowsEachHandsPitch() throws {
        let (lesson, right, left) = try Self.singleTrackPiece()
        #expect(lesson.handAssignment.method == .handModel)
        func part(_ p: Int, _ t: Int) -> Part? { lesson.notes.first { Int($0.pitch) == p && $0.startTick == t }?.part }
        for (p, t) in right { #expect(part(p, t) == .hand(.right), "right-hand \(PitchName.name(p)) at \(t)") }
        for (p, t) in left { #expect(part(p, t) == .hand(.left), "left-hand \(PitchName.name(p)) at \(t)") }
        // No fixed split point could do this: the hands' ranges overlap.
        let rightLow = right.map(\.0).min() ?? 0, leftHigh = left.map(\.0).max() ?? 0
        #expect(rightLow < leftHigh)
    }

    @Test func splitOverrideWins() throws {
        let (plain, _, _) = try Self.singleTrackPiece()
        let lesson = Lesson(file: try Build.file([[Build.timeSignature(4, 4)], [Build.name("Piano")] + Build.note(59, at: 0, length: 480) + Build.note(60, at: 0, length: 480)]),
                            fileName: "x.mid", split: 60)
        #expect(lesson.handAssignment.method == .splitPoint)
        #expect(lesson.notes.map(\.part) == [.hand(.left), .hand(.right)])
        #expect(plain.handAssignment.method != .splitPoint)
        let forced = Lesson(file: try Build.file([[], [Build.name("RH")] + Build.note(50, at: 0, length: 480)]), split: 48)
        #expect(forced.notes.first?.part == .hand(.right))
    }

    @Test func drumsAndOtherInstrumentsAreAccompaniment() throws {
        let piano = [Build.name("Piano")] + Build.note(60, at: 0, length: 480) + Build.note(64, at: 480, length: 480)
        let drums = [Build.name("Drums")] + Build.note(36, at: 0, length: 120, channel: 9)
        let violin = [Build.name("Violin"), MIDIEvent(tick: 0, .programChange(channel: 2, program: 40))] + Build.note(76, at: 0, length: 960, channel: 2)
        let bass = [Build.name("Bass"), MIDIEvent(tick: 0, .programChange(channel: 3, program: 33))] + Build.note(40, at: 0, length: 960, channel: 3)
        let lesson = Build.lesson(try Build.file([[], piano, drums, violin, bass]))
        #expect(lesson.notes.filter { $0.part == .accompaniment }.map(\.pitch).sorted() == [36, 40, 76])
        #expect(lesson.handAssignment.method == .singleHand)
        #expect(lesson.hands == [.right])
    }

    @Test func aLessonWithoutPianoNotesHasNoHands() throws {
        let lesson = Build.lesson(try Build.file([[], Build.note(36, at: 0, length: 120, channel: 9)]))
        #expect(lesson.hands.isEmpty)
        #expect(lesson.handAssignment.method == .none)
        #expect(throws: PlanError.self) { try PracticePlan(hands: .left).validate(for: lesson) }
        try PracticePlan().validate(for: lesson)
    }

    @Test func titleComposerAndFallbacks() throws {
        let tagged = Build.lesson(try Build.file([
            [Build.name("Minuet in G")] + LessonTags(composer: "J. S. Bach").events,
            [Build.name("RH")] + Build.note(67, at: 0, length: 480),
        ]))
        #expect(tagged.title == "Minuet in G")
        #expect(tagged.composer == "J. S. Bach")
        let unnamed = Lesson(file: try Build.file([[], [Build.name("RH")] + Build.note(67, at: 0, length: 480)]), fileName: "/tmp/lessons/ode-to-joy.mid")
        #expect(unnamed.title == "ode-to-joy")
    }
}

@Suite struct HandsSeparateSplitTests {
    /// A one-track scale exercise: right hand alone (two octaves up and down from C4), left
    /// hand alone (from C3), then both in parallel, then a cadence of right-hand triads with
    /// the left hand resting, then the triads over bass notes.
    @Test func handsSeparateThenTogetherInOneTrack() throws {
        let scale = [0, 2, 4, 5, 7, 9, 11]
        let up = (0..<15).map { scale[$0 % 7] + 12 * ($0 / 7) }
        let line = up + up.reversed().dropFirst()
        var events: [MIDIEvent] = [Build.name("Piano")]
        var truth: [(Int, Int, Hand)] = []
        var t = 0
        func add(_ pitch: Int, _ hand: Hand, at tick: Int, length: Int = 240) {
            events += Build.note(pitch, at: tick, length: length)
            truth.append((pitch, tick, hand))
        }
        for p in line { add(60 + p, .right, at: t); t += 240 }
        t += 960
        for p in line { add(48 + p, .left, at: t); t += 240 }
        t += 960
        for p in line { add(48 + p, .left, at: t); add(60 + p, .right, at: t); t += 240 }
        t += 960
        let chords = [[60, 64, 67], [60, 65, 69], [59, 62, 67], [60, 64, 67]]
        for c in chords { for p in c { add(p, .right, at: t, length: 960) }; t += 960 }
        for (c, bass) in zip(chords, [48, 53, 55, 48]) {
            add(bass, .left, at: t, length: 960)
            for p in c { add(p, .right, at: t, length: 960) }
            t += 960
        }
        let lesson = Build.lesson(try Build.file([[Build.timeSignature(4, 4)], events]))
        #expect(lesson.handAssignment.method == .handModel)
        var wrong: [String] = []
        for (p, tick, h) in truth where lesson.notes.first(where: { Int($0.pitch) == p && $0.startTick == tick })?.part != .hand(h) {
            wrong.append("\(PitchName.name(p))@\(tick)")
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test func aSingleMelodyWithLeapsStaysInOneHand() throws {
        // A tune spanning an octave and a half with an octave leap: one hand throughout.
        let pitches = [67, 72, 71, 69, 67, 64, 67, 79, 77, 76, 74, 72, 71, 69, 67, 65, 64, 62, 60, 62, 64, 67]
        var events: [MIDIEvent] = [Build.name("Melody")]
        for (i, p) in pitches.enumerated() { events += Build.note(p, at: i * 480, length: 480) }
        let lesson = Build.lesson(try Build.file([[], events]))
        #expect(lesson.handAssignment.method == .singleHand)
        #expect(lesson.hands == [.right])
    }
}
