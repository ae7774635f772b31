import Testing
@testable import MIDIFile

/// The `etude:` text-event convention that carries score facts (fingering, spelling, staves,
/// clefs, printed bars) through a Standard MIDI File.
@Suite struct AnnotationTests {
    @Test func everyKindRoundTripsThroughItsText() {
        let all: [Annotation] = [
            .finger(pitch: 60, finger: 1), .spelling(pitch: 61, SpelledPitch(letter: 1, alter: -1)),
            .spelling(pitch: 60, SpelledPitch(letter: 6, alter: 1)), .spelling(pitch: 62, SpelledPitch(letter: 0, alter: 2)),
            .hand(.left), .clef(.bass), .clef(.treble8vb), .bar(0), .bar(12),
        ]
        for a in all {
            #expect(Annotation(a.event(tick: 0).kind) == a, "\(a.text)")
        }
        #expect(Annotation.spelling(pitch: 61, SpelledPitch(letter: 1, alter: -1)).text == "etude:spell=61:Db")
    }

    /// Fingering and spelling events are put together byte by byte: the same bytes as the text.
    @Test func eventBytesAreTheText() {
        for pitch in [0, 5, 9, 10, 60, 99, 100, 127] {
            for finger in 1...5 {
                let a = Annotation.finger(pitch: pitch, finger: finger)
                #expect(a.event(tick: 0).kind == .meta(type: MetaType.text, data: Array(a.text.utf8)))
            }
            for letter in 0...6 {
                for alter in -2...2 {
                    let a = Annotation.spelling(pitch: pitch, SpelledPitch(letter: letter, alter: alter))
                    #expect(a.event(tick: 0).kind == .meta(type: MetaType.text, data: Array(a.text.utf8)), "\(a.text)")
                }
            }
        }
    }

    @Test func malformedOrImpossibleTextIsNoAnnotation() {
        for bad in ["etude:spell=60:Db", "etude:spell=60:H", "etude:spell=200:C", "etude:hand=both", "etude:clef=violin",
                    "etude:bar=-1", "etude:bar=x", "etude:title=x", "etude:finger=60:0", "hello"] {
            #expect(Annotation(.meta(type: MetaType.text, data: Array(bad.utf8))) == nil, "\(bad)")
        }
        #expect(Annotation(.meta(type: MetaType.marker, data: Array("etude:bar=1".utf8))) == nil, "only text events carry them")
    }

    @Test func spellingGivesTheWrittenOctaveAndStaffStep() {
        let bSharp = SpelledPitch(name: "B#")
        #expect(bSharp?.octave(forPitch: 60) == 3, "B♯3 sounds as middle C")
        let cFlat = SpelledPitch(name: "Cb")
        #expect(cFlat?.octave(forPitch: 59) == 4, "C♭4 sounds as B3")
        #expect(SpelledPitch(name: "C")?.diatonic(forPitch: 60) == 4 * 7)
        #expect(SpelledPitch(name: "E")?.diatonic(forPitch: 64) == Clef.treble.bottomLineDiatonic, "treble bottom line is E4")
        #expect(SpelledPitch(name: "G")?.diatonic(forPitch: 43) == Clef.bass.bottomLineDiatonic, "bass bottom line is G2")
    }

    @Test func annotationsAreGatheredPerTrackAndBarsOnlyFromTheFirstTrack() {
        let file = MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: [
            Track(events: [Annotation.bar(0).event(tick: 0), Annotation.bar(1).event(tick: 480)]),
            Track(events: [Annotation.hand(.right).event(tick: 0), Annotation.clef(.treble).event(tick: 0),
                           Annotation.spelling(pitch: 66, SpelledPitch(letter: 3, alter: 1)).event(tick: 480),
                           Annotation.finger(pitch: 66, finger: 2).event(tick: 480), Annotation.bar(7).event(tick: 960)]),
            Track(events: [Annotation.hand(.left).event(tick: 0), Annotation.clef(.bass).event(tick: 0), Annotation.clef(.treble).event(tick: 960)]),
        ])
        let a = Annotations(file: file)
        #expect(a.bars.map(\.printed) == [0, 1])
        #expect(a.hands == [1: .right, 2: .left])
        #expect(a.clefs[2]?.map(\.clef) == [.bass, .treble])
        #expect(a.fingers[Annotations.Key(track: 1, tick: 480, pitch: 66)] == 2)
        #expect(a.spellings[Annotations.Key(track: 1, tick: 480, pitch: 66)]?.name == "F#")
    }
}
