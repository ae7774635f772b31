import Foundation
import Lesson
import enum Judge.VerdictMark
import MIDIFile

/// How tall a staff is drawn.
public enum StaffDensity: String, Sendable, Hashable, CaseIterable {
    /// One row per line or space: heads sit on line rows (`─●─`) or in the rows between, as on paper.
    case full
    /// One row per line: a head on a line is drawn on its row, a head in a space as a half block
    /// over the two rows' boundary (`▄` above `▀`; open heads `◡` above `◠`). Half the height:
    /// a grand staff and a keyboard fit 80×24.
    case compact
}

/// What a cell of a drawn staff is, so each renderer (terminal cells, ANSI text) styles it its
/// own way from one drawing.
public enum Ink: UInt8, Sendable, Hashable, CaseIterable {
    case blank, staffLine, ledger, barLine, barNumber, brace, clef, keySignature, timeSignature
    case head, accidental, stem, beam, dot, tie, finger, rest, ottava, loop, cursor

    /// Cells that belong to a note and take its colour (lit, judged, by hand).
    public var isNoteInk: Bool { self == .head || self == .accidental }
}

/// One drawn cell: the character and what it is; note cells remember their note and what lies
/// under them (shown when memory mode hides the note).
public struct RasterCell: Sendable, Equatable {
    public var scalar: UInt32
    public var ink: Ink
    /// Which part of a head this is (a judged head shows its mark in the main part).
    public var part: HeadPart
    /// Index into `Lesson.notes`, −1 when the cell is not a note's.
    public var note: Int32
    public var underScalar: UInt32
    public var underInk: Ink

    public static let blank = RasterCell(scalar: 0x20, ink: .blank, part: .none, note: -1, underScalar: 0x20, underInk: .blank)

    public var character: Unicode.Scalar { Unicode.Scalar(scalar) ?? " " }
}

public enum HeadPart: UInt8, Sendable, Hashable {
    case none
    /// A whole head in one cell, or the upper half of a head drawn across two rows.
    case main
    /// The lower half of a head drawn across two rows.
    case lowerHalf
}

/// A laid-out score drawn once into cells, system by system, at one density: the part of a
/// frame that does not change. A frame copies the systems it shows and restyles the note cells
/// by `StaffMarks` (see `resolve`), so drawing a screen of staff costs a copy, not a layout.
public struct StaffRaster: Sendable {
    public let density: StaffDensity
    public let score: Score
    /// Rows of every system (they are drawn alike: same staves, same gaps).
    public let systemHeight: Int
    /// Row of each staff's bottom line inside a system.
    public let bottomLineRow: [Staff: Int]
    /// Row of the bar numbers, loop bracket and (monochrome) cursor mark.
    public let topRow: Int
    /// The systems' cells, drawn the first time a system is shown (a long lesson is not drawn
    /// all at once) and kept.
    public let systems: Systems
    /// Start tick and hand of each lesson note (by index), for memory mode's hiding and colours.
    public let noteStartTicks: [Int]
    public let noteHands: [Hand?]

    public struct SystemRaster: Sendable {
        public var width: Int
        public var cells: [RasterCell]
        /// Indices into `cells` of the cells that belong to a note.
        public var noteCells: [Int32]

        public subscript(x: Int, y: Int) -> RasterCell {
            get { cells[y * width + x] }
        }
    }

    public init(score: Score, lesson: Lesson, density: StaffDensity) {
        self.density = density
        self.score = score
        noteStartTicks = lesson.notes.map(\.startTick)
        noteHands = lesson.notes.map(\.part.hand)
        let geometry = Geometry(score: score, density: density)
        systemHeight = geometry.height
        bottomLineRow = geometry.bottom
        topRow = 0
        systems = Systems(store: SystemStore(score: score, geometry: geometry))
    }

    /// The drawn systems, as a collection: `systems[i]` draws system i if it is not yet drawn.
    public struct Systems: RandomAccessCollection, Sendable {
        let store: SystemStore
        public var startIndex: Int { 0 }
        public var endIndex: Int { store.count }
        public subscript(index: Int) -> SystemRaster { store.system(index) }
    }

    /// The row of a staff line (an even step) inside a system.
    public func lineRow(_ staff: Staff, step: Int) -> Int {
        (bottomLineRow[staff] ?? 0) + Geometry.lineRow(step: step, density: density)
    }

    /// Rows a system needs at a density (to choose one for a height before drawing).
    public static func systemHeight(score: Score, density: StaffDensity) -> Int {
        Geometry(score: score, density: density).height
    }

    /// What a cell shows under the frame's marks: its character, ink and the note's state.
    /// Hidden notes show what lies under them; a judged head not right becomes its verdict's
    /// glyph (`VerdictMark.glyph`: `×` wrong, `◌` missed, `‹` early…), so judgements read
    /// without colour.
    @inline(__always)
    public func resolve(_ cell: RasterCell, marks: StaffMarks) -> (scalar: UInt32, ink: Ink, mark: NoteMark) {
        guard cell.note >= 0 else { return (cell.scalar, cell.ink, .plain) }
        let index = Int(cell.note)
        let start = index < noteStartTicks.count ? noteStartTicks[index] : 0
        let mark = marks.mark(noteIndex: index, startTick: start)
        switch mark {
        case .hidden:
            return (cell.underScalar, cell.underInk, .plain)
        case .judged(let verdict) where cell.ink == .head && verdict != .ok:
            return (cell.part == .lowerHalf ? cell.scalar : verdict.glyph.value, cell.ink, mark)
        default:
            return (cell.scalar, cell.ink, mark)
        }
    }

    /// The per-frame symbols over a system: the cursor's column and the loop's columns.
    public func overlay(system index: Int, marks: StaffMarks) -> FrameOverlay {
        var out = FrameOverlay()
        guard systems.indices.contains(index) else { return out }
        let system = score.systems[index]
        if let tick = marks.cursorTick, let location = score.location(ofTick: tick), location.system == index {
            out.cursorColumn = Int(location.column.rounded(.down))
        }
        if let loop = marks.loopBars {
            let inLoop = system.bars.filter { loop.contains($0.number) }
            if let first = inLoop.first, let last = inLoop.last {
                out.loopColumns = first.lineColumn...last.endColumn
                out.loopOpens = first.number == loop.lowerBound
                out.loopCloses = last.number == loop.upperBound
            }
        }
        return out
    }

    /// One cell as a frame shows it: the raster under the marks, with the loop bracket and the
    /// cursor mark on the top row. Both renderers (terminal cells, ANSI text) read cells here.
    public func cell(system index: Int, x: Int, y: Int, marks: StaffMarks, overlay: FrameOverlay) -> ResolvedCell {
        cell(systems[index], x: x, y: y, marks: marks, overlay: overlay)
    }

    /// The same for a system already fetched (`systems[i]`), as frame loops do.
    @inline(__always)
    public func cell(_ system: SystemRaster, x: Int, y: Int, marks: StaffMarks, overlay: FrameOverlay) -> ResolvedCell {
        let raw = system.cells[y * system.width + x]
        let r = resolve(raw, marks: marks)
        var out = ResolvedCell(scalar: r.scalar, ink: r.ink, mark: r.mark,
                               hand: raw.note >= 0 && Int(raw.note) < noteHands.count ? noteHands[Int(raw.note)] : nil,
                               cursor: overlay.cursorColumn == x)
        if y == topRow {
            if let loop = overlay.loopColumns, loop.contains(x) {
                if out.ink == .blank {
                    let opens = x == loop.lowerBound && overlay.loopOpens
                    let closes = x == loop.upperBound && overlay.loopCloses
                    out.scalar = opens ? 0x250C : (closes ? 0x2510 : 0x2500)  // ┌ ┐ ─
                }
                out.ink = .loop
            }
            if out.cursor {
                out.scalar = 0x25BC  // ▼
                out.ink = .cursor
            }
        }
        return out
    }

    /// Systems that fit a height, and the first system of the page holding a tick: pages turn
    /// by whole systems, so the music never jitters under the cursor.
    public func page(forTick tick: Int?, height: Int) -> Range<Int> {
        guard !systems.isEmpty else { return 0..<0 }
        let perPage = max(1, height / max(1, systemHeight))
        var current = 0
        if let tick, let location = score.location(ofTick: tick) { current = location.system }
        else if let tick, let last = score.systems.last, tick > last.endTick { current = systems.count - 1 }
        let first = (current / perPage) * perPage
        return first..<min(systems.count, first + perPage)
    }
}

/// The loop and cursor over one system in one frame.
public struct FrameOverlay: Sendable, Equatable {
    public var cursorColumn: Int?
    public var loopColumns: ClosedRange<Int>?
    /// The loop starts (ends) in this system: the bracket is closed on that side.
    public var loopOpens = false
    public var loopCloses = false
    public init() {}
}

/// A cell ready to style: character, what it is, the note's state and hand, under the cursor.
public struct ResolvedCell: Sendable, Equatable {
    public var scalar: UInt32
    public var ink: Ink
    public var mark: NoteMark
    public var hand: Hand?
    public var cursor: Bool
    public var character: Unicode.Scalar { Unicode.Scalar(scalar) ?? " " }
}

/// Systems drawn on demand and kept (all of them up to a bound, then the ones asked for since).
final class SystemStore: @unchecked Sendable {
    let score: Score
    let geometry: Geometry
    private let lock = NSLock()
    private var painted: [Int: StaffRaster.SystemRaster] = [:]

    init(score: Score, geometry: Geometry) {
        self.score = score
        self.geometry = geometry
    }

    var count: Int { score.systems.count }

    func system(_ index: Int) -> StaffRaster.SystemRaster {
        lock.lock()
        defer { lock.unlock() }
        if let s = painted[index] { return s }
        var painter = Painter(system: score.systems[index], geometry: geometry, score: score)
        painter.paint()
        if painted.count >= 512 { painted.removeAll(keepingCapacity: true) }
        painted[index] = painter.raster
        return painter.raster
    }
}

/// Where the rows of a system go at a density.
struct Geometry {
    let density: StaffDensity
    let height: Int
    var bottom: [Staff: Int]
    /// Rows for the 8va/8vb marks of a staff (above: +1, below: −1), when the score has them.
    var ottavaRow: [Staff: [Int: Int]]
    /// The row under the lower staff kept for pedal marks (full density, when the score has them).
    var pedalRow: Int?
    let stemRows: Int

    /// Rows a head takes, relative to its staff's bottom line (negative is up): (main, lower half).
    static func rows(step: Int, density: StaffDensity) -> (main: Int, lower: Int?) {
        switch density {
        case .full:
            return (-step, nil)
        case .compact:
            if step % 2 == 0 { return (-step / 2, nil) }
            return (-(step + 1) / 2, -(step - 1) / 2)
        }
    }

    /// The row of a line at an even step.
    static func lineRow(step: Int, density: StaffDensity) -> Int {
        density == .full ? -step : -step / 2
    }

    init(score: Score, density: StaffDensity) {
        self.density = density
        stemRows = density == .full ? 3 : 2
        // Content extents per staff, relative to the bottom line row.
        var top: [Staff: Int] = [:], low: [Staff: Int] = [:]
        var marks: [Staff: Set<Int>] = [:]
        for s in Staff.allCases {
            top[s] = Geometry.lineRow(step: 8, density: density)
            low[s] = 0
        }
        for system in score.systems {
            for chord in system.chords {
                let heads = system.heads[chord.heads]
                guard let hi = heads.map(\.step).max(), let lo = heads.map(\.step).min() else { continue }
                let upper = Geometry.rows(step: hi, density: density).main
                let lowest = Geometry.rows(step: lo, density: density)
                var a = upper, b = lowest.lower ?? lowest.main
                if chord.duration.value.hasStem {
                    if chord.stemUp { a -= stemRows } else { b += stemRows }
                }
                top[chord.staff] = min(top[chord.staff] ?? 0, a)
                low[chord.staff] = max(low[chord.staff] ?? 0, b)
            }
            for o in system.ottavas { marks[o.staff, default: []].insert(o.octaves > 0 ? 1 : -1) }
        }
        var row = 1  // row 0: bar numbers
        var bottom: [Staff: Int] = [:]
        var ottavaRow: [Staff: [Int: Int]] = [:]
        // Treble: its 8va row, its content, then its 8vb row.
        if marks[.treble]?.contains(1) == true {
            ottavaRow[.treble, default: [:]][1] = row
            row += 1
        }
        let trebleBottom = row - (top[.treble] ?? 0)
        bottom[.treble] = trebleBottom
        let trebleLowest = trebleBottom + (low[.treble] ?? 0)
        // The standard grand staff when neither staff reaches past middle C: one shared row for it.
        let standardGap = density == .full ? 12 : 6
        let middleCTreble = Geometry.rows(step: -2, density: density).main
        let middleCBass = Geometry.rows(step: 10, density: density).main
        var bassBottom: Int
        if (low[.treble] ?? 0) <= middleCTreble, (top[.bass] ?? 0) >= middleCBass,
           marks[.treble]?.contains(-1) != true, marks[.bass]?.contains(1) != true {
            bassBottom = trebleBottom + standardGap
        } else {
            var next = trebleLowest + 1
            if marks[.treble]?.contains(-1) == true {
                ottavaRow[.treble, default: [:]][-1] = next
                next += 1
            }
            if marks[.bass]?.contains(1) == true {
                ottavaRow[.bass, default: [:]][1] = next
                next += 1
            }
            bassBottom = max(trebleBottom + standardGap, next - (top[.bass] ?? 0))
        }
        bottom[.bass] = bassBottom
        row = bassBottom + (low[.bass] ?? 0) + 1
        if marks[.bass]?.contains(-1) == true {
            ottavaRow[.bass, default: [:]][-1] = row
            row += 1
        }
        self.bottom = bottom
        self.ottavaRow = ottavaRow
        if density == .full, score.systems.contains(where: { $0.spans.contains { $0.kind == .pedal } }) {
            pedalRow = row
            row += 1
        }
        height = row
    }

    func row(_ staff: Staff, step: Int) -> (main: Int, lower: Int?) {
        let base = bottom[staff] ?? 0
        let r = Geometry.rows(step: step, density: density)
        return (base + r.main, r.lower.map { base + $0 })
    }

    func lineRow(_ staff: Staff, step: Int) -> Int {
        (bottom[staff] ?? 0) + Geometry.lineRow(step: step, density: density)
    }

    /// Every staff line row of a staff (bottom line first).
    func lineRows(_ staff: Staff) -> [Int] {
        stride(from: 0, through: 8, by: 2).map { lineRow(staff, step: $0) }
    }
}

/// Draws one system into cells.
struct Painter {
    let system: PlacedSystem
    let geometry: Geometry
    let score: Score
    var raster: StaffRaster.SystemRaster
    let height: Int

    init(system: PlacedSystem, geometry: Geometry, score: Score) {
        self.system = system
        self.geometry = geometry
        self.score = score
        height = geometry.height
        raster = StaffRaster.SystemRaster(width: system.width, cells: Array(repeating: .blank, count: system.width * geometry.height), noteCells: [])
    }

    var density: StaffDensity { geometry.density }

    mutating func put(_ x: Int, _ y: Int, _ scalar: Unicode.Scalar, _ ink: Ink, note: Int = -1, part: HeadPart = .none) {
        guard x >= 0, y >= 0, x < raster.width, y < height else { return }
        let i = y * raster.width + x
        let old = raster.cells[i]
        var scalar = scalar
        var part = part
        // Two heads a third apart in spaces (compact) meet in one cell: one full cell for both.
        if ink == .head, old.ink == .head, old.note != Int32(note),
           (part == .main && old.part == .lowerHalf) || (part == .lowerHalf && old.part == .main) {
            scalar = scalar == "▄" || scalar == "▀" ? "█" : "○"
            part = .main
        }
        var cell = RasterCell(scalar: scalar.value, ink: ink, part: part, note: Int32(note), underScalar: scalar.value, underInk: ink)
        if note >= 0 {
            cell.underScalar = old.note >= 0 ? old.underScalar : old.scalar
            cell.underInk = old.note >= 0 ? old.underInk : old.ink
            if old.note < 0 { raster.noteCells.append(Int32(i)) }
        } else if old.note >= 0 {
            // A plain symbol drawn over a note's cell takes the cell: the note no longer owns it.
            cell.underScalar = scalar.value
        }
        raster.cells[i] = cell
    }

    func cell(_ x: Int, _ y: Int) -> RasterCell {
        guard x >= 0, y >= 0, x < raster.width, y < height else { return .blank }
        return raster.cells[y * raster.width + x]
    }

    mutating func text(_ s: String, x: Int, y: Int, _ ink: Ink) {
        var c = x
        for u in s.unicodeScalars {
            put(c, y, u, ink)
            c += 1
        }
    }

    var lastColumn: Int { (system.bars.last?.endColumn ?? system.width - 1) }

    mutating func paint() {
        paintStaffLines()
        paintBarLines()
        paintOpening()
        paintChanges()
        for rest in system.rests { paintRest(rest) }
        paintChords()
        paintOttavas()
        paintBarNumbers()
        // Last, into the cells nothing else took (an ottava line or a bar number is never cut).
        paintOrnaments()
    }

    mutating func paintStaffLines() {
        for staff in Staff.allCases {
            for y in geometry.lineRows(staff) {
                for x in 1...lastColumn { put(x, y, "─", .staffLine) }
            }
        }
    }

    /// A vertical line from the treble's top line to the bass's bottom line, joining staff lines.
    mutating func verticalLine(x: Int, kind: VerticalKind) {
        let top = geometry.lineRow(.treble, step: 8), bottom = geometry.lineRow(.bass, step: 0)
        let lines = Set(geometry.lineRows(.treble) + geometry.lineRows(.bass))
        guard top <= bottom else { return }
        for y in top...bottom {
            let isLine = lines.contains(y)
            let g: Unicode.Scalar
            switch kind {
            case .opening:
                g = !isLine ? "│" : (y == top ? "┌" : (y == bottom ? "└" : "├"))
            case .bar:
                g = !isLine ? "│" : (y == top ? "┬" : (y == bottom ? "┴" : "┼"))
            case .final:
                g = !isLine ? "║" : (y == top ? "╖" : (y == bottom ? "╜" : "╢"))
            }
            put(x, y, g, kind == .opening ? .brace : .barLine)
        }
    }

    enum VerticalKind { case opening, bar, final }

    mutating func paintBarLines() {
        verticalLine(x: 1, kind: .opening)
        for (k, bar) in system.bars.enumerated() where k > 0 { verticalLine(x: bar.lineColumn, kind: .bar) }
        if let last = system.bars.last {
            // The final double bar only where the piece ends: an excerpt (`--bars`) ends with a plain one.
            let isEnd = score.endsPiece && score.systems.last?.index == system.index && last.endTick >= (score.systems.last?.endTick ?? 0)
            verticalLine(x: last.endColumn, kind: isEnd ? .final : .bar)
        }
        // The brace: from the treble's top line to the bass's bottom line.
        let top = geometry.lineRow(.treble, step: 8), bottom = geometry.lineRow(.bass, step: 0)
        let middle = (top + bottom) / 2
        if top < bottom {
            for y in top...bottom {
                put(0, y, y == top ? "⎧" : (y == bottom ? "⎩" : (y == middle ? "⎨" : "⎪")), .brace)
            }
        }
    }

    static func clefLetter(_ clef: Clef) -> (Unicode.Scalar, step: Int, octave: Unicode.Scalar?) {
        switch clef {
        case .treble, .percussion: return ("G", 2, nil)
        case .treble8vb: return ("G", 2, "₈")
        case .treble8va: return ("G", 2, "⁸")
        case .bass: return ("F", 6, nil)
        case .bass8vb: return ("F", 6, "₈")
        case .bass8va: return ("F", 6, "⁸")
        case .alto: return ("C", 4, nil)
        case .tenor: return ("C", 6, nil)
        case .french: return ("G", 0, nil)
        }
    }

    /// The compact staff's clef: a shape, not a letter, in one or two cells every monospace
    /// font has (the Musical Symbols block's 𝄞 and 𝄢 are missing from DejaVu Sans Mono and the
    /// console fonts): `§` — the treble clef's S-shaped body with its loops — on the G line,
    /// `ɔ:` — the bass clef's curl and its two dots — on the F line, `‖` for percussion. The
    /// C clefs keep their letter. The octave mark of an 8va/8vb clef stands beside a one-cell
    /// glyph and over or under the second cell of a two-cell one (the key signature follows).
    static func compactClef(_ clef: Clef) -> (glyph: [Unicode.Scalar], step: Int, octave: Unicode.Scalar?, octaveAbove: Bool) {
        let (letter, step, octave) = clefLetter(clef)
        let above = clef == .treble8va || clef == .bass8va
        switch clef {
        case .treble, .treble8va, .treble8vb, .french: return (["§"], step, octave, above)
        case .bass, .bass8va, .bass8vb: return (["ɔ", ":"], step, octave, above)
        case .percussion: return (["‖"], 4, nil, false)
        case .alto, .tenor: return ([letter], step, octave, above)
        }
    }

    mutating func paintClef(_ clef: Clef, staff: Staff, x: Int) {
        if density == .compact {
            let (glyph, step, octave, above) = Painter.compactClef(clef)
            let y = geometry.lineRow(staff, step: step)
            for (k, scalar) in glyph.enumerated() { put(x + k, y, scalar, .clef) }
            if let octave {
                if glyph.count == 1 { put(x + 1, y, octave, .clef) } else { put(x + 1, y + (above ? -1 : 1), octave, .clef) }
            }
            return
        }
        let (letter, step, octave) = Painter.clefLetter(clef)
        let y = geometry.lineRow(staff, step: step)
        put(x, y, letter, .clef)
        if let octave { put(x + 1, y, octave, .clef) }
    }

    /// Where a key signature's accidentals stand on a clef: the lowest step of the window of
    /// seven its sharps (or flats) are written in.
    static func keyWindow(clef: Clef, sharps: Bool) -> Int {
        switch clef {
        case .treble, .treble8va, .treble8vb, .percussion: return sharps ? 3 : 1
        case .bass, .bass8va, .bass8vb: return sharps ? 1 : -1
        case .alto: return sharps ? 2 : 0
        case .tenor: return sharps ? 2 : 1
        // The treble clef's window a third lower: the same pitches.
        case .french: return sharps ? 1 : -1
        }
    }

    static func keyStep(letter: Int, clef: Clef, sharps: Bool) -> Int {
        let low = keyWindow(clef: clef, sharps: sharps)
        let bottomLetter = clef.bottomLineDiatonic % 7
        // The step in [low, low+6] whose letter is `letter`.
        for s in low...(low + 6) where ((bottomLetter + s) % 7 + 7) % 7 == letter { return s }
        return low
    }

    mutating func paintKey(_ key: MusicKey, clef: Clef, staff: Staff, x: Int, cancelling old: MusicKey? = nil) -> Int {
        if density == .compact { return paintKeyNamed(key, staff: staff, x: x, cancelling: old) }
        var col = x
        if let old {
            for letter in LayoutBuilder.cancellations(from: old, to: key) {
                let step = Painter.keyStep(letter: letter, clef: clef, sharps: old.sharps > 0)
                put(col, geometry.row(staff, step: step).main, Accidental.natural.glyph, .keySignature)
                col += 1
            }
        }
        for (letter, alter) in key.signature {
            let step = Painter.keyStep(letter: letter, clef: clef, sharps: alter > 0)
            put(col, geometry.row(staff, step: step).main, Accidental(alter: alter).glyph, .keySignature)
            col += 1
        }
        return col
    }

    /// A key signature where the rows cannot place it: the compact staff has no row for a
    /// space, so a flat on E5 would stand on the F line. It names the letters it alters instead,
    /// on the middle line (`♭BEAD`: B♭ E♭ A♭ D♭), in the columns the glyphs would take. A change
    /// to C major names the letters it cancels (`♮BE`); a change to another key names the new
    /// key's letters alone (the old ones it leaves out are natural again).
    static func keyText(_ key: MusicKey, cancelling old: MusicKey?) -> String {
        let letters = Array("CDEFGAB")
        if key.sharps == 0 {
            guard let old else { return "" }
            let cancelled = LayoutBuilder.cancellations(from: old, to: key)
            return cancelled.isEmpty ? "" : "♮" + String(cancelled.map { letters[$0] })
        }
        return String(Accidental(alter: key.sharps > 0 ? 1 : -1).glyph) + String(key.signature.map { letters[$0.letter] })
    }

    mutating func paintKeyNamed(_ key: MusicKey, staff: Staff, x: Int, cancelling old: MusicKey?) -> Int {
        let label = Painter.keyText(key, cancelling: old)
        text(label, x: x, y: geometry.lineRow(staff, step: 4), .keySignature)
        return x + label.unicodeScalars.count
    }

    mutating func paintTime(_ time: TimeSignature, x: Int) {
        for staff in Staff.allCases {
            // Compact: the two figures on adjacent rows (the middle and second lines), read as
            // one signature, not two digits with a line between them, and below the F line the
            // two-cell bass clef `ɔ:` stands on.
            let (top, bottom) = density == .compact ? (4, 2) : (6, 2)
            text(String(time.numerator), x: x, y: geometry.lineRow(staff, step: top), .timeSignature)
            text(String(time.denominator), x: x, y: geometry.lineRow(staff, step: bottom), .timeSignature)
        }
    }

    mutating func paintOpening() {
        for staff in Staff.allCases {
            let clef = system.clefs[staff] ?? staff.defaultClef
            paintClef(clef, staff: staff, x: system.clefColumn)
            _ = paintKey(system.key, clef: clef, staff: staff, x: system.keyColumn)
        }
        paintTime(system.time, x: system.timeColumn)
    }

    mutating func paintChanges() {
        var clefs = system.clefs
        for (k, bar) in system.bars.enumerated() where k > 0 {
            var x = bar.lineColumn + 1
            if !bar.clefChanges.isEmpty {
                for (staff, clef) in bar.clefChanges { paintClef(clef, staff: staff, x: x) }
                for (staff, clef) in bar.clefChanges { clefs[staff] = clef }
                x += LayoutBuilder.clefChangeWidth(bar.clefChanges.values)
            }
            if let key = bar.keyChange {
                var end = x
                for staff in Staff.allCases {
                    end = paintKey(key, clef: clefs[staff] ?? staff.defaultClef, staff: staff, x: x, cancelling: bar.previousKey)
                }
                x = end + 1
            }
            if let time = bar.timeChange { paintTime(time, x: x) }
        }
        for change in system.clefChanges { paintClef(change.clef, staff: change.staff, x: change.column) }
    }

    static func restGlyph(_ d: NoteDuration, density: StaffDensity) -> (Unicode.Scalar, step: Int) {
        switch d.value {
        case .whole: return ("▀", density == .full ? 5 : 6)
        case .half: return (density == .full ? "▄" : "▀", density == .full ? 5 : 4)
        // Letters, not digits: a rest beside yellow finger numbers must not read as one.
        case .quarter: return ("ζ", 4)
        case .eighth: return ("γ", 4)
        default: return ("ɤ", 4)
        }
    }

    mutating func paintRest(_ rest: PlacedRest) {
        let (glyph, step) = Painter.restGlyph(rest.wholeBar ? NoteDuration(.whole) : rest.duration, density: density)
        let y = geometry.row(rest.staff, step: step).main
        put(rest.column, y, glyph, .rest)
        for d in 0..<rest.duration.dots where !rest.wholeBar { put(rest.column + 1 + d, y, "·", .rest) }
    }

    mutating func paintChords() {
        // Ledger lines first (heads go over them), then stems and beams, then heads and the rest.
        for chord in system.chords { paintLedgers(chord) }
        var k = 0
        let chords = system.chords
        while k < chords.count {
            if let group = chords[k].beamGroup {
                var end = k
                while end + 1 < chords.count, chords[end + 1].beamGroup == group { end += 1 }
                // Chords of one staff are contiguous in `chords`; a group never spans staves.
                paintBeamed(Array(chords[k...end]))
                k = end + 1
            } else {
                paintStem(chords[k], tipRow: nil)
                k += 1
            }
        }
        paintTuplets()
        for chord in chords { paintTies(chord) }
        for chord in chords { paintHeads(chord) }
        for chord in chords { paintArticulations(chord) }
        for g in system.graces { paintGrace(g) }
        for m in system.dynamics { paintDynamic(m) }
        paintSpans()
    }

    /// A dynamic mark between the staves, as a piano score prints it: the first free row under
    /// the upper staff's bottom line, or over the lower staff's top line, at its column or one
    /// either side, where every cell it takes is blank; else not drawn.
    mutating func paintDynamic(_ m: PlacedDynamic) {
        let width = m.mark.unicodeScalars.count
        for y in Painter.dynamicRows(m.staff, geometry: geometry, height: height) {
            for x in [m.column, m.column + 1, m.column - 1] where x > 0 && x + width <= lastColumn {
                guard (0..<width).allSatisfy({ cell(x + $0, y).ink == .blank }) else { continue }
                text(m.mark, x: x, y: y, .dot)
                return
            }
        }
    }

    /// A grace note: a small head (slashed for an acciaccatura) where the cell is free, on the
    /// staff or at most one ledger line away.
    /// The rows a staff's dynamics may take, nearest the staff first.
    static func dynamicRows(_ staff: Staff, geometry: Geometry, height: Int) -> [Int] {
        if staff == .treble {
            let bottom = geometry.lineRow(.treble, step: 0)
            return Array((bottom + 1)..<max(bottom + 1, min(height, bottom + 7)))
        }
        let top = geometry.lineRow(.bass, step: 8)
        return Array(stride(from: top - 1, through: max(0, top - 6), by: -1))
    }

    mutating func paintGrace(_ h: PlacedHead) {
        guard h.step >= -2, h.step <= 10 else { return }
        let r = geometry.row(h.staff, step: h.step)
        let open: Set<Ink> = [.blank, .staffLine, .ledger]
        guard open.contains(cell(h.column, r.main).ink), open.contains(r.lower.map { cell(h.column, $0).ink } ?? .blank) else { return }
        let slashed = h.grace == true
        if let lower = r.lower {
            put(h.column, r.main, slashed ? "▞" : "▗", .head, note: h.noteIndex, part: .main)
            put(h.column, lower, slashed ? "▞" : "▝", .head, note: h.noteIndex, part: .lowerHalf)
        } else {
            put(h.column, r.main, slashed ? "ø" : "•", .head, note: h.noteIndex, part: .main)
        }
    }

    static func articulationGlyph(_ a: Articulation) -> Unicode.Scalar {
        switch a {
        case .staccato: return "∙"
        case .staccatissimo: return "▾"
        case .accent: return ">"
        case .marcato: return "^"
        case .tenuto: return "–"
        case .fermata: return "⌒"
        }
    }

    /// Articulations on the head's side away from the stem (a fermata always above), in the
    /// rows next to the chord where there is room (a blank cell or a staff line), nearest first.
    mutating func paintArticulations(_ chord: PlacedChord) {
        let marks = system.heads[chord.heads].flatMap(\.articulations)
        guard !marks.isEmpty else { return }
        let rows = headRows(chord)
        let stemmed = chord.duration.value.hasStem
        var above = stemmed && chord.stemUp ? stemSpan(chord, tipRow: nil).to - 1 : rows.top - 1
        var below = stemmed && !chord.stemUp ? stemSpan(chord, tipRow: nil).to + 1 : rows.bottom + 1
        var seen = Set<Articulation>()
        for m in marks where seen.insert(m).inserted {
            let up = m == .fermata || (stemmed && !chord.stemUp)
            var y = up ? above : below
            while y > 0, y < height - 1, ![Ink.blank, .staffLine].contains(cell(chord.column, y).ink) { y += up ? -1 : 1 }
            guard y > 0, y < height, [Ink.blank, .staffLine].contains(cell(chord.column, y).ink) else { continue }
            put(chord.column, y, Painter.articulationGlyph(m), .dot)
            if up { above = y - 1 } else { below = y + 1 }
        }
    }

    /// An ornament's sign, one or two cells (trill `tr`, shake `≈`, mordent `≁`, inverted mordent `∿`, turn `∽`, inverted turn `∾`); nil
    /// for a tremolo, drawn as strokes.
    static func ornamentSign(_ o: Ornament) -> String? {
        switch o {
        case .trill: return "tr"
        case .shake: return "≈"
        case .mordent: return "≁"
        case .invertedMordent: return "∿"
        case .turn: return "∽"
        case .invertedTurn: return "∾"
        case .tremolo8, .tremolo16, .tremolo32, .alternate8, .alternate16, .alternate32: return nil
        }
    }

    /// A tremolo's strokes as one cell: `/` one, `⫽` two, `⫻` three (a 32nd tremolo or finer).
    static func tremoloStrokes(_ o: Ornament) -> Unicode.Scalar? {
        switch o {
        case .tremolo8, .alternate8: return "/"
        case .tremolo16, .alternate16: return "⫽"
        case .tremolo32, .alternate32: return "⫻"
        default: return nil
        }
    }

    static func isTwoNoteTremolo(_ o: Ornament?) -> Bool { o == .alternate8 || o == .alternate16 || o == .alternate32 }

    /// Ornaments: a sign (trill, mordent, turn, shake) above the chord, over its stem's tip or
    /// its top head and any articulation already there, in the first row where every cell it
    /// takes is blank or a staff line; a single-note tremolo's strokes across the middle of its
    /// stem (above a stemless whole note); a two-note tremolo's strokes between its two chords,
    /// halfway along their stems. Where the rows have no room the mark is left out (the notes
    /// are still played and judged as written).
    mutating func paintOrnaments() {
        let chords = system.chords
        let open: Set<Ink> = [.blank, .staffLine]
        for (k, chord) in chords.enumerated() {
            guard let o = system.heads[chord.heads].lazy.compactMap(\.ornament).first else { continue }
            let rows = headRows(chord)
            let stemmed = chord.duration.value.hasStem
            let stem = stemmed ? stemSpan(chord, tipRow: nil) : nil
            if let sign = Painter.ornamentSign(o) {
                let width = sign.unicodeScalars.count
                var y = (stem.map { chord.stemUp ? $0.to : rows.top } ?? rows.top) - 1
                while y > 0, !(0..<width).allSatisfy({ open.contains(cell(chord.column + $0, y).ink) }) { y -= 1 }
                if y >= 0, (0..<width).allSatisfy({ open.contains(cell(chord.column + $0, y).ink) }) { text(sign, x: chord.column, y: y, .dot) }
                continue
            }
            guard let strokes = Painter.tremoloStrokes(o) else { continue }
            if Painter.isTwoNoteTremolo(o) {
                // From the first of a pair to the next chord of its staff, its partner.
                guard system.heads[chord.heads].contains(where: \.opensTwoNoteTremolo),
                      let j = chords.indices.first(where: { $0 > k && chords[$0].staff == chord.staff }),
                      Painter.isTwoNoteTremolo(system.heads[chords[j].heads].lazy.compactMap(\.ornament).first) else { continue }
                let other = chords[j]
                let x = other.column - chord.column >= 2 ? (chord.column + other.column + 1) / 2 : chord.column + 1
                let mid: Int
                if let stem {
                    mid = (stem.from + stem.to) / 2
                } else {
                    mid = rows.top - 1
                }
                for y in [mid, mid - 1, mid + 1] where y >= 0 && y < height && open.contains(cell(x, y).ink) {
                    put(x, y, strokes, .beam, note: chord.leadNote)
                    break
                }
                continue
            }
            if let stem {
                // Across the stem, nearest its middle.
                let mid = (stem.from + stem.to) / 2
                for y in [mid, mid + (chord.stemUp ? 1 : -1), mid - (chord.stemUp ? 1 : -1)] where cell(chord.column, y).ink == .stem {
                    put(chord.column, y, strokes, .beam, note: chord.leadNote)
                    break
                }
            } else {
                let y = rows.top - 1
                if y >= 0, open.contains(cell(chord.column, y).ink) { put(chord.column, y, strokes, .beam, note: chord.leadNote) }
            }
        }
    }

    /// Groups of chords in one tuplet, per staff: consecutive tuplet chords within the time
    /// the tuplet takes (`normal` of the first chord's value: a quarter for triplet eighths).
    func tupletGroups() -> [[PlacedChord]] {
        var out: [[PlacedChord]] = []
        var current: [PlacedChord] = []
        let tpq = max(1, score.ticksPerQuarter)
        for chord in system.chords {
            if let first = current.first, let t = first.tuplet, chord.staff == first.staff, chord.tuplet == t,
               chord.tick < first.tick + t.normal * NoteDuration(first.duration.value).ticks(tpq: tpq) {
                current.append(chord)
                continue
            }
            if !current.isEmpty { out.append(current) }
            current = chord.tuplet == nil ? [] : [chord]
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// The tuplet's number over (or under) its group, at the stems' tips: on the beam of a
    /// beamed group, beside the tips of unbeamed ones; in a bracket (`┌╌3╌┐`, `└╌3╌┘` under
    /// the group) where the score prints one, or, when it does not say, where the group is not
    /// beamed.
    mutating func paintTuplets() {
        for group in tupletGroups() {
            guard let first = group.first, let last = group.last, let t = first.tuplet,
                  let digits = Optional(String(t.actual)), !digits.isEmpty else { continue }
            let up = first.stemUp
            var tip = up ? Int.max : Int.min
            let beamed = first.beamGroup != nil && group.allSatisfy { $0.beamGroup == first.beamGroup }
            // A beamed group's tips are the whole beam's (the beam is drawn at one row).
            let tipping = beamed ? system.chords.filter { $0.beamGroup == first.beamGroup } : group
            for c in tipping {
                let span = c.duration.value.hasStem ? stemSpan(c, tipRow: nil).to : (up ? headRows(c).top - 1 : headRows(c).bottom + 1)
                tip = up ? min(tip, span) : max(tip, span)
            }
            let bracketed = t.bracket ?? !beamed
            let y = max(0, min(height - 1, beamed && !bracketed ? tip : tip + (up ? -1 : 1)))
            // The tuplet's rests count in the group: within its time before or after the chords.
            let tpq = max(1, score.ticksPerQuarter)
            let span = t.normal * NoteDuration(first.duration.value).ticks(tpq: tpq)
            let used = last.tick - first.tick
            let rests = system.rests.filter { $0.staff == first.staff && $0.tuplet == t && $0.tick > first.tick - (span - used) && $0.tick < first.tick + span }
            let left = min(first.column, rests.map(\.column).min() ?? first.column)
            let right = max(last.column, rests.map(\.column).max() ?? last.column)
            let x = (left + right) / 2 + (left == right ? 1 : 0)
            if bracketed {
                // From the first head to past the last, over the number's row, where nothing is drawn.
                let x0 = left, x1 = max(right + 1, x + digits.unicodeScalars.count)
                for c in x0...x1 where [Ink.blank, .staffLine].contains(cell(c, y).ink) {
                    // Dashed, so a bracket is not read as a beam.
                    put(c, y, c == x0 ? (up ? "┌" : "└") : (c == x1 ? (up ? "┐" : "┘") : "╌"), .beam)
                }
            }
            text(digits, x: x, y: y, .beam)
        }
    }

    func headRows(_ chord: PlacedChord) -> (top: Int, bottom: Int) {
        var top = Int.max, bottom = Int.min
        for h in system.heads[chord.heads] {
            let r = geometry.row(chord.staff, step: h.step)
            top = min(top, r.main)
            bottom = max(bottom, r.lower ?? r.main)
        }
        return (top, bottom)
    }

    mutating func paintLedgers(_ chord: PlacedChord) {
        let heads = system.heads[chord.heads]
        guard let hi = heads.map(\.step).max(), let lo = heads.map(\.step).min() else { return }
        let hasDisplaced = heads.contains { $0.displaced }
        let x0 = chord.column - 1, x1 = chord.column + (hasDisplaced ? 2 : 1)
        var steps: [Int] = []
        if hi >= 10 { steps += stride(from: 10, through: hi - (hi % 2 == 0 ? 0 : 1), by: 2) }
        if lo <= -2 { steps += stride(from: -2, through: lo + (lo % 2 == 0 ? 0 : 1), by: -2) }
        for s in steps {
            let y = geometry.lineRow(chord.staff, step: s)
            for x in x0...x1 { put(x, y, "─", .ledger, note: chord.leadNote) }
        }
    }

    /// Stem rows of a chord: from the head nearest the tip to the tip.
    func stemSpan(_ chord: PlacedChord, tipRow: Int?) -> (from: Int, to: Int) {
        let rows = headRows(chord)
        if chord.stemUp {
            return (rows.top - 1, tipRow ?? rows.top - geometry.stemRows)
        }
        return (rows.bottom + 1, tipRow ?? rows.bottom + geometry.stemRows)
    }

    func isLineRow(_ y: Int) -> Bool {
        geometry.lineRows(.treble).contains(y) || geometry.lineRows(.bass).contains(y)
    }

    mutating func paintStem(_ chord: PlacedChord, tipRow: Int?) {
        guard chord.duration.value.hasStem else { return }
        let span = stemSpan(chord, tipRow: tipRow)
        let rows = chord.stemUp ? stride(from: span.from, through: span.to, by: -1) : stride(from: span.from, through: span.to, by: 1)
        for y in rows {
            let onLine = cell(chord.column, y).ink == .staffLine || cell(chord.column, y).ink == .ledger
            put(chord.column, y, onLine ? "┼" : "│", .stem, note: chord.leadNote)
        }
        // Flags when not beamed: one per flag, beside the stem from the tip.
        if tipRow == nil {
            for f in 0..<chord.duration.value.flags {
                let y = chord.stemUp ? span.to + f : span.to - f
                put(chord.column + 1, y, chord.stemUp ? "╲" : "╱", .stem, note: chord.leadNote)
            }
        }
    }

    mutating func paintBeamed(_ chords: [PlacedChord]) {
        guard let first = chords.first, let last = chords.last else { return }
        let up = first.stemUp
        var tip = up ? Int.max : Int.min
        for c in chords {
            let span = stemSpan(c, tipRow: nil)
            tip = up ? min(tip, span.to) : max(tip, span.to)
        }
        for c in chords { paintStem(c, tipRow: tip) }
        // The beam: single for eighths, double where both neighbours have two flags or more.
        for (k, c) in chords.enumerated() {
            let doubleLeft = k > 0 && c.duration.value.flags >= 2 && chords[k - 1].duration.value.flags >= 2
            let doubleRight = k + 1 < chords.count && c.duration.value.flags >= 2 && chords[k + 1].duration.value.flags >= 2
            let double = doubleLeft || doubleRight
            let g: Unicode.Scalar
            if c.column == first.column {
                g = up ? (double ? "╒" : "┌") : (double ? "╘" : "└")
            } else if c.column == last.column {
                g = up ? (double ? "╕" : "┐") : (double ? "╛" : "┘")
            } else {
                g = up ? (double ? "╤" : "┬") : (double ? "╧" : "┴")
            }
            put(c.column, tip, g, .beam, note: c.leadNote)
            if k + 1 < chords.count {
                let next = chords[k + 1]
                if next.column > c.column + 1 {
                    for x in (c.column + 1)..<next.column { put(x, tip, doubleRight ? "═" : "─", .beam, note: c.leadNote) }
                }
            }
        }
        _ = last
    }

    mutating func paintTies(_ chord: PlacedChord) {
        for h in system.heads[chord.heads] where h.tiesToNext {
            let y = geometry.row(chord.staff, step: h.step).main
            // To the continuation head: the next head of this note in the system, or the edge.
            let next = system.heads.first { $0.noteIndex == h.noteIndex && $0.tiedFromPrevious && $0.tick > h.tick }
            let from = h.column + 1 + (h.finger != nil ? 1 : 0) + h.duration.dots
            let to = next.map { $0.column - 1 } ?? min(lastColumn - 1, from + 2)
            if from <= to { for x in from...to { put(x, y, "‿", .tie, note: h.noteIndex) } }
        }
    }

    mutating func paintHeads(_ chord: PlacedChord) {
        let heads = system.heads[chord.heads]
        let hasDisplaced = heads.contains { $0.displaced }
        // Accidentals right to left, top head first, each in the nearest free column.
        var usedAccidentalCells = Set<Int>()
        for h in heads.reversed() {
            guard let acc = h.accidental else { continue }
            let y = geometry.row(chord.staff, step: h.step).main
            var x = chord.column - 1
            while usedAccidentalCells.contains(y * 1000 + x) || (density == .compact && usedAccidentalCells.contains((y + 1) * 1000 + x) && h.step % 2 != 0) {
                x -= 1
            }
            usedAccidentalCells.insert(y * 1000 + x)
            put(x, y, acc.glyph, .accidental, note: h.noteIndex)
        }
        for h in heads {
            let r = geometry.row(chord.staff, step: h.step)
            let open = h.duration.value.isOpen
            if let lower = r.lower {
                put(h.column, r.main, open ? "◡" : "▄", .head, note: h.noteIndex, part: .main)
                put(h.column, lower, open ? "◠" : "▀", .head, note: h.noteIndex, part: .lowerHalf)
            } else if density == .compact {
                // A head on a line, as tall as a head in a space (`▄` over `▀`): one cell of
                // block, so eighth notes look alike whether they sit on a line or in a space.
                put(h.column, r.main, open ? "○" : "█", .head, note: h.noteIndex, part: .main)
            } else {
                put(h.column, r.main, open ? "○" : "●", .head, note: h.noteIndex, part: .main)
            }
            var x = chord.column + (hasDisplaced ? 2 : 1)
            for _ in 0..<h.duration.dots {
                put(x, r.main, "·", .dot, note: h.noteIndex)
                x += 1
            }
            if let f = h.finger, let digit = Unicode.Scalar(UInt32(0x30 + f)) {
                put(x, r.main, digit, .finger, note: h.noteIndex)
            }
        }
    }

    mutating func paintOttavas() {
        for o in system.ottavas {
            guard let y = geometry.ottavaRow[o.staff]?[o.octaves > 0 ? 1 : -1] else { continue }
            let label: String
            switch o.octaves {
            case 2: label = "15ma"
            case 1: label = "8va"
            case -1: label = "8vb"
            default: label = "15mb"
            }
            text(label, x: o.fromColumn, y: y, .ottava)
            let start = o.fromColumn + label.unicodeScalars.count
            if start <= o.toColumn {
                for x in start...o.toColumn { put(x, y, x == o.toColumn ? (o.octaves > 0 ? "┐" : "┘") : "┈", .ottava) }
            }
        }
    }

    mutating func paintBarNumbers() {
        var free = 0
        for bar in system.bars where !(bar.number == 0 && bar.displayNumber == 0) {
            let x = bar.lineColumn + 1
            guard x >= free else { continue }
            let label = String(bar.displayNumber)
            text(label, x: x, y: 0, .barNumber)
            free = x + label.count + 1
        }
    }
}
