/// Spelling and fingering for the generated curriculum: notes are written with their proper
/// letter names in the key (F# major has E#, not F), so the ABC reads like a printed score.

let letterSemitone = [0, 2, 4, 5, 7, 9, 11]
let letterNames = ["C", "D", "E", "F", "G", "A", "B"]
let letterFifths = [0, 2, 4, -1, 1, 3, 5]
let sharpOrder = [3, 0, 4, 1, 5, 2, 6]

/// A key as ABC writes it: tonic letter (0 = C … 6 = B), accidental, major or minor.
struct Key {
    var letter: Int
    var accidental: Int
    var minor: Bool

    /// Sharps (positive) or flats (negative) in the signature.
    var sharps: Int { letterFifths[letter] + 7 * accidental - (minor ? 3 : 0) }

    /// Accidental per letter from the signature.
    var signature: [Int] {
        var acc = Array(repeating: 0, count: 7)
        let s = sharps
        if s > 0 { for i in 0..<s { acc[sharpOrder[i]] += 1 } }
        if s < 0 { for i in 0..<(-s) { acc[sharpOrder[6 - i]] -= 1 } }
        return acc
    }

    /// "C", "F#", "Bb" — the tonic as ABC's K: field spells it.
    var tonicABC: String { letterNames[letter] + (accidental > 0 ? "#" : accidental < 0 ? "b" : "") }
    /// "F♯", "B♭" for titles.
    var tonicName: String { letterNames[letter] + (accidental > 0 ? "♯" : accidental < 0 ? "♭" : "") }
    /// "f-sharp", "b-flat" for file names.
    var slug: String { letterNames[letter].lowercased() + (accidental > 0 ? "-sharp" : accidental < 0 ? "-flat" : "") }
    var kField: String { tonicABC + (minor ? "m" : "") }
    var modeName: String { minor ? "minor" : "major" }

    /// MIDI pitch of the tonic in ABC octave `k` (0: the octave starting at middle C).
    func tonicPitch(_ k: Int) -> Int { 60 + letterSemitone[letter] + accidental + 12 * k }

    static func parse(_ s: String) -> Key {
        let chars = Array(s)
        let letter = letterNames.firstIndex(of: String(chars[0])) ?? 0
        var acc = 0
        var rest = chars.dropFirst()
        if rest.first == "#" { acc = 1; rest = rest.dropFirst() } else if rest.first == "b" { acc = -1; rest = rest.dropFirst() }
        return Key(letter: letter, accidental: acc, minor: rest.first == "m")
    }
}

/// A note with its spelling: letter, ABC octave (0 = the middle-C octave) and exact pitch.
struct Spelled {
    var letter: Int
    var octave: Int
    var pitch: Int

    var alteration: Int { pitch - (60 + letterSemitone[letter] + 12 * octave) }

    /// The note `degree` steps above `tonic` in a scale with `offsets` semitones per degree.
    static func degree(_ degree: Int, of key: Key, octave: Int, offsets: [Int]) -> Spelled {
        let n = offsets.count
        let octaves = degree >= 0 ? degree / n : -((-degree + n - 1) / n)
        let step = degree - octaves * n
        let letterSteps = (step * 7) / n  // only used for 7-note scales
        let total = key.letter + letterSteps + 7 * octaves
        let letter = ((total % 7) + 7) % 7
        let oct = octave + (total >= 0 ? total / 7 : -((-total + 6) / 7))
        return Spelled(letter: letter, octave: oct, pitch: key.tonicPitch(octave) + offsets[step] + 12 * octaves)
    }
}

/// Writes ABC note text for one voice, adding accidentals where the key signature or an
/// earlier accidental in the same bar would otherwise give the wrong pitch. It marks every
/// note whose letter was altered earlier in the bar, in any octave, so readers that carry
/// accidentals by octave and readers that carry them across octaves agree.
struct BarWriter {
    let signature: [Int]
    var altered: Set<Int> = []

    init(key: Key) { signature = key.signature }

    mutating func note(_ s: Spelled, length: String = "", finger: Int? = nil) -> String {
        var out = finger.map { "!\($0)!" } ?? ""
        let alt = s.alteration
        if alt != signature[s.letter] || altered.contains(s.letter) {
            switch alt {
            case 2: out += "^^"
            case 1: out += "^"
            case 0: out += "="
            case -1: out += "_"
            default: out += "__"
            }
            if alt != signature[s.letter] { altered.insert(s.letter) }
        }
        var name = letterNames[s.letter]
        if s.octave >= 1 {
            name = name.lowercased() + String(repeating: "'", count: s.octave - 1)
        } else {
            name += String(repeating: ",", count: -s.octave)
        }
        return out + name + length
    }

    mutating func chord(_ notes: [(Spelled, Int?)], length: String) -> String {
        "[" + notes.map { note($0.0, finger: $0.1) }.joined() + "]" + length
    }

    mutating func bar(_ symbol: String = "|") -> String {
        altered = []
        return " \(symbol)"
    }
}

let majorOffsets = [0, 2, 4, 5, 7, 9, 11]
let harmonicMinorOffsets = [0, 2, 3, 5, 7, 8, 11]

/// Standard two-octave scale fingering, ascending from the lower tonic to the top tonic
/// (15 fingers); descending uses the same finger on each note.
enum ScaleFingering {
    static func pattern(_ s: String) -> [Int] { s.compactMap { $0.wholeNumberValue } }

    static func rightHand(_ key: Key) -> [Int] {
        let name = key.tonicABC + (key.minor ? "m" : "")
        switch name {
        case "C", "G", "D", "A", "E", "B", "Am", "Em", "Bm", "Dm", "Gm", "Cm": return pattern("1231234 1231234 5")
        case "F", "Fm": return pattern("1234123 1234123 4")
        case "Bb": return pattern("4123123 4123123 4")
        case "Eb": return pattern("3123412 3123412 3")
        case "Ab": return pattern("3412312 3412312 3")
        case "Db": return pattern("2312341 2312341 2")
        case "F#": return pattern("2341231 2341231 2")
        case "F#m", "C#m", "G#m": return pattern("3412312 3412312 3")
        case "Ebm": return pattern("3123412 3123412 3")
        case "Bbm": return pattern("4123123 4123123 4")
        default: return []
        }
    }

    static func leftHand(_ key: Key) -> [Int] {
        let name = key.tonicABC + (key.minor ? "m" : "")
        switch name {
        case "C", "G", "D", "A", "E", "F", "Am", "Em", "Dm", "Gm", "Cm", "Fm": return pattern("5432132 1432132 1")
        case "B", "Bm": return pattern("4321432 1321432 1")
        case "Bb", "Eb", "Ab", "Db": return pattern("3214321 3214321 3")
        case "F#", "F#m": return pattern("4321321 4321321 4")
        case "C#m", "G#m": return pattern("3214321 3214321 3")
        case "Ebm": return pattern("2143213 2143213 2")
        case "Bbm": return pattern("2132143 2132143 2")
        default: return []
        }
    }
}

/// Arpeggio fingering by the rule piano methods teach: the thumb takes a white key (the root
/// when it is white); in the right hand the notes after the thumb take 2, then 3 — or 4 when
/// the hand spans more than a fifth; the left hand mirrors it. A first note that the pattern
/// gives 4 starts on 2 (right hand, e.g. E♭ major 2-1-2-4) and the outer notes of a white-root
/// arpeggio take 5. This reproduces the published fingerings of the common keys (C major RH
/// 1-2-3-1-2-3-5, LH 5-4-2-1-4-2-1; A♭ major RH 2-1-2-4, LH 2-1-4-2; F♯ major RH 1-2-3).
enum ArpeggioFingering {
    static func isBlack(_ pitch: Int) -> Bool { [1, 3, 6, 8, 10].contains(((pitch % 12) + 12) % 12) }

    /// Fingers for the ascending two-octave arpeggio (7 notes) of `pitches` (root, third, fifth).
    static func fingers(root: Int, third: Int, fifth: Int, rightHand: Bool) -> [Int] {
        let cycle = [root, third, fifth]
        // The thumb's note in the cycle: first white note, root first; all black → root.
        let thumb = [0, 1, 2].first { !isBlack(cycle[$0]) } ?? 0
        let span: (Int, Int) -> Int = { a, b in ((cycle[b] - cycle[a]) % 12 + 12) % 12 }
        var perNote = [0, 0, 0]
        if rightHand {
            let a = (thumb + 1) % 3, b = (thumb + 2) % 3
            perNote[thumb] = 1
            perNote[a] = 2
            perNote[b] = span(thumb, b) > 7 ? 4 : 3
        } else {
            // Left hand ascending: thumb, then a crossing finger, then 2, then thumb again.
            let a = (thumb + 1) % 3, b = (thumb + 2) % 3
            perNote[thumb] = 1
            perNote[a] = span(a, thumb) > 7 ? 4 : 3
            perNote[b] = 2
        }
        var out = (0..<7).map { perNote[$0 % 3] }
        if rightHand {
            if out[0] == 4 { out[0] = 2 }
            if thumb == 0 { out[6] = 5 }
        } else {
            if thumb == 0 { out[0] = 5 }
        }
        return out
    }
}
