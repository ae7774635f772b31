import Testing
@testable import Terminal

/// Deterministic pseudo-random numbers (xorshift) so failures reproduce.
struct XorShift {
    var state: UInt64
    mutating func next(_ n: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(n))
    }
}

@Suite("Frame diff equivalence (emulated terminal)")
struct DiffEquivalenceTests {
    static let styles: [Style] = [
        .plain, Style(fg: .ansi(1)), Style(fg: .ansi(12), bg: .ansi(0)), Style(attributes: .bold),
        Style(fg: .rgb(10, 200, 30), attributes: [.dim, .underline]), Style(bg: .rgb(40, 46, 66)),
        Style(fg: .indexed(208), attributes: .reverse), Style(fg: .rgb(255, 255, 255), bg: .rgb(0, 0, 0), attributes: [.bold, .italic]),
    ]
    static let glyphs: [Unicode.Scalar] = [" ", "a", "Z", "▓", "─", "é", "●", "▕", "中", "🎹"]

    /// Random edits to a frame: runs of text, single cells, rectangles, like moving notes.
    static func mutate(_ b: inout CellBuffer, _ rng: inout XorShift) {
        for _ in 0..<(1 + rng.next(12)) {
            let style = styles[rng.next(styles.count)]
            let x = rng.next(b.width), y = rng.next(b.height)
            switch rng.next(4) {
            case 0:
                var s = ""
                for _ in 0..<(1 + rng.next(10)) { s.unicodeScalars.append(glyphs[rng.next(glyphs.count)]) }
                b.write(s, x: x, y: y, style: style)
            case 1:
                b.put(x, y, glyphs[rng.next(glyphs.count - 2)], style)
            case 2:
                b.fill(x: x, y: y, width: rng.next(8), height: rng.next(4), Cell(glyphs[rng.next(8)], style))
            default:
                b.put(b.width - 1, y, "x", style)  // last column: pending wrap
            }
        }
    }

    @Test(arguments: [ColorDepth.truecolor, .palette256, .ansi16, .none])
    func emulatedScreenEqualsEveryFrame(depth: ColorDepth) {
        let size = TerminalSize(columns: 37, rows: 11)
        var rng = XorShift(state: 0x9E37_79B9_7F4A_7C15)
        var writer = FrameWriter(depth: depth)
        var screen = VirtualScreen(size: size)
        var frame = CellBuffer(size: size)
        for step in 0..<400 {
            Self.mutate(&frame, &rng)
            if step % 97 == 50 { writer.invalidate() }
            screen.feed(writer.frame(frame))
            #expect(screen.text == frame.plainText(), "text after frame \(step)")
            if depth == .truecolor {
                #expect(screen.buffer.styleMap() == frame.styleMap(), "styles after frame \(step)")
            }
            if screen.text != frame.plainText() { break }
        }
    }

    @Test func feedingInPiecesGivesTheSameScreen() {
        let size = TerminalSize(columns: 30, rows: 8)
        var rng = XorShift(state: 42)
        var writer = FrameWriter(depth: .truecolor)
        var whole = VirtualScreen(size: size)
        var pieces = VirtualScreen(size: size)
        var frame = CellBuffer(size: size)
        for _ in 0..<50 {
            Self.mutate(&frame, &rng)
            let bytes = writer.frame(frame)
            whole.feed(bytes)
            var i = 0
            while i < bytes.count {
                let n = 1 + rng.next(7)
                pieces.feed(Array(bytes[i..<min(bytes.count, i + n)]))
                i += n
            }
        }
        #expect(whole.buffer == pieces.buffer)
        #expect(whole.text == frame.plainText())
    }
}
