// Levels 6–8 of the generated curriculum: Etude's own studies leading to the sonatina (broken
// chords, chord inversions, Alberti bass, contrary-motion scales), each fingered on every note,
// and the two entry studies that open levels 5 and 8. The pieces themselves (Clementi's
// Op. 36 No. 1) are hand-written ABC beside them.

/// The scale degree `d` of `key` (harmonic minor for minor keys) in ABC octave `octave`.
func tone(_ key: Key, _ d: Int, _ octave: Int) -> Spelled {
    Spelled.degree(d, of: key, octave: octave, offsets: key.minor ? harmonicMinorOffsets : majorOffsets)
}

/// The header of a study: like `header` but with Etude's study title and its own level.
func studyHeader(_ title: String, level: Int, description: String, meter: String = "4/4", unit: String, tempo: String, key: Key, parts: String) -> String {
    header(title, level: level, description: description, meter: meter, unit: unit, tempo: tempo, key: key, parts: parts)
}

/// The close-position primary chords the cadence lessons use, as (degree, right-hand finger):
/// I, IV 6/4, V 6, I.
let cadenceChords: [[(Int, Int)]] = [
    [(0, 1), (2, 3), (4, 5)],
    [(0, 1), (3, 3), (5, 5)],
    [(-1, 1), (1, 2), (4, 5)],
    [(0, 1), (2, 3), (4, 5)],
]
/// The bass roots under them with left-hand fingers (as in the cadence lessons).
let cadenceBass: [(Int, Int)] = [(0, 5), (3, 2), (4, 1), (0, 5)]

// MARK: Level 6 — broken chords and inversions

/// Each chord of the cadence broken low–middle–high–middle in eighths; the last bar ends on
/// the tonic chord held.
func brokenChordVoices(_ key: Key) -> (rh: String, lh: String) {
    var rw = BarWriter(key: key)
    var lw = BarWriter(key: key)
    var rh: [String] = []
    var lh: [String] = []
    for (i, chord) in cadenceChords.enumerated() {
        let notes = chord.map { (tone(key, $0.0, 0), $0.1) }
        let order = i == 3 ? [0, 1, 2, 1] : [0, 1, 2, 1, 0, 1, 2, 1]
        var bar = order.map { rw.note(notes[$0].0, finger: notes[$0].1) }.joined()
        if i == 3 { bar += " " + rw.chord(notes.map { ($0.0, Optional($0.1)) }, length: "4") }
        rh.append(bar + rw.bar(i == 3 ? "|]" : "|"))
        let (d, f) = cadenceBass[i]
        lh.append(lw.note(tone(key, d, -1), length: "8", finger: f) + lw.bar(i == 3 ? "|]" : "|"))
    }
    return (rh.joined(separator: " "), lh.joined(separator: " "))
}

/// The tonic triad up through its inversions and back in half notes, as method books teach
/// it: right hand 1-3-5, 1-2-5, 1-3-5; left hand 5-3-1, 5-3-1, 5-2-1.
func inversionVoice(_ key: Key, rightHand: Bool) -> String {
    let positions: [[Int]] = [[0, 2, 4], [2, 4, 7], [4, 7, 9], [7, 9, 11]]
    let rhFingers = [[1, 3, 5], [1, 2, 5], [1, 3, 5], [1, 3, 5]]
    let lhFingers = [[5, 3, 1], [5, 3, 1], [5, 2, 1], [5, 3, 1]]
    let sequence = [0, 1, 2, 3, 2, 1, 0]
    var w = BarWriter(key: key)
    var out = ""
    for (i, p) in sequence.enumerated() {
        let fingers = rightHand ? rhFingers[p] : lhFingers[p]
        let notes = zip(positions[p], fingers).map { (tone(key, $0.0, rightHand ? 0 : -1), Optional($0.1)) }
        out += w.chord(notes, length: i == sequence.count - 1 ? "4" : "2")
        if i % 2 == 1 || i == sequence.count - 1 { out += w.bar(i == sequence.count - 1 ? "|]" : "|") + " " } else { out += " " }
    }
    return out.trimmingCharacters(in: .whitespaces)
}

func level6() -> [Lesson] {
    var lessons: [Lesson] = []
    for key in majorKeys + minorKeys {
        let name = "\(key.tonicName) \(key.modeName)"
        do {
            let title = "Study in \(name): broken chords"
            let d = "Etude's own study: the I–IV–V–I chords of \(name) broken in eighths by the right hand over the bass roots, first alone, then with the left hand."
            var abc = studyHeader(title, level: 6, description: d, unit: "1/8", tempo: "1/4=72", key: key, parts: "AB")
            let (rh, lh) = brokenChordVoices(key)
            abc += part("A", "Right hand", rh: rh, lh: rests(bars: 4, bar: "z8"))
            abc += part("B", "Hands together", rh: rh, lh: lh)
            lessons.append(Lesson(level: 6, file: "level6/\(key.slug)-\(key.modeName)-broken-chords.abc", title: title, description: d, abc: abc))
        }
        do {
            let title = "Study in \(name): chord inversions"
            let d = "Etude's own study: the tonic triad of \(name) in root position, first and second inversion, up and back, with the fingering each position takes."
            var abc = studyHeader(title, level: 6, description: d, unit: "1/4", tempo: "1/4=66", key: key, parts: "ABC")
            let rest = rests(bars: 4, bar: "z4")
            abc += part("A", "Right hand", rh: inversionVoice(key, rightHand: true), lh: rest)
            abc += part("B", "Left hand", rh: rest, lh: inversionVoice(key, rightHand: false))
            abc += part("C", "Hands together", rh: inversionVoice(key, rightHand: true), lh: inversionVoice(key, rightHand: false))
            lessons.append(Lesson(level: 6, file: "level6/\(key.slug)-\(key.modeName)-inversions.abc", title: title, description: d, abc: abc))
        }
    }
    return lessons
}

// MARK: Level 7 — Alberti bass and contrary motion

/// The left hand's Alberti figure (low–high–middle–high) on I, IV 6/4, V 6, I with the
/// fingers the hand takes on each chord; the right hand sings in five-finger position
/// (degree d on finger d+1) and ends on the tonic.
func albertiVoices(_ key: Key) -> (rh: String, lh: String) {
    let lhChords: [[(Int, Int)]] = [
        [(0, 5), (2, 3), (4, 1)],
        [(0, 5), (3, 2), (5, 1)],
        [(-1, 5), (1, 3), (4, 1)],
        [(0, 5), (2, 3), (4, 1)],
    ]
    let melody: [[Int]] = [[0, 2, 4, 2], [3, 0, 3, 2], [1, 3, 4, 1], [0]]
    var rw = BarWriter(key: key)
    var lw = BarWriter(key: key)
    var rh: [String] = []
    var lh: [String] = []
    for i in 0..<4 {
        let end = i == 3
        rh.append(melody[i].map { rw.note(tone(key, $0, 0), length: end ? "8" : "2", finger: $0 + 1) }.joined(separator: " ") + rw.bar(end ? "|]" : "|"))
        let c = lhChords[i].map { (tone(key, $0.0, -1), $0.1) }
        let figure = end ? [0, 2, 1, 2] : [0, 2, 1, 2, 0, 2, 1, 2]
        var bar = figure.map { lw.note(c[$0].0, finger: c[$0].1) }.joined()
        if end { bar += " " + lw.note(c[0].0, length: "4", finger: c[0].1) }
        lh.append(bar + lw.bar(end ? "|]" : "|"))
    }
    return (rh.joined(separator: " "), lh.joined(separator: " "))
}

/// One octave in contrary motion from the tonic: the right hand up and back, the left hand
/// down and back, each with its scale fingering (the top note of the right hand and the
/// turning note of the left take the fingers of a one-octave scale). `length` is each note's
/// ABC length, `last` the final note's, `perBar` the notes in a bar.
func contraryVoice(_ key: Key, rightHand: Bool, length: String, last: String, perBar: Int) -> String {
    let fingers = rightHand ? ScaleFingering.rightHand(key) : ScaleFingering.leftHand(key)
    precondition(fingers.count == 15, "no fingering for \(key.kField)")
    // Steps from the tonic: 0…7 and back; the left hand mirrors them downward.
    let path = Array(0...7) + Array((0...6).reversed())
    func spelled(_ k: Int) -> (Spelled, Int) {
        if rightHand { return (tone(key, k, 0), k == 7 ? fingers[14] : fingers[k]) }
        // Left hand: k steps below the tonic of octave -1, fingered as the lower octave of
        // its ascending scale read downward; the starting tonic takes the top note's finger.
        return (tone(key, -k, -1), k == 0 ? fingers[14] : fingers[7 - k])
    }
    var w = BarWriter(key: key)
    var out = ""
    for (i, k) in path.enumerated() {
        let (s, f) = spelled(k)
        let final = i == path.count - 1
        out += w.note(s, length: final ? last : length, finger: f)
        if final {
            out += w.bar("|]")
        } else if (i + 1) % perBar == 0 {
            out += w.bar() + " "
        } else {
            out += " "
        }
    }
    return out
}

func level7() -> [Lesson] {
    var lessons: [Lesson] = []
    for key in majorKeys + minorKeys {
        let name = "\(key.tonicName) \(key.modeName)"
        do {
            let title = "Study in \(name): Alberti bass"
            let d = "Etude's own study: the left hand's Alberti figure on I–IV–V–I in \(name) under a five-finger melody, as in a Classical sonatina (practise the left hand alone with --hand left)."
            var abc = studyHeader(title, level: 7, description: d, unit: "1/8", tempo: "1/4=76", key: key, parts: "AB")
            let (rh, lh) = albertiVoices(key)
            // The melody alone first; the left hand alone is `--hand left` (a lone Alberti figure in
            // the tenor is where the one-track hand split goes wrong, see CurriculumSplitTests).
            abc += part("A", "Right hand", rh: rh, lh: rests(bars: 4, bar: "z8"))
            abc += part("B", "Hands together", rh: rh, lh: lh)
            lessons.append(Lesson(level: 7, file: "level7/\(key.slug)-\(key.modeName)-alberti-bass.abc", title: title, description: d, abc: abc))
        }
        do {
            let title = "Study in \(name): contrary-motion scale"
            let d = "Etude's own study: one octave of \(name) with the hands moving apart from the tonic and back, in quarters and then in eighths, with the scale fingering."
            // Quarters: 15 notes in 4 bars (the last a half note); eighths: 2 bars.
            var abc = studyHeader(title, level: 7, description: d, unit: "1/8", tempo: "1/4=72", key: key, parts: "AB")
            abc += part("A", "Quarters", rh: contraryVoice(key, rightHand: true, length: "2", last: "4", perBar: 4),
                        lh: contraryVoice(key, rightHand: false, length: "2", last: "4", perBar: 4))
            abc += part("B", "Eighths", rh: contraryVoice(key, rightHand: true, length: "", last: "2", perBar: 8),
                        lh: contraryVoice(key, rightHand: false, length: "", last: "2", perBar: 8))
            lessons.append(Lesson(level: 7, file: "level7/\(key.slug)-\(key.modeName)-contrary-scale.abc", title: title, description: d, abc: abc))
        }
    }
    return lessons
}

// MARK: Entry studies (levels 5 and 8)

/// A voice in C position written as (degree, length in units) per bar: the right hand takes
/// finger d+1 on degree d, the left hand (an octave lower) finger 5−d.
func positionVoice(_ key: Key, _ bars: [[(Int, Int)]], rightHand: Bool) -> String {
    var w = BarWriter(key: key)
    var out: [String] = []
    for (i, bar) in bars.enumerated() {
        let notes = bar.map { d, len in
            w.note(tone(key, d, rightHand ? 0 : -1), length: len == 1 ? "" : String(len), finger: rightHand ? d + 1 : 5 - d)
        }
        out.append(notes.joined(separator: " ") + w.bar(i == bars.count - 1 ? "|]" : "|"))
    }
    return out.joined(separator: " ")
}

/// Dynamics on a generated voice: `marks[i]` (ABC decorations such as `!mp!!crescendo(!`)
/// goes before the first note of bar `i` (from 0). Etude's own studies print their dynamics
/// as the pieces after them do, so the ear's loudness judging is met from the first lesson of
/// levels 4, 5 and 8.
func withDynamics(_ voice: String, _ marks: [Int: String]) -> String {
    var bars = voice.components(separatedBy: " | ")
    for (i, mark) in marks where i < bars.count { bars[i] = mark + bars[i] }
    return bars.joined(separator: " | ")
}

/// Level 5 opens with two independent lines, one in each hand, before the Notebook pieces.
func twoVoiceStudy() -> Lesson {
    let key = Key.parse("C")
    let rh: [[(Int, Int)]] = [
        [(0, 1), (2, 1), (4, 1), (2, 1)], [(3, 1), (1, 1), (2, 2)], [(4, 1), (3, 1), (2, 1), (1, 1)], [(0, 2), (4, 2)],
        [(3, 1), (2, 1), (1, 1), (3, 1)], [(2, 1), (1, 1), (0, 2)], [(1, 1), (2, 1), (3, 1), (1, 1)], [(0, 4)],
    ]
    let lh: [[(Int, Int)]] = [
        [(0, 2), (4, 2)], [(3, 2), (2, 2)], [(4, 2), (2, 2)], [(0, 2), (2, 2)],
        [(3, 2), (1, 2)], [(4, 2), (0, 2)], [(4, 4)], [(0, 4)],
    ]
    let title = "Study in C major: two voices"
    let d = "Etude's own study that opens level 5: a line in each hand, moving at different times, in the C position, before the Notebook pieces."
    var abc = studyHeader(title, level: 5, description: d, unit: "1/4", tempo: "1/4=80", key: key, parts: "AB")
    // p growing to mf over the first phrase; mf fading to p over the second.
    abc += part("A", "First phrase", rh: withDynamics(positionVoice(key, Array(rh[0..<4]), rightHand: true).replacingOccurrences(of: "|]", with: "|"),
                                                      [0: "!p!!crescendo(!", 3: "!crescendo)!!mf!"]),
                lh: positionVoice(key, Array(lh[0..<4]), rightHand: false).replacingOccurrences(of: "|]", with: "|"))
    abc += part("B", "Second phrase", rh: withDynamics(positionVoice(key, Array(rh[4...]), rightHand: true), [1: "!diminuendo(!", 3: "!diminuendo)!!p!"]),
                lh: positionVoice(key, Array(lh[4...]), rightHand: false))
    return Lesson(level: 5, file: "level5/c-major-two-voices-study.abc", title: title, description: d, abc: abc)
}

/// Level 8 opens with the figures of a Classical sonatina — five-finger runs over an Alberti
/// bass — before Clementi's Op. 36 No. 1.
func sonatinaFiguresStudy() -> Lesson {
    let key = Key.parse("C")
    let rhBars: [[Int]] = [[0, 1, 2, 3, 4, 3, 2, 1], [0, 2, 1, 3, 2, 4, 3, 1], [2, 1, 0, 1, 2, 3, 4, 2]]
    var rw = BarWriter(key: key)
    var rh = rhBars.map { bar in bar.map { rw.note(tone(key, $0, 0), finger: $0 + 1) }.joined() + rw.bar() }.joined(separator: " ")
    rh += " " + rw.note(tone(key, 1, 0), length: "4", finger: 2) + " " + rw.note(tone(key, 0, 0), length: "4", finger: 1) + rw.bar("|]")
    // Alberti on I, IV 6/4, I, then V 6 and the tonic held.
    let chords: [[(Int, Int)]] = [[(0, 5), (2, 3), (4, 1)], [(0, 5), (3, 2), (5, 1)], [(0, 5), (2, 3), (4, 1)], [(-1, 5), (1, 3), (4, 1)]]
    var lw = BarWriter(key: key)
    var lh: [String] = []
    for (i, chord) in chords.enumerated() {
        let c = chord.map { (tone(key, $0.0, -1), $0.1) }
        let figure = i == 3 ? [0, 2, 1, 2] : [0, 2, 1, 2, 0, 2, 1, 2]
        var bar = figure.map { lw.note(c[$0].0, finger: c[$0].1) }.joined()
        if i == 3 { bar += " " + lw.note(tone(key, 0, -1), length: "4", finger: 5) }
        lh.append(bar + lw.bar(i == 3 ? "|]" : "|"))
    }
    let title = "Study in C major: sonatina figures"
    let d = "Etude's own study that opens level 8: five-finger runs in the right hand over an Alberti bass, the figures of Clementi's Op. 36 No. 1."
    var abc = studyHeader(title, level: 8, description: d, unit: "1/8", tempo: "1/4=88", key: key, parts: "AB")
    // The runs mf, swelling to their top in bar 3; hands together f, falling away to the cadence.
    abc += part("A", "Right hand", rh: withDynamics(rh, [0: "!mf!", 1: "!crescendo(!", 2: "!crescendo)!"]), lh: rests(bars: 4, bar: "z8"))
    abc += part("B", "Hands together", rh: withDynamics(rh, [0: "!f!", 2: "!diminuendo(!", 3: "!diminuendo)!!mp!"]), lh: lh.joined(separator: " "))
    return Lesson(level: 8, file: "level8/c-major-sonatina-figures-study.abc", title: title, description: d, abc: abc)
}

/// Level 4 opens with a melody over held bass notes in the C position, before the songs.
func melodyAndBassStudy() -> Lesson {
    let key = Key.parse("C")
    let rh: [[(Int, Int)]] = [
        [(2, 1), (1, 1), (0, 2)], [(1, 1), (2, 1), (3, 2)], [(4, 1), (3, 1), (2, 1), (1, 1)], [(2, 4)],
        [(4, 2), (2, 2)], [(3, 1), (2, 1), (1, 2)], [(2, 1), (1, 1), (1, 1), (3, 1)], [(0, 4)],
    ]
    let lh: [[(Int, Int)]] = [[(0, 4)], [(4, 4)], [(0, 4)], [(0, 4)], [(0, 4)], [(4, 4)], [(0, 2), (4, 2)], [(0, 4)]]
    let title = "Study in C major: melody and bass"
    let d = "Etude's own study that opens level 4: a melody in the right hand over held bass notes in the left, both hands in the C position."
    var abc = studyHeader(title, level: 4, description: d, unit: "1/4", tempo: "1/4=80", key: key, parts: "AB")
    // mp rising to mf at the phrase's top (G); the second phrase falls back to p.
    abc += part("A", "First phrase", rh: withDynamics(positionVoice(key, Array(rh[0..<4]), rightHand: true).replacingOccurrences(of: "|]", with: "|"),
                                                      [0: "!mp!", 1: "!crescendo(!", 2: "!crescendo)!!mf!"]),
                lh: positionVoice(key, Array(lh[0..<4]), rightHand: false).replacingOccurrences(of: "|]", with: "|"))
    abc += part("B", "Second phrase", rh: withDynamics(positionVoice(key, Array(rh[4...]), rightHand: true), [0: "!mf!!diminuendo(!", 3: "!diminuendo)!!p!"]),
                lh: positionVoice(key, Array(lh[4...]), rightHand: false))
    return Lesson(level: 4, file: "level4/c-major-melody-and-bass-study.abc", title: title, description: d, abc: abc)
}
