/// A hairpin printed between the staves: `<` (crescendo), `>` (diminuendo), and where one ends.
/// Carried as `etude:hairpin=cresc|dim|stop` on its staff's track (see `Annotation`).
public enum Hairpin: String, Equatable, Hashable, Sendable, CaseIterable {
    case crescendo = "cresc"
    case diminuendo = "dim"
    case stop
}

/// How loud each printed dynamic asks a note to be, as a MIDI velocity: the one table the ear
/// reads a mark by (`MarkedDynamics` in Lesson), so a mark means the same loudness whatever the
/// format it came from. The values follow MusicXML's own scale (`<dynamics>` ×90/100 of a
/// forte of 106): each step of p/mp/mf/f is 12–16 velocity steps.
public enum DynamicLevel {
    public static let velocities: [String: Int] = [
        "pppppp": 8, "ppppp": 12, "pppp": 16, "ppp": 24, "pp": 36, "p": 49, "mp": 64, "mf": 80, "f": 96,
        "ff": 112, "fff": 120, "ffff": 124, "fffff": 126, "ffffff": 127, "fp": 49, "sfp": 49, "pf": 96,
    ]

    /// The velocity a mark asks for; nil for an accent-like mark (`sf`, `sfz`, `rfz`, `fz`) that
    /// leaves the level in force unchanged.
    public static func velocity(of mark: String) -> Int? { velocities[mark] }

    /// How far a hairpin with no dynamic at its end moves the level: one step and a half
    /// (p to about mf).
    public static let hairpinSpan = 24
}
