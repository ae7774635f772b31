/// The one vocabulary of a note's verdict, from the matcher to the screen, the staff, the
/// store and the review. Every front end switches over these enums (so a new verdict is one
/// case the compiler finds everywhere); their words and glyphs are written here once. The
/// raw values are the JSON coding (`--report`, `--json`, stored reports) and nothing else.

/// When an expected note's key went down, as the ear lists it (`NoteVerdict.onset`).
public enum OnsetVerdict: String, Equatable, Hashable, Sendable, Codable, CaseIterable {
    /// Struck within the on-time band.
    case hit
    /// Struck right, before the on-time band.
    case early
    /// Struck right, after the on-time band.
    case late
    /// A wrong key was struck where this note was due, and the note itself never came.
    case wrong
    /// Nothing was struck for it.
    case missed

    /// The right key came (on time, early or late).
    public var isHit: Bool { self == .hit || self == .early || self == .late }

    /// A matched note's onset from the matcher's verdict; nil for `missed`, `wrongPitch` and
    /// `extra`, which are not the note being struck.
    public init?(struck verdict: Verdict) {
        switch verdict {
        case .onTime: self = .hit
        case .early: self = .early
        case .late: self = .late
        case .wrongPitch, .missed, .extra: return nil
        }
    }
}

/// A judged note's one mark: its worst verdict, onset first (`NoteVerdict.worst`), or the live
/// verdict on the note as it is played (`init(live:)`). The falling notes, the staff, the
/// review's counts and the text of `etude judge` all read it, each drawing it in its own way
/// (the glyph is shared, so a mark reads the same everywhere, with or without colour).
public enum VerdictMark: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    case ok, early, late, wrong, missed, wrongKeyFirst, short, long, loud, soft

    /// The mark of a note as the matcher judges it while it is played; nil for an extra (no
    /// lesson note stands for it).
    public init?(live verdict: Verdict) {
        switch verdict {
        case .onTime: self = .ok
        case .early: self = .early
        case .late: self = .late
        case .wrongPitch: self = .wrong
        case .missed: self = .missed
        case .extra: return nil
        }
    }

    /// The mark of an onset alone.
    public init(_ onset: OnsetVerdict) {
        switch onset {
        case .hit: self = .ok
        case .early: self = .early
        case .late: self = .late
        case .wrong: self = .wrong
        case .missed: self = .missed
        }
    }

    /// True for a mark of a note struck right but not cleanly (after a wrong key, early, late,
    /// held or played off): worth a look, not a miss.
    public var isStruckRight: Bool {
        switch self {
        case .ok, .early, .late, .wrongKeyFirst, .short, .long, .loud, .soft: return true
        case .wrong, .missed: return false
        }
    }

    /// One cell wide in every terminal: `×` and `◌` for wrong and missed; `‹` early and `›`
    /// late (the side the note leant to); `x` a right note after a wrong key; `.` cut short as
    /// a staccato dot is, `=` held on; `f` too loud, `p` too soft.
    public var glyph: Unicode.Scalar {
        switch self {
        case .ok: return "✓"
        case .early: return "‹"
        case .late: return "›"
        case .wrong: return "×"
        case .missed: return "◌"
        case .wrongKeyFirst: return "x"
        case .short: return "."
        case .long: return "="
        case .loud: return "f"
        case .soft: return "p"
        }
    }

    /// The word in a line that lists faults ("bar 9: D4 short, E4 wrong key first"): the
    /// coding's name but for the two that read better spelt out.
    public var word: String {
        switch self {
        case .ok: return "right"
        case .wrongKeyFirst: return "wrong key first"
        case .early, .late, .wrong, .missed, .short, .long, .loud, .soft: return rawValue
        }
    }

    /// What the glyph means, for the help and the README.
    public var meaning: String {
        switch self {
        case .wrong: return "wrong key"
        case .wrongKeyFirst: return "right after a wrong key"
        case .short: return "released short"
        case .long: return "held long"
        case .loud: return "too loud"
        case .soft: return "too soft"
        case .ok, .early, .late, .missed: return word
        }
    }

    /// "✓ right  ‹ early  › late …": every mark and its meaning on one line.
    public static var legend: String { allCases.map { "\(Character($0.glyph)) \($0.meaning)" }.joined(separator: "  ") }

    /// The order a bar's counts are listed in: what went most wrong first.
    public static let severity: [VerdictMark] = [.wrong, .missed, .wrongKeyFirst, .early, .late, .short, .long, .loud, .soft]
}

/// The hand a note belongs to as lines that also carry a verdict spell it: `RH`, `LH`, so
/// "right" never reads as "correct" ("bar 7 beat 2  C4  RH  missed").
public enum HandLabel {
    /// `RH` for the right hand, `LH` for the left, the part's own name otherwise
    /// ("accompaniment"); the part names are `ExpectedNote.part`'s.
    public static func short(_ part: String) -> String {
        switch part.lowercased() {
        case "right", "rh": return "RH"
        case "left", "lh": return "LH"
        default: return part
        }
    }
}

/// Which way a pass's timing leant on average. Within ±`onTimeWithinMs` it is on time: a mean
/// of +1 ms is not "late".
public enum TimingLean: Equatable, Sendable, CaseIterable {
    case early, onTime, late

    /// Half-width of "on time" for a pass's mean, ms.
    public static let onTimeWithinMs = 10.0

    /// The lean of a mean timing error (ms, positive = late).
    public init(meanMs: Double) {
        if !meanMs.isFinite || abs(meanMs) <= Self.onTimeWithinMs { self = .onTime } else { self = meanMs < 0 ? .early : .late }
    }

    /// "early", "on time", "late": the same words as a note's marks.
    public var word: String {
        switch self {
        case .early: return VerdictMark.early.word
        case .onTime: return "on time"
        case .late: return VerdictMark.late.word
        }
    }
}
