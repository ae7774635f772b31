/// Columns × rows of a terminal.
public struct TerminalSize: Hashable, Sendable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int
    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }
    public var description: String { "\(columns)×\(rows)" }
}

/// One character cell: a Unicode scalar plus its style.
///
/// `scalar == 0` marks the right half of a double-width character (nothing is written there).
public struct Cell: Hashable, Sendable {
    public var scalar: UInt32
    public var fg: Color
    public var bg: Color
    public var attributes: Attributes

    public init(_ scalar: Unicode.Scalar = " ", _ style: Style = .plain) {
        self.scalar = scalar.value
        self.fg = style.fg
        self.bg = style.bg
        self.attributes = style.attributes
    }

    init(raw scalar: UInt32, _ style: Style) {
        self.scalar = scalar
        self.fg = style.fg
        self.bg = style.bg
        self.attributes = style.attributes
    }

    public static let blank = Cell()

    public var style: Style { Style(fg: fg, bg: bg, attributes: attributes) }
    public var isContinuation: Bool { scalar == 0 }
    public var character: Character { Character(Unicode.Scalar(scalar) ?? " ") }
}

/// A frame being drawn: widgets write cells here, `FrameWriter` turns the difference from the
/// previous frame into terminal bytes. Coordinates outside the buffer are ignored, so widgets
/// never need to clip by hand.
public struct CellBuffer: Equatable, Sendable {
    public private(set) var size: TerminalSize
    public private(set) var cells: [Cell]

    public init(size: TerminalSize, fill: Cell = .blank) {
        let size = TerminalSize(columns: max(0, size.columns), rows: max(0, size.rows))
        self.size = size
        self.cells = Array(repeating: fill, count: size.columns * size.rows)
    }

    public var width: Int { size.columns }
    public var height: Int { size.rows }

    /// Blanks every cell, keeping the allocation (frames are rebuilt from scratch each tick).
    public mutating func clear(_ fill: Cell = .blank) {
        for i in cells.indices { cells[i] = fill }
    }

    /// Resizes (and blanks) when the terminal size changed.
    public mutating func reset(size newSize: TerminalSize, fill: Cell = .blank) {
        if newSize == size { clear(fill) } else { self = CellBuffer(size: newSize, fill: fill) }
    }

    public func contains(_ x: Int, _ y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size.columns && y < size.rows
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { contains(x, y) ? cells[y * size.columns + x] : .blank }
        set { if contains(x, y) { cells[y * size.columns + x] = newValue } }
    }

    /// Puts one single-width scalar (control characters become "?": nothing reaches the
    /// terminal that could be read as an escape sequence). Overwriting half of a wide
    /// character blanks its other half, as a terminal does.
    public mutating func put(_ x: Int, _ y: Int, _ scalar: Unicode.Scalar, _ style: Style) {
        guard contains(x, y) else { return }
        let v = scalar.value
        let safe: UInt32 = (v < 0x20 || v == 0x7F || (v >= 0x80 && v < 0xA0)) ? 0x3F : v
        let i = y * size.columns + x
        breakWide(at: i, x: x)
        cells[i] = Cell(raw: safe, style)
    }

    /// Before cell i is overwritten: if it is half of a wide character, blank the other half.
    private mutating func breakWide(at i: Int, x: Int) {
        let old = cells[i].scalar
        if old == 0 {
            if x > 0 { cells[i - 1].scalar = 0x20 }
        } else if old >= 0x1100, x + 1 < size.columns, cells[i + 1].scalar == 0 {
            cells[i + 1].scalar = 0x20
        }
    }

    /// Changes the style of a cell but keeps its character.
    public mutating func restyle(_ x: Int, _ y: Int, _ change: (inout Style) -> Void) {
        guard contains(x, y) else { return }
        let i = y * size.columns + x
        var s = cells[i].style
        change(&s)
        cells[i].fg = s.fg
        cells[i].bg = s.bg
        cells[i].attributes = s.attributes
    }

    public mutating func fill(x: Int, y: Int, width: Int, height: Int, _ cell: Cell) {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(size.columns, x + width), y1 = min(size.rows, y + height)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            let base = row * size.columns
            breakWide(at: base + x0, x: x0)
            if x1 - 1 > x0 { breakWide(at: base + x1 - 1, x: x1 - 1) }
            for col in x0..<x1 { cells[base + col] = cell }
        }
    }

    /// Writes text from (x, y), at most `maxWidth` columns, returning the columns used.
    /// Control characters are dropped, combining marks are dropped (a cell holds one scalar),
    /// wide characters take two cells.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int = .max) -> Int {
        var col = x
        let limit = maxWidth == .max ? Int.max : x + maxWidth
        for u in text.unicodeScalars {
            let w = CellBuffer.columnWidth(u)
            if w == 0 { continue }
            if col + w > limit { break }
            if w == 2 {
                put(col, y, u, style)
                if contains(col + 1, y) {
                    breakWide(at: y * size.columns + col + 1, x: col + 1)
                    cells[y * size.columns + col + 1] = Cell(raw: 0, style)
                }
                // A wide character cut by the right edge would be half drawn: show nothing.
                if !contains(col + 1, y), contains(col, y) { put(col, y, " ", style) }
            } else {
                put(col, y, u, style)
            }
            col += w
        }
        return col - x
    }

    /// `text` in `width` columns, shortened by one rule wherever text meets an edge (hints,
    /// messages, titles, status lines), so nothing is cut mid-word: first a bracketed aside
    /// goes (`(in G major)`, from the last), then trailing parts (after ` · `, `; ` or ` — `,
    /// from the last, marked `…`), then words from the end (`…`); only a single word longer
    /// than the width is cut inside it. Empty when not even `…` fits.
    public static func cut(_ text: String, width: Int) -> String {
        guard self.width(of: text) > width else { return text }
        guard width > 0 else { return "" }
        // Leading spaces (a part set after another: " — composer") are kept as they are.
        let lead = text.prefix { $0 == " " }
        if !lead.isEmpty {
            guard lead.count < width else { return "" }
            return String(lead) + cut(String(text.dropFirst(lead.count)), width: width - lead.count)
        }
        /// Spaces collapsed and trimmed, a space left before `,;:` dropped.
        func tidy(_ chars: [Character]) -> [Character] {
            var out: [Character] = []
            for c in chars {
                if c == " " && (out.isEmpty || out.last == " ") { continue }
                if ",;:".contains(c), out.last == " " { out.removeLast() }
                out.append(c)
            }
            while out.last == " " { out.removeLast() }
            return out
        }
        // 1. Bracketed asides, the last first.
        var t = Array(text)
        while let close = t.lastIndex(where: { $0 == ")" || $0 == "]" }),
              let open = t[..<close].lastIndex(of: t[close] == ")" ? "(" : "[") {
            let shorter = tidy(Array(t[..<open]) + Array(t[(close + 1)...]))
            guard !shorter.isEmpty else { break }
            t = shorter
            if self.width(of: String(t)) <= width { return String(t) }
        }
        // 2. Trailing clauses, the last first.
        let separators = [" · ", "; ", " — "].map(Array.init)
        while let at = separators.compactMap({ lastStart(of: $0, in: t) }).max(), at > 0 {
            t = Array(t[..<at])
            while t.last == " " { t.removeLast() }
            if self.width(of: String(t)) + 1 <= width { return String(t) + "…" }
        }
        // 3. Words from the end (the text's own spacing kept).
        var end = t.count
        while let space = t[..<end].lastIndex(of: " ") {
            var head = Array(t[..<space])
            while let last = head.last, ",;:—-–(· ".contains(last) { head.removeLast() }
            if !head.isEmpty, self.width(of: String(head)) + 1 <= width { return String(head) + "…" }
            end = space
        }
        // 4. One word longer than the width: cut inside it (a lone dash or sign: nothing).
        let word = String(t).split(separator: " ").first.map(String.init) ?? String(t)
        if !word.contains(where: { $0.isLetter || $0.isNumber }) { return "…" }
        var out = ""
        var used = 0
        for ch in word {
            let w = self.width(of: String(ch))
            if used + w > width - 1 { break }
            out.append(ch)
            used += w
        }
        return out + "…"
    }

    /// Where the last occurrence of `needle` starts in `chars`.
    static func lastStart(of needle: [Character], in chars: [Character]) -> Int? {
        guard !needle.isEmpty, chars.count >= needle.count else { return nil }
        var i = chars.count - needle.count
        while i >= 0 {
            if Array(chars[i..<(i + needle.count)]) == needle { return i }
            i -= 1
        }
        return nil
    }

    /// `text` in lines of at most `width` columns, broken at spaces (a word longer than a
    /// line is cut with `…`), so a closing summary never breaks mid-word. Continuation lines
    /// start with `indent`.
    public static func wrap(_ text: String, width: Int, indent: String = "") -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        let leading = String(text.prefix { $0 == " " })  // an indented line keeps its indent
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let lead = lines.isEmpty ? leading : indent
            let candidate = line.isEmpty ? lead + word : line + " " + word
            if self.width(of: candidate) <= width || line.isEmpty {
                line = self.width(of: candidate) <= width ? candidate : cut(candidate, width: width)
            } else {
                lines.append(line)
                let next = indent + word
                line = self.width(of: next) <= width ? next : cut(next, width: width)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// Columns a string takes when written with `write`.
    public static func width(of text: String) -> Int {
        var n = 0
        for u in text.unicodeScalars { n += columnWidth(u) }
        return n
    }

    /// Terminal column width of a scalar: 0 for control and combining characters, 2 for East
    /// Asian wide and emoji ranges, 1 otherwise. Kept small and table-free on purpose.
    public static func columnWidth(_ u: Unicode.Scalar) -> Int {
        let v = u.value
        if v < 0x20 || v == 0x7F || (v >= 0x80 && v < 0xA0) { return 0 }
        if v < 0x300 { return 1 }
        if (0x300...0x36F).contains(v) || (0x200B...0x200F).contains(v) || (0x20D0...0x20FF).contains(v)
            || (0xFE00...0xFE0F).contains(v) || (0x1AB0...0x1AFF).contains(v) || (0x1DC0...0x1DFF).contains(v)
            || (0xE0100...0xE01EF).contains(v) || v == 0x2028 || v == 0x2029 || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v) {
            return 0
        }
        if (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v)
            || (0x1F900...0x1F9FF).contains(v) || (0x20000...0x3FFFD).contains(v) {
            return 2
        }
        return 1
    }

    /// The characters as plain text, one line per row (for snapshots and tests).
    public func plainText() -> String {
        var lines: [String] = []
        lines.reserveCapacity(size.rows)
        for y in 0..<size.rows {
            var line = String.UnicodeScalarView()
            for x in 0..<size.columns {
                let c = cells[y * size.columns + x]
                if c.scalar == 0 { continue }
                line.append(Unicode.Scalar(c.scalar) ?? " ")
            }
            lines.append(String(line))
        }
        return lines.joined(separator: "\n")
    }

    /// A map of styles: one letter per cell naming its style, plus a legend, in order of first
    /// appearance. Paired with `plainText()` it pins a frame exactly in a readable text file.
    public func styleMap() -> String {
        var letters: [Style: Character] = [:]
        var legend: [String] = []
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var rows: [String] = []
        for y in 0..<size.rows {
            var row = ""
            for x in 0..<size.columns {
                let s = cells[y * size.columns + x].style
                if let l = letters[s] {
                    row.append(l)
                } else {
                    let l: Character = letters.count < alphabet.count ? alphabet[letters.count] : "~"
                    letters[s] = l
                    legend.append("\(l) fg=\(s.fg) bg=\(s.bg) attrs=\(s.attributes.letters)")
                    row.append(l)
                }
            }
            rows.append(row)
        }
        return rows.joined(separator: "\n") + "\n--\n" + legend.joined(separator: "\n")
    }
}
