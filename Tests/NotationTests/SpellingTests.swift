import Lesson
import MIDIFile
import Testing
@testable import Notation

/// Written pitches as a score would print them: `name` like "F#", an octave, its key number.
private struct Written {
    let spelled: SpelledPitch
    let octave: Int

    init(_ name: String, octave: Int) {
        spelled = SpelledPitch(name: name) ?? SpelledPitch(letter: 0, alter: 0)
        self.octave = octave
    }

    static let naturals = [0, 2, 4, 5, 7, 9, 11]
    var pitch: Int { 12 * (octave + 1) + Written.naturals[spelled.letter] + spelled.alter }
    var diatonic: Int { octave * 7 + spelled.letter }
}

/// A scale written out upward from `names[0]` in `octave` (the octave rises at each C).
private func scale(_ names: [String], octave: Int) -> [Written] {
    var out: [Written] = []
    var o = octave
    var previous = -1
    for n in names + [names[0]] {
        let w = Written(n, octave: o)
        if previous >= 0, w.spelled.letter <= previous { o += 1 }
        let placed = Written(n, octave: o)
        out.append(placed)
        previous = placed.spelled.letter
    }
    return out
}

/// The 15 major scales by key signature (flats negative), as every scale book prints them.
private let majors: [Int: [String]] = [
    -7: ["Cb", "Db", "Eb", "Fb", "Gb", "Ab", "Bb"], -6: ["Gb", "Ab", "Bb", "Cb", "Db", "Eb", "F"],
    -5: ["Db", "Eb", "F", "Gb", "Ab", "Bb", "C"], -4: ["Ab", "Bb", "C", "Db", "Eb", "F", "G"],
    -3: ["Eb", "F", "G", "Ab", "Bb", "C", "D"], -2: ["Bb", "C", "D", "Eb", "F", "G", "A"],
    -1: ["F", "G", "A", "Bb", "C", "D", "E"], 0: ["C", "D", "E", "F", "G", "A", "B"],
    1: ["G", "A", "B", "C", "D", "E", "F#"], 2: ["D", "E", "F#", "G", "A", "B", "C#"],
    3: ["A", "B", "C#", "D", "E", "F#", "G#"], 4: ["E", "F#", "G#", "A", "B", "C#", "D#"],
    5: ["B", "C#", "D#", "E", "F#", "G#", "A#"], 6: ["F#", "G#", "A#", "B", "C#", "D#", "E#"],
    7: ["C#", "D#", "E#", "F#", "G#", "A#", "B#"],
]

/// The 15 harmonic minor scales by key signature: the raised seventh is the only accidental.
private let harmonicMinors: [Int: [String]] = [
    -7: ["Ab", "Bb", "Cb", "Db", "Eb", "Fb", "G"], -6: ["Eb", "F", "Gb", "Ab", "Bb", "Cb", "D"],
    -5: ["Bb", "C", "Db", "Eb", "F", "Gb", "A"], -4: ["F", "G", "Ab", "Bb", "C", "Db", "E"],
    -3: ["C", "D", "Eb", "F", "G", "Ab", "B"], -2: ["G", "A", "Bb", "C", "D", "Eb", "F#"],
    -1: ["D", "E", "F", "G", "A", "Bb", "C#"], 0: ["A", "B", "C", "D", "E", "F", "G#"],
    1: ["E", "F#", "G", "A", "B", "C", "D#"], 2: ["B", "C#", "D", "E", "F#", "G", "A#"],
    3: ["F#", "G#", "A", "B", "C#", "D", "E#"], 4: ["C#", "D#", "E", "F#", "G#", "A", "B#"],
    5: ["G#", "A#", "B", "C#", "D#", "E", "Fx"], 6: ["D#", "E#", "F#", "G#", "A#", "B", "Cx"],
    7: ["A#", "B#", "C#", "D#", "E#", "F#", "Gx"],
]

/// Lays out a scale up in the right hand (octave 4) and down in the left (octave 3), as plain
/// MIDI (no spelling in the file): the speller alone must write it as the book does.
private func layoutScale(_ names: [String], sharps: Int, minor: Bool) -> (up: [Written], down: [Written], heads: [PlacedHead]) {
    let up = scale(names, octave: 4)
    let down = Array(scale(names, octave: 3).reversed())
    let lesson = Music.lesson(right: Music.line(up.map(\.pitch)), left: Music.line(down.map(\.pitch)),
                              keys: [(0, sharps, minor)])
    let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200))
    return (up, down, Music.heads(score))
}

@Suite("Spelling and staff positions")
struct SpellingTests {
    @Test func referencePositionsOnBothStaves() {
        // treble E4 = 0, F4 = 1, C4 = −2; bass G2 = 0, C4 = 10.
        let lesson = Music.lesson(right: Music.line([64, 65, 60, 77, 79]), left: Music.line([43, 60, 57, 41]))
        let heads = Music.heads(ScoreLayout.layout(lesson))
        let treble = heads.filter { $0.staff == .treble }.map { [$0.pitch, $0.step] }
        let bass = heads.filter { $0.staff == .bass }.map { [$0.pitch, $0.step] }
        #expect(treble == [[64, 0], [65, 1], [60, -2], [77, 8], [79, 9]])
        #expect(bass == [[43, 0], [60, 10], [57, 8], [41, -1]])
        #expect(heads.allSatisfy { $0.accidental == nil && $0.ottava == 0 })
        #expect(heads.first { $0.pitch == 43 }?.hand == .left)
    }

    @Test(arguments: Array(-7...7))
    func majorScale(sharps: Int) throws {
        let names = try #require(majors[sharps])
        let (up, down, heads) = layoutScale(names, sharps: sharps, minor: false)
        let treble = heads.filter { $0.staff == .treble }, bass = heads.filter { $0.staff == .bass }
        #expect(treble.map(\.spelling.name) == up.map(\.spelled.name), "key \(MusicKey(sharps: sharps).name) up")
        #expect(bass.map(\.spelling.name) == down.map(\.spelled.name), "key \(MusicKey(sharps: sharps).name) down")
        #expect(treble.map(\.step) == up.map { $0.diatonic - (4 * 7 + 2) }, "treble steps from E4")
        #expect(bass.map(\.step) == down.map { $0.diatonic - (2 * 7 + 4) }, "bass steps from G2")
        #expect(heads.allSatisfy { $0.accidental == nil }, "the key signature says every accidental")
    }

    @Test(arguments: Array(-7...7))
    func harmonicMinorScale(sharps: Int) throws {
        let names = try #require(harmonicMinors[sharps])
        let (up, down, heads) = layoutScale(names, sharps: sharps, minor: true)
        let treble = heads.filter { $0.staff == .treble }, bass = heads.filter { $0.staff == .bass }
        let key = MusicKey(sharps: sharps, minor: true).name
        #expect(treble.map(\.spelling.name) == up.map(\.spelled.name), "\(key) up")
        #expect(bass.map(\.spelling.name) == down.map(\.spelled.name), "\(key) down: the seventh stays raised falling")
        #expect(treble.map(\.step) == up.map { $0.diatonic - (4 * 7 + 2) })
        // Only the raised seventh carries an accidental, once per bar and octave.
        let seventh = try #require(SpelledPitch(name: names[6]))
        let drawn = heads.filter { $0.accidental != nil }
        #expect(drawn.count == 2, "\(key): one raised seventh per hand")
        #expect(drawn.allSatisfy { $0.spelling == seventh && $0.accidental == Accidental(alter: seventh.alter) }, "\(key): \(drawn.map(\.spelling.name))")
    }

    @Test func chromaticNotesRiseAsSharpsAndFallAsFlats() {
        // C major, no spelling in the file: C C♯ D (rising), E E♭ D (falling), F F♯ G, B B♭ A.
        let lesson = Music.lesson(right: Music.line([60, 61, 62, 64, 63, 62, 65, 66, 67, 71, 70, 69]))
        let names = Music.heads(ScoreLayout.layout(lesson, options: NotationOptions(width: 200))).map(\.spelling.name)
        #expect(names == ["C", "C#", "D", "E", "Eb", "D", "F", "F#", "G", "B", "Bb", "A"])
    }

    @Test func chromaticNoteWithoutDirectionFollowsTheKey() {
        // A chromatic note that ends the piece: the key's usual chromatic notes.
        func last(_ pitch: Int, sharps: Int, minor: Bool = false) -> String {
            let lesson = Music.lesson(right: [Music.N(pitch: pitch, at: 0, length: 4)], keys: [(0, sharps, minor)])
            return Music.heads(ScoreLayout.layout(lesson)).first?.spelling.name ?? "?"
        }
        #expect(last(70, sharps: 0) == "Bb")
        #expect(last(66, sharps: 0) == "F#")
        #expect(last(63, sharps: 0) == "Eb")
        #expect(last(61, sharps: 0) == "C#")
        #expect(last(70, sharps: 0, minor: true) == "Bb", "A minor's Neapolitan second")
        #expect(last(73, sharps: 0, minor: true) == "C#", "A minor's major third (Picardy)")
        #expect(last(62, sharps: 7) == "D", "C♯ major: D natural, not C double sharp")
    }

    @Test func aCancelledKeyLetterIsWrittenWithANatural() {
        // F major: B♮ falling to B♭ is B♮ (not C♭); G major: F♮ rising to F♯ is F♮ (not E♯).
        let f = Music.lesson(right: Music.line([71, 70, 69]), keys: [(0, -1, false)])
        #expect(Music.heads(ScoreLayout.layout(f)).map(\.spelling.name) == ["B", "Bb", "A"])
        let g = Music.lesson(right: Music.line([65, 66, 67]), keys: [(0, 1, false)])
        let heads = Music.heads(ScoreLayout.layout(g))
        #expect(heads.map(\.spelling.name) == ["F", "F#", "G"])
        #expect(heads.map { $0.accidental?.rawValue ?? "-" } == ["natural", "sharp", "-"])
    }

    @Test func chordLettersAreNotRepeated() {
        // G and the note a semitone above it in one chord: A♭, not G♯.
        let lesson = Music.lesson(right: [Music.N(pitch: 67, at: 0, length: 1), Music.N(pitch: 68, at: 0, length: 1), Music.N(pitch: 72, at: 0, length: 1),
                                          Music.N(pitch: 74, at: 1, length: 1)])
        let names = Music.heads(ScoreLayout.layout(lesson)).map(\.spelling.name)
        #expect(names.prefix(3) == ["G", "Ab", "C"], "rising line, but the chord already has a G")
    }

    @Test func accidentalsLastTheBarNaturalsCancel() {
        // C major: F♯ G F (natural) F♯ | F♯ G G G | then G major: F (natural sign), F♯ (sharp again).
        let bar1 = Music.line([66, 67, 65, 66]), bar2 = Music.line([66, 67, 67, 67], from: 4)
        let bar3 = Music.line([65, 66, 67, 67], from: 8)
        let lesson = Music.lesson(right: bar1 + bar2 + bar3, keys: [(0, 0, false), (8, 1, false)])
        let heads = Music.heads(ScoreLayout.layout(lesson, options: NotationOptions(width: 200)))
        #expect(heads.map { $0.accidental?.rawValue ?? "-" } == ["sharp", "-", "natural", "sharp", "sharp", "-", "-", "-", "natural", "sharp", "-", "-"])
        #expect(heads[8].spelling.name == "F" && heads[9].spelling.name == "F#")
    }

    @Test func accidentalsHoldForTheirOwnOctaveOnly() {
        let lesson = Music.lesson(right: Music.line([66, 67, 78, 79, 66, 67, 78, 79], length: 0.5))
        let heads = Music.heads(ScoreLayout.layout(lesson))
        #expect(heads.map(\.spelling.name) == ["F#", "G", "F#", "G", "F#", "G", "F#", "G"])
        #expect(heads.map { $0.accidental?.rawValue ?? "-" } == ["sharp", "-", "sharp", "-", "-", "-", "-", "-"])
    }

    @Test func fileSpellingWins() {
        // The file writes key 61 as D♭ and key 68 as G♯ even where the speller would not.
        let lesson = Music.lesson(right: [Music.N(pitch: 61, at: 0, length: 1, spell: "Db"), Music.N(pitch: 62, at: 1, length: 1),
                                          Music.N(pitch: 68, at: 2, length: 1, spell: "G#"), Music.N(pitch: 67, at: 3, length: 1)])
        let heads = Music.heads(ScoreLayout.layout(lesson))
        #expect(heads.map(\.spelling.name) == ["Db", "D", "G#", "G"])
        #expect(heads.map { $0.accidental?.rawValue ?? "-" } == ["flat", "natural", "sharp", "natural"])
        #expect(heads[0].step == -1, "D♭4 sits on D4's place")
        // A spelling that cannot be the key number is ignored (a broken hint is not a reason to fail).
        let broken = Music.lesson(right: [Music.N(pitch: 61, at: 0, length: 1, spell: "E"), Music.N(pitch: 62, at: 1, length: 1)])
        #expect(Music.heads(ScoreLayout.layout(broken)).first?.spelling.name == "C#")
    }

    @Test func keyIsEstimatedWhenTheFileHasNone() throws {
        // A G major tune with no key signature event: F♯ belongs to the key, no accidental drawn.
        var right: [Music.N] = []
        for (i, p) in [67, 71, 74, 66, 67, 69, 71, 74, 72, 71, 69, 66, 67, 62, 67].enumerated() {
            right.append(Music.N(pitch: p, at: Double(i), length: 1))
        }
        let lesson = Music.lesson(right: right, keys: [])
        #expect(lesson.keySignatures.isEmpty)
        let score = ScoreLayout.layout(lesson)
        #expect(score.estimatedKey == MusicKey(sharps: 1))
        #expect(score.systems.first?.key == MusicKey(sharps: 1))
        #expect(Music.heads(score).allSatisfy { $0.accidental == nil })
        #expect(ScoreText.heading(lesson: lesson, score: score).contains("G major (estimated"))
    }

    @Test func keyNamesAndTonics() {
        #expect(MusicKey(sharps: -3).tonic == 3 && MusicKey(sharps: -3).tonicLetter == 2)
        #expect(MusicKey(sharps: 5, minor: true).tonic == 8 && MusicKey(sharps: 5, minor: true).tonicLetter == 4)
        #expect(MusicKey(sharps: 9).sharps == 7, "clamped")
    }
}
