import Lesson
import enum Judge.VerdictMark
import MIDIFile

/// The grand staff's two staves, named as `etude score --json` names them: the upper one is
/// "treble", the lower one "bass", whatever clef a score puts on them for a while.
public enum Staff: String, Codable, Sendable, CaseIterable, Hashable {
    case treble
    case bass

    /// The clef a staff has when the file says nothing.
    public var defaultClef: Clef { self == .treble ? .treble : .bass }
}

/// A written note value. Longer values first, so `rawValue` counts halvings of a whole note.
public enum NoteValue: Int, Codable, Sendable, CaseIterable, Comparable {
    case whole = 0, half, quarter, eighth, sixteenth, thirtySecond, sixtyFourth

    public static func < (a: NoteValue, b: NoteValue) -> Bool { a.rawValue < b.rawValue }

    /// Open heads for whole and half notes, filled for the rest.
    public var isOpen: Bool { self <= .half }
    public var hasStem: Bool { self != .whole }
    /// Flags (or beams) on the stem: 1 for an eighth, 2 for a sixteenth…
    public var flags: Int { max(0, rawValue - 2) }
    public var name: String {
        switch self {
        case .whole: return "whole"
        case .half: return "half"
        case .quarter: return "quarter"
        case .eighth: return "eighth"
        case .sixteenth: return "16th"
        case .thirtySecond: return "32nd"
        case .sixtyFourth: return "64th"
        }
    }
}

/// A note value with its dots: what a head, a stem, its flags and dots say together.
public struct NoteDuration: Equatable, Hashable, Sendable {
    public var value: NoteValue
    public var dots: Int

    public init(_ value: NoteValue, dots: Int = 0) {
        self.value = value
        self.dots = dots
    }

    /// Length in ticks at `tpq` ticks per quarter (rounded down for values finer than the grid).
    public func ticks(tpq: Int) -> Int {
        let base = (tpq * 4) >> value.rawValue
        var total = base, add = base
        for _ in 0..<dots {
            add /= 2
            total += add
        }
        return total
    }
}

/// A tuplet a head belongs to: `actual` notes in the time of `normal` (a triplet: 3 in the time
/// of 2); the number drawn over the group is `actual`.
public struct Tuplet: Equatable, Hashable, Sendable {
    public var actual: Int
    public var normal: Int
    /// The score prints the group with a bracket (true) or without (false); nil when it does
    /// not say (a lesson with no engraving): a bracket then when the group is not beamed.
    public var bracket: Bool?

    public init(actual: Int, normal: Int, bracket: Bool? = nil) {
        self.actual = actual
        self.normal = normal
        self.bracket = bracket
    }

    public static let triplet = Tuplet(actual: 3, normal: 2)
}

/// Everything that changes from frame to frame on a laid-out score.
public struct StaffMarks: Sendable, Equatable {
    /// The transport's position in lesson ticks: the cursor, and the page shown.
    public var cursorTick: Int?
    /// Indices into `Lesson.notes` sounding now: lit in their hand's colour.
    public var sounding: Set<Int>
    /// Indices into `Lesson.notes` the coach has judged, with their marks (Judge's one
    /// vocabulary: the falling notes show the same glyphs).
    public var judgements: [Int: VerdictMark]
    /// Memory mode: notes starting after this tick are not drawn.
    public var hideNotesAfterTick: Int?
    /// The loop's bars (`Bar.number`, first and last included): bracketed over the staff.
    public var loopBars: ClosedRange<Int>?

    public init(cursorTick: Int? = nil, sounding: Set<Int> = [], judgements: [Int: VerdictMark] = [:],
                hideNotesAfterTick: Int? = nil, loopBars: ClosedRange<Int>? = nil) {
        self.cursorTick = cursorTick
        self.sounding = sounding
        self.judgements = judgements
        self.hideNotesAfterTick = hideNotesAfterTick
        self.loopBars = loopBars
    }

    /// What one note looks like now (one rule for every renderer): a judgement wins over being
    /// lit; a hidden note is not drawn at all.
    public func mark(noteIndex: Int, startTick: Int) -> NoteMark {
        if let limit = hideNotesAfterTick, startTick > limit, judgements[noteIndex] == nil { return .hidden }
        if let j = judgements[noteIndex] { return .judged(j) }
        return sounding.contains(noteIndex) ? .lit : .plain
    }
}

/// The state a note is drawn in.
public enum NoteMark: Sendable, Hashable {
    case plain, lit, hidden
    /// Judged: a head marked anything but `.ok` becomes the mark's glyph (`×` wrong, `◌` missed,
    /// `‹` early, `›` late, `x` after a wrong key, `.` short, `=` long, `f` loud, `p` soft), so
    /// every verdict reads without colour.
    case judged(VerdictMark)
}

/// Choices for a layout. The width is the one that decides where systems break.
public struct NotationOptions: Equatable, Hashable, Sendable {
    /// Columns a system may take (the terminal's or `--width`); below `minimumWidth` the layout
    /// uses `minimumWidth` (a command should refuse such a width with a message).
    public var width: Int

    /// The narrowest width laid out: the opening symbols and a bar of quarter notes.
    public static let minimumWidth = 24
    /// Only these bars (`Bar.number`, inclusive), nil for the whole lesson.
    public var bars: ClosedRange<Int>?
    /// Accompaniment notes (tracks no hand plays) on the staff of their register; off by default.
    public var includeAccompaniment: Bool
    /// Ledger lines allowed before a note is written an octave lower under 8va (or higher under 8vb).
    public var maxLedgerLines: Int
    /// Finger numbers beside the heads when the lesson has them.
    public var showFingering: Bool

    public init(width: Int = 80, bars: ClosedRange<Int>? = nil, includeAccompaniment: Bool = false,
                maxLedgerLines: Int = 4, showFingering: Bool = true) {
        self.width = width
        self.bars = bars
        self.includeAccompaniment = includeAccompaniment
        self.maxLedgerLines = maxLedgerLines
        self.showFingering = showFingering
    }
}

/// One written head: a lesson note, or the tied continuation of one into a later bar or value.
public struct PlacedHead: Sendable, Equatable {
    /// Index into `Lesson.notes`.
    public var noteIndex: Int
    public var pitch: Int
    public var hand: Hand?
    public var staff: Staff
    /// The clef in force where the head stands.
    public var clef: Clef
    /// Staff position as drawn: 0 = the bottom line, +1 per line or space up.
    public var step: Int
    /// Octaves the head is written below (+1: under an 8va mark) or above (−1: 8vb) its sound.
    public var ottava: Int
    public var spelling: SpelledPitch
    /// The accidental drawn before the head, nil when the key or the bar already says it.
    public var accidental: Accidental?
    public var finger: Int?
    /// Where the head stands in lesson ticks (a continuation: where it is tied on).
    public var tick: Int
    public var duration: NoteDuration
    /// The tuplet the head is written in, nil for none.
    public var tuplet: Tuplet?
    /// Articulations and fermata printed on the note (its first head only).
    public var articulations: [Articulation] = []
    /// Column in its system; a head displaced by a second stands one column right of it.
    public var column: Int
    public var displaced: Bool
    public var tiedFromPrevious: Bool
    public var tiesToNext: Bool
    /// Index into `Lesson.bars`.
    public var barIndex: Int
    /// A grace note (drawn small before its main note): true slashed (acciaccatura), false an
    /// appoggiatura; nil for a head of the bar's time.
    public var grace: Bool? = nil
    /// The ornament printed on the note (its first head only; `etude:ornament`): a sign over the
    /// chord, or tremolo strokes on its stem or between the two notes of a two-note tremolo.
    public var ornament: Ornament? = nil
    /// The first note of a two-note tremolo: its strokes are drawn from it to the next chord.
    public var opensTwoNoteTremolo = false
}

/// The heads of one staff that start together, with their stem.
public struct PlacedChord: Sendable, Equatable {
    public var staff: Staff
    public var tick: Int
    /// Column of the stem side (the undisplaced heads).
    public var column: Int
    /// Range into the system's `heads`, lowest step first.
    public var heads: Range<Int>
    public var duration: NoteDuration
    /// The tuplet of its lead head (its number is drawn over the group), nil for none.
    public var tuplet: Tuplet?
    public var stemUp: Bool
    /// Chords sharing a beam have the same group id (unique in the score); nil: flags.
    public var beamGroup: Int?
    /// Index into `Lesson.notes` of the chord's first note (its stem and beam go with it).
    public var leadNote: Int
    public var startTickOfNote: Int
}

/// A rest on one staff.
public struct PlacedRest: Sendable, Equatable {
    public var staff: Staff
    public var tick: Int
    public var column: Int
    public var duration: NoteDuration
    /// A rest filling a whole bar (drawn as a whole rest in the middle of the bar, any meter).
    public var wholeBar: Bool
    /// The tuplet a rest inside one belongs to (counted in its number), nil for none.
    public var tuplet: Tuplet? = nil
}

/// A clef drawn inside a system (a change); the clef at a system's start is in `PlacedSystem.clefs`.
public struct PlacedClef: Sendable, Equatable {
    public var staff: Staff
    public var tick: Int
    public var column: Int
    public var clef: Clef
}

/// An 8va / 8vb line over a run of heads of one staff.
public struct OttavaSpan: Sendable, Equatable {
    public var staff: Staff
    /// +1: 8va (sounds higher than written), −1: 8vb; ±2: 15ma / 15mb.
    public var octaves: Int
    public var fromColumn: Int
    public var toColumn: Int
}

/// A dynamic mark (`p`, `mf`, `sfz`…) under a staff, from its column.
public struct PlacedDynamic: Sendable, Equatable {
    public var staff: Staff
    public var tick: Int
    public var column: Int
    public var mark: String
    /// Index into `Lesson.bars`.
    public var barIndex: Int
}

/// A bar inside a system.
public struct PlacedBar: Sendable, Equatable {
    /// Index into `Lesson.bars`.
    public var index: Int
    /// `Bar.number` (what loops and `--bars` count).
    public var number: Int
    /// The number printed above it (see `BarNumbering`).
    public var displayNumber: Int
    public var startTick: Int
    public var endTick: Int
    /// Column of the bar line before it (the system's opening line for the first bar).
    public var lineColumn: Int
    /// Column of the bar's first tick (heads of the downbeat stand here).
    public var contentColumn: Int
    /// Column of the bar line after it.
    public var endColumn: Int
    /// Changes drawn at its start (after its bar line), nil when none; a key change cancels
    /// the previous key's accidentals it does not keep with naturals.
    public var keyChange: MusicKey?
    public var previousKey: MusicKey?
    public var timeChange: TimeSignature?
    public var clefChanges: [Staff: Clef]
}

/// One line of music: whole bars, with the clefs, key and time signature it opens with.
public struct PlacedSystem: Sendable, Equatable {
    public var index: Int
    public var bars: [PlacedBar]
    public var clefs: [Staff: Clef]
    public var key: MusicKey
    public var time: TimeSignature
    /// Columns of the opening symbols.
    public var clefColumn: Int
    public var keyColumn: Int
    public var timeColumn: Int
    /// Columns the system takes (at most the layout's width).
    public var width: Int
    public var heads: [PlacedHead]
    public var chords: [PlacedChord]
    public var rests: [PlacedRest]
    public var clefChanges: [PlacedClef]
    public var ottavas: [OttavaSpan]
    /// Grace notes, each standing just left of the chord it leads to (not in `heads`).
    public var graces: [PlacedHead] = []
    /// Dynamic marks a score prints (`etude:dynamic`), under their staff.
    public var dynamics: [PlacedDynamic] = []
    /// Hairpins, slurs and pedal marks crossing the system (`placeSpans`).
    public var spans: [PlacedSpan] = []

    public var startTick: Int { bars.first?.startTick ?? 0 }
    public var endTick: Int { bars.last?.endTick ?? 0 }
}

/// A lesson laid out on the grand staff: systems of placed symbols for one width. Built once
/// per lesson and width (`ScoreLayout.layout`); a frame only adds `StaffMarks`.
public struct Score: Sendable, Equatable {
    public var title: String
    public var options: NotationOptions
    public var ticksPerQuarter: Int
    /// Horizontal scale: columns per quarter note, the same in every bar, so a cursor moving at
    /// the music's pace moves steadily.
    public var columnsPerQuarter: Double
    public var systems: [PlacedSystem]
    /// The key the speller used when the file has no key signature (estimated), else nil.
    public var estimatedKey: MusicKey?
    /// Highest and lowest step anything of a staff reaches (heads, stems, ledger lines), over the
    /// whole score: every system is drawn with the same height.
    public var extents: [Staff: ClosedRange<Int>]
    /// The last bar laid out is the lesson's last: it ends with a final double bar (an
    /// excerpt ends with a plain one).
    public var endsPiece: Bool

    /// The system and column of a tick (between two columns for ticks between heads), nil
    /// outside the laid-out bars.
    public func location(ofTick tick: Int) -> (system: Int, column: Double)? {
        guard let first = systems.first?.startTick, let last = systems.last?.endTick, tick >= first, tick <= last else { return nil }
        var lo = 0, hi = systems.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if systems[mid].startTick <= tick { lo = mid } else { hi = mid - 1 }
        }
        let system = systems[lo]
        guard let bar = system.bars.last(where: { $0.startTick <= tick }) ?? system.bars.first else { return nil }
        let offset = Double(min(tick, bar.endTick) - bar.startTick) * columnsPerQuarter / Double(max(1, ticksPerQuarter))
        return (lo, min(Double(bar.endColumn), Double(bar.contentColumn) + offset))
    }

    /// The system holding a bar (`Bar.number`), nil when it is not laid out.
    public func system(ofBar number: Int) -> Int? {
        systems.firstIndex { s in s.bars.contains { $0.number == number } }
    }
}

/// The bar number a score prints. One function so printed numbers from a score (MusicXML's
/// `etude:bar` events) and the lesson's own counting meet in one place.
public enum BarNumbering {
    /// The printed number of a bar: the score's own (`Bar.printed`), else `Bar.number`.
    public static func displayNumber(of bar: Bar, in lesson: Lesson) -> Int {
        lesson.bars.isPrinted ? bar.printed : bar.number
    }
}
