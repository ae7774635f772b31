import MIDIFile

/// Where a lesson stands in the method's path: by level, then the easier key (fewer sharps or
/// flats, major before minor), then the shorter lesson (fewer notes; of as many notes, the one
/// that takes longer, so slower), then the title. Written once so the
/// path `etude next` walks, the browser's "next" and the curriculum's tests agree on which
/// lesson opens a level.
public struct CurriculumPlace: Comparable, Sendable {
    public var level: Int
    public var accidentals: Int
    public var minor: Bool
    public var noteCount: Int
    public var seconds: Double
    public var title: String

    public init(level: Int, key: KeySignature?, noteCount: Int, seconds: Double, title: String) {
        self.level = level
        accidentals = abs(key?.sharps ?? 0)
        minor = key?.minor ?? false
        self.noteCount = noteCount
        self.seconds = seconds.isFinite ? (seconds * 10).rounded() / 10 : 0
        self.title = title
    }

    /// The same place from a key as the catalogue stores it ("E♭ major", "F# minor"); an
    /// unknown name counts as C major.
    public init(level: Int, keyName: String?, noteCount: Int, seconds: Double, title: String) {
        self.init(level: level, key: keyName.flatMap(CurriculumPlace.key(named:)), noteCount: noteCount, seconds: seconds, title: title)
    }

    /// The key signature whose `name` is `name`.
    public static func key(named name: String) -> KeySignature? {
        for minor in [false, true] {
            for sharps in -7...7 where KeySignature(sharps: sharps, minor: minor).name == name {
                return KeySignature(sharps: sharps, minor: minor)
            }
        }
        return nil
    }

    public static func < (a: CurriculumPlace, b: CurriculumPlace) -> Bool {
        (a.level, a.accidentals, a.minor ? 1 : 0, a.noteCount, -a.seconds, a.title) < (b.level, b.accidentals, b.minor ? 1 : 0, b.noteCount, -b.seconds, b.title)
    }
}
