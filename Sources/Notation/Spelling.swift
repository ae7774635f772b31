import MIDIFile

/// An accidental as drawn before a head (or in a key signature).
public enum Accidental: String, Codable, Sendable, CaseIterable {
    case doubleFlat = "double-flat"
    case flat
    case natural
    case sharp
    case doubleSharp = "double-sharp"

    /// The accidental that writes an alteration (−2…+2).
    public init(alter: Int) {
        switch alter {
        case ...(-2): self = .doubleFlat
        case -1: self = .flat
        case 0: self = .natural
        case 1: self = .sharp
        default: self = .doubleSharp
        }
    }

    public var alter: Int {
        switch self {
        case .doubleFlat: return -2
        case .flat: return -1
        case .natural: return 0
        case .sharp: return 1
        case .doubleSharp: return 2
        }
    }

    /// One terminal column each: ♭ ♮ ♯, `x` for the double sharp (as engravers write it in
    /// text), 𝄫 for the double flat.
    public var glyph: Unicode.Scalar {
        switch self {
        case .doubleFlat: return "\u{1D12B}"
        case .flat: return "♭"
        case .natural: return "♮"
        case .sharp: return "♯"
        case .doubleSharp: return "x"
        }
    }
}

/// A key as the speller and the key signature see it: how many sharps (negative: flats) and
/// whether it is minor. Letters are 0 = C … 6 = B; pitch classes 0 = C … 11 = B.
public struct MusicKey: Equatable, Hashable, Sendable {
    public var sharps: Int
    public var minor: Bool

    public init(sharps: Int, minor: Bool = false) {
        self.sharps = max(-7, min(7, sharps))
        self.minor = minor
    }

    public init(_ signature: KeySignature) {
        self.init(sharps: signature.sharps, minor: signature.minor)
    }

    public static let cMajor = MusicKey(sharps: 0)

    /// Letters in the order sharps are added (F C G D A E B); flats go the other way.
    public static let sharpOrder = [3, 0, 4, 1, 5, 2, 6]
    public static let flatOrder = [6, 2, 5, 1, 4, 0, 3]
    static let naturalSemitone = [0, 2, 4, 5, 7, 9, 11]

    /// What the signature does to a letter: +1, −1 or 0.
    public func alter(ofLetter letter: Int) -> Int {
        if sharps > 0 { return MusicKey.sharpOrder.prefix(sharps).contains(letter) ? 1 : 0 }
        if sharps < 0 { return MusicKey.flatOrder.prefix(-sharps).contains(letter) ? -1 : 0 }
        return 0
    }

    /// The signature's accidentals in the order they are written, as (letter, alter).
    public var signature: [(letter: Int, alter: Int)] {
        sharps >= 0 ? MusicKey.sharpOrder.prefix(sharps).map { ($0, 1) } : MusicKey.flatOrder.prefix(-sharps).map { ($0, -1) }
    }

    /// The tonic's pitch class (the relative minor's for a minor key).
    public var tonic: Int {
        let major = ((sharps * 7) % 12 + 12) % 12
        return minor ? (major + 9) % 12 : major
    }

    /// The tonic's letter.
    public var tonicLetter: Int {
        let major = ((sharps * 4) % 7 + 7) % 7
        return minor ? (major + 5) % 7 : major
    }

    /// The letter of the scale holding a pitch class, nil for a pitch class outside the key.
    func diatonicLetter(of pc: Int) -> Int? {
        for letter in 0..<7 where ((MusicKey.naturalSemitone[letter] + alter(ofLetter: letter)) % 12 + 12) % 12 == pc {
            return letter
        }
        return nil
    }

    /// Name for people, e.g. "E♭ major".
    public var name: String { KeySignature(sharps: sharps, minor: minor).name }
}

/// Spells pitches a MIDI file gives only as key numbers: the key's own notes from its
/// signature; a note outside the key as the raised lower letter or the lowered upper letter.
///
/// The choice, first rule that decides: (1) in a minor key the raised sixth and seventh
/// (harmonic and melodic minor) are always the raised letters; (2) a letter already taken by
/// another note of the same chord is avoided (no G and G♯ together: A♭); (3)
/// a key letter cancelled by a natural is written so (F♮ in G major, not E♯; B♮ in F major, not
/// C♭); (4) the line's direction — sharps rising, flats falling — from the note that follows in
/// the same staff; (5) the usual chromatic notes of the key (in C major: C♯ E♭ F♯ G♯ B♭; in A
/// minor: B♭ C♯ D♯); double sharps and flats only when rule (1) asks for them.
public enum Speller {
    /// Where a note goes next in its line: up, down, or nowhere known.
    public enum Direction: Sendable { case up, down, none }

    /// The two ways to write a chromatic pitch class in a key: raised lower letter, lowered upper.
    static func candidates(pc: Int, key: MusicKey) -> (lower: SpelledPitch, upper: SpelledPitch) {
        let below = (pc + 11) % 12, above = (pc + 1) % 12
        let lowerLetter = key.diatonicLetter(of: below) ?? ((0..<7).first { MusicKey.naturalSemitone[$0] == below } ?? 0)
        let upperLetter = key.diatonicLetter(of: above) ?? ((0..<7).first { MusicKey.naturalSemitone[$0] == above } ?? 0)
        return (SpelledPitch(letter: lowerLetter, alter: key.alter(ofLetter: lowerLetter) + 1),
                SpelledPitch(letter: upperLetter, alter: key.alter(ofLetter: upperLetter) - 1))
    }

    /// Spells one pitch. `chordLetters` are the letters other notes sounding with it already
    /// use; `direction` where its line goes next.
    public static func spell(pitch: Int, key: MusicKey, direction: Direction = .none, chordLetters: Set<Int> = []) -> SpelledPitch {
        let pc = ((pitch % 12) + 12) % 12
        if let letter = key.diatonicLetter(of: pc) {
            return SpelledPitch(letter: letter, alter: key.alter(ofLetter: letter))
        }
        let (lower, upper) = candidates(pc: pc, key: key)
        let degree = ((pc - key.tonic) % 12 + 12) % 12
        if key.minor, degree == 9 || degree == 11 { return lower }
        var choice: SpelledPitch
        let lowerClash = chordLetters.contains(lower.letter), upperClash = chordLetters.contains(upper.letter)
        if lowerClash != upperClash {
            choice = lowerClash ? upper : lower
        } else if (lower.alter == 0) != (upper.alter == 0) {
            choice = lower.alter == 0 ? lower : upper
        } else {
            switch direction {
            case .up: choice = lower
            case .down: choice = upper
            case .none:
                let prefersUpper: Bool
                if key.minor {
                    prefersUpper = degree == 1
                } else {
                    prefersUpper = degree == 3 || degree == 10
                }
                choice = prefersUpper ? upper : lower
            }
        }
        if abs(choice.alter) == 2 {
            let other = choice == lower ? upper : lower
            if abs(other.alter) < 2 { choice = other }
        }
        return choice
    }

    /// The major or minor key a piece without a key signature is most likely in: pitch-class
    /// durations against the Krumhansl–Kessler profiles (ties go to fewer accidentals).
    public static func estimateKey(pitches: [(pitch: Int, weight: Double)]) -> MusicKey {
        var histogram = Array(repeating: 0.0, count: 12)
        for p in pitches where p.weight > 0 { histogram[((p.pitch % 12) + 12) % 12] += p.weight }
        guard histogram.contains(where: { $0 > 0 }) else { return .cMajor }
        let major = [6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88]
        let minor = [6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17]
        func correlation(_ profile: [Double], tonic: Int) -> Double {
            let xs = (0..<12).map { histogram[($0 + tonic) % 12] }
            let mx = xs.reduce(0, +) / 12, my = profile.reduce(0, +) / 12
            var num = 0.0, dx = 0.0, dy = 0.0
            for i in 0..<12 {
                num += (xs[i] - mx) * (profile[i] - my)
                dx += (xs[i] - mx) * (xs[i] - mx)
                dy += (profile[i] - my) * (profile[i] - my)
            }
            return dx > 0 && dy > 0 ? num / (dx * dy).squareRoot() : 0
        }
        var best = MusicKey.cMajor
        var bestScore = -Double.infinity
        // Keys from fewest accidentals up, so an exact tie keeps the simpler signature.
        for sharps in [0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6] {
            for isMinor in [false, true] {
                let key = MusicKey(sharps: sharps, minor: isMinor)
                let score = correlation(isMinor ? minor : major, tonic: key.tonic)
                if score > bestScore + 1e-9 {
                    bestScore = score
                    best = key
                }
            }
        }
        return best
    }
}

/// Which accidentals a bar needs: the key's alterations, then whatever earlier notes of the
/// bar changed, per written line or space (an accidental holds for its own octave only).
struct AccidentalState {
    var key: MusicKey
    private var changed: [Int: Int] = [:]

    init(key: MusicKey) { self.key = key }

    mutating func newBar(key: MusicKey) {
        self.key = key
        changed.removeAll(keepingCapacity: true)
    }

    /// The accidental to draw for a written note (diatonic index from C0, alteration), nil when
    /// the bar already says it; remembers it for the rest of the bar.
    mutating func draw(diatonic: Int, alter: Int) -> Accidental? {
        let letter = ((diatonic % 7) + 7) % 7
        let current = changed[diatonic] ?? key.alter(ofLetter: letter)
        guard current != alter else { return nil }
        changed[diatonic] = alter
        return Accidental(alter: alter)
    }
}
