import MIDIFile

/// One note of a note group, its pitch already resolved against key and bar accidentals.
struct GroupNote: Equatable, Sendable {
    var pitch: Int
    var tie: Bool
    var finger: Int?
    /// How the tune writes it: letter and the alteration in force (key, bar accidentals, tie).
    var spelling: SpelledPitch
    /// Letter and octave (`(octave + 20) * 7 + letter`): a tie carries the note's accidental
    /// into the next bar for this key.
    var tieKey: Int
    /// An ornament decoration on it (`!trill!`, `T`, `!mordent!`, `!turn!`…) with the key's
    /// neighbours of the note, played out by `Layout.build`.
    var ornament: Ornament? = nil
    var neighbours: (upper: Int, lower: Int) = (0, 0)

    static func == (a: GroupNote, b: GroupNote) -> Bool {
        a.pitch == b.pitch && a.tie == b.tie && a.finger == b.finger && a.spelling == b.spelling && a.tieKey == b.tieKey
            && a.ornament == b.ornament && a.neighbours == b.neighbours
    }
}

/// A note, chord or rest: everything that starts at one moment and lasts one duration.
struct Group: Equatable, Sendable {
    var notes: [GroupNote]
    var duration: Rational
    var velocity: UInt8
    var line: Int
    var column: Int
    /// A grace note (`{g}`, no time of its own): true for an acciaccatura (`{/g}`), false for
    /// an appoggiatura; nil for a note or rest of the bar's time.
    var grace: Bool? = nil
    /// `!arpeggio!` on a chord: rolled upwards by `Layout.place`.
    var rolled = false
    /// A dynamic decoration written before it (`!mf!`), drawn on the staff.
    var dynamic: String? = nil
    /// Staccato (`.`, `!staccato!`) and tenuto (`!tenuto!`) on its notes (`etude:marks`).
    var marks: [Articulation] = []
    /// Hairpins starting or ending at it (`!<(!`, `!crescendo)!`…) and slurs: `(` before it
    /// (`slurStarts`), `)` after it (`slurEnds`). Drawn, never played.
    var spans = SpanMarks()
}

/// Hairpins and slurs at a note group (`Parser.spanDecoration`, `Parser.slur`).
struct SpanMarks: Equatable, Sendable {
    var hairpins: [Hairpin] = []
    var slurStarts = 0
    var slurEnds = 0
    var isEmpty: Bool { hairpins.isEmpty && slurStarts == 0 && slurEnds == 0 }
}

enum BarKind: Equatable, Sendable {
    case plain, sectionEnd, startRepeat, endRepeat, doubleRepeat
}

/// How far an accidental written on a note carries to the end of its bar
/// (`%%propagate-accidentals`): to no other note, to notes of its letter in its octave, or to
/// notes of its letter in every octave (`pitch`, the ABC 2.1 default).
enum AccidentalPropagation: String, Sendable {
    case not, octave, pitch

    /// The bar-accidental key of a note (letter 0–6, octave), nil when nothing carries.
    func key(letter: Int, octave: Int) -> Int? {
        switch self {
        case .not: return nil
        case .octave: return (octave + 20) * 7 + letter
        case .pitch: return letter
        }
    }
}

extension UInt8 {
    /// 0–6 for the note letters C D E F G A B (either case), nil for anything else.
    var noteLetter: Int? {
        switch self | 0x20 {
        case UInt8(ascii: "c"): return 0
        case UInt8(ascii: "d"): return 1
        case UInt8(ascii: "e"): return 2
        case UInt8(ascii: "f"): return 3
        case UInt8(ascii: "g"): return 4
        case UInt8(ascii: "a"): return 5
        case UInt8(ascii: "b"): return 6
        default: return nil
        }
    }

    /// 0–9 for an ASCII digit.
    var digit: Int? { self >= 0x30 && self <= 0x39 ? Int(self - 0x30) : nil }

    var isASCIILetter: Bool { (self | 0x20) >= UInt8(ascii: "a") && (self | 0x20) <= UInt8(ascii: "z") }
}

/// What a voice's body holds, in source order, before repeats are expanded.
enum Item: Equatable, Sendable {
    case group(Group)
    case bar(BarKind)
    case ending([Int])
    case key(KeySignature)
    case meter(TimeSignature)
    case tempo(Int)
}

/// A voice (`V:`) while its notes are read.
struct Voice {
    var id: String
    var name: String?
    var bass: Bool?
    var key: ABCKey
    var unit: Rational
    var meterLength: Rational?
    /// 6/8, 9/8, 12/8…: changes the default ratio of (5, (7 and (9 tuplets.
    var compoundMeter = false
    var octave = 0
    var velocity: UInt8 = 80
    /// Items per part label, in body order; "" holds anything before the first `P:`.
    var parts: [(label: String, items: [Item])] = []
    /// Accidentals written earlier in the bar, by `AccidentalPropagation.key`.
    var barAccidentals: [Int: Int] = [:]
    /// Notes tied from the group before, by `GroupNote.tieKey`: the next note of that letter and
    /// octave sounds (and is spelled) as the tied one.
    var tieCarry: [Int: (pitch: Int, spelling: SpelledPitch)] = [:]
    var tuplet: (remaining: Int, factor: Rational)?
    var brokenNext: Rational?
    var lastGroup: (part: Int, index: Int)?
    var pendingFinger: Int?
    var pendingOrnament: Ornament?
    /// `!trem1!`…`!trem4!` read before the next note or chord: the strokes of a two-note
    /// tremolo between it and the group before it (`Parser.twoNoteTremolo`).
    var pendingTremolo: (strokes: Int, column: Int, name: String)?
    var pendingRoll = false
    var pendingDynamic: String?
    /// Articulations read before the next note or chord (`articulation(_:)`).
    var pendingMarks: [Articulation] = []
    var pendingSpans = SpanMarks()
    var pendingTie = false
}

/// The metadata and music of one tune, read but not yet laid out in time.
struct ParsedTune {
    var number: Int
    var title: String?
    var composers: [String] = []
    var level: Int?
    var description: String?
    var notes: [String] = []
    var headerKey: ABCKey = ABCKey()
    var headerMeter: TimeSignature?
    var headerMeterLength: Rational?
    var headerCompound = false
    var headerUnit: Rational?
    var headerTempo: Int?
    var partOrder: [String]?
    var partTitles: [String: String] = [:]
    var voices: [Voice] = []
    var voiceOrder: [String] = []
    /// `%%propagate-accidentals`, as it stands where the music is read.
    var propagation: AccidentalPropagation = .pitch
    /// Decoration names by the symbol (`~`, H–W, h–w) a `U:` field gave them.
    var userSymbols: [Character: String] = [:]
}

/// A line of source with its 1-based number.
struct SourceLine {
    var number: Int
    var chars: [Character]
    /// Each character's ASCII byte, 0xFF for any other. Music is read by testing these: a
    /// `Character` comparison costs a string comparison, and reading a big tune through them
    /// took seconds.
    var codes: [UInt8]
    var text: String { String(chars) }

    init(number: Int, chars: [Character]) {
        self.number = number
        self.chars = chars
        codes = chars.map { $0.asciiValue ?? 0xFF }
    }

    /// A line of UTF-8 text: all-ASCII lines (nearly all of a tune) are taken byte by byte.
    init(number: Int, utf8 bytes: ArraySlice<UInt8>) {
        self.number = number
        if bytes.allSatisfy({ $0 < 0x80 }) {
            codes = Array(bytes)
            chars = bytes.map { Character(Unicode.Scalar($0)) }
        } else {
            chars = Array(String(decoding: bytes, as: UTF8.self))
            codes = chars.map { $0.asciiValue ?? 0xFF }
        }
    }
}

/// Reads one tune's lines into a `ParsedTune`. Errors carry line:column; warnings are
/// collected once per construct so a long tune does not drown the user.
struct TuneParser {
    var tune: ParsedTune
    var warnings: [ABCWarning] = []
    private var warnedKeys: Set<String> = []
    private var currentVoice = 0
    private var currentPart = ""
    private var inBody = false

    init(number: Int) {
        tune = ParsedTune(number: number)
    }

    mutating func warnOnce(_ key: String, _ message: String, _ line: SourceLine, _ col: Int) {
        guard !warnedKeys.contains(key) else { return }
        warnedKeys.insert(key)
        warnings.append(ABCWarning(line: line.number, column: col, message: message))
    }

    func error(_ message: String, _ line: SourceLine, _ col: Int) -> ABCError {
        ABCError(line: line.number, column: col, message: message, context: line.text)
    }

    // MARK: - Lines

    /// Parses the tune: `lines` start with the `X:` line and end before the next tune.
    mutating func parse(_ lines: [SourceLine]) throws(ABCError) {
        for line in lines {
            let chars = line.chars
            // A blank line ends the tune; anything after it is free text.
            if inBody && chars.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { break }
            if chars.starts(with: ["%", "%"]) {
                try directive(line)
                continue
            }
            if chars.first == "%" { continue }
            if chars.starts(with: ["+", ":"]) {
                warnOnce("+:", "field continuation +: not supported, ignored", line, 1)
                continue
            }
            if chars.count >= 2, chars[1] == ":", chars[0].isLetter, chars[0].isASCII, !(inBody && isMusicStart(chars)) {
                try field(chars[0], value: String(chars[2...]).stripComment, line: line, column: 3, inline: false)
                continue
            }
            if chars.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            guard inBody else {
                throw error("music before the K: field that ends the tune header (add K:C or the tune's key)", line, 1)
            }
            try music(line)
        }
        if !inBody {
            throw ABCError(line: lines.first?.number ?? 0, column: 1, message: "tune X:\(tune.number) has no K: field, so it has no body (add K:C before the music)", context: lines.first?.text ?? "")
        }
    }

    /// `|:` at the start of a line looks like a field to nobody, but `A:` could be either; in the
    /// body, single-letter fields are only the ones ABC allows there.
    private func isMusicStart(_ chars: [Character]) -> Bool {
        !"KLMPQTVWwNIRmUsr".contains(chars[0])
    }

    private mutating func directive(_ line: SourceLine) throws(ABCError) {
        let text = String(line.chars.dropFirst(2)).stripComment.trimmingSpaces
        let word = text.split(separator: " ").first.map(String.init) ?? ""
        let value = String(text.dropFirst(word.count)).trimmingSpaces
        switch word {
        case "etude-level":
            guard let n = Int(value), n >= 0 else { throw error("%%etude-level needs a whole number, e.g. %%etude-level 2", line, 3) }
            tune.level = n
        case "etude-description":
            tune.description = value
        case "propagate-accidentals":
            if let mode = AccidentalPropagation(rawValue: value.lowercased()) {
                tune.propagation = mode
            } else {
                warnOnce("%%propagate-accidentals", "%%propagate-accidentals \(TextDecoding.sanitize(value)) is not not, octave or pitch; ignored (pitch, the ABC 2.1 default, stays)", line, 1)
            }
        default:
            warnOnce("%%" + word, "directive %%\(word) not supported, ignored", line, 1)
        }
    }

    // MARK: - Fields

    private mutating func field(_ letter: Character, value rawValue: String, line: SourceLine, column: Int, inline: Bool) throws(ABCError) {
        let value = rawValue.trimmingSpaces
        func wrap<T>(_ body: () throws(FieldError) -> T) throws(ABCError) -> T {
            do { return try body() } catch { throw self.error(error.message, line, column) }
        }
        var fieldWarnings: [String] = []
        defer {
            for w in fieldWarnings { warnOnce("\(letter):" + w, w, line, column) }
        }
        switch letter {
        case "X":
            break
        case "T":
            if inBody {
                if !currentPart.isEmpty, tune.partTitles[currentPart] == nil { tune.partTitles[currentPart] = value }
            } else if tune.title == nil {
                tune.title = value
            }
        case "C":
            tune.composers.append(value)
        case "N":
            tune.notes.append(value)
        case "A", "B", "D", "F", "G", "H", "O", "R", "S", "Z":
            break  // information fields: no effect on the sound, kept out of the MIDI
        case "L":
            let unit = try wrap { () throws(FieldError) in try FieldParser.fraction(value) }
            if inBody { ensureVoice(); tune.voices[currentVoice].unit = unit } else { tune.headerUnit = unit }
        case "M":
            let (sig, length) = try wrap { () throws(FieldError) in try FieldParser.meter(value) { fieldWarnings.append($0) } }
            if inBody {
                ensureVoice()
                tune.voices[currentVoice].meterLength = length
                tune.voices[currentVoice].compoundMeter = sig.map { $0.numerator % 3 == 0 && $0.numerator > 3 } ?? false
                if let sig { append(.meter(sig)) }
            } else {
                tune.headerMeter = sig
                tune.headerMeterLength = length
                tune.headerCompound = sig.map { $0.numerator % 3 == 0 && $0.numerator > 3 } ?? false
            }
        case "Q":
            let unit = inBody ? voiceUnit : (tune.headerUnit ?? defaultUnit)
            let us = try wrap { () throws(FieldError) in try FieldParser.tempo(value, unit: unit) { fieldWarnings.append($0) } }
            if let us {
                if inBody { append(.tempo(us)) } else { tune.headerTempo = us }
            }
        case "P":
            if inBody {
                let label = value.split(separator: " ").first.map(String.init) ?? ""
                guard !label.isEmpty else { throw error("P: in the body needs a part label, e.g. P:A", line, column) }
                currentPart = label
            } else {
                tune.partOrder = try wrap { () throws(FieldError) in try Self.partOrder(value) }
            }
        case "K":
            if !inBody {
                let (key, clef) = try wrap { () throws(FieldError) in try FieldParser.key(value, current: ABCKey()) { fieldWarnings.append($0) } }
                tune.headerKey = key
                inBody = true
                // Voices declared in the header take the tune's key and units now.
                for i in tune.voices.indices { adoptHeader(&tune.voices[i]) }
                if tune.voices.isEmpty {
                    // A tune with no V: has one voice; the K: clef tells which hand.
                    ensureVoice()
                }
                if let bass = clef.bass { tune.voices[0].bass = tune.voices[0].bass ?? bass }
                if let o = clef.octave { tune.voices[0].octave = o }
            } else {
                ensureVoice()
                let (key, clef) = try wrap { () throws(FieldError) in try FieldParser.key(value, current: tune.voices[currentVoice].key) { fieldWarnings.append($0) } }
                setKey(key)
                if let bass = clef.bass { tune.voices[currentVoice].bass = bass }
                if let o = clef.octave { tune.voices[currentVoice].octave = o }
            }
        case "V":
            try voiceField(value, line: line, column: column)
        case "W", "w":
            warnOnce("lyrics", "lyrics (\(letter):) are not sung, ignored", line, 1)
        case "I":
            warnOnce("I:", "instruction field I: not supported, ignored", line, 1)
        case "U":
            userSymbol(value, line: line, column: column)
        case "m", "s", "r":
            warnOnce("\(letter):", "field \(letter): not supported, ignored", line, 1)
        default:
            warnOnce("\(letter):", "unknown field \(letter): ignored", line, 1)
        }
        _ = inline
    }

    /// `U: T = !trill!`: the symbol (`~`, H–W or h–w) stands for the decoration from here on.
    /// A definition Etude cannot read is a warning, never an error.
    private mutating func userSymbol(_ value: String, line: SourceLine, column: Int) {
        let parts = value.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
        guard parts.count == 2, parts[0].count == 1, let symbol = parts[0].first,
              symbol == "~" || ("H"..."W").contains(symbol) || ("h"..."w").contains(symbol) else {
            warnOnce("U:" + value, "U: \(TextDecoding.sanitize(value)) does not define a symbol (~, H–W or h–w = !decoration!), ignored", line, column)
            return
        }
        var name = Substring(parts[1])
        if name.count >= 2, let f = name.first, f == "!" || f == "+", name.last == f {
            name = name.dropFirst().dropLast()
        }
        tune.userSymbols[symbol] = String(name)
    }

    static func partOrder(_ text: String) throws(FieldError) -> [String] {
        // A B C letters, digits repeat the previous part or group, (AB)2 groups, dots are spacing.
        let chars = Array(text.filter { $0 != " " && $0 != "." })
        var i = 0
        var depth = 0
        func readSeq(_ closing: Bool) throws(FieldError) -> [String] {
            depth += 1
            defer { depth -= 1 }
            guard depth <= 8 else { throw FieldError("P: \(text) nests parentheses too deeply") }
            var out: [String] = []
            var last: [String] = []
            while i < chars.count {
                let c = chars[i]
                if c == ")" {
                    guard closing else { throw FieldError("unbalanced ) in P: \(text)") }
                    i += 1
                    return out
                }
                if c == "(" {
                    i += 1
                    last = try readSeq(true)
                    out += last
                } else if c.isNumber {
                    var n = 0
                    while i < chars.count, let d = chars[i].wholeNumberValue { n = min(1000, n * 10 + d); i += 1 }
                    guard (1...16).contains(n) else { throw FieldError("repeat count \(n) in P: \(text) (use 1 to 16)") }
                    for _ in 1..<n { out += last }
                    continue
                } else if c.isLetter {
                    last = [String(c)]
                    out += last
                    i += 1
                } else {
                    throw FieldError("unexpected \"\(c)\" in P: \(text)")
                }
                if c == "(" { continue }
            }
            if closing { throw FieldError("missing ) in P: \(text)") }
            return out
        }
        return try readSeq(false)
    }

    private var defaultUnit: Rational {
        if let m = tune.headerMeterLength, m < Rational(3, 4) { return Rational(1, 16) }
        return Rational(1, 8)
    }

    private var voiceUnit: Rational {
        tune.voices.indices.contains(currentVoice) ? tune.voices[currentVoice].unit : (tune.headerUnit ?? defaultUnit)
    }

    private func adoptHeader(_ v: inout Voice) {
        v.key = tune.headerKey
        v.unit = tune.headerUnit ?? defaultUnit
        v.meterLength = tune.headerMeterLength
        v.compoundMeter = tune.headerCompound
    }

    private mutating func newVoice(_ id: String) -> Int {
        var v = Voice(id: id, key: tune.headerKey, unit: tune.headerUnit ?? defaultUnit)
        if inBody { adoptHeader(&v) }
        tune.voices.append(v)
        tune.voiceOrder.append(id)
        return tune.voices.count - 1
    }

    /// Makes sure music has a voice to go to: the implicit voice "1" of a tune without V:.
    private mutating func ensureVoice() {
        if tune.voices.isEmpty { currentVoice = newVoice("1") }
    }

    private mutating func voiceField(_ value: String, line: SourceLine, column: Int) throws(ABCError) {
        let tokens = FieldParser.splitTokens(value)
        guard let id = tokens.first else { throw error("V: needs a voice id, e.g. V:1 or V:RH", line, column) }
        let index = tune.voices.firstIndex { $0.id == id } ?? newVoice(id)
        currentVoice = index
        for token in tokens.dropFirst() {
            let lower = token.lowercased()
            if let eq = token.firstIndex(of: "=") {
                let k = token[..<eq].lowercased()
                var v = String(token[token.index(after: eq)...])
                if v.hasPrefix("\"") && v.hasSuffix("\"") && v.count >= 2 { v = String(v.dropFirst().dropLast()) }
                switch k {
                case "name", "nm":
                    tune.voices[index].name = v
                case "subname", "snm":
                    if tune.voices[index].name == nil { tune.voices[index].name = v }
                case "clef":
                    let l = v.lowercased()
                    tune.voices[index].bass = l.hasPrefix("bass") || l.hasPrefix("baritone") || l.hasPrefix("f")
                    if l.hasSuffix("-8") { tune.voices[index].octave -= 1 }
                    if l.hasSuffix("+8") { tune.voices[index].octave += 1 }
                case "octave":
                    guard let n = Int(v), (-4...4).contains(n) else { throw error("octave= needs a number from -4 to 4", line, column) }
                    tune.voices[index].octave = n
                case "middle", "m", "stem", "stems", "staffscale", "stafflines", "space", "gstem", "dyn", "lyrics":
                    break  // layout only
                default:
                    warnOnce("V:\(k)", "V: \(k)= not supported, ignored", line, column)
                }
            } else if ["bass", "bass3", "baritone"].contains(lower) {
                tune.voices[index].bass = true
            } else if ["treble", "alto", "tenor"].contains(lower) {
                tune.voices[index].bass = false
            } else {
                warnOnce("V:" + lower, "V: \"\(token)\" not supported, ignored", line, column)
            }
        }
    }

    // MARK: - Items

    /// Appends in place: a copy of the voice here would copy its items on every note, and
    /// reading a tune would take time in the square of its length.
    private mutating func append(_ item: Item) {
        ensureVoice()
        let vi = currentVoice
        if tune.voices[vi].parts.last?.label != currentPart || tune.voices[vi].parts.isEmpty {
            // Same label twice in the body continues that part.
            tune.voices[vi].parts.append((currentPart, []))
        }
        let last = tune.voices[vi].parts.count - 1
        tune.voices[vi].parts[last].items.append(item)
        if case .group = item { tune.voices[vi].lastGroup = (last, tune.voices[vi].parts[last].items.count - 1) }
    }

    private mutating func setKey(_ key: ABCKey) {
        tune.voices[currentVoice].key = key
        tune.voices[currentVoice].barAccidentals = [:]
        if let sig = key.signature { append(.key(sig)) }
    }

    // MARK: - Music lines

    private mutating func music(_ line: SourceLine) throws(ABCError) {
        ensureVoice()
        let c = line.chars
        let k = line.codes
        var i = 0
        func peek(_ n: Int) -> UInt8 { i + n < k.count ? k[i + n] : 0 }
        while i < c.count {
            let ch = c[i]
            let col = i + 1
            // Symbols a U: field redefines mean what it says, whatever they meant before.
            if !tune.userSymbols.isEmpty, let name = tune.userSymbols[ch] {
                decoration(name, line, col, symbol: ch)
                i += 1
                continue
            }
            switch k[i] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "`"), UInt8(ascii: "$"):
                i += 1
            case UInt8(ascii: "%"):
                return
            case UInt8(ascii: "\\"):
                i += 1  // line continuation
            case UInt8(ascii: "\""):
                guard let end = c[(i + 1)...].firstIndex(of: "\"") else { throw error("unterminated \"text\" (add the closing \")", line, col) }
                let text = String(c[(i + 1)..<end])
                if let f = text.first, "^_<>@".contains(f) {
                    // Annotation: printed text only.
                } else {
                    warnOnce("gchord", "chord symbols such as \"\(text)\" are not played, ignored", line, col)
                }
                i = end + 1
            case UInt8(ascii: "!"), UInt8(ascii: "+"):
                i = decorationOrBreak(c, i, line)
            case UInt8(ascii: "T") where tune.voices.indices.contains(currentVoice):
                // ABC 2.1's default meaning of T: a trill.
                tune.voices[currentVoice].pendingOrnament = .trill
                i += 1
            case UInt8(ascii: "M") where tune.voices.indices.contains(currentVoice), UInt8(ascii: "P") where tune.voices.indices.contains(currentVoice):
                // ABC 2.1's default meanings of M and P: !lowermordent! and !uppermordent!.
                tune.voices[currentVoice].pendingOrnament = ch == "M" ? .mordent : .invertedMordent
                i += 1
            case UInt8(ascii: ".") where peek(1) != UInt8(ascii: "|") && articulation("."):
                i += 1
            case UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "H"), UInt8(ascii: "L"), UInt8(ascii: "M"), UInt8(ascii: "O"),
                 UInt8(ascii: "P"), UInt8(ascii: "S"), UInt8(ascii: "T"), UInt8(ascii: "u"), UInt8(ascii: "v"), UInt8(ascii: "J"),
                 UInt8(ascii: "R"):
                warnOnce("deco" + String(ch), "decoration \"\(ch)\" not played, ignored", line, col)
                i += 1
            case UInt8(ascii: "I"), UInt8(ascii: "K"), UInt8(ascii: "N"), UInt8(ascii: "Q"), UInt8(ascii: "U"), UInt8(ascii: "V"),
                 UInt8(ascii: "W"), UInt8(ascii: "h")...UInt8(ascii: "t"), UInt8(ascii: "w"):
                // Symbols a tune may define with U: (H–W, h–w); this one it did not.
                warnOnce("symbol" + String(ch), "symbol \"\(ch)\" has no meaning (no U: field defines it), ignored", line, col)
                i += 1
            case UInt8(ascii: "{"):
                guard let end = c[(i + 1)...].firstIndex(of: "}") else { throw error("unterminated grace notes { (add the closing })", line, col) }
                try graces(c, &i, end: end, line)
            case UInt8(ascii: "("):
                if peek(1).digit != nil {
                    i += 1
                    try tuplet(c, &i, line)
                } else {
                    i += 1
                    slur(start: true)
                }
            case UInt8(ascii: ")"):
                i += 1
                slur(start: false)
            case UInt8(ascii: "&"):
                warnOnce("overlay", "voice overlay & not supported; notes after it up to the bar line are ignored", line, col)
                while i < c.count, k[i] != UInt8(ascii: "|"), k[i] != UInt8(ascii: ":") { i += 1 }
            case UInt8(ascii: "-"):
                markTie()
                i += 1
            case UInt8(ascii: ">"), UInt8(ascii: "<"):
                var n = 0
                let mark = k[i]
                while i < c.count, k[i] == mark { n += 1; i += 1 }
                guard n <= 3 else { throw error("broken rhythm with more than three \(ch)", line, col) }
                try broken(ch == ">", n, line, col)
            case UInt8(ascii: "|"), UInt8(ascii: ":"):
                if ch == ":" && peek(1) != UInt8(ascii: "|") && peek(1) != UInt8(ascii: ":") {
                    throw error("unexpected ':' (repeat signs are |: :| ::)", line, col)
                }
                try barLine(c, &i, line)
            case UInt8(ascii: "["):
                if peek(1) == UInt8(ascii: "|") {
                    try barLine(c, &i, line)
                } else if peek(1).digit != nil {
                    i += 1
                    try ending(c, &i, line)
                } else if peek(1).isASCIILetter, peek(2) == UInt8(ascii: ":") {
                    let l = c[i + 1]
                    guard let end = c[i...].firstIndex(of: "]") else { throw error("unterminated inline field [\(l): (add ])", line, col) }
                    let value = String(c[(i + 3)..<end])
                    try inlineField(l, value, line, col)
                    i = end + 1
                } else {
                    try chord(c, &i, line)
                }
            case UInt8(ascii: "]"):
                throw error("unexpected ']' with no matching '['", line, col)
            case UInt8(ascii: "z"), UInt8(ascii: "x"), UInt8(ascii: "Z"), UInt8(ascii: "X"):
                i += 1
                let (mult, _) = try length(c, &i, line)
                var duration: Rational
                if ch == "Z" || ch == "X" {
                    guard let bar = tune.voices[currentVoice].meterLength else { throw error("multi-bar rest \(ch) needs a meter (M:)", line, col) }
                    // Z4 is four bars; the number is a count, not a length.
                    duration = bar * Rational(mult.num, mult.den)
                } else {
                    duration = tune.voices[currentVoice].unit * mult
                }
                addGroup(notes: [], duration: &duration, line, col)
            case UInt8(ascii: "y"):
                i += 1
                _ = try length(c, &i, line)
            case UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "="), UInt8(ascii: "A")...UInt8(ascii: "G"), UInt8(ascii: "a")...UInt8(ascii: "g"):
                let (note, mult) = try note(c, &i, line)
                var duration = tune.voices[currentVoice].unit * mult
                addGroup(notes: [note], duration: &duration, line, col)
            default:
                if k[i].digit != nil || ch == "/" {
                    throw error("note length \"\(ch)\" with no note before it", line, col)
                } else {
                    throw error("unexpected character '\(ch)'", line, col)
                }
            }
        }
    }

    /// Reads a decoration `!name!` or `+name+` starting at `i` and returns where reading goes
    /// on. ABC 2.0 used a lone `!` as a line break, and real tunes still have one: a `!` with no
    /// closing `!` on the line, or one whose "name" holds a space or a bar line, is read as
    /// such a break (warned about once) and the music after it is read.
    private mutating func decorationOrBreak(_ c: [Character], _ i: Int, _ line: SourceLine) -> Int {
        let mark = c[i]
        if let end = c[(i + 1)...].firstIndex(of: mark) {
            let name = c[(i + 1)..<end]
            if name.count <= 40 && !name.contains(where: { $0 == " " || $0 == "|" }) {
                decoration(String(name), line, i + 1)
                return end + 1
            }
        }
        warnOnce("lone" + String(mark), "\(mark) with no decoration name closing it (an ABC 2.0 line break?), ignored", line, i + 1)
        return i + 1
    }

    /// Fingering and dynamics are played; any other decoration, known to ABC or not, is
    /// skipped with one warning per name (never an error: tunes carry many Etude cannot play).
    /// `symbol` is the letter a U: field gave the decoration, if it came from one.
    private static let velocities: [String: UInt8] = ["pppp": 30, "ppp": 30, "pp": 45, "p": 60, "mp": 75, "mf": 90, "f": 105, "ff": 120, "fff": 127, "ffff": 127]

    /// Ornament decorations, played out as a pianist plays them (`Ornament.realize`).
    private static let ornaments: [String: Ornament] = [
        "trill": .trill, "mordent": .mordent, "lowermordent": .mordent, "uppermordent": .invertedMordent,
        "pralltriller": .invertedMordent, "turn": .turn, "invertedturn": .invertedTurn,
        "/": .tremolo8, "//": .tremolo16, "///": .tremolo32,
    ]

    private mutating func decoration(_ name: String, _ line: SourceLine, _ col: Int, symbol: Character? = nil) {
        if articulation(name) { return }
        if name.utf8.count == 1, let n = name.utf8.first?.digit, (1...5).contains(n) {
            tune.voices[currentVoice].pendingFinger = n
        } else if let v = Self.velocities[name] {
            tune.voices[currentVoice].velocity = v
            tune.voices[currentVoice].pendingDynamic = name
        } else if let o = Self.ornaments[name] {
            tune.voices[currentVoice].pendingOrnament = o
        } else if name == "arpeggio" {
            tune.voices[currentVoice].pendingRoll = true
        } else if name.count == 5, name.hasPrefix("trem"), let n = name.last?.wholeNumberValue, (1...4).contains(n) {
            ensureVoice()
            tune.voices[currentVoice].pendingTremolo = (n, col, name)
        } else if spanDecoration(name) {
        } else if let symbol {
            warnOnce("!" + name, "decoration !\(TextDecoding.sanitize(name))! (symbol \(symbol) of U:) not played, ignored", line, col)
        } else {
            warnOnce("!" + name, "decoration !\(TextDecoding.sanitize(name))! not played, ignored", line, col)
        }
    }

    /// Staccato (`.` before a note, `!staccato!`) and tenuto (`!tenuto!`): the articulations the
    /// MusicXML reader gives, carried as `etude:marks` on every note of the next note or chord
    /// (the staff draws them; the ear judges its release by them). The sound keeps its written
    /// length. True when `name` was one of them.
    private mutating func articulation(_ name: String) -> Bool {
        let mark: Articulation
        switch name {
        case ".", "staccato": mark = .staccato
        case "tenuto": mark = .tenuto
        default: return false
        }
        ensureVoice()
        if !tune.voices[currentVoice].pendingMarks.contains(mark) { tune.voices[currentVoice].pendingMarks.append(mark) }
        return true
    }

    /// ABC 2.1's hairpin decorations, drawn on the staff and followed by the ear.
    private static let hairpins: [String: Hairpin] = [
        "<(": .crescendo, "crescendo(": .crescendo, ">(": .diminuendo, "diminuendo(": .diminuendo, "decrescendo(": .diminuendo,
        "<)": .stop, "crescendo)": .stop, ">)": .stop, "diminuendo)": .stop, "decrescendo)": .stop,
    ]

    /// A hairpin decoration: it starts (or ends) at the next note. True when `name` is one.
    private mutating func spanDecoration(_ name: String) -> Bool {
        guard let h = Self.hairpins[name] else { return false }
        // A note takes a start and a stop at most; more of them are one mark written again.
        if tune.voices[currentVoice].pendingSpans.hairpins.count < 4 { tune.voices[currentVoice].pendingSpans.hairpins.append(h) }
        return true
    }

    /// A slur: `(` starts one at the next note, `)` ends one at the note just written.
    private mutating func slur(start: Bool) {
        let vi = currentVoice
        if start {
            tune.voices[vi].pendingSpans.slurStarts += 1
            return
        }
        guard let (p, idx) = tune.voices[vi].lastGroup, tune.voices[vi].parts.indices.contains(p),
              tune.voices[vi].parts[p].items.indices.contains(idx),
              case .group(var g) = tune.voices[vi].parts[p].items[idx] else { return }
        g.spans.slurEnds += 1
        tune.voices[vi].parts[p].items[idx] = .group(g)
    }

    private mutating func inlineField(_ letter: Character, _ value: String, _ line: SourceLine, _ col: Int) throws(ABCError) {
        switch letter {
        case "K", "M", "L", "Q", "V", "P", "T", "N", "R", "I", "r", "U":
            try field(letter, value: value, line: line, column: col, inline: true)
        default:
            warnOnce("[\(letter):", "inline field [\(letter):…] not supported, ignored", line, col)
        }
    }

    private mutating func tuplet(_ c: [Character], _ i: inout Int, _ line: SourceLine) throws(ABCError) {
        let col = i
        let k = line.codes
        func number() -> Int? {
            var n: Int?
            while i < k.count, let d = k[i].digit { n = min(1000, (n ?? 0) * 10 + d); i += 1 }
            return n
        }
        guard let p = number(), p >= 2, p <= 9 else { throw error("tuplet (p needs p from 2 to 9", line, col) }
        var q: Int?
        var r: Int?
        if i < c.count, k[i] == UInt8(ascii: ":") {
            i += 1
            q = number()
            if i < c.count, k[i] == UInt8(ascii: ":") {
                i += 1
                r = number()
            }
        }
        let compound = tune.voices[currentVoice].compoundMeter
        let defaultQ: Int
        switch p {
        case 2, 4, 8: defaultQ = 3
        case 3, 6: defaultQ = 2
        default: defaultQ = compound ? 3 : 2
        }
        let qq = q ?? defaultQ
        guard qq > 0, qq <= 64 else { throw error("tuplet (\(p):\(qq) needs q from 1 to 64", line, col) }
        if let r, !(1...64).contains(r) { throw error("tuplet (\(p):\(qq):\(r) needs r from 1 to 64", line, col) }
        tune.voices[currentVoice].tuplet = (r ?? p, Rational(qq, p))
    }

    private mutating func markTie() {
        guard let (p, idx) = tune.voices[currentVoice].lastGroup else { return }
        if case .group(var g) = tune.voices[currentVoice].parts[p].items[idx] {
            for k in g.notes.indices { g.notes[k].tie = true }
            tune.voices[currentVoice].parts[p].items[idx] = .group(g)
            // A tie written after the group still carries its accidentals into the next note.
            tune.voices[currentVoice].tieCarry = tieCarryFromGroup(g)
        }
    }

    private func tieCarryFromGroup(_ g: Group) -> [Int: (pitch: Int, spelling: SpelledPitch)] {
        var out: [Int: (pitch: Int, spelling: SpelledPitch)] = [:]
        for n in g.notes where n.tie { out[n.tieKey] = (n.pitch, n.spelling) }
        return out
    }

    private mutating func broken(_ forward: Bool, _ n: Int, _ line: SourceLine, _ col: Int) throws(ABCError) {
        guard let (p, idx) = tune.voices[currentVoice].lastGroup,
              idx == tune.voices[currentVoice].parts[p].items.count - 1,
              case .group(var g) = tune.voices[currentVoice].parts[p].items[idx] else {
            throw error("broken rhythm \(forward ? ">" : "<") must sit between two notes in the same bar", line, col)
        }
        let short = Rational(1, 1 << n)
        let long = Rational(2, 1) - short
        g.duration = g.duration * (forward ? long : short)
        tune.voices[currentVoice].parts[p].items[idx] = .group(g)
        tune.voices[currentVoice].brokenNext = forward ? short : long
    }

    /// Changes the voice in place (a copy of it would copy its items: see `append`).
    private mutating func addGroup(notes: [GroupNote], duration: inout Rational, _ line: SourceLine, _ col: Int) {
        let vi = currentVoice
        if let t = tune.voices[vi].tuplet {
            duration = duration * t.factor
            tune.voices[vi].tuplet = t.remaining > 1 ? (t.remaining - 1, t.factor) : nil
        }
        if let b = tune.voices[vi].brokenNext {
            duration = duration * b
            tune.voices[vi].brokenNext = nil
        }
        var g = Group(notes: notes, duration: duration, velocity: tune.voices[vi].velocity, line: line.number, column: col)
        g.rolled = tune.voices[vi].pendingRoll && notes.count > 1
        if !notes.isEmpty {
            g.dynamic = tune.voices[vi].pendingDynamic
            tune.voices[vi].pendingDynamic = nil
            g.spans = tune.voices[vi].pendingSpans
            tune.voices[vi].pendingSpans = SpanMarks()
        }
        g.marks = notes.isEmpty ? [] : tune.voices[vi].pendingMarks
        tune.voices[vi].pendingMarks = []
        tune.voices[vi].pendingRoll = false
        tune.voices[vi].tieCarry = tieCarryFromGroup(g)
        if let trem = tune.voices[vi].pendingTremolo {
            tune.voices[vi].pendingTremolo = nil
            twoNoteTremolo(&g, strokes: trem.strokes, name: trem.name, line, trem.column)
        }
        append(.group(g))
    }

    /// abcm2ps's two-note tremolo: `!tremN!` on the second of two notes (or chords) of the same
    /// written length, straight after the first; each keeps its time (the pair lasts both, and
    /// abcm2ps draws each head at twice its written value), and each alternates with the other
    /// in notes of N beams more than its drawn head has (`Ornament.tremolo(strokes:alternating:)`,
    /// as MusicXML's start/stop tremolo is played; chords pair their notes in order). Any other
    /// placement is warned about and the notes are played as written.
    private mutating func twoNoteTremolo(_ g: inout Group, strokes: Int, name: String, _ line: SourceLine, _ col: Int) {
        let vi = currentVoice
        guard let (p, idx) = tune.voices[vi].lastGroup, tune.voices[vi].parts.indices.contains(p),
              p == tune.voices[vi].parts.count - 1, idx == tune.voices[vi].parts[p].items.count - 1,
              case .group(var first) = tune.voices[vi].parts[p].items[idx], first.grace == nil, g.grace == nil,
              !first.notes.isEmpty, !g.notes.isEmpty, first.duration == g.duration, g.duration > .zero else {
            warnOnce("!" + name + "@", "decoration !\(name)! is not on the second of two notes of the same length; played as written", line, col)
            return
        }
        // The drawn head (twice the written length, in wholes) has a flag per halving below a quarter.
        var beams = strokes
        var drawn = g.duration * Rational(2)
        while drawn < Rational(1, 4), beams < 8 { beams += 1; drawn = drawn * Rational(2) }
        let o = Ornament.tremolo(strokes: beams, alternating: true)
        for k in g.notes.indices {
            let partner = first.notes[k % first.notes.count].pitch
            g.notes[k].ornament = o
            g.notes[k].neighbours = (partner, partner)
        }
        for k in first.notes.indices {
            let partner = g.notes[k % g.notes.count].pitch
            first.notes[k].ornament = o
            first.notes[k].neighbours = (partner, partner)
        }
        tune.voices[vi].parts[p].items[idx] = .group(first)
    }

    // MARK: - Notes

    /// Reads one note (accidental, letter, octave marks, length, tie) and resolves its pitch and
    /// spelling against the key, the accidentals written earlier in the bar (as far as
    /// `%%propagate-accidentals` carries them) and a tie from the note before.
    private mutating func note(_ c: [Character], _ i: inout Int, _ line: SourceLine) throws(ABCError) -> (GroupNote, Rational) {
        let col = i + 1
        let k = line.codes
        var acc: Int?
        while i < c.count {
            let a = k[i]
            guard a == UInt8(ascii: "^") || a == UInt8(ascii: "_") || a == UInt8(ascii: "=") else { break }
            let step = a == UInt8(ascii: "^") ? 1 : a == UInt8(ascii: "_") ? -1 : 0
            acc = step == 0 ? 0 : (acc ?? 0) + step
            i += 1
            if i < c.count, k[i] == UInt8(ascii: "/") || (k[i].digit != nil && i + 1 < c.count && k[i + 1] == UInt8(ascii: "/")) {
                warnOnce("microtone", "microtonal accidentals not supported; played as a semitone", line, col)
                while i < c.count, k[i] == UInt8(ascii: "/") || k[i].digit != nil { i += 1 }
            }
        }
        guard i < c.count, let li = k[i].noteLetter else {
            throw error("accidental with no note after it", line, col)
        }
        let letter = c[i]
        i += 1
        var octave = k[i - 1] >= UInt8(ascii: "a") ? 1 : 0
        while i < c.count {
            let a = k[i]
            guard a == UInt8(ascii: "'") || a == UInt8(ascii: ",") else { break }
            octave += a == UInt8(ascii: "'") ? 1 : -1
            i += 1
        }
        let vi = currentVoice
        let tieKey = (octave + 20) * 7 + li
        let barKey = tune.propagation.key(letter: li, octave: octave)
        let alteration: Int
        var tied: (pitch: Int, spelling: SpelledPitch)?
        if let a = acc {
            alteration = a
            if let barKey { tune.voices[vi].barAccidentals[barKey] = a }
        } else if let t = tune.voices[vi].tieCarry[tieKey] {
            tied = t
            alteration = t.spelling.alter
        } else if let barKey, let a = tune.voices[vi].barAccidentals[barKey] {
            alteration = a
        } else {
            alteration = tune.voices[vi].key.accidentals[li]
        }
        let pitch = tied?.pitch ?? (60 + ABCKey.letterSemitone[li] + 12 * (octave + tune.voices[vi].octave) + alteration)
        guard (0...127).contains(pitch) else { throw error("note \(letter) is outside the MIDI range 0–127", line, col) }
        // Alterations past a double sharp or flat (^^^C) sound but cannot be spelled: the
        // nearest spelling of that letter is kept.
        let spelling = tied?.spelling ?? SpelledPitch(letter: li, alter: max(-2, min(2, alteration)))
        let (mult, _) = try length(c, &i, line)
        var tie = false
        if i < c.count, k[i] == UInt8(ascii: "-") { tie = true; i += 1 }
        let finger = tune.voices[vi].pendingFinger
        tune.voices[vi].pendingFinger = nil
        var out = GroupNote(pitch: pitch, tie: tie, finger: finger, spelling: spelling, tieKey: tieKey)
        if let o = tune.voices[vi].pendingOrnament {
            tune.voices[vi].pendingOrnament = nil
            let key = tune.voices[vi].key.accidentals
            let base = pitch - alteration - ABCKey.letterSemitone[li]
            let up = (li + 1) % 7, down = (li + 6) % 7
            out.ornament = o
            out.neighbours = (min(127, base + ABCKey.letterSemitone[up] + (li == 6 ? 12 : 0) + key[up]),
                              max(0, base + ABCKey.letterSemitone[down] - (li == 0 ? 12 : 0) + key[down]))
        }
        return (out, mult)
    }

    /// A grace group `{…}` (`{/…}` an acciaccatura): each note a group of no duration of its
    /// own, placed by `Layout.place` before or on the beat of the note after it. Written
    /// lengths inside are read and not used (grace notes are played short).
    private mutating func graces(_ c: [Character], _ i: inout Int, end: Int, _ line: SourceLine) throws(ABCError) {
        let k = line.codes
        i += 1
        let slashed = i < end && k[i] == UInt8(ascii: "/")
        if slashed { i += 1 }
        ensureVoice()
        let vi = currentVoice
        // Ties and broken rhythm after the group still belong to the note before it.
        let lastGroup = tune.voices[vi].lastGroup
        let finger = tune.voices[vi].pendingFinger
        tune.voices[vi].pendingFinger = nil
        while i < end {
            let a = k[i]
            if a.noteLetter != nil || a == UInt8(ascii: "^") || a == UInt8(ascii: "_") || a == UInt8(ascii: "=") {
                let col = i
                let (n, _) = try note(c, &i, line)
                var g = Group(notes: [n], duration: .zero, velocity: tune.voices[vi].velocity, line: line.number, column: col)
                g.notes[0].tie = false
                g.grace = slashed
                append(.group(g))
                tune.voices[vi].lastGroup = lastGroup
            } else {
                i += 1
            }
        }
        tune.voices[vi].pendingFinger = finger
        i = end + 1
    }

    /// Reads a length multiplier: `2`, `/2`, `3/2`, `/`, `//`, nothing (1).
    private func length(_ c: [Character], _ i: inout Int, _ line: SourceLine) throws(ABCError) -> (Rational, Bool) {
        let col = i + 1
        let k = line.codes
        var num: Int?
        while i < c.count, let d = k[i].digit {
            num = (num ?? 0) * 10 + d
            i += 1
            if num ?? 0 > 10_000 { throw error("note length too long", line, col) }
        }
        var den = 1
        var sawSlash = false
        while i < c.count, k[i] == UInt8(ascii: "/") {
            sawSlash = true
            i += 1
            var d: Int?
            while i < c.count, let digit = k[i].digit {
                d = (d ?? 0) * 10 + digit
                i += 1
                if d ?? 0 > 1024 { throw error("note length divisor too big", line, col) }
            }
            if let d {
                guard d > 0 else { throw error("note length divided by zero", line, col) }
                den *= d
            } else {
                den *= 2
            }
            if den > 1024 { throw error("note length divided below 1/1024", line, col) }
        }
        if let n = num, n == 0 { throw error("note length 0", line, col) }
        return (Rational(num ?? 1, den), num != nil || sawSlash)
    }

    private mutating func chord(_ c: [Character], _ i: inout Int, _ line: SourceLine) throws(ABCError) {
        let col = i + 1
        let k = line.codes
        i += 1
        var notes: [GroupNote] = []
        var first: Rational?
        while i < c.count, k[i] != UInt8(ascii: "]") {
            let ch = c[i]
            if k[i] == UInt8(ascii: " ") { i += 1; continue }
            if !tune.userSymbols.isEmpty, let name = tune.userSymbols[ch] {
                decoration(name, line, i + 1, symbol: ch)
                i += 1
                continue
            }
            if k[i] == UInt8(ascii: "!") || k[i] == UInt8(ascii: "+") {
                i = decorationOrBreak(c, i, line)
                continue
            }
            if k[i] == UInt8(ascii: "."), articulation(".") {
                i += 1
                continue
            }
            if k[i] < 0x80 && ".~HLMOPSTuvJR".utf8.contains(k[i]) {
                warnOnce("deco" + String(ch), "decoration \"\(ch)\" not played, ignored", line, i + 1)
                i += 1
                continue
            }
            if ch == "\"" {
                guard let end = c[(i + 1)...].firstIndex(of: "\"") else { throw error("unterminated \"text\" in chord", line, i + 1) }
                i = end + 1
                continue
            }
            guard k[i] == UInt8(ascii: "^") || k[i] == UInt8(ascii: "_") || k[i] == UInt8(ascii: "=") || k[i].noteLetter != nil else {
                throw error("unexpected '\(ch)' inside chord [ ] (chords hold notes only)", line, i + 1)
            }
            let (n, mult) = try note(c, &i, line)
            if let f = first, f != mult {
                warnOnce("chordlen", "chord notes of different lengths are played with the first note's length", line, col)
            }
            first = first ?? mult
            notes.append(n)
        }
        guard i < c.count else { throw error("unterminated chord [ (add ])", line, col) }
        i += 1  // ]
        guard !notes.isEmpty else { throw error("empty chord []", line, col) }
        let (mult, _) = try length(c, &i, line)
        if i < c.count, k[i] == UInt8(ascii: "-") {
            for n in notes.indices { notes[n].tie = true }
            i += 1
        }
        var duration = tune.voices[currentVoice].unit * (first ?? Rational(1)) * mult
        addGroup(notes: notes, duration: &duration, line, col)
    }

    // MARK: - Bars

    private mutating func barLine(_ c: [Character], _ i: inout Int, _ line: SourceLine) throws(ABCError) {
        let start = i
        let k = line.codes
        while i < c.count {
            let ch = k[i]
            if ch == UInt8(ascii: "|") || ch == UInt8(ascii: ":") || ch == UInt8(ascii: "]") {
                i += 1
            } else if ch == UInt8(ascii: "[") && i + 1 < c.count && k[i + 1] == UInt8(ascii: "|") {
                i += 1
            } else {
                break
            }
        }
        let s = k[start..<i]
        let colon = UInt8(ascii: ":"), bar = UInt8(ascii: "|")
        let lead = s.prefix { $0 == colon }.count
        let trail = s.reversed().prefix { $0 == colon }.count
        func has(_ a: UInt8, _ b: UInt8) -> Bool { zip(s, s.dropFirst()).contains { $0 == a && $1 == b } }
        let kind: BarKind
        if lead == s.count {
            kind = .doubleRepeat  // ::
        } else if lead > 0 && trail > 0 {
            kind = .doubleRepeat
        } else if lead > 0 {
            kind = .endRepeat
        } else if trail > 0 {
            kind = .startRepeat
        } else if has(bar, bar) || has(bar, UInt8(ascii: "]")) || has(UInt8(ascii: "["), bar) {
            kind = .sectionEnd
        } else if s.count == 1 && s.first == bar {
            kind = .plain
        } else {
            throw error("unknown bar line \"\(String(c[start..<i]))\"", line, start + 1)
        }
        ensureVoice()
        if !tune.voices[currentVoice].barAccidentals.isEmpty { tune.voices[currentVoice].barAccidentals.removeAll(keepingCapacity: true) }
        tune.voices[currentVoice].brokenNext = nil
        append(.bar(kind))
        // |1 and :|2 start an ending straight after the bar line.
        if i < c.count, k[i].digit != nil, s.last == bar {
            try ending(c, &i, line)
        }
    }

    private mutating func ending(_ c: [Character], _ i: inout Int, _ line: SourceLine) throws(ABCError) {
        let col = i + 1
        let k = line.codes
        var numbers: [Int] = []
        var rangeStart: Int?
        while i < c.count {
            var n = 0
            var any = false
            while i < c.count, let d = k[i].digit { n = min(1000, n * 10 + d); i += 1; any = true }
            guard any else { break }
            guard n <= 16 else { throw error("ending number \(n) is too high (1 to 16)", line, col) }
            if let r = rangeStart {
                guard r <= n else { throw error("ending range \(r)-\(n) runs backwards", line, col) }
                numbers += Array(r...n)
                rangeStart = nil
            } else {
                numbers.append(n)
            }
            if i < c.count, k[i] == UInt8(ascii: ",") { i += 1; continue }
            if i < c.count, k[i] == UInt8(ascii: "-") { rangeStart = numbers.removeLast(); i += 1; continue }
            break
        }
        guard !numbers.isEmpty, numbers.allSatisfy({ $0 >= 1 }) else { throw error("ending needs a number, e.g. [1 or [2", line, col) }
        append(.ending(numbers))
    }
}

extension String {
    /// Text before an unescaped `%`.
    var stripComment: String {
        var out = ""
        var prev: Character = " "
        for c in self {
            if c == "%" && prev != "\\" { break }
            out.append(c)
            prev = c
        }
        return out
    }
}
