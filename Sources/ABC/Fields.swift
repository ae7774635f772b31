import MIDIFile

/// A key from a `K:` field: the accidental each letter gets, and the signature to write to MIDI.
struct ABCKey: Equatable, Sendable {
    /// Semitone alteration per letter index (C D E F G A B = 0…6).
    var accidentals: [Int] = Array(repeating: 0, count: 7)
    /// Nil for `K:none` or keys outside ±7 sharps (MIDI cannot express them).
    var signature: KeySignature? = KeySignature(sharps: 0, minor: false)

    static let letterIndex: [Character: Int] = ["C": 0, "D": 1, "E": 2, "F": 3, "G": 4, "A": 5, "B": 6]
    static let letterSemitone = [0, 2, 4, 5, 7, 9, 11]
    /// Position of each letter on the circle of fifths relative to C.
    static let letterFifths = [0, 2, 4, -1, 1, 3, 5]
    static let sharpOrder = [3, 0, 4, 1, 5, 2, 6]  // F C G D A E B
    static let modeOffsets: [String: Int] = ["maj": 0, "ion": 0, "min": -3, "aeo": -3, "m": -3, "dor": -2, "phr": -4, "lyd": 1, "mix": -1, "loc": -5]

    init() {}

    /// The key with `sharps` (negative: flats) in the standard order.
    init(sharps: Int, minor: Bool) {
        accidentals = Array(repeating: 0, count: 7)
        if sharps > 0 {
            for i in 0..<min(sharps, 14) { accidentals[ABCKey.sharpOrder[i % 7]] += 1 }
        } else if sharps < 0 {
            for i in 0..<min(-sharps, 14) { accidentals[ABCKey.sharpOrder[6 - i % 7]] -= 1 }
        }
        signature = (-7...7).contains(sharps) ? KeySignature(sharps: sharps, minor: minor) : nil
    }
}

/// Everything a `K:` or `V:` field can say besides the key itself.
struct ClefInfo: Equatable, Sendable {
    var bass: Bool?
    var octave: Int?
}

enum FieldParser {
    /// Parses the value of a `K:` field. `current` is kept when the field names no tonic
    /// (`K:clef=bass`). Unknown words become warnings through `warn`.
    static func key(_ text: String, current: ABCKey, warn: (String) -> Void) throws(FieldError) -> (ABCKey, ClefInfo) {
        var tokens = splitTokens(text)
        var key = current
        var clef = ClefInfo()
        var explicitOnly = false
        var explicit: [(Int, Int)] = []
        if let first = tokens.first {
            let lower = first.lowercased()
            if lower == "none" {
                key = ABCKey()
                key.signature = nil
                tokens.removeFirst()
            } else if first == "HP" {
                key = ABCKey()
                key.signature = nil
                tokens.removeFirst()
            } else if first == "Hp" {
                key = ABCKey()
                key.accidentals[3] = 1
                key.accidentals[0] = 1
                key.signature = KeySignature(sharps: 2, minor: false)
                tokens.removeFirst()
            } else if let letter = first.first, let li = ABCKey.letterIndex[letter] {
                tokens.removeFirst()
                var rest = Substring(first.dropFirst())
                var acc = 0
                if rest.first == "#" { acc = 1; rest = rest.dropFirst() } else if rest.first == "b" { acc = -1; rest = rest.dropFirst() }
                var modeWord = String(rest).lowercased()
                if modeWord.isEmpty, let next = tokens.first, isModeWord(next) {
                    modeWord = next.lowercased()
                    tokens.removeFirst()
                }
                let offset: Int
                if modeWord.isEmpty {
                    offset = 0
                } else if modeWord == "m" {
                    offset = -3
                } else if let o = ABCKey.modeOffsets[String(modeWord.prefix(3))] {
                    offset = o
                } else {
                    throw FieldError("unknown mode \"\(modeWord)\" in K: (use maj, min, m, ion, dor, phr, lyd, mix, aeo or loc)")
                }
                let sharps = ABCKey.letterFifths[li] + 7 * acc + offset
                key = ABCKey(sharps: sharps, minor: offset == -3)
                if key.signature == nil { warn("key \(first) \(modeWord) has \(sharps) sharps; no MIDI key signature written") }
            } else if !first.contains("="), explicitAccidental(first) == nil,
                      !["bass", "treble", "alto", "tenor", "bass3", "baritone", "perc", "exp"].contains(lower) {
                throw FieldError("unknown key \"\(first)\" (use a tonic A–G with optional # or b and a mode, e.g. K:G, K:Bbm, K:D dor)")
            }
        }
        for token in tokens {
            let lower = token.lowercased()
            if lower == "exp" { explicitOnly = true; continue }
            if let acc = explicitAccidental(token) { explicit.append(acc); continue }
            if lower.hasPrefix("clef=") || ["bass", "treble", "alto", "tenor", "bass3", "baritone", "perc", "none"].contains(lower) {
                let name = lower.hasPrefix("clef=") ? String(lower.dropFirst(5)) : lower
                clef.bass = name.hasPrefix("bass") || name.hasPrefix("baritone") || name.hasPrefix("f")
                if name.hasSuffix("-8") { clef.octave = (clef.octave ?? 0) - 1 }
                if name.hasSuffix("+8") { clef.octave = (clef.octave ?? 0) + 1 }
                continue
            }
            if lower.hasPrefix("octave="), let n = Int(lower.dropFirst(7)) {
                guard (-4...4).contains(n) else { throw FieldError("octave=\(n) is out of range (-4 to 4)") }
                clef.octave = n
                continue
            }
            if lower.hasPrefix("middle=") || lower.hasPrefix("m=") || lower.hasPrefix("stafflines=") || lower.hasPrefix("staffscale=") || lower.hasPrefix("cue=") {
                continue  // layout only: no effect on sound
            }
            warn("K: \"\(token)\" not supported, ignored")
        }
        if explicitOnly || !explicit.isEmpty {
            if explicitOnly { key.accidentals = Array(repeating: 0, count: 7) }
            for (li, a) in explicit { key.accidentals[li] = a }
            // The MIDI signature still names the tonic's key; explicit accidentals only change pitches.
        }
        return (key, clef)
    }

    static func isModeWord(_ s: String) -> Bool {
        let l = s.lowercased()
        return l == "m" || ABCKey.modeOffsets[String(l.prefix(3))] != nil && l.count >= 3 && l.allSatisfy(\.isLetter)
    }

    /// `^f`, `_b`, `=c`, `^^f` → (letter index, alteration).
    static func explicitAccidental(_ token: String) -> (Int, Int)? {
        var chars = Array(token)
        var acc = 0
        var natural = false
        while let c = chars.first, c == "^" || c == "_" || c == "=" {
            if c == "^" { acc += 1 } else if c == "_" { acc -= 1 } else { natural = true }
            chars.removeFirst()
        }
        guard (acc != 0 || natural), chars.count == 1, let li = ABCKey.letterIndex[Character(chars[0].uppercased())] else { return nil }
        return (li, acc)
    }

    /// `M:` value → (time signature for MIDI or nil, length of a bar in whole notes or nil).
    static func meter(_ text: String, warn: (String) -> Void) throws(FieldError) -> (TimeSignature?, Rational?) {
        let t = text.trimmingSpaces
        if t.lowercased() == "none" || t.isEmpty { return (nil, nil) }
        if t == "C" { return (TimeSignature(numerator: 4, denominatorPower: 2), Rational(1)) }
        if t == "C|" { return (TimeSignature(numerator: 2, denominatorPower: 1), Rational(1)) }
        let parts = t.split(separator: "/")
        guard parts.count == 2 else { throw FieldError("meter \"\(t)\" is not a fraction like 3/4, C or C|") }
        var numerator = 0
        for piece in parts[0].replacingParens.split(separator: "+") {
            guard let n = Int(piece.trimmingSpaces), n > 0, n <= 64 else { throw FieldError("meter \"\(t)\" has a bad numerator") }
            numerator += n
        }
        guard let den = Int(parts[1].trimmingSpaces), den > 0, den <= 64, numerator > 0, numerator <= 256 else { throw FieldError("meter \"\(t)\" has a bad denominator") }
        var power = 0
        while (1 << power) < den { power += 1 }
        let sig: TimeSignature?
        if 1 << power == den {
            sig = TimeSignature(numerator: numerator, denominatorPower: power)
        } else {
            warn("meter \(t): denominator is not a power of two; no MIDI time signature written")
            sig = nil
        }
        return (sig, Rational(numerator, den))
    }

    /// `L:` value, a fraction of a whole note.
    static func fraction(_ text: String) throws(FieldError) -> Rational {
        let t = text.trimmingSpaces
        let parts = t.split(separator: "/")
        if parts.count == 1, let n = Int(parts[0].trimmingSpaces), n > 0, n <= 16 { return Rational(n) }
        guard parts.count == 2, let a = Int(parts[0].trimmingSpaces), let b = Int(parts[1].trimmingSpaces),
              (1...256).contains(a), (1...1024).contains(b) else {
            throw FieldError("\"\(t)\" is not a note length like 1/8")
        }
        return Rational(a, b)
    }

    /// `Q:` value → microseconds per quarter note, or nil for a tempo given only in words.
    static func tempo(_ text: String, unit: Rational, warn: (String) -> Void) throws(FieldError) -> Int? {
        // Drop quoted text such as "Allegro".
        var plain = ""
        var inQuote = false
        for c in text {
            if c == "\"" { inQuote.toggle(); continue }
            if !inQuote { plain.append(c) }
        }
        let t = plain.trimmingSpaces
        if t.isEmpty {
            warn("Q: tempo given only in words (\(text.trimmingSpaces)); tempo unchanged")
            return nil
        }
        var beat = unit
        var bpmText = t
        if let eq = t.firstIndex(of: "=") {
            let left = t[..<eq].trimmingSpaces
            bpmText = t[t.index(after: eq)...].trimmingSpaces
            if left.first == "C" || left.first == "L" {
                beat = unit  // old style C=120: unit note length
            } else {
                var total = Rational.zero
                for piece in left.split(separator: " ") {
                    total += try fraction(String(piece))
                }
                beat = total
            }
        }
        guard let bpm = Double(bpmText), bpm >= 1, bpm <= 10_000 else { throw FieldError("tempo \"\(t)\" is not like 1/4=120 (1 to 10000 beats a minute)") }
        let quartersPerMinute = bpm * beat.double * 4
        let usDouble = 60_000_000 / quartersPerMinute + 0.5
        guard usDouble >= 1, usDouble < Double(1 << 24) else { throw FieldError("tempo \"\(t)\" is out of range") }
        let us = Int(usDouble)
        return us
    }

    /// Splits on spaces, keeping `name="two words"` together.
    static func splitTokens(_ text: String) -> [String] {
        var out: [String] = []
        var cur = ""
        var inQuote = false
        for c in text {
            if c == "\"" { inQuote.toggle(); cur.append(c); continue }
            if (c == " " || c == "\t") && !inQuote {
                if !cur.isEmpty { out.append(cur); cur = "" }
            } else {
                cur.append(c)
            }
        }
        if !cur.isEmpty { out.append(cur) }
        return out
    }
}

/// A field value that could not be understood; the parser adds line and column.
struct FieldError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }

    var replacingParens: String { String(self.filter { $0 != "(" && $0 != ")" }) }
}
