import MIDIFile
import Terminal

/// Where each key of the on-screen keyboard sits. Shared by the keyboard and the falling notes
/// so a note always falls exactly onto its key.
public struct KeyboardLayout: Sendable, Equatable {
    public static let lowestPiano = 21   // A0
    public static let highestPiano = 108 // C8
    /// Columns from which all 88 keys are shown.
    public static let fullWidth = 105

    /// Lowest and highest pitch shown (both white keys).
    public let low: Int
    public let high: Int
    /// Columns per white key (2–4); on a wide terminal the lesson's range may be wider
    /// (`keyWidth(of:)`).
    public let keyWidth: Int
    /// Column of the lowest key's left edge.
    public let originX: Int
    /// Left column of each white key by pitch (-1 for pitches not shown or black).
    private let whiteX: [Int]
    /// Columns of each white key by pitch.
    private let whiteWidth: [Int]

    public static func isBlack(_ pitch: Int) -> Bool {
        switch ((pitch % 12) + 12) % 12 {
        case 1, 3, 6, 8, 10: return true
        default: return false
        }
    }

    /// All 88 keys from `fullWidth` columns; narrower, the lesson's range (whole octaves,
    /// centred on the range when even that does not fit).
    public init(width: Int, range: ClosedRange<Int>?) {
        var lo: Int
        var hi: Int
        if width >= KeyboardLayout.fullWidth {
            lo = KeyboardLayout.lowestPiano
            hi = KeyboardLayout.highestPiano
        } else {
            // A range outside the piano (drums, a broken file) is pulled onto it.
            let given = range ?? 36...96
            let rl = min(max(given.lowerBound, KeyboardLayout.lowestPiano), KeyboardLayout.highestPiano)
            let r = rl...max(rl, min(given.upperBound, KeyboardLayout.highestPiano))
            lo = max(KeyboardLayout.lowestPiano, r.lowerBound - ((r.lowerBound % 12) + 12) % 12)  // down to a C
            hi = min(KeyboardLayout.highestPiano, r.upperBound + (11 - ((r.upperBound % 12) + 12) % 12))  // up to a B
            // At least an octave, so a one-note lesson still shows a keyboard.
            if hi - lo < 12 {
                if lo + 12 <= KeyboardLayout.highestPiano { hi = lo + 12 } else { lo = hi - 12 }
            }
            if KeyboardLayout.isBlack(lo) { lo -= 1 }
            if KeyboardLayout.isBlack(hi) { hi += 1 }
            let capacity = max(1, width / 2)
            var whites = KeyboardLayout.whiteCount(lo, hi)
            if whites > capacity {
                // Keep the middle of the lesson's range; trim white keys from the farther end.
                let centre = (r.lowerBound + r.upperBound) / 2
                while whites > capacity {
                    if centre - lo > hi - centre {
                        lo = KeyboardLayout.nextWhite(lo)
                    } else {
                        hi = KeyboardLayout.previousWhite(hi)
                    }
                    whites -= 1
                }
            }
        }
        let whites = KeyboardLayout.whiteCount(lo, hi)
        let kw = max(2, min(4, width / max(1, whites)))
        low = lo
        high = hi
        keyWidth = kw
        var widths = Array(repeating: kw, count: 128)
        // Wide: all 88 keys, the lesson's range (whole octaves) wider, the rest narrowed to two
        // columns a key, so the piece is not a thin strip in the middle of 88 keys.
        if width >= KeyboardLayout.fullWidth, let given = range {
            let inLo = max(lo, given.lowerBound - ((given.lowerBound % 12) + 12) % 12)
            let inHi = min(hi, given.upperBound + (11 - ((given.upperBound % 12) + 12) % 12))
            let inside = KeyboardLayout.whiteCount(inLo, inHi)
            let outside = whites - inside
            let wide = inside > 0 ? min(KeyboardLayout.widestKey, (width - 2 * outside) / inside) : kw
            if wide > kw {
                for p in lo...hi { widths[p] = (inLo...inHi).contains(p) ? wide : 2 }
            }
        }
        let total = (lo...hi).filter { !KeyboardLayout.isBlack($0) }.reduce(0) { $0 + widths[$1] }
        originX = max(0, (width - total) / 2)
        var xs = Array(repeating: -1, count: 128)
        var x = originX
        for p in lo...hi where !KeyboardLayout.isBlack(p) {
            xs[p] = x
            x += widths[p]
        }
        whiteX = xs
        whiteWidth = widths
    }

    /// The widest a white key is drawn (a lesson's range on a wide terminal).
    public static let widestKey = 6

    /// Columns of the white key `pitch` (the lesson's range may be wider than the rest).
    public func keyWidth(of pitch: Int) -> Int { (0..<128).contains(pitch) ? whiteWidth[pitch] : keyWidth }

    static func whiteCount(_ lo: Int, _ hi: Int) -> Int {
        guard lo <= hi else { return 0 }
        return (lo...hi).filter { !isBlack($0) }.count
    }

    static func nextWhite(_ p: Int) -> Int { isBlack(p + 1) ? p + 2 : p + 1 }
    static func previousWhite(_ p: Int) -> Int { isBlack(p - 1) ? p - 2 : p - 1 }

    /// Total columns the keys take.
    public var width: Int { (low...high).filter { !KeyboardLayout.isBlack($0) }.reduce(0) { $0 + keyWidth(of: $1) } }

    public func contains(_ pitch: Int) -> Bool { pitch >= low && pitch <= high }

    /// Columns of a black key (its top part), nil when not shown or white.
    public func blackColumns(_ pitch: Int) -> Range<Int>? {
        guard contains(pitch), KeyboardLayout.isBlack(pitch), contains(pitch + 1) else { return nil }
        let rightWhite = whiteX[pitch + 1]
        guard rightWhite >= 0 else { return nil }
        let w = min(keyWidth(of: pitch - 1), keyWidth(of: pitch + 1))
        return w >= 5 ? (rightWhite - 1)..<(rightWhite + 2) : w >= 3 ? (rightWhite - 1)..<(rightWhite + 1) : (rightWhite - 1)..<rightWhite
    }

    /// All columns of a white key (body plus its right edge).
    public func whiteColumns(_ pitch: Int) -> Range<Int>? {
        guard contains(pitch), !KeyboardLayout.isBlack(pitch) else { return nil }
        let x = whiteX[pitch]
        return x..<(x + keyWidth(of: pitch))
    }

    /// Columns where a falling note for this pitch is drawn: a black key's columns, or the
    /// part of a white key's body not under a black key. Never overlaps another pitch.
    public func noteColumns(_ pitch: Int) -> Range<Int>? {
        if KeyboardLayout.isBlack(pitch) { return blackColumns(pitch) }
        guard let all = whiteColumns(pitch) else { return nil }
        var lower = all.lowerBound
        let upper = all.upperBound - 1
        if let left = blackColumns(pitch - 1), left.upperBound > lower { lower = left.upperBound }
        return lower < upper ? lower..<upper : nil
    }
}

/// The 88-key keyboard (or the lesson's range), four rows: two rows where black keys show,
/// one row of white keys only (with note names when on), one row of octave labels.
public struct KeyboardWidget: Widget, Sendable {
    public static let height = 4

    public let theme: Theme
    /// The keys' columns, made for the area's width (`KeyboardLayout(width:range:)`).
    public let layout: KeyboardLayout
    public let state: KeyboardState
    public let showNoteNames: Bool
    public let naming: NoteNaming
    /// The learner's own keyboard (`--keys`, `--range`); keys off it are drawn greyed (░
    /// without colour), so the screen shows the instrument they have.
    public let learnerKeys: ClosedRange<Int>?

    public init(theme: Theme, layout: KeyboardLayout, state: KeyboardState, showNoteNames: Bool, naming: NoteNaming,
                learnerKeys: ClosedRange<Int>? = nil) {
        self.theme = theme
        self.layout = layout
        self.state = state
        self.showNoteNames = showNoteNames
        self.naming = naming
        self.learnerKeys = learnerKeys
    }

    /// The keyboard's own columns starting at the top row of `area` (four rows).
    public func render(into area: Rect, buffer: inout CellBuffer) {
        let y = area.y
        let ox = area.x  // the layout's columns count from the area's left edge
        let mono = theme.monochrome
        func off(_ p: Int) -> Bool { learnerKeys.map { !$0.contains(p) } ?? false }
        // White keys: every row, then black keys over the top two rows.
        for p in layout.low...layout.high where !KeyboardLayout.isBlack(p) {
            guard let cols = layout.whiteColumns(p) else { continue }
            let role = state[p]
            let body: Style
            let edge: Style
            let fillGlyph: Unicode.Scalar
            if mono {
                body = Style()
                edge = Style()
                fillGlyph = role.map { theme.glyph($0) } ?? (off(p) ? "░" : " ")
            } else {
                let bg = role.map { theme.color($0) } ?? (off(p) ? Theme.offWhiteKey : Theme.whiteKey)
                body = Style(fg: Theme.keyLabel, bg: bg)
                edge = Style(fg: Theme.keyEdge, bg: bg)
                fillGlyph = " "
            }
            for row in 0..<3 {
                for x in cols.lowerBound..<(cols.upperBound - 1) { buffer.put(ox + x, y + row, fillGlyph, body) }
                buffer.put(ox + cols.upperBound - 1, y + row, mono ? "│" : "▕", edge)
            }
            if showNoteNames {
                let name = PitchName.name(p, octaveOfMiddleC: naming.octaveOfMiddleC)
                if let letter = name.unicodeScalars.first {
                    buffer.put(ox + cols.lowerBound, y + 2, letter, mono && role != nil ? Style(attributes: .reverse) : body)
                }
            } else if mono, let role {
                buffer.put(ox + cols.lowerBound, y + 2, theme.letter(role), Style(attributes: [.reverse, .bold]))
            }
        }
        for p in layout.low...layout.high where KeyboardLayout.isBlack(p) {
            guard let cols = layout.blackColumns(p) else { continue }
            let role = state[p]
            let glyph: Unicode.Scalar
            let style: Style
            if mono {
                glyph = role.map { theme.glyph($0) } ?? (off(p) ? "▒" : "█")
                style = role == nil ? Style() : Style(attributes: .bold)
            } else {
                glyph = " "
                style = Style(bg: role.map { theme.darkColor($0) } ?? (off(p) ? Theme.offBlackKey : Theme.blackKey))
            }
            for row in 0..<2 {
                for x in cols { buffer.put(ox + x, y + row, glyph, style) }
            }
        }
        // Wait mode: the computer key that plays each awaited note, on the key itself.
        for (p, letter) in state.letters where layout.contains(p) {
            guard let cols = layout.noteColumns(p), let scalar = letter.unicodeScalars.first else { continue }
            buffer.put(ox + cols.lowerBound, y + (KeyboardLayout.isBlack(p) ? 1 : 2), scalar, Style(attributes: [.reverse, .bold]))
        }
        // Octave labels under every C (and A0 at the bottom end), middle C in bold.
        let labelRow = y + 3
        let middleC = 60
        for p in layout.low...layout.high where p % 12 == 0 || p == layout.low {
            guard let cols = layout.whiteColumns(p) else { continue }
            let label = PitchName.name(p, octaveOfMiddleC: naming.octaveOfMiddleC)
            let style = p == middleC
                ? (mono ? Style(attributes: [.bold, .underline]) : Style(fg: .rgb(255, 210, 90), attributes: .bold))
                : (mono ? Style() : Style(fg: .rgb(150, 150, 160)))
            // Leave the last column free when the next label would touch it.
            buffer.write(label, x: ox + cols.lowerBound, y: labelRow, style: style, maxWidth: max(2, layout.keyWidth(of: p) * 3))
        }
    }
}
