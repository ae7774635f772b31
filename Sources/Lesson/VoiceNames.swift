import MIDIFile

/// A sung (or played) voice of a chorale or open score, read from a part's name. A pianist
/// playing four parts takes soprano and alto in the right hand, tenor and bass in the left.
enum Voice: String, Equatable, Sendable, CaseIterable {
    case soprano, alto, tenor, bass

    var hand: Hand { self == .soprano || self == .alto ? .right : .left }

    /// Whole words, folded (lowercase, no diacritics): English, German, Italian, French,
    /// Latin, Spanish and the usual score abbreviations.
    static let words: [String: Voice] = [
        "soprano": .soprano, "sopranos": .soprano, "sopran": .soprano, "soprane": .soprano, "sopr": .soprano,
        "sop": .soprano, "canto": .soprano, "cantus": .soprano, "superius": .soprano, "discantus": .soprano,
        "tiple": .soprano, "mezzo": .soprano, "mezzosoprano": .soprano, "mezzosopran": .soprano,
        "alto": .alto, "altos": .alto, "alt": .alto, "altus": .alto, "contralto": .alto, "countertenor": .alto,
        "contratenor": .alto, "haute": .alto,
        "tenor": .tenor, "tenors": .tenor, "tenore": .tenor, "tenori": .tenor, "ten": .tenor, "taille": .tenor,
        "bass": .bass, "basses": .bass, "basso": .bass, "bassi": .bass, "bas": .bass, "basse": .bass,
        "bassus": .bass, "bajo": .bass, "baritone": .bass, "bariton": .bass, "baritono": .bass, "baryton": .bass,
        "bar": .bass,
    ]

    /// One-letter names ("S", "A.", "T1", "B II") name a voice only when they are the whole name.
    static let letters: [String: Voice] = ["s": .soprano, "a": .alto, "t": .tenor, "b": .bass]

    /// Words that may stand beside a voice without changing it ("Soprano I", "Chor Alt").
    static let neutral: Set<String> = ["i", "ii", "iii", "iv", "choir", "chor", "coro", "choeur", "voice", "voix",
                                       "voce", "stimme", "solo", "tutti", "vocal", "vox", "part", "staff"]

    /// The voice a name says, or nil ("Piano", "Violin I", "Left Hand").
    static func from(name: String) -> Voice? {
        var tokens: [String] = []
        var current = ""
        for ch in HandAssigner.fold(name) {
            if ch.isLetter {
                current.append(ch)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        for t in tokens { if let v = words[t] { return v } }
        let rest = tokens.filter { !neutral.contains($0) }
        if rest.count == 1, let v = letters[rest[0]] { return v }
        return nil
    }
}
