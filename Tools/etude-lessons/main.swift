import ABC
import Foundation
import MIDIFile
import MusicXML

// etude-lessons: writes the generated part of the curriculum (Lessons/level1–3/*.abc), then
// compiles every .abc under Lessons/ (generated and hand-written pieces) to the .mid beside
// it and rewrites Lessons/README.md. Run from anywhere: `swift run etude-lessons [LESSONS_DIR]`.

struct Lesson {
    var level: Int
    var file: String
    var title: String
    var description: String
    var abc: String
}

/// The header every generated lesson shares.
func header(_ title: String, level: Int, description: String, meter: String, unit: String, tempo: String, key: Key, parts: String) -> String {
    """
    X:1
    T:\(title)
    %%etude-level \(level)
    %%etude-description \(description)
    M:\(meter)
    L:\(unit)
    Q:\(tempo)
    P:\(parts)
    V:RH name="Right Hand" clef=treble
    V:LH name="Left Hand" clef=bass
    K:\(key.kField)

    """
}

/// One part: its label, its title and the two voices' bars (already including bar lines).
func part(_ label: String, _ title: String, rh: String, lh: String) -> String {
    "P:\(label)\nT:\(title)\nV:RH\n\(rh)\nV:LH\n\(lh)\n"
}

func rests(bars: Int, bar: String) -> String {
    (0..<bars).map { _ in bar }.joined(separator: " | ") + " |"
}

// MARK: Level 1 — five-finger positions

let fivePositions: [(Key, String)] = [
    (Key.parse("C"), "C major"), (Key.parse("G"), "G major"), (Key.parse("F"), "F major"),
    (Key.parse("D"), "D major"), (Key.parse("Am"), "A minor"),
]

/// Degrees (1–5) per bar; a bar of one degree is a whole note.
let stepsPattern: [[Int]] = [[1, 2, 3, 4], [5, 4, 3, 2], [1, 2, 3, 4], [5, 4, 3, 2], [1]]
let thirdsPattern: [[Int]] = [[1, 3, 2, 4], [3, 5, 4, 2], [3, 1, 2, 4], [5, 3, 2, 1], [1]]

/// One voice of a five-finger exercise. `rightHand` fingers 1–5 on degrees 1–5; the left hand
/// has 5 on the tonic; `mirror` plays degree 6−d (contrary motion, same finger as the RH).
func fivefinger(_ key: Key, _ pattern: [[Int]], rightHand: Bool, mirror: Bool = false) -> String {
    let offsets = key.minor ? [0, 2, 3, 5, 7, 8, 10] : majorOffsets
    var w = BarWriter(key: key)
    var out: [String] = []
    for bar in pattern {
        var notes: [String] = []
        for d in bar {
            let degree = mirror ? 6 - d : d
            let s = Spelled.degree(degree - 1, of: key, octave: rightHand ? 0 : -1, offsets: offsets)
            let finger = rightHand ? d : (mirror ? d : 6 - d)
            notes.append(w.note(s, length: bar.count == 1 ? "4" : "", finger: finger))
        }
        out.append(notes.joined(separator: " ") + w.bar())
    }
    return out.joined(separator: " ")
}

func level1() -> [Lesson] {
    var lessons: [Lesson] = []
    for (key, name) in fivePositions {
        let base = "\(key.slug)-\(key.modeName)-five-finger"
        let restBars = rests(bars: 5, bar: "z4")
        do {
            let title = "\(name) five-finger position: hands separately"
            let d = "Five-finger position in \(name), each hand alone: steps, then broken thirds. Fingers 1–5 on the first five notes."
            var abc = header(title, level: 1, description: d, meter: "4/4", unit: "1/4", tempo: "1/4=80", key: key, parts: "ABCD")
            abc += part("A", "Right hand steps", rh: fivefinger(key, stepsPattern, rightHand: true), lh: restBars)
            abc += part("B", "Left hand steps", rh: restBars, lh: fivefinger(key, stepsPattern, rightHand: false))
            abc += part("C", "Right hand thirds", rh: fivefinger(key, thirdsPattern, rightHand: true), lh: restBars)
            abc += part("D", "Left hand thirds", rh: restBars, lh: fivefinger(key, thirdsPattern, rightHand: false))
            lessons.append(Lesson(level: 1, file: "level1/\(base)-separate.abc", title: title, description: d, abc: abc))
        }
        do {
            let title = "\(name) five-finger position: parallel motion"
            let d = "Both hands an octave apart moving the same way in \(name): steps, then broken thirds."
            var abc = header(title, level: 1, description: d, meter: "4/4", unit: "1/4", tempo: "1/4=72", key: key, parts: "AB")
            abc += part("A", "Steps together", rh: fivefinger(key, stepsPattern, rightHand: true), lh: fivefinger(key, stepsPattern, rightHand: false))
            abc += part("B", "Thirds together", rh: fivefinger(key, thirdsPattern, rightHand: true), lh: fivefinger(key, thirdsPattern, rightHand: false))
            lessons.append(Lesson(level: 1, file: "level1/\(base)-parallel.abc", title: title, description: d, abc: abc))
        }
        do {
            let title = "\(name) five-finger position: contrary motion"
            let d = "Hands mirror each other in \(name): the same finger in both hands, moving apart and together."
            var abc = header(title, level: 1, description: d, meter: "4/4", unit: "1/4", tempo: "1/4=72", key: key, parts: "AB")
            abc += part("A", "Steps in contrary motion", rh: fivefinger(key, stepsPattern, rightHand: true), lh: fivefinger(key, stepsPattern, rightHand: false, mirror: true))
            abc += part("B", "Thirds in contrary motion", rh: fivefinger(key, thirdsPattern, rightHand: true), lh: fivefinger(key, thirdsPattern, rightHand: false, mirror: true))
            lessons.append(Lesson(level: 1, file: "level1/\(base)-contrary.abc", title: title, description: d, abc: abc))
        }
    }
    return lessons
}

// MARK: Level 2 — two-octave scales

let majorKeys = ["C", "G", "D", "A", "E", "B", "F#", "Db", "Ab", "Eb", "Bb", "F"].map(Key.parse)
let minorKeys = ["Am", "Em", "Bm", "F#m", "C#m", "G#m", "Ebm", "Bbm", "Fm", "Cm", "Gm", "Dm"].map(Key.parse)

/// Two octaves up and down in eighths, ending on a half note: four bars of 4/4.
func scaleVoice(_ key: Key, rightHand: Bool) -> String {
    let offsets = key.minor ? harmonicMinorOffsets : majorOffsets
    let fingers = rightHand ? ScaleFingering.rightHand(key) : ScaleFingering.leftHand(key)
    precondition(fingers.count == 15, "no fingering for \(key.kField)")
    let degrees = Array(0...14) + Array((1...13).reversed())
    var w = BarWriter(key: key)
    var out = ""
    for (i, d) in degrees.enumerated() {
        let s = Spelled.degree(d, of: key, octave: rightHand ? 0 : -1, offsets: offsets)
        out += w.note(s, finger: fingers[d])
        if i % 8 == 7 { out += w.bar() + " " } else if i % 4 == 3 { out += " " }
    }
    out += w.note(Spelled.degree(0, of: key, octave: rightHand ? 0 : -1, offsets: offsets), length: "4", finger: fingers[0])
    out += w.bar("|]")
    return out
}

func level2() -> [Lesson] {
    var lessons: [Lesson] = []
    for key in majorKeys + minorKeys {
        let kind = key.minor ? "harmonic minor" : "major"
        let title = "\(key.tonicName) \(kind) scale"
        let d = "Two octaves of \(key.tonicName) \(kind) in eighth notes with the standard fingering: right hand, left hand, then hands together."
        var abc = header(title, level: 2, description: d, meter: "4/4", unit: "1/8", tempo: "1/4=80", key: key, parts: "ABC")
        let rest = rests(bars: 4, bar: "z8")
        abc += part("A", "Right hand", rh: scaleVoice(key, rightHand: true), lh: rest)
        abc += part("B", "Left hand", rh: rest, lh: scaleVoice(key, rightHand: false))
        abc += part("C", "Hands together", rh: scaleVoice(key, rightHand: true), lh: scaleVoice(key, rightHand: false))
        let file = "level2/\(key.slug)-\(key.minor ? "harmonic-minor" : "major")-scale.abc"
        lessons.append(Lesson(level: 2, file: file, title: title, description: d, abc: abc))
    }
    return lessons
}

// MARK: Level 3 — arpeggios and cadences

/// Two-octave root-position arpeggio up and down in eighths, ending on a half note: 2 bars.
func arpeggioVoice(_ key: Key, rightHand: Bool) -> String {
    let offsets = key.minor ? harmonicMinorOffsets : majorOffsets
    let octave = rightHand ? 0 : -1
    let up = [0, 2, 4, 7, 9, 11, 14].map { Spelled.degree($0, of: key, octave: octave, offsets: offsets) }
    let fingers = ArpeggioFingering.fingers(root: up[0].pitch, third: up[1].pitch, fifth: up[2].pitch, rightHand: rightHand)
    let order = Array(0...6) + [5, 4, 3, 2, 1]
    var w = BarWriter(key: key)
    var out = ""
    for (i, n) in order.enumerated() {
        out += w.note(up[n], finger: fingers[n])
        if i % 8 == 7 { out += w.bar() + " " } else if i % 4 == 3 { out += " " }
    }
    out += w.note(up[0], length: "4", finger: fingers[0]) + w.bar("|]")
    return out
}

func cadenceVoices(_ key: Key) -> (rh: String, lh: String) {
    let offsets = key.minor ? harmonicMinorOffsets : majorOffsets
    func n(_ d: Int, _ o: Int) -> Spelled { Spelled.degree(d, of: key, octave: o, offsets: offsets) }
    // I (root position), IV 6/4, V 6, I — the close voicing piano methods teach.
    let chords: [[(Spelled, Int?)]] = [
        [(n(0, 0), 1), (n(2, 0), 3), (n(4, 0), 5)],
        [(n(0, 0), 1), (n(3, 0), 3), (n(5, 0), 5)],
        [(n(-1, 0), 1), (n(1, 0), 2), (n(4, 0), 5)],
        [(n(0, 0), 1), (n(2, 0), 3), (n(4, 0), 5)],
    ]
    let bass: [(Spelled, Int)] = [(n(0, -1), 5), (n(3, -1), 2), (n(4, -1), 1), (n(0, -1), 5)]
    var rw = BarWriter(key: key)
    var lw = BarWriter(key: key)
    var rh = "|: "
    var lh = "|: "
    for i in 0..<4 {
        rh += rw.chord(chords[i], length: "2") + " "
        lh += lw.note(bass[i].0, length: "2", finger: bass[i].1) + " "
        if i % 2 == 1 { rh += rw.bar(i == 3 ? ":|" : "|") + " "; lh += lw.bar(i == 3 ? ":|" : "|") + " " }
    }
    return (rh.trimmingCharacters(in: .whitespaces), lh.trimmingCharacters(in: .whitespaces))
}

func level3() -> [Lesson] {
    var lessons: [Lesson] = []
    for key in majorKeys + minorKeys {
        let title = "\(key.tonicName) \(key.modeName) arpeggio"
        let d = "Two-octave root-position arpeggio of \(key.tonicName) \(key.modeName): right hand, left hand, then together."
        var abc = header(title, level: 3, description: d, meter: "4/4", unit: "1/8", tempo: "1/4=72", key: key, parts: "ABC")
        let rest = rests(bars: 2, bar: "z8")
        abc += part("A", "Right hand", rh: arpeggioVoice(key, rightHand: true), lh: rest)
        abc += part("B", "Left hand", rh: rest, lh: arpeggioVoice(key, rightHand: false))
        abc += part("C", "Hands together", rh: arpeggioVoice(key, rightHand: true), lh: arpeggioVoice(key, rightHand: false))
        lessons.append(Lesson(level: 3, file: "level3/\(key.slug)-\(key.modeName)-arpeggio.abc", title: title, description: d, abc: abc))
    }
    for key in majorKeys + minorKeys {
        let numerals = key.minor ? "i–iv–V–i" : "I–IV–V–I"
        let title = "\(numerals) cadence in \(key.tonicName) \(key.modeName)"
        let d = "Primary chords of \(key.tonicName) \(key.modeName) in close position (I, IV 6/4, V 6, I) over the bass roots, played twice."
        var abc = header(title, level: 3, description: d, meter: "4/4", unit: "1/4", tempo: "1/4=60", key: key, parts: "ABC")
        let (rh, lh) = cadenceVoices(key)
        let rest = "|: z4 | z4 :|"
        abc += part("A", "Right-hand chords", rh: rh, lh: rest)
        abc += part("B", "Left-hand bass", rh: rest, lh: lh)
        abc += part("C", "Hands together", rh: rh, lh: lh)
        lessons.append(Lesson(level: 3, file: "level3/\(key.slug)-\(key.modeName)-cadence.abc", title: title, description: d, abc: abc))
    }
    return lessons
}

// MARK: Writing

func lessonsDirectory() -> URL {
    if CommandLine.arguments.count > 1 { return URL(fileURLWithPath: CommandLine.arguments[1]) }
    // Tools/etude-lessons/main.swift → repository root.
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Lessons")
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("etude-lessons: \(message)\n".utf8))
    exit(1)
}

let root = lessonsDirectory()
let generated = level1() + level2() + level3() + level6() + level7() + [melodyAndBassStudy(), twoVoiceStudy(), sonatinaFiguresStudy()]
for lesson in generated {
    let url = root.appendingPathComponent(lesson.file)
    do {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(lesson.abc.utf8).write(to: url)
    } catch {
        fail("\(url.path): cannot write (\(error))")
    }
}

// Compile every .abc (generated and hand-written) to the .mid beside it.
var entries: [(level: Int, path: String, title: String, composer: String, description: String, files: String)] = []
let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
let sources = (enumerator?.compactMap { $0 as? URL } ?? []).filter { $0.pathExtension == "abc" }.sorted { $0.path < $1.path }
for url in sources {
    guard let data = FileManager.default.contents(atPath: url.path) else { fail("\(url.path): cannot read") }
    do {
        let (file, warnings) = try ABCImport.midiFile(fromABCText: String(decoding: data, as: UTF8.self))
        for w in warnings { print("\(url.lastPathComponent): warning: \(w)") }
        let mid = url.deletingPathExtension().appendingPathExtension("mid")
        try Data(MIDIWriter.write(file)).write(to: mid)
        let tags = LessonTags(file: file)
        let relative = String(url.path.dropFirst(root.path.count + 1))
        let stem = String(relative.dropLast(4))
        entries.append((tags.level ?? 0, stem, tags.title ?? relative, tags.composer ?? "", tags.description ?? "",
                        "[abc](\(stem).abc) · [mid](\(stem).mid)"))
    } catch let error as ABCError {
        fail("\(url.path):\(error.oneLine)")
    } catch {
        fail("\(url.path): \(error)")
    }
}

// Scores written as MusicXML are lessons as they are (nothing to compile): listed by their tags.
let scoreFiles = (FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [])
    .filter { $0.pathExtension == "musicxml" }.sorted { $0.path < $1.path }
for url in scoreFiles {
    guard let data = FileManager.default.contents(atPath: url.path) else { fail("\(url.path): cannot read") }
    do {
        let (file, warnings) = try MusicXMLImport.midiFile(fromBytes: [UInt8](data))
        for w in warnings { print("\(url.lastPathComponent): warning: \(w)") }
        let tags = LessonTags(file: file)
        let relative = String(url.path.dropFirst(root.path.count + 1))
        entries.append((tags.level ?? 0, relative, tags.title ?? relative, tags.composer ?? "", tags.description ?? "",
                        "[musicxml](\(relative))"))
    } catch {
        fail("\(url.path): \(error.oneLine)")
    }
}
entries.sort { $0.path < $1.path }

// README: the conventions and the index.
let levelNames = [
    1: "Level 1 — five-finger positions",
    2: "Level 2 — major and harmonic minor scales, two octaves",
    3: "Level 3 — arpeggios and cadences",
    4: "Level 4 — first pieces",
    5: "Level 5 — pieces",
    6: "Level 6 — studies: broken chords and inversions",
    7: "Level 7 — studies: Alberti bass and contrary motion",
    8: "Level 8 — the sonatina",
]
var readme = """
# Etude lessons

Every lesson is an ABC 2.1 file (`.abc`, the source you read and edit) with the Standard MIDI
File compiled from it beside it (`.mid`, what Etude and any other player opens). Etude also
opens the `.abc` directly. Levels 1–3, 6 and 7 and the studies that open levels 4, 5 and 8 are
generated by `swift run etude-lessons`, which also recompiles every `.abc` here (hand-written
pieces included) and rewrites this page; a test checks each `.mid` equals a fresh compile of
its `.abc`.

## Conventions

- **Hands**: each lesson has two voices, `V:RH` and `V:LH` (`name="Right Hand"`, `clef=bass`
  for the left; the Bach prelude adds a second left-hand voice for its held notes). They
  compile to tracks named "Right Hand" and "Left Hand", which is how the lesson engine assigns
  hands.
- **Sections**: `P:` parts in the body (`P:A`, optionally followed by `T:` with the section's
  name) and the playing order in the header (`P:ABC`, `P:A2B`, `P:(AB)2C`) compile to marker
  meta events at each part's start, named `A` or `A: Right hand`.
- **Metadata**: `T:` title, `C:` composer, `%%etude-level N`, `%%etude-description text`
  compile to `LessonTags` text events on the first track: `etude:title=…`, `etude:composer=…`,
  `etude:level=N`, `etude:description=…` (`etude info` shows them).
- **Fingering**: `!1!`…`!5!` before a note (also inside chords: `[!1!C!3!E!5!G]`) compiles to
  a text meta event `etude:finger=<MIDI pitch>:<finger>` on the note's track at the note-on's
  tick, written just before the note-on (e.g. `etude:finger=60:1`: middle C, thumb).
  `Fingering.fingers(in:)` in the ABC module reads them back as (track, tick, pitch) → finger.
- **Spelling**: every note also compiles to `etude:spell=<MIDI pitch>:<name>` beside its
  fingering (same track and tick, before the note-on): the note as the ABC writes it, with the
  key signature and the accidentals in force (`^F` in C is `F#`, `_G` is `Gb`, `B` in K:Bb is
  `Bb`), so a screen can show D♭ rather than C♯ (`Lesson.spelling(of:)` reads it).
- **Scale fingering** is the standard fingering of piano scale books (e.g. C major RH
  1231234 1231234 5, LH 5432132 1432132 1; B♭ major RH 4123123…, LH 3214321…).
  **Arpeggio fingering** follows the rule those books use (thumb on a white key; 4 instead of
  3 when the hand spans more than a fifth; outer notes 5 when the root is white): C major RH
  1231235, LH 5421421; A♭ major RH 2124124, LH 2142142.
- **Grace notes** are not played (a warning says so); chord symbols and lyrics are ignored
  with a warning.
- **Pieces** (levels 4–5) are the composer's notes. Where only the tune is the composer's
  (Ode to Joy, Jingle Bells, the traditional songs) the composer line says "arranged" and the
  ABC says which part is the arrangement. The Notebook pieces (BWV Anh. 114, 115, 126) follow
  the Bach-Gesellschaft text, Für Elise the Breitkopf & Härtel edition and the C major prelude
  the public-domain Mutopia edition; ornaments are left out and each file says what is omitted.
  Each piece's first bars are checked note by note in `Tests/ABCTests/PieceTests.swift`.
- **Studies** (composer "Etude curriculum", titled "Study in …") are Etude's own, generated by
  `Tools/etude-lessons/Studies.swift` and fingered on every note: a melody over a bass (opens
  level 4), two voices (opens level 5), broken chords and chord inversions in every key
  (level 6), Alberti bass and contrary-motion scales in every key (level 7), and sonatina
  figures (opens level 8).
- **Clementi's Sonatina in C, Op. 36 No. 1** (level 8) is complete in its three movements,
  following the G. Schirmer Sonatina Album (1893) as typeset in the public-domain Mutopia
  edition no. 804; the repeats and the Andante's trills are left out, so the bars are numbered
  as printed. `Tests/AppTests/MethodCurriculumTests.swift` checks their bar counts and
  landmark notes, and that the lesson opening each level is fingered on every note.
- **Schumann's Melody, Op. 68 No. 1** (level 5) follows the Peters edition as typeset in the
  Mutopia edition no. 647, with its fingering; the repeat of bars 1-4 is left out, and the inner
  voice of bars 8 and 16 is a second right-hand voice (`V:RH2`).
- **Schumann's Soldiers' March, Op. 68 No. 2** (level 5) follows the Peters edition as typeset
  in the Mutopia edition no. 650; the repeat of bars 17-32 is left out.
- **Cross-check**: every lesson is also converted by `abc2midi`; the tests require the same
  pitches and onsets in every voice.
- **Scores**: a lesson may also be a MusicXML score (`.musicxml`), opened as it is: a two-staff
  piano part (staff 1 right hand, staff 2 left), fingering in `<technical><fingering>`, printed
  bar numbers and repeats as written, and the catalogue fields as
  `<miscellaneous-field name="etude-level">` and `"etude-description"` under `<identification>`.


"""
for level in levelNames.keys.sorted() {
    let rows = entries.filter { $0.level == level }
    guard !rows.isEmpty else { continue }
    readme += "## \(levelNames[level] ?? "Level \(level)") (\(rows.count))\n\n| Lesson | Composer | Files | About |\n|---|---|---|---|\n"
    for r in rows {
        readme += "| \(r.title) | \(r.composer) | \(r.files) | \(r.description) |\n"
    }
    readme += "\n"
}
readme += "\(entries.count) lessons in all.\n"
do {
    try Data(readme.utf8).write(to: root.appendingPathComponent("README.md"))
} catch {
    fail("README.md: cannot write (\(error))")
}
print("etude-lessons: wrote \(generated.count) generated .abc, compiled \(entries.count) lessons in \(root.path)")
