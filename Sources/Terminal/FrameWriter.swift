/// Turns a new frame into the fewest terminal bytes, given what is already on the screen.
///
/// Keeps the previous frame, the cursor position and the current SGR "pen"; writes only cells
/// that changed, picks the shortest cursor move (or none when contiguous, or re-prints a short
/// run of unchanged cells when that is shorter than a move) and the shortest SGR change
/// (incremental or reset-based). Over SSH at 30 fps this is what keeps the screen smooth.
public struct FrameWriter: Sendable {
    public var depth: ColorDepth
    /// Wraps each non-empty frame in `ESC[?2026h … ESC[?2026l` so the terminal shows it at once.
    /// Terminals without the mode ignore it.
    public var synchronizedOutput: Bool

    private var previous: CellBuffer?
    private var cursorX = -1
    private var cursorY = -1
    private var pen: Style?
    private var out: [UInt8] = []

    public init(depth: ColorDepth, synchronizedOutput: Bool = true) {
        self.depth = depth
        self.synchronizedOutput = synchronizedOutput
    }

    /// Forget what is on screen: the next frame clears and redraws everything (after resize,
    /// resume from Ctrl-Z, or anything else that may have written to the terminal).
    public mutating func invalidate() {
        previous = nil
        cursorX = -1
        cursorY = -1
        pen = nil
    }

    /// The bytes that bring the screen from the previous frame to `next`. A frame identical to
    /// the previous one produces no bytes at all.
    public mutating func frame(_ next: CellBuffer) -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        let base: CellBuffer
        var fullRedraw = false
        if let p = previous, p.size == next.size {
            base = p
        } else {
            fullRedraw = true
            base = CellBuffer(size: next.size)
        }
        if synchronizedOutput { out.append(contentsOf: FrameWriter.syncBegin) }
        let startCount = out.count
        if fullRedraw {
            // Reset the pen first so the clear paints the default background.
            out.append(contentsOf: [0x1B, 0x5B, 0x30, 0x6D])  // ESC[0m
            out.append(contentsOf: [0x1B, 0x5B, 0x48, 0x1B, 0x5B, 0x32, 0x4A])  // ESC[H ESC[2J
            pen = .plain
            cursorX = 0
            cursorY = 0
        }
        writeChanges(from: base, to: next)
        if out.count == startCount && !fullRedraw {
            out.removeAll(keepingCapacity: true)
        } else if synchronizedOutput {
            out.append(contentsOf: FrameWriter.syncEnd)
        }
        previous = next
        return out
    }

    static let syncBegin: [UInt8] = Array("\u{1B}[?2026h".utf8)
    static let syncEnd: [UInt8] = Array("\u{1B}[?2026l".utf8)

    private mutating func writeChanges(from old: CellBuffer, to new: CellBuffer) {
        let w = new.width
        let h = new.height
        old.cells.withUnsafeBufferPointer { oldCells in
            new.cells.withUnsafeBufferPointer { newCells in
                for y in 0..<h {
                    let row = y * w
                    var x = 0
                    while x < w {
                        let c = newCells[row + x]
                        var changed = c != oldCells[row + x]
                        // A wide character must be rewritten if its right half changed.
                        if !changed, c.scalar >= 0x1100, x + 1 < w, CellBuffer.columnWidth(Unicode.Scalar(c.scalar) ?? " ") == 2,
                           newCells[row + x + 1] != oldCells[row + x + 1] {
                            changed = true
                        }
                        if !changed || c.scalar == 0 {
                            x += 1
                            continue
                        }
                        moveTo(x, y, row: row, cells: newCells)
                        emit(c)
                        let cw = max(1, CellBuffer.columnWidth(Unicode.Scalar(c.scalar) ?? " "))
                        cursorX = x + cw
                        if cursorX >= w { cursorX = -1; cursorY = -1 }  // pending-wrap: position unknown
                        x += cw
                    }
                }
            }
        }
    }

    /// Moves the cursor to (x, y) by the shortest of: nothing, re-printing up to a few unchanged
    /// cells that already have the current pen, CUF/CUB/CHA on the same row, or CUP.
    private mutating func moveTo(_ x: Int, _ y: Int, row: Int, cells: UnsafeBufferPointer<Cell>) {
        if cursorX == x && cursorY == y { return }
        var best: [UInt8] = FrameWriter.cup(x, y)
        if cursorY == y && cursorX >= 0 {
            if x > cursorX {
                let n = x - cursorX
                let cuf: [UInt8] = n == 1 ? [0x1B, 0x5B, 0x43] : FrameWriter.csi(n, 0x43)
                if cuf.count < best.count { best = cuf }
                // Re-printing the skipped cells is shorter for tiny gaps with the same pen.
                if n <= 4, let pen {
                    var bytes: [UInt8] = []
                    var ok = true
                    for i in cursorX..<x {
                        let c = cells[row + i]
                        if c.scalar == 0 || c.scalar >= 0x80 || mapped(c.style) != pen { ok = false; break }
                        bytes.append(UInt8(c.scalar))
                    }
                    if ok && bytes.count < best.count { best = bytes }
                }
            } else {
                let cub = FrameWriter.csi(cursorX - x, 0x44)
                if cub.count < best.count { best = cub }
            }
            if x == 0 { best = [0x0D] }
            let cha = FrameWriter.csi(x + 1, 0x47)
            if cha.count < best.count { best = cha }
        }
        out.append(contentsOf: best)
        cursorX = x
        cursorY = y
    }

    private func mapped(_ s: Style) -> Style {
        if depth == .none { return Style(attributes: s.attributes) }
        return Style(fg: depth.map(s.fg), bg: depth.map(s.bg), attributes: s.attributes)
    }

    private mutating func emit(_ c: Cell) {
        let style = mapped(c.style)
        if pen != style {
            writeSGR(to: style)
            pen = style
        }
        appendUTF8(c.scalar)
    }

    private mutating func appendUTF8(_ v: UInt32) {
        if v < 0x80 {
            out.append(UInt8(v))
        } else if v < 0x800 {
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        } else if v < 0x10000 {
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        } else {
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    /// Writes the shorter of an incremental SGR change and a reset-then-set SGR.
    private mutating func writeSGR(to style: Style) {
        var full: [UInt8] = [0x1B, 0x5B, 0x30]  // ESC[0
        FrameWriter.appendAttributeParams(style.attributes, to: &full)
        if !style.fg.isDefault { full.append(0x3B); FrameWriter.appendColor(style.fg, foreground: true, to: &full) }
        if !style.bg.isDefault { full.append(0x3B); FrameWriter.appendColor(style.bg, foreground: false, to: &full) }
        full.append(0x6D)
        guard let pen else {
            out.append(contentsOf: full)
            return
        }
        var params: [UInt8] = []
        func sep() { if !params.isEmpty { params.append(0x3B) } }
        let removed = pen.attributes.subtracting(style.attributes)
        var added = style.attributes.subtracting(pen.attributes)
        if !removed.isEmpty {
            if !removed.intersection([.bold, .dim]).isEmpty {
                sep(); params += [0x32, 0x32]  // 22 turns off both bold and dim
                added.formUnion(style.attributes.intersection([.bold, .dim]))
            }
            if removed.contains(.italic) { sep(); params += [0x32, 0x33] }
            if removed.contains(.underline) { sep(); params += [0x32, 0x34] }
            if removed.contains(.reverse) { sep(); params += [0x32, 0x37] }
        }
        if !added.isEmpty {
            var a: [UInt8] = []
            FrameWriter.appendAttributeParams(added, to: &a)
            if params.isEmpty { a.removeFirst() }  // drop the leading ';'
            params += a
        }
        if style.fg != pen.fg {
            sep()
            if style.fg.isDefault { params += [0x33, 0x39] } else { FrameWriter.appendColor(style.fg, foreground: true, to: &params) }
        }
        if style.bg != pen.bg {
            sep()
            if style.bg.isDefault { params += [0x34, 0x39] } else { FrameWriter.appendColor(style.bg, foreground: false, to: &params) }
        }
        if params.count + 3 <= full.count {
            out.append(0x1B)
            out.append(0x5B)
            out.append(contentsOf: params)
            out.append(0x6D)
        } else {
            out.append(contentsOf: full)
        }
    }

    /// Appends ";1;2;3;4;7" for the attributes present (each with a leading ';').
    static func appendAttributeParams(_ a: Attributes, to bytes: inout [UInt8]) {
        if a.contains(.bold) { bytes += [0x3B, 0x31] }
        if a.contains(.dim) { bytes += [0x3B, 0x32] }
        if a.contains(.italic) { bytes += [0x3B, 0x33] }
        if a.contains(.underline) { bytes += [0x3B, 0x34] }
        if a.contains(.reverse) { bytes += [0x3B, 0x37] }
    }

    static func appendColor(_ c: Color, foreground: Bool, to bytes: inout [UInt8]) {
        switch c.kind {
        case .default:
            appendNumber(foreground ? 39 : 49, to: &bytes)
        case .ansi(let i):
            let base = i < 8 ? (foreground ? 30 : 40) : (foreground ? 90 : 100)
            appendNumber(base + Int(i & 7), to: &bytes)
        case .indexed(let i):
            appendNumber(foreground ? 38 : 48, to: &bytes)
            bytes += [0x3B, 0x35, 0x3B]
            appendNumber(Int(i), to: &bytes)
        case .rgb(let r, let g, let b):
            appendNumber(foreground ? 38 : 48, to: &bytes)
            bytes += [0x3B, 0x32, 0x3B]
            appendNumber(Int(r), to: &bytes)
            bytes.append(0x3B)
            appendNumber(Int(g), to: &bytes)
            bytes.append(0x3B)
            appendNumber(Int(b), to: &bytes)
        }
    }

    static func appendNumber(_ n: Int, to bytes: inout [UInt8]) {
        if n >= 100 { bytes.append(UInt8(0x30 + n / 100)) }
        if n >= 10 { bytes.append(UInt8(0x30 + (n / 10) % 10)) }
        bytes.append(UInt8(0x30 + n % 10))
    }

    static func appendDecimal(_ n: Int, to bytes: inout [UInt8]) {
        if n >= 10 { appendDecimal(n / 10, to: &bytes) }
        bytes.append(UInt8(0x30 + n % 10))
    }

    /// ESC [ n <final>
    static func csi(_ n: Int, _ final: UInt8) -> [UInt8] {
        var b: [UInt8] = [0x1B, 0x5B]
        appendDecimal(n, to: &b)
        b.append(final)
        return b
    }

    /// Shortest absolute move: ESC[H, ESC[rH or ESC[r;cH (1-based).
    static func cup(_ x: Int, _ y: Int) -> [UInt8] {
        var b: [UInt8] = [0x1B, 0x5B]
        if x == 0 && y == 0 { b.append(0x48); return b }
        appendDecimal(y + 1, to: &b)
        if x != 0 {
            b.append(0x3B)
            appendDecimal(x + 1, to: &b)
        }
        b.append(0x48)
        return b
    }
}
