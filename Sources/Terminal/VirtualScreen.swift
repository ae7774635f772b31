/// A small terminal emulator for the sequences Etude writes (cursor moves, SGR, erase, text),
/// so tests can read what a real terminal would show after a stream of frame diffs — the
/// diff is correct exactly when the emulated screen equals the last frame drawn.
///
/// Understands: printable UTF-8 (wide characters take two cells), CR, LF, BS, CSI A/B/C/D/G/H/f/J/K/m,
/// DEC private modes (ignored), pending wrap at the last column. Anything else is skipped.
public struct VirtualScreen: Sendable {
    public private(set) var buffer: CellBuffer
    public private(set) var cursorX = 0
    public private(set) var cursorY = 0
    private var pen = Style.plain
    private var pendingWrap = false
    private var carry: [UInt8] = []

    public init(size: TerminalSize) {
        buffer = CellBuffer(size: size)
    }

    /// The screen as plain text (see `CellBuffer.plainText`).
    public var text: String { buffer.plainText() }

    /// Interprets bytes; an incomplete sequence at the end is kept for the next call.
    public mutating func feed(_ bytes: [UInt8]) {
        let data = carry + bytes
        carry = []
        var i = 0
        while i < data.count {
            let b = data[i]
            if b == 0x1B {
                guard i + 1 < data.count else { carry = Array(data[i...]); return }
                if data[i + 1] == 0x5B {
                    var j = i + 2
                    while j < data.count, !(0x40...0x7E).contains(data[j]) { j += 1 }
                    guard j < data.count else { carry = Array(data[i...]); return }
                    csi(Array(data[(i + 2)..<j]), final: data[j])
                    i = j + 1
                } else {
                    i += 2  // ESC x: not used by Etude; skipped
                }
                continue
            }
            if b < 0x20 || b == 0x7F {
                control(b)
                i += 1
                continue
            }
            // UTF-8
            let length = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            guard i + length <= data.count else { carry = Array(data[i...]); return }
            let scalar = String(decoding: data[i..<(i + length)], as: UTF8.self).unicodeScalars.first ?? "\u{FFFD}"
            printScalar(scalar)
            i += length
        }
    }

    private mutating func control(_ b: UInt8) {
        switch b {
        case 0x0D: cursorX = 0; pendingWrap = false
        case 0x0A: lineFeed()
        case 0x08: cursorX = max(0, cursorX - 1); pendingWrap = false
        default: break
        }
    }

    private mutating func lineFeed() {
        pendingWrap = false
        if cursorY + 1 < buffer.height {
            cursorY += 1
        } else {
            scrollUp()
        }
    }

    private mutating func scrollUp() {
        var next = CellBuffer(size: buffer.size)
        for y in 1..<max(1, buffer.height) {
            for x in 0..<buffer.width { next[x, y - 1] = buffer[x, y] }
        }
        buffer = next
    }

    private mutating func printScalar(_ u: Unicode.Scalar) {
        let w = CellBuffer.columnWidth(u)
        if w == 0 { return }
        if pendingWrap {
            pendingWrap = false
            cursorX = 0
            lineFeed()
        }
        if w == 2 && cursorX == buffer.width - 1 {
            cursorX = 0
            lineFeed()
        }
        // Overwriting half of a wide character blanks the other half, as terminals do.
        buffer.write(String(Character(u)), x: cursorX, y: cursorY, style: pen)
        if cursorX + w >= buffer.width {
            cursorX = buffer.width - 1
            pendingWrap = true
        } else {
            cursorX += w
        }
    }

    private mutating func csi(_ paramBytes: [UInt8], final: UInt8) {
        if paramBytes.first == 0x3F { return }  // DEC private modes: alternate screen, cursor, paste, sync
        var params: [Int] = []
        var current: Int?
        for b in paramBytes {
            if (0x30...0x39).contains(b) {
                current = (current ?? 0) * 10 + Int(b - 0x30)
            } else if b == 0x3B {
                params.append(current ?? 0)
                current = nil
            }
        }
        if current != nil || !params.isEmpty { params.append(current ?? 0) }
        func p(_ i: Int, _ d: Int) -> Int { i < params.count && params[i] != 0 ? params[i] : d }
        pendingWrap = final == 0x6D ? pendingWrap : false
        switch final {
        case 0x41: cursorY = max(0, cursorY - p(0, 1))
        case 0x42: cursorY = min(buffer.height - 1, cursorY + p(0, 1))
        case 0x43: cursorX = min(buffer.width - 1, cursorX + p(0, 1))
        case 0x44: cursorX = max(0, cursorX - p(0, 1))
        case 0x47: cursorX = min(buffer.width - 1, p(0, 1) - 1)
        case 0x48, 0x66:
            cursorY = min(buffer.height - 1, p(0, 1) - 1)
            cursorX = min(buffer.width - 1, p(1, 1) - 1)
        case 0x4A:
            if p(0, 0) == 2 || p(0, 0) == 3 {
                buffer.fill(x: 0, y: 0, width: buffer.width, height: buffer.height, Cell(" ", Style(bg: pen.bg)))
            }
        case 0x4B:
            buffer.fill(x: cursorX, y: cursorY, width: buffer.width - cursorX, height: 1, Cell(" ", Style(bg: pen.bg)))
        case 0x6D: sgr(params.isEmpty ? [0] : params)
        default: break
        }
    }

    private mutating func sgr(_ params: [Int]) {
        var i = 0
        while i < params.count {
            let v = params[i]
            switch v {
            case 0: pen = .plain
            case 1: pen.attributes.insert(.bold)
            case 2: pen.attributes.insert(.dim)
            case 3: pen.attributes.insert(.italic)
            case 4: pen.attributes.insert(.underline)
            case 7: pen.attributes.insert(.reverse)
            case 22: pen.attributes.subtract([.bold, .dim])
            case 23: pen.attributes.remove(.italic)
            case 24: pen.attributes.remove(.underline)
            case 27: pen.attributes.remove(.reverse)
            case 30...37: pen.fg = .ansi(UInt8(v - 30))
            case 90...97: pen.fg = .ansi(UInt8(v - 90 + 8))
            case 40...47: pen.bg = .ansi(UInt8(v - 40))
            case 100...107: pen.bg = .ansi(UInt8(v - 100 + 8))
            case 39: pen.fg = .default
            case 49: pen.bg = .default
            case 38, 48:
                var color: Color?
                if i + 2 < params.count, params[i + 1] == 5 {
                    color = .indexed(UInt8(clamping: params[i + 2]))
                    i += 2
                } else if i + 4 < params.count, params[i + 1] == 2 {
                    color = .rgb(UInt8(clamping: params[i + 2]), UInt8(clamping: params[i + 3]), UInt8(clamping: params[i + 4]))
                    i += 4
                }
                if let color { if v == 38 { pen.fg = color } else { pen.bg = color } }
            default: break
            }
            i += 1
        }
    }
}
