/// Score facts a Standard MIDI File cannot say, carried inside it as text meta events
/// (type 0x01) `etude:<key>=<value>`, so every reader (MIDI, ABC, MusicXML) produces one lesson
/// model, and a lesson keeps its fingering, spelling, staves and printed bar numbers when it is
/// copied, converted or exported. Other programs see harmless text events.
///
/// | text | where | says |
/// |---|---|---|
/// | `etude:finger=60:1` | the note's track, at its note-on tick | middle C is played with finger 1 (thumb) … 5 |
/// | `etude:spell=61:Db` | the note's track, at its note-on tick | key 61 is written D♭ (`C`, `C#`, `Cx`, `Db`, `Dbb`) |
/// | `etude:hand=right` | a track, tick 0 | the track is a staff read by this hand (`right`/`left`) |
/// | `etude:clef=bass` | a track, at the tick it takes effect | the staff's clef (see `Clef`) |
/// | `etude:bar=12` | the first track, at a bar's first tick | a bar starts here, printed as bar 12 |
/// | `etude:value=60:320:3:3/2` | the note's track, at the head's tick | a head of key 60 written as `WrittenValue` says: lasting 320 ticks, an eighth (3) in a 3:2 tuplet (`3/2:bracket` when the score brackets it); a dotted quarter is `2.`; a tied note has one per head |
/// | `etude:marks=60:staccato,fermata` | the note's track, at its note-on tick | the score prints these `Articulation`s on key 60's note |
/// | `etude:grace=62:slash` | the note's track, at its note-on tick | key 62 is a grace note, drawn small and played short: `slash` an acciaccatura (before the beat), `on` an appoggiatura (on the beat, the main note after it); never required of the learner |
/// | `etude:ornament=60:trill:960` | the note's track, at its note-on tick | key 60 carries a trill (`Ornament`) over 960 ticks as written; the note sounds as the ornament's first note |
/// | `etude:ornament=62:note` | the note's track, at its note-on tick | key 62 is one of an ornament's played notes: heard, not drawn, never required of the learner |
/// | `etude:roll=64:30` | the note's track, at its (rolled) note-on tick | key 64 is a member of an arpeggiated chord, struck 30 ticks after the chord is written |
/// | `etude:dynamic=mf` | a track, at the tick the mark stands | the score prints this dynamic (`p`, `mf`, `sfz`…) here on that staff (drawn and listed; the loudness is in the velocities) |
/// | `etude:unison=60:none:480:2` | the note's track, at its note-on tick | another voice writes key 60 here too (a head of its own, sounding once with the note): its tie (`none`, `start`, `stop`, `continue`) and value as in `etude:value` |
/// | `etude:hairpin=cresc` | a track, at the tick it starts | a hairpin (`Hairpin`): `cresc` (<) or `dim` (>) from here, `stop` where it ends, on that staff (drawn, listed, and the ear expects the learner's loudness to follow it) |
/// | `etude:slur=start` | a track, at a note's tick | a slur starts on the note there (`stop`: ends on the note there), drawn over or under the notes |
/// | `etude:ottava=1` | a track, at the tick it takes effect | the staff is written under an 8va line (`2` 15ma, `-1` 8vb, `-2` 15mb) until `etude:ottava=0` |
///
/// When a file has `etude:bar` events they are the bar lines: every bar starts at one, whatever
/// the time signature says (a score's pickups, split bars at repeats and cadenzas stay as
/// printed); a printed number met again is the next time through a repeat.
public enum Annotation: Equatable, Sendable {
    case finger(pitch: Int, finger: Int)
    case spelling(pitch: Int, SpelledPitch)
    case hand(HandTag)
    case clef(Clef)
    case bar(Int)
    /// A score's ottava line: octaves the staff sounds above (+) or below (−) what is written.
    case ottava(Int)
    /// A head as the score writes it (its value, dots, tuplet and length).
    case value(pitch: Int, WrittenValue)
    /// Articulations and a fermata the score prints on a note.
    case marks(pitch: Int, [Articulation])
    /// A grace note: `slashed` an acciaccatura (before the beat), else an appoggiatura.
    case grace(pitch: Int, slashed: Bool)
    /// An ornament printed on a note, written as lasting `ticks`.
    case ornament(pitch: Int, Ornament, ticks: Int)
    /// One of the notes an ornament is played with (after the note it is printed on).
    case ornamentNote(pitch: Int)
    /// A member of an arpeggiated (rolled) chord, struck `delay` ticks after the chord's tick.
    case roll(pitch: Int, delay: Int)
    /// A dynamic mark printed on the staff (letters only: `p`, `mf`, `sfz`…).
    case dynamic(String)
    /// Another voice's head on the same key at the same time (sounding once with the note).
    case unison(pitch: Int, UnisonHead)
    /// A hairpin starting (crescendo, diminuendo) or ending on the staff.
    case hairpin(Hairpin)
    /// A slur starting (true) or ending (false) at a note of the staff.
    case slur(start: Bool)

    /// The text event carrying this annotation at `tick`.
    public func event(tick: Int) -> MIDIEvent {
        MIDIEvent(tick: tick, .meta(type: MetaType.text, data: bytes))
    }

    private static let letterBytes = Array("CDEFGAB".utf8)

    /// The event's text as bytes. Fingering and spelling (one event per note, so an imported
    /// score writes as many as it has notes) are put together byte by byte, not through a
    /// `String`.
    var bytes: [UInt8] {
        func number(_ n: Int, into out: inout [UInt8]) {
            if n >= 100 { out.append(UInt8(ascii: "0") + UInt8(n / 100 % 10)) }
            if n >= 10 { out.append(UInt8(ascii: "0") + UInt8(n / 10 % 10)) }
            out.append(UInt8(ascii: "0") + UInt8(n % 10))
        }
        switch self {
        case .finger(let p, let f) where (0...127).contains(p) && (0...9).contains(f):
            var out: [UInt8] = Array("etude:finger=".utf8)
            out.reserveCapacity(20)
            number(p, into: &out)
            out.append(UInt8(ascii: ":"))
            number(f, into: &out)
            return out
        case .spelling(let p, let s) where (0...127).contains(p) && (0...6).contains(s.letter):
            var out: [UInt8] = Array("etude:spell=".utf8)
            out.reserveCapacity(20)
            number(p, into: &out)
            out.append(UInt8(ascii: ":"))
            out.append(Self.letterBytes[s.letter])
            switch s.alter {
            case 2: out.append(UInt8(ascii: "x"))
            case 1: out.append(UInt8(ascii: "#"))
            case -1: out.append(UInt8(ascii: "b"))
            case -2: out += [UInt8(ascii: "b"), UInt8(ascii: "b")]
            default: break
            }
            return out
        default:
            return Array(text.utf8)
        }
    }

    /// The event's text, e.g. `etude:spell=61:Db`.
    public var text: String {
        switch self {
        case .finger(let p, let f): return "\(Fingering.prefix)\(p):\(f)"
        case .spelling(let p, let s): return "etude:spell=\(p):\(s.name)"
        case .hand(let h): return "etude:hand=\(h.rawValue)"
        case .clef(let c): return "etude:clef=\(c.rawValue)"
        case .bar(let n): return "etude:bar=\(n)"
        case .ottava(let n): return "etude:ottava=\(n)"
        case .value(let p, let v): return "etude:value=\(p):\(v.text)"
        case .marks(let p, let m): return "etude:marks=\(p):" + m.map(\.rawValue).joined(separator: ",")
        case .grace(let p, let slashed): return "etude:grace=\(p):\(slashed ? "slash" : "on")"
        case .ornament(let p, let o, let ticks): return "etude:ornament=\(p):\(o.rawValue):\(ticks)"
        case .ornamentNote(let p): return "etude:ornament=\(p):note"
        case .roll(let p, let d): return "etude:roll=\(p):\(d)"
        case .dynamic(let d): return "etude:dynamic=\(d)"
        case .unison(let p, let u): return "etude:unison=\(p):\(u.tie):\(u.value.text)"
        case .hairpin(let h): return "etude:hairpin=\(h.rawValue)"
        case .slur(let start): return "etude:slur=\(start ? "start" : "stop")"
        }
    }

    /// Parses one event; nil when it is not a well-formed annotation (annotations are hints,
    /// never a reason to reject a lesson).
    public init?(_ kind: MIDIEvent.Kind) {
        guard case .meta(MetaType.text, let data) = kind, data.count > 6, data.count < 64,
              data[0] == UInt8(ascii: "e"), data[5] == UInt8(ascii: ":") else { return nil }
        if let fast = Annotation.noteLevel(data) {
            self = fast
            return
        }
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix("etude:"), let eq = text.firstIndex(of: "=") else { return nil }
        let key = text[text.index(text.startIndex, offsetBy: 6)..<eq]
        let value = text[text.index(after: eq)...]
        switch key {
        case "finger", "spell":
            let parts = value.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let pitch = Int(parts[0]), (0...127).contains(pitch) else { return nil }
            if key == "finger" {
                guard let f = Int(parts[1]), (1...5).contains(f) else { return nil }
                self = .finger(pitch: pitch, finger: f)
            } else {
                guard let s = SpelledPitch(name: String(parts[1])), s.octave(forPitch: pitch) != nil else { return nil }
                self = .spelling(pitch: pitch, s)
            }
        case "hand":
            guard let h = HandTag(rawValue: String(value)) else { return nil }
            self = .hand(h)
        case "clef":
            guard let c = Clef(rawValue: String(value)) else { return nil }
            self = .clef(c)
        case "bar":
            guard let n = Int(value), (0...99_999).contains(n) else { return nil }
            self = .bar(n)
        case "ottava":
            guard let n = Int(value), (-2...2).contains(n) else { return nil }
            self = .ottava(n)
        case "value":
            let parts = value.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let pitch = Int(parts[0]), (0...127).contains(pitch), let v = WrittenValue(text: parts[1]) else { return nil }
            self = .value(pitch: pitch, v)
        case "marks":
            let parts = value.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let pitch = Int(String(parts[0])), (0...127).contains(pitch) else { return nil }
            let marks = parts[1].split(separator: ",").compactMap { Articulation(rawValue: String($0)) }
            guard !marks.isEmpty else { return nil }
            self = .marks(pitch: pitch, marks)
        case "grace":
            let parts = value.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let pitch = Int(String(parts[0])), (0...127).contains(pitch), parts[1] == "slash" || parts[1] == "on" else { return nil }
            self = .grace(pitch: pitch, slashed: parts[1] == "slash")
        case "ornament":
            let parts = value.split(separator: ":")
            guard parts.count >= 2, let pitch = Int(String(parts[0])), (0...127).contains(pitch) else { return nil }
            if parts.count == 2, parts[1] == "note" {
                self = .ornamentNote(pitch: pitch)
            } else {
                guard parts.count == 3, let o = Ornament(rawValue: String(parts[1])), let t = Int(String(parts[2])), t > 0, t <= 1 << 24 else { return nil }
                self = .ornament(pitch: pitch, o, ticks: t)
            }
        case "roll":
            let parts = value.split(separator: ":")
            guard parts.count == 2, let pitch = Int(String(parts[0])), (0...127).contains(pitch), let d = Int(String(parts[1])), d > 0, d <= 1 << 20 else { return nil }
            self = .roll(pitch: pitch, delay: d)
        case "dynamic":
            guard (1...8).contains(value.count), value.allSatisfy({ "pmfszrn".contains($0) }) else { return nil }
            self = .dynamic(String(value))
        case "unison":
            let parts = value.split(separator: ":", maxSplits: 2)
            guard parts.count == 3, let pitch = Int(String(parts[0])), (0...127).contains(pitch), let v = WrittenValue(text: parts[2]),
                  let u = UnisonHead(value: v, tie: parts[1]) else { return nil }
            self = .unison(pitch: pitch, u)
        case "hairpin":
            guard let h = Hairpin(rawValue: String(value)) else { return nil }
            self = .hairpin(h)
        case "slur":
            guard value == "start" || value == "stop" else { return nil }
            self = .slur(start: value == "start")
        default:
            return nil
        }
    }
}

extension Annotation {
    static let fingerPrefix = Array("etude:finger=".utf8)
    static let spellPrefix = Array("etude:spell=".utf8)

    /// `etude:finger=P:F` and `etude:spell=P:N` read from the bytes (a score has one or two per
    /// note); nil for anything else, which the general parser then reads (or refuses) as before.
    static func noteLevel(_ data: [UInt8]) -> Annotation? {
        let isFinger = data.starts(with: fingerPrefix)
        guard isFinger || data.starts(with: spellPrefix) else { return nil }
        var i = isFinger ? fingerPrefix.count : spellPrefix.count
        var pitch = 0, digits = 0
        while i < data.count, data[i] >= 0x30, data[i] <= 0x39, digits < 3 {
            pitch = pitch * 10 + Int(data[i] - 0x30)
            i += 1
            digits += 1
        }
        guard digits > 0, pitch <= 127, i < data.count, data[i] == UInt8(ascii: ":") else { return nil }
        i += 1
        if isFinger {
            guard i + 1 == data.count, data[i] >= 0x31, data[i] <= 0x35 else { return nil }
            return .finger(pitch: pitch, finger: Int(data[i] - 0x30))
        }
        guard i < data.count else { return nil }
        let letter: Int
        switch data[i] | 0x20 {
        case UInt8(ascii: "c"): letter = 0
        case UInt8(ascii: "d"): letter = 1
        case UInt8(ascii: "e"): letter = 2
        case UInt8(ascii: "f"): letter = 3
        case UInt8(ascii: "g"): letter = 4
        case UInt8(ascii: "a"): letter = 5
        case UInt8(ascii: "b"): letter = 6
        default: return nil
        }
        let rest = data[(i + 1)...]
        let alter: Int
        if rest.isEmpty { alter = 0 }
        else if rest.elementsEqual([UInt8(ascii: "#")]) { alter = 1 }
        else if rest.elementsEqual([UInt8(ascii: "x")]) || rest.elementsEqual([UInt8(ascii: "#"), UInt8(ascii: "#")]) { alter = 2 }
        else if rest.elementsEqual([UInt8(ascii: "b")]) { alter = -1 }
        else if rest.elementsEqual([UInt8(ascii: "b"), UInt8(ascii: "b")]) { alter = -2 }
        else { return nil }
        let spelled = SpelledPitch(letter: letter, alter: alter)
        guard spelled.octave(forPitch: pitch) != nil else { return nil }
        return .spelling(pitch: pitch, spelled)
    }
}

/// A written head's value as a score prints it, which a performance's ticks cannot say: a
/// triplet eighth and a staccato quarter sound alike to MIDI.
public struct WrittenValue: Equatable, Hashable, Sendable {
    /// 0 = whole, 1 = half, 2 = quarter, 3 = eighth … 6 = 64th.
    public var value: Int
    public var dots: Int
    /// A tuplet: `actual` notes in the time of `normal` (3 and 2 for a triplet); 1 and 1 otherwise.
    public var actual: Int
    public var normal: Int
    /// Ticks the head lasts as written (a tied note's next head starts after them).
    public var ticks: Int
    /// The score draws the head's tuplet with a bracket (MusicXML `bracket="yes"`, an ABC
    /// tuplet of unbeamed notes).
    public var bracket: Bool = false

    public init(value: Int, dots: Int = 0, actual: Int = 1, normal: Int = 1, ticks: Int, bracket: Bool = false) {
        self.value = value
        self.dots = dots
        self.actual = actual
        self.normal = normal
        self.ticks = ticks
        self.bracket = bracket
    }

    /// `320:3:3/2`: ticks, value with a `.` per dot, then the tuplet when there is one
    /// (`:bracket` after it when the score brackets it).
    public var text: String {
        "\(ticks):\(value)\(String(repeating: ".", count: dots))" + (actual != normal ? ":\(actual)/\(normal)" + (bracket ? ":bracket" : "") : "")
    }

    public init?<S: StringProtocol>(text: S) {
        var parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let bracket = parts.count == 4 && parts[3] == "bracket"
        if bracket { parts.removeLast() }
        guard parts.count == 2 || parts.count == 3, let ticks = Int(String(parts[0])), ticks > 0, ticks <= 1 << 24 else { return nil }
        let head = parts[1]
        let dots = head.filter { $0 == "." }.count
        guard let value = Int(String(head.filter { $0 != "." })), (0...6).contains(value), dots <= 3 else { return nil }
        var actual = 1, normal = 1
        if parts.count == 3 {
            let t = parts[2].split(separator: "/")
            guard t.count == 2, let a = Int(String(t[0])), let n = Int(String(t[1])), (1...64).contains(a), (1...64).contains(n) else { return nil }
            actual = a
            normal = n
        }
        self.init(value: value, dots: dots, actual: actual, normal: normal, ticks: ticks, bracket: bracket && actual != normal)
    }
}

/// A head another voice writes on the same key at the same time as a note's (two voices in
/// unison sound once in MIDI, but an engraver prints both heads).
public struct UnisonHead: Equatable, Hashable, Sendable {
    public var value: WrittenValue
    public var tiedFrom: Bool
    public var tiesTo: Bool

    public init(value: WrittenValue, tiedFrom: Bool = false, tiesTo: Bool = false) {
        self.value = value
        self.tiedFrom = tiedFrom
        self.tiesTo = tiesTo
    }

    init?<S: StringProtocol>(value: WrittenValue, tie: S) {
        switch tie {
        case "none": self.init(value: value)
        case "start": self.init(value: value, tiesTo: true)
        case "stop": self.init(value: value, tiedFrom: true)
        case "continue": self.init(value: value, tiedFrom: true, tiesTo: true)
        default: return nil
        }
    }

    /// `none`, `start`, `stop` or `continue`, as MusicXML names a head's tie.
    public var tie: String { tiedFrom ? (tiesTo ? "continue" : "stop") : (tiesTo ? "start" : "none") }
}

/// A mark a score prints on a note that says how it is played: drawn on the staff and listed by
/// `etude score --json` (staccato also shortens the sound: see `MusicXMLImport`).
public enum Articulation: String, Equatable, Hashable, Sendable, CaseIterable {
    case staccato, staccatissimo, accent, marcato, tenuto, fermata
}

/// An ornament a score prints on a note, played as a pianist would (`realize`).
public enum Ornament: String, Equatable, Hashable, Sendable, CaseIterable {
    /// `trill` alternates with the upper note; `mordent` dips to the lower note and back,
    /// `invertedMordent` (pralltriller) to the upper; `turn` goes upper–main–lower–main,
    /// `invertedTurn` lower–main–upper–main. `shake` is played as a trill. A tremolo repeats the
    /// note in eighths, sixteenths or 32nds (`tremolo8`…`tremolo32`: one, two, three strokes);
    /// a two-note tremolo (`alternate8`…`alternate32`) alternates each of its notes with the
    /// other (given as `upper`).
    case trill, mordent, invertedMordent, turn, invertedTurn, shake
    case tremolo8, tremolo16, tremolo32, alternate8, alternate16, alternate32

    /// A tremolo of `strokes` marks (0, unmeasured, and more than three are played in 32nds);
    /// `alternating` for a two-note tremolo.
    public static func tremolo(strokes: Int, alternating: Bool) -> Ornament {
        switch (strokes, alternating) {
        case (1, false): return .tremolo8
        case (2, false): return .tremolo16
        case (_, false): return .tremolo32
        case (1, true): return .alternate8
        case (2, true): return .alternate16
        case (_, true): return .alternate32
        }
    }

    /// The notes it is played with, from the note's start over its written `length`: the note
    /// itself first (so the note of the beat is the one written), each in 32nds (shorter when
    /// the note is too short for them), the note again to the end. `upper`, `lower`: the
    /// neighbours in the key.
    public func realize(pitch: Int, upper: Int, lower: Int, length: Int, ticksPerQuarter tpq: Int) -> [(pitch: Int, offset: Int, length: Int)] {
        switch self {
        case .tremolo8, .tremolo16, .tremolo32, .alternate8, .alternate16, .alternate32:
            // Strokes of the written value as long as the note has room for two.
            let unit = self == .tremolo8 || self == .alternate8 ? tpq / 2 : (self == .tremolo16 || self == .alternate16 ? tpq / 4 : tpq / 8)
            guard unit > 0, length >= 2 * unit else { return [(pitch, 0, length)] }
            let other = self == .tremolo8 || self == .tremolo16 || self == .tremolo32 ? pitch : upper
            var out: [(pitch: Int, offset: Int, length: Int)] = []
            var t = 0
            while t + unit <= length {
                out.append((out.count % 2 == 0 ? pitch : other, t, unit))
                t += unit
            }
            out[out.count - 1].length += length - t
            return out
        default:
            break
        }
        let steps: [Int]
        switch self {
        case .trill, .shake: steps = []
        case .tremolo8, .tremolo16, .tremolo32, .alternate8, .alternate16, .alternate32: steps = []
        case .mordent: steps = [pitch, lower]
        case .invertedMordent: steps = [pitch, upper]
        case .turn: steps = [pitch, upper, pitch, lower]
        case .invertedTurn: steps = [pitch, lower, pitch, upper]
        }
        var unit = max(1, tpq / 8)
        let trill = self == .trill || self == .shake
        let needed = trill ? 4 : steps.count + 1
        if length < unit * needed { unit = max(1, length / needed) }
        guard unit * needed <= length, length >= needed else { return [(pitch, 0, length)] }
        var out: [(pitch: Int, offset: Int, length: Int)] = []
        if trill {
            // Alternating up to the last two units, which end on the note.
            var t = 0, k = 0
            while t + 2 * unit < length {
                out.append((k % 2 == 0 ? pitch : upper, t, unit))
                t += unit
                k += 1
            }
            if out.last?.pitch == pitch { out[out.count - 1].length += length - t; return out }
            out.append((pitch, t, length - t))
            return out
        }
        for (k, p) in steps.enumerated() { out.append((p, k * unit, unit)) }
        out.append((pitch, steps.count * unit, length - steps.count * unit))
        return out
    }

    /// The upper and lower neighbours of a written note in a key of `fifths` sharps (negative:
    /// flats), as the key signature alters them.
    public static func neighbours(of pitch: Int, spelling: SpelledPitch, fifths: Int) -> (upper: Int, lower: Int) {
        func alter(_ letter: Int) -> Int {
            let sharps = [3, 0, 4, 1, 5, 2, 6], flats = [6, 2, 5, 1, 4, 0, 3]
            if fifths > 0 { return sharps.prefix(min(7, fifths)).contains(letter) ? 1 : 0 }
            if fifths < 0 { return flats.prefix(min(7, -fifths)).contains(letter) ? -1 : 0 }
            return 0
        }
        let natural = [0, 2, 4, 5, 7, 9, 11]
        let base = natural[spelling.letter] + spelling.alter
        let up = (spelling.letter + 1) % 7, down = (spelling.letter + 6) % 7
        var u = natural[up] + alter(up) - base
        var l = base - natural[down] - alter(down)
        u = ((u % 12) + 12) % 12
        l = ((l % 12) + 12) % 12
        return (min(127, pitch + (u == 0 ? 2 : u)), max(0, pitch - (l == 0 ? 2 : l)))
    }
}

/// An ornament on a note with the ticks the note is written as lasting.
public struct OrnamentMark: Equatable, Hashable, Sendable {
    public var ornament: Ornament
    public var ticks: Int

    public init(ornament: Ornament, ticks: Int) {
        self.ornament = ornament
        self.ticks = ticks
    }
}

/// Which hand reads a staff, as an annotation says it (the Lesson module's `Hand` maps 1:1).
public enum HandTag: String, Equatable, Hashable, Sendable, CaseIterable {
    case right, left
}

/// A staff's clef. `treble8vb` is the tenor-voice treble clef (sounds an octave lower);
/// `french` the French violin clef (a G clef on the bottom line).
public enum Clef: String, Equatable, Hashable, Sendable, CaseIterable {
    case treble, bass, alto, tenor, treble8vb, treble8va, bass8vb, bass8va, percussion, french

    /// The pitch on the staff's bottom line as written (treble E4, bass G2, alto F3, tenor D3):
    /// its letter index from C0 (7 per octave), so a step up is one line or space.
    public var bottomLineDiatonic: Int {
        switch self {
        case .treble, .percussion: return 4 * 7 + 2       // E4
        case .treble8vb: return 3 * 7 + 2                 // E3
        case .treble8va: return 5 * 7 + 2                 // E5
        case .bass: return 2 * 7 + 4                      // G2
        case .bass8vb: return 1 * 7 + 4                   // G1
        case .bass8va: return 3 * 7 + 4                   // G3
        case .alto: return 3 * 7 + 3                      // F3
        case .tenor: return 3 * 7 + 1                     // D3
        case .french: return 4 * 7 + 4                    // G4
        }
    }
}

/// A written pitch: letter and alteration (the octave follows from the sounding key number).
public struct SpelledPitch: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// 0 = C, 1 = D … 6 = B.
    public var letter: Int
    /// −2 (double flat) … +2 (double sharp).
    public var alter: Int

    public init(letter: Int, alter: Int) {
        self.letter = letter
        self.alter = alter
    }

    static let letters: [Character] = ["C", "D", "E", "F", "G", "A", "B"]
    static let semitones = [0, 2, 4, 5, 7, 9, 11]

    /// `C`, `C#`, `Cx` (or `C##`), `Db`, `Dbb`.
    public init?(name: String) {
        guard let first = name.first, let letter = Self.letters.firstIndex(of: Character(first.uppercased())) else { return nil }
        let rest = name.dropFirst()
        let alter: Int
        switch rest {
        case "": alter = 0
        case "#": alter = 1
        case "x", "##": alter = 2
        case "b": alter = -1
        case "bb": alter = -2
        default: return nil
        }
        self.init(letter: letter, alter: alter)
    }

    public var name: String {
        let accidental = switch alter {
        case 2: "x"
        case 1: "#"
        case -1: "b"
        case -2: "bb"
        default: ""
        }
        return "\(Self.letters[letter])\(accidental)"
    }

    public var description: String { name }

    /// The octave (scientific: middle C = C4) this spelling gives `pitch`, nil when the
    /// spelling cannot be that key (D♭ for key 60).
    public func octave(forPitch pitch: Int) -> Int? {
        let natural = pitch - alter
        let pc = ((natural % 12) + 12) % 12
        guard pc == Self.semitones[letter] else { return nil }
        return natural / 12 - 1 - (natural < 0 ? 1 : 0)
    }

    /// Steps above C0 (7 per octave) of this spelling of `pitch`: the staff position a written
    /// note takes (nil when the spelling cannot be that key).
    public func diatonic(forPitch pitch: Int) -> Int? {
        octave(forPitch: pitch).map { $0 * 7 + letter }
    }
}

/// Every annotation of a file, gathered once (a lesson reads them when it is built).
public struct Annotations: Equatable, Sendable {
    /// Where a note-level annotation applies: one note-on on one track.
    public typealias Key = Fingering.Key

    public var fingers: [Key: Int] = [:]
    public var spellings: [Key: SpelledPitch] = [:]
    /// Track index → the hand reading that staff.
    public var hands: [Int: HandTag] = [:]
    /// Track index → clef changes (tick, clef), in file order.
    public var clefs: [Int: [(tick: Int, clef: Clef)]] = [:]
    /// Bar lines of a score: (start tick, printed number), in file order; empty for files that
    /// do not carry them.
    public var bars: [(tick: Int, printed: Int)] = []
    /// Track index → a score's ottava lines (tick, octaves; 0 ends a line), in file order.
    public var ottavas: [Int: [(tick: Int, octaves: Int)]] = [:]
    /// Heads as a score writes them (`etude:value`), by track, tick and key.
    public var values: [Key: WrittenValue] = [:]
    /// Articulations a score prints on a note (`etude:marks`), by track, note-on tick and key.
    public var articulations: [Key: [Articulation]] = [:]
    /// Grace notes (`etude:grace`), by track, note-on tick and key: true for an acciaccatura.
    public var graces: [Key: Bool] = [:]
    /// Ornaments printed on notes (`etude:ornament=P:KIND:TICKS`): the kind and written ticks.
    public var ornaments: [Key: OrnamentMark] = [:]
    /// The notes ornaments are played with (`etude:ornament=P:note`).
    public var ornamentNotes: Set<Key> = []
    /// Members of rolled chords (`etude:roll`), by their note-on: ticks after the chord's tick.
    public var rolls: [Key: Int] = [:]
    /// Track index → dynamic marks (tick, letters) a score prints on that staff, in file order.
    public var dynamics: [Int: [(tick: Int, mark: String)]] = [:]
    /// Other voices' heads on a note's key at its start (`etude:unison`), in file order.
    public var unisons: [Key: [UnisonHead]] = [:]
    /// Track index → hairpin starts and stops (`etude:hairpin`), in file order.
    public var hairpins: [Int: [(tick: Int, hairpin: Hairpin)]] = [:]
    /// Track index → slur starts (true) and stops (`etude:slur`), in file order.
    public var slurs: [Int: [(tick: Int, start: Bool)]] = [:]

    public init() {}

    /// Reads every track. Cheap on files without annotations (one byte test per text event).
    public init(file: MIDIFile) {
        // Room for one fingering and one spelling per text event, so a score's thousands of
        // annotations are not rehashed as the tables grow.
        var texts = 0
        for track in file.tracks {
            for e in track.events { if case .meta(MetaType.text, _) = e.kind { texts += 1 } }
        }
        if texts > 64 {
            fingers.reserveCapacity(texts / 2)
            spellings.reserveCapacity(texts / 2)
        }
        for (t, track) in file.tracks.enumerated() {
            for e in track.events {
                guard case .meta(MetaType.text, _) = e.kind, let a = Annotation(e.kind) else { continue }
                switch a {
                case .finger(let p, let f): fingers[Key(track: t, tick: e.tick, pitch: p)] = f
                case .spelling(let p, let s): spellings[Key(track: t, tick: e.tick, pitch: p)] = s
                case .hand(let h): hands[t] = h
                case .clef(let c): clefs[t, default: []].append((e.tick, c))
                case .bar(let n): if t == 0 { bars.append((e.tick, n)) }
                case .ottava(let n): ottavas[t, default: []].append((e.tick, n))
                case .value(let p, let v): values[Key(track: t, tick: e.tick, pitch: p)] = v
                case .marks(let p, let m): articulations[Key(track: t, tick: e.tick, pitch: p)] = m
                case .grace(let p, let slashed): graces[Key(track: t, tick: e.tick, pitch: p)] = slashed
                case .ornament(let p, let o, let ticks): ornaments[Key(track: t, tick: e.tick, pitch: p)] = OrnamentMark(ornament: o, ticks: ticks)
                case .ornamentNote(let p): ornamentNotes.insert(Key(track: t, tick: e.tick, pitch: p))
                case .roll(let p, let d): rolls[Key(track: t, tick: e.tick, pitch: p)] = d
                case .dynamic(let d): dynamics[t, default: []].append((e.tick, d))
                case .unison(let p, let u): unisons[Key(track: t, tick: e.tick, pitch: p), default: []].append(u)
                case .hairpin(let h): hairpins[t, default: []].append((e.tick, h))
                case .slur(let start): slurs[t, default: []].append((e.tick, start))
                }
            }
        }
    }

    public static func == (a: Annotations, b: Annotations) -> Bool {
        a.fingers == b.fingers && a.spellings == b.spellings && a.hands == b.hands && a.values == b.values
            && a.articulations == b.articulations && a.graces == b.graces && a.ornaments == b.ornaments && a.ornamentNotes == b.ornamentNotes && a.rolls == b.rolls && a.unisons == b.unisons
            && a.dynamics.mapValues { $0.map { "\($0.tick):\($0.mark)" } } == b.dynamics.mapValues { $0.map { "\($0.tick):\($0.mark)" } }
            && a.hairpins.mapValues { $0.map { "\($0.tick):\($0.hairpin.rawValue)" } } == b.hairpins.mapValues { $0.map { "\($0.tick):\($0.hairpin.rawValue)" } }
            && a.slurs.mapValues { $0.map { "\($0.tick):\($0.start)" } } == b.slurs.mapValues { $0.map { "\($0.tick):\($0.start)" } }
            && a.clefs.mapValues { $0.map { "\($0.tick):\($0.clef.rawValue)" } } == b.clefs.mapValues { $0.map { "\($0.tick):\($0.clef.rawValue)" } }
            && a.bars.map { [$0.tick, $0.printed] } == b.bars.map { [$0.tick, $0.printed] }
            && a.ottavas.mapValues { $0.map { [$0.tick, $0.octaves] } } == b.ottavas.mapValues { $0.map { [$0.tick, $0.octaves] } }
    }
}

/// Piano fingering carried inside a Standard MIDI File, so a lesson keeps its finger numbers
/// when it is copied, converted or exported, and the screen can show them.
///
/// Convention: a text meta event (type 0x01) whose text is `etude:finger=<pitch>:<finger>`,
/// on the same track as the note it describes and at the note-on's tick (written just before
/// the note-on). `<pitch>` is the MIDI key number 0–127, `<finger>` is 1 (thumb) to 5 (little
/// finger). Example: middle C played with the thumb → `etude:finger=60:1`. Other programs see a
/// harmless text event; Etude's reader pairs it back with the note.
public enum Fingering {
    /// The text prefix of a fingering event.
    public static let prefix = "etude:finger="

    /// Where a finger number applies: one note-on on one track.
    public struct Key: Hashable, Sendable {
        public var track: Int
        public var tick: Int
        public var pitch: Int

        public init(track: Int, tick: Int, pitch: Int) {
            self.track = track
            self.tick = tick
            self.pitch = pitch
        }
    }

    /// The text event that marks `pitch` at `tick` as played with `finger` (1–5).
    public static func event(tick: Int, pitch: Int, finger: Int) -> MIDIEvent {
        Annotation.finger(pitch: pitch, finger: finger).event(tick: tick)
    }

    /// Parses one event's text; nil when it is not a well-formed fingering event.
    public static func parse(_ kind: MIDIEvent.Kind) -> (pitch: Int, finger: Int)? {
        guard case .finger(let p, let f)? = Annotation(kind) else { return nil }
        return (p, f)
    }

    /// Every finger number in a file, keyed by (track index, tick, pitch). Malformed fingering
    /// text is skipped: fingering is a hint, never a reason to reject a lesson.
    public static func fingers(in file: MIDIFile) -> [Key: Int] {
        Annotations(file: file).fingers
    }

    /// The finger for one paired note, if the file gives one.
    public static func finger(for note: Note, in fingers: [Key: Int]) -> Int? {
        fingers[Key(track: note.track, tick: note.startTick, pitch: Int(note.pitch))]
    }
}
