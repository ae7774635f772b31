import MIDIFile

/// A key asked for by name (`D`, `Bb`, `F#m`, `Ebm`): its tonic and mode. Only keys a key
/// signature can write (7 sharps to 7 flats) are keys here: `D#` major is no key, `Eb` is.
public struct KeyName: Equatable, Sendable {
    public var signature: KeySignature

    static let majors = ["Cb", "Gb", "Db", "Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#"]
    static let minors = ["Ab", "Eb", "Bb", "F", "C", "G", "D", "A", "E", "B", "F#", "C#", "G#", "D#", "A#"]

    /// `D`, `Bb`, `B♭`, `F#m`, `f#`-minor spellings: `m`, `min`, `minor` (and ` major`) after the tonic.
    public init?(_ text: String) {
        var t = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "♭", with: "b").replacingOccurrences(of: "♯", with: "#")
        var minor = false
        for suffix in [" minor", "minor", " min", "min", "m", " major", "major", " maj", "maj"] where t.count > suffix.count && t.lowercased().hasSuffix(suffix) {
            // "Bb" ends in "b", never a suffix here; "m" alone after the tonic says minor.
            minor = suffix.contains("mi") || suffix == "m"
            t = String(t.dropLast(suffix.count))
            break
        }
        guard let first = t.first, "ABCDEFGabcdefg".contains(first) else { return nil }
        let name = String(first).uppercased() + t.dropFirst()
        let table = minor ? Self.minors : Self.majors
        guard let i = table.firstIndex(of: name) else { return nil }
        signature = KeySignature(sharps: i - 7, minor: minor)
    }

    public init(signature: KeySignature) { self.signature = signature }

    /// The key on the same tonic in the other mode, as a signature can write it: `Cb` → `Bm`
    /// (Cbm is no key), `Gb` → `F#m`, `A#m` → `Bb`, `D` → `Dm`; the fewest sharps or flats.
    public func sameTonic(minor: Bool) -> String {
        let table = minor ? Self.minors : Self.majors
        let fits = table.indices.filter { Self.tonic(KeySignature(sharps: $0 - 7, minor: minor)) == tonic }
        guard let best = fits.min(by: { abs($0 - 7) < abs($1 - 7) }) else { return minor ? "Am" : "C" }
        return table[best] + (minor ? "m" : "")
    }

    /// The tonic's pitch class (0 = C).
    public var tonic: Int { Self.tonic(signature) }

    static func tonic(_ key: KeySignature) -> Int {
        let major = ((key.sharps * 7) % 12 + 12) % 12
        return key.minor ? (major + 9) % 12 : major
    }

    /// The tonic's letter (0 = C … 6 = B).
    static func tonicLetter(_ key: KeySignature) -> Int {
        let major = ((key.sharps * 4) % 7 + 7) % 7
        return key.minor ? (major + 5) % 7 : major
    }
}

/// Moving a lesson by an interval, as a musician writes it out in the new key: every note (the
/// drums excepted) moves by `semitones`, every written note by `steps` letters (D major from C
/// major is a second up: F♯ becomes G♯, B♭ becomes C), key signatures follow, fingering stays.
/// A pure transform applied once where a lesson is opened, so practice, play, loop, export,
/// render, score and judging all see the same notes.
public struct Transposition: Equatable, Sendable, CustomStringConvertible {
    public var semitones: Int
    /// Letters moved (0 = C stays on C; 1 = up a second). Follows from the keys.
    public var steps: Int
    /// The key the lesson moves from (its first key signature; nil when it has none).
    public var from: KeySignature?

    /// The range `--transpose N` takes.
    public static let range = -24...24

    public init(semitones: Int, steps: Int, from: KeySignature?) {
        self.semitones = semitones
        self.steps = steps
        self.from = from
    }

    /// Nothing moves.
    public var isIdentity: Bool { semitones == 0 && steps == 0 }

    /// `+2`, `-3`, `0`.
    public var description: String { semitones > 0 ? "+\(semitones)" : "\(semitones)" }

    /// What to move by, as the learner says it: semitones (`+2`, `-5`, `0`) or a key (`D`,
    /// `Bb`, `F#m`), or `FROM:TO` keys for a lesson whose file names no key.
    public enum Request: Equatable, Sendable, CustomStringConvertible {
        case semitones(Int)
        case key(KeyName)
        case keys(from: KeyName, to: KeyName)

        /// The text as it is stored and typed (`+2`, `D`, `C:D`).
        public var text: String {
            switch self {
            case .semitones(let n): return n > 0 ? "+\(n)" : "\(n)"
            case .key(let k): return Self.short(k)
            case .keys(let a, let b): return "\(Self.short(a)):\(Self.short(b))"
            }
        }

        public var description: String { text }

        static func short(_ k: KeyName) -> String {
            let i = k.signature.sharps + 7
            return k.signature.minor ? KeyName.minors[i] + "m" : KeyName.majors[i]
        }

        /// `--transpose` as typed, checked where it is typed.
        public init(parsing text: String) throws(PlanError) { self = try Self.parse(text) }

        /// Parses `--transpose`; every mistake one line naming the fix.
        public static func parse(_ text: String) throws(PlanError) -> Request {
            let t = text.trimmingCharacters(in: .whitespaces)
            if let n = Int(t.hasPrefix("+") ? String(t.dropFirst()) : t) {
                guard Transposition.range.contains(n) else {
                    throw PlanError(.transpose, text, "give semitones from −24 to +24, or a key", suggestion: n > 0 ? "+2" : "-2", style: .example)
                }
                return .semitones(n)
            }
            let parts = t.split(separator: ":", omittingEmptySubsequences: false)
            let keys = parts.map { KeyName(String($0)) }
            if parts.count == 1, let k = keys[0] { return .key(k) }
            if parts.count == 2, let a = keys[0], let b = keys[1] {
                guard a.signature.minor == b.signature.minor else {
                    throw PlanError(.transpose, text, "both keys major or both minor", suggestion: "Am:Bm", style: .example)
                }
                return .keys(from: a, to: b)
            }
            throw PlanError(.transpose, text, "not a key or a number of semitones; give a key such as D, Bb or F#m, or semitones such as +2")
        }
    }

    /// The transposition `request` asks of a lesson whose first key signature is `key`.
    public static func resolve(_ request: Request, key: KeySignature?) throws(PlanError) -> Transposition {
        switch request {
        case .semitones(let n):
            guard let key else {
                // No key to respell from: the notes move, each spelled as the new notes suggest.
                return Transposition(semitones: n, steps: Int((Double(n) * 7 / 12).rounded()), from: nil)
            }
            return move(from: key, semitones: n)
        case .key(let target):
            guard let key else {
                throw PlanError(.transpose, request.text, "the lesson names no key; give its key too, e.g. C:\(request.text), or semitones such as +2")
            }
            guard key.minor == target.signature.minor else {
                let hint = target.sameTonic(minor: key.minor)
                throw PlanError(.transpose, request.text, "the lesson is in \(key.name); give a \(key.minor ? "minor" : "major") key", suggestion: hint)
            }
            return between(key, target.signature)
        case .keys(let a, let b):
            var t = between(a.signature, b.signature)
            if key == nil { t.from = a.signature }
            return t
        }
    }

    /// From one key to another the nearer way (at most 6 semitones up or 5 down).
    static func between(_ a: KeySignature, _ b: KeySignature) -> Transposition {
        var n = ((KeyName.tonic(b) - KeyName.tonic(a)) % 12 + 12) % 12
        if n > 6 { n -= 12 }
        var steps = ((KeyName.tonicLetter(b) - KeyName.tonicLetter(a)) % 7 + 7) % 7
        if n < 0 && steps > 0 { steps -= 7 }
        return Transposition(semitones: n, steps: steps, from: a)
    }

    /// `semitones` from `key`, into the nearer key of the circle of fifths (D♭ rather than C♯
    /// from C; F♯ rather than G♭ from E; a 7-accidental key only when it is the only choice).
    static func move(from key: KeySignature, semitones n: Int) -> Transposition {
        let target = ((key.sharps + 7 * n) % 12 + 12) % 12
        var best: Int?
        var bestCost = Int.max
        for s in -7...7 where ((s % 12) + 12) % 12 == target {
            let cost = abs(s - key.sharps) * 2 + (abs(s) == 7 ? 24 : 0) + (s < 0 ? 1 : 0)
            if cost < bestCost { best = s; bestCost = cost }
        }
        let to = KeySignature(sharps: best ?? 0, minor: key.minor)
        // Letters: the interval between the tonics, counted the way the semitones go.
        let pc = ((n % 12) + 12) % 12
        var letters = ((KeyName.tonicLetter(to) - KeyName.tonicLetter(key)) % 7 + 7) % 7
        if pc == 11 && letters == 0 { letters = 7 }  // down a semitone on the same letter (C→C♭)
        let octaves = (n - pc) / 12
        return Transposition(semitones: n, steps: letters + 7 * octaves, from: key)
    }

    /// The key `key` becomes.
    public func key(_ key: KeySignature) -> KeySignature {
        var sharps = key.sharps + 7 * semitones - 12 * steps
        while sharps > 7 { sharps -= 12 }
        while sharps < -7 { sharps += 12 }
        return KeySignature(sharps: sharps, minor: key.minor)
    }

    /// A key number moved, kept on the MIDI range by octaves.
    public func pitch(_ p: Int) -> Int {
        var q = p + semitones
        while q > 127 { q -= 12 }
        while q < 0 { q += 12 }
        return q
    }

    /// A written note moved by the interval; nil when the new spelling would need more than a
    /// double accidental (the score then spells it from the key).
    public func spelling(_ s: SpelledPitch, pitch: Int) -> SpelledPitch? {
        let letter = ((s.letter + steps) % 7 + 7) % 7
        let natural = [0, 2, 4, 5, 7, 9, 11][letter]
        var alter = ((self.pitch(pitch) - natural) % 12 + 12) % 12
        if alter > 6 { alter -= 12 }
        guard abs(alter) <= 2 else { return nil }
        return SpelledPitch(letter: letter, alter: alter)
    }
}

extension Lesson {
    /// The lesson moved by `t` (see `Transposition`): hands, bars and fingering kept. With
    /// `hand`, only that hand's notes move and the key signatures stay (an octave, to fit a
    /// keyboard).
    public func transposed(_ t: Transposition, hand: Hand? = nil) -> Lesson {
        guard !t.isIdentity else { return self }
        func moves(_ n: LessonNote) -> Bool { n.channel != 9 && (hand == nil || n.part == .hand(hand ?? .right)) }
        var out = self
        var notes = self.notes
        // A note annotation moves with its note (drum notes keep theirs).
        var moving = Set<Annotations.Key>()
        for i in notes.indices where moves(notes[i]) {
            moving.insert(Annotations.Key(track: notes[i].track, tick: notes[i].startTick, pitch: Int(notes[i].pitch)))
            notes[i].pitch = UInt8(t.pitch(Int(notes[i].pitch)))
        }
        notes.sort { a, b in
            if a.startTick != b.startTick { return a.startTick < b.startTick }
            if a.pitch != b.pitch { return a.pitch < b.pitch }
            return a.track < b.track
        }
        out.notes = notes
        if let low = notes.lazy.map(\.pitch).min(), let high = notes.lazy.map(\.pitch).max() {
            out.pitchRange = Int(low)...Int(high)
        }
        if hand == nil {
            out.keySignatures = keySignatures.map { TimedValue(tick: $0.tick, value: t.key($0.value)) }
            if keySignatures.isEmpty, let from = t.from {
                out.keySignatures = [TimedValue(tick: 0, value: t.key(from))]
            }
        }
        func moved(_ k: Annotations.Key) -> Annotations.Key {
            moving.contains(k) ? Annotations.Key(track: k.track, tick: k.tick, pitch: t.pitch(k.pitch)) : k
        }
        var fingers: [Annotations.Key: Int] = [:]
        for (k, f) in annotations.fingers { fingers[moved(k)] = f }
        var spellings: [Annotations.Key: SpelledPitch] = [:]
        for (k, s) in annotations.spellings {
            if !moving.contains(k) { spellings[k] = s } else if let r = t.spelling(s, pitch: k.pitch) { spellings[moved(k)] = r }
        }
        out.annotations.fingers = fingers
        out.annotations.spellings = spellings
        // Written values, marks and grace notes go with their note.
        out.annotations.values = Dictionary(annotations.values.map { (moved($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        out.annotations.articulations = Dictionary(annotations.articulations.map { (moved($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        out.annotations.graces = Dictionary(annotations.graces.map { (moved($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        out.annotations.ornaments = Dictionary(annotations.ornaments.map { (moved($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        out.annotations.ornamentNotes = Set(annotations.ornamentNotes.map(moved))
        out.annotations.rolls = Dictionary(annotations.rolls.map { (moved($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        out.annotations.unisons = Dictionary(annotations.unisons.map { (moved($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        return out
    }
}

extension MIDIFile {
    /// The file moved by `t` event by event (notes off the drum channel, key signatures, the
    /// `etude:` fingering and spelling of each moved note), for what plays a file as it is
    /// (`render`, `play --no-screen`).
    public func transposed(_ t: Transposition) -> MIDIFile {
        guard !t.isIdentity else { return self }
        var out = self
        for i in out.tracks.indices {
            // The pitched notes this track starts: an annotation moves with its note.
            var pitched = Set<Annotations.Key>()
            for e in out.tracks[i].events {
                if case .noteOn(let c, let k, _) = e.kind, c != 9 { pitched.insert(Annotations.Key(track: i, tick: e.tick, pitch: Int(k))) }
            }
            func moves(_ p: Int, _ tick: Int) -> Bool { pitched.contains(Annotations.Key(track: i, tick: tick, pitch: p)) }
            out.tracks[i].events = out.tracks[i].events.map { e in
                switch e.kind {
                case .noteOn(let c, let k, let v) where c != 9:
                    return MIDIEvent(tick: e.tick, .noteOn(channel: c, key: UInt8(t.pitch(Int(k))), velocity: v))
                case .noteOff(let c, let k, let v) where c != 9:
                    return MIDIEvent(tick: e.tick, .noteOff(channel: c, key: UInt8(t.pitch(Int(k))), velocity: v))
                case .polyPressure(let c, let k, let v) where c != 9:
                    return MIDIEvent(tick: e.tick, .polyPressure(channel: c, key: UInt8(t.pitch(Int(k))), pressure: v))
                case .meta(MetaType.keySignature, let data):
                    guard case .keySignature(let ks) = MetaEvent(type: MetaType.keySignature, data: data) else { return e }
                    return MIDIEvent(tick: e.tick, .meta(type: MetaType.keySignature, data: t.key(ks).bytes))
                case .meta(MetaType.text, _):
                    switch Annotation(e.kind) {
                    case .finger(let p, let f)? where moves(p, e.tick): return Annotation.finger(pitch: t.pitch(p), finger: f).event(tick: e.tick)
                    case .spelling(let p, let s)? where moves(p, e.tick):
                        guard let r = t.spelling(s, pitch: p) else { return MIDIEvent(tick: e.tick, .meta(type: MetaType.text, data: [])) }
                        return Annotation.spelling(pitch: t.pitch(p), r).event(tick: e.tick)
                    case .grace(let p, let s)? where moves(p, e.tick): return Annotation.grace(pitch: t.pitch(p), slashed: s).event(tick: e.tick)
                    case .value(let p, let v)? where moves(p, e.tick): return Annotation.value(pitch: t.pitch(p), v).event(tick: e.tick)
                    case .marks(let p, let m)? where moves(p, e.tick): return Annotation.marks(pitch: t.pitch(p), m).event(tick: e.tick)
                    case .ornament(let p, let o, let n)? where moves(p, e.tick): return Annotation.ornament(pitch: t.pitch(p), o, ticks: n).event(tick: e.tick)
                    case .ornamentNote(let p)? where moves(p, e.tick): return Annotation.ornamentNote(pitch: t.pitch(p)).event(tick: e.tick)
                    case .roll(let p, let d)? where moves(p, e.tick): return Annotation.roll(pitch: t.pitch(p), delay: d).event(tick: e.tick)
                    case .unison(let p, let u)? where moves(p, e.tick): return Annotation.unison(pitch: t.pitch(p), u).event(tick: e.tick)
                    default: return e
                    }
                default:
                    return e
                }
            }
        }
        return out
    }
}
