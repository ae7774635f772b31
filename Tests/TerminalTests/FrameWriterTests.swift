import Testing
@testable import Terminal

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Suite("CellBuffer and FrameWriter")
struct FrameWriterTests {
    let size = TerminalSize(columns: 20, rows: 5)

    @Test func cellBufferClipsAndStripsControls() {
        var b = CellBuffer(size: size)
        b.write("ab\u{1B}[31mc\u{7}", x: 18, y: 0)
        #expect(b[18, 0].character == "a")
        #expect(b[19, 0].character == "b")
        b.write("x\u{1B}[2Jy", x: 0, y: 1)
        #expect(b.plainText().split(separator: "\n", omittingEmptySubsequences: false)[1].hasPrefix("x[2Jy"), "ESC is dropped: nothing can form a sequence")
        b.put(0, 2, "\u{1B}", .plain)
        #expect(b[0, 2].character == "?")
        b.put(-1, 0, "z", .plain)
        b.put(0, 99, "z", .plain)
        #expect(b.cells.allSatisfy { $0.scalar != 0x1B })
    }

    @Test func wideCharactersTakeTwoCells() {
        var b = CellBuffer(size: size)
        let used = b.write("中a", x: 0, y: 0)
        #expect(used == 3)
        #expect(b[1, 0].isContinuation)
        #expect(b[2, 0].character == "a")
        #expect(CellBuffer.width(of: "e\u{301}") == 1, "combining marks take no column")
    }

    @Test func firstFrameClearsAndWritesOnlyNonBlankCells() {
        var w = FrameWriter(depth: .ansi16, synchronizedOutput: false)
        var b = CellBuffer(size: size)
        b.write("hi", x: 3, y: 2)
        #expect(text(w.frame(b)) == "\u{1B}[0m\u{1B}[H\u{1B}[2J\u{1B}[3;4Hhi")
    }

    @Test func unchangedFrameWritesNothing() {
        var w = FrameWriter(depth: .truecolor)
        var b = CellBuffer(size: size)
        b.write("hello", x: 0, y: 0, style: Style(fg: .rgb(1, 2, 3)))
        _ = w.frame(b)
        #expect(w.frame(b).isEmpty, "no change, not even the synchronized-output brackets")
    }

    @Test func onlyChangedCellsAreWritten() {
        var w = FrameWriter(depth: .ansi16, synchronizedOutput: false)
        var b = CellBuffer(size: size)
        b.write("abcdefghij", x: 0, y: 0)
        b.write("klmnopqrst", x: 0, y: 3)
        _ = w.frame(b)
        b.put(4, 0, "X", .plain)
        b.put(9, 3, "Y", .plain)
        #expect(text(w.frame(b)) == "\u{1B}[1;5HX\u{1B}[4;10HY")
    }

    @Test func contiguousCellsNeedNoMove() {
        var w = FrameWriter(depth: .ansi16, synchronizedOutput: false)
        var b = CellBuffer(size: size)
        _ = w.frame(b)
        b.write("abc", x: 5, y: 1)
        #expect(text(w.frame(b)) == "\u{1B}[2;6Habc")
    }

    @Test func shortGapsPickTheCheapestMove() {
        var w = FrameWriter(depth: .ansi16, synchronizedOutput: false)
        var b = CellBuffer(size: size)
        b.write("abcdefghijklmnop", x: 0, y: 0)
        _ = w.frame(b)
        // gap of one unchanged plain cell: re-printing "b" (1 byte) beats ESC[C (3 bytes)
        b.put(0, 0, "A", .plain)
        b.put(2, 0, "C", .plain)
        // gap of 8: ESC[8C (4 bytes) beats re-printing
        b.put(11, 0, "L", .plain)
        #expect(text(w.frame(b)) == "\rAbC\u{1B}[8CL", "CR back to column 0, reprint b, then CUF")
        // back to column 0 of the same row: CR
        b.put(0, 0, "a", .plain)
        #expect(text(w.frame(b)) == "\r" + "a")
    }

    @Test func sgrChangesAreMinimal() {
        var w = FrameWriter(depth: .ansi16, synchronizedOutput: false)
        var b = CellBuffer(size: size)
        _ = w.frame(b)
        let red = Style(fg: .ansi(1))
        let redBold = Style(fg: .ansi(1), attributes: .bold)
        let blueOnWhite = Style(fg: .ansi(4), bg: .ansi(15))
        b.put(0, 0, "a", red)
        b.put(1, 0, "b", red)
        b.put(2, 0, "c", redBold)
        b.put(3, 0, "d", red)
        b.put(4, 0, "e", blueOnWhite)
        b.put(5, 0, "f", .plain)
        #expect(text(w.frame(b)) == "\u{1B}[31mab\u{1B}[1mc\u{1B}[22md\u{1B}[34;107me\u{1B}[0mf")
    }

    @Test func colourDepthsEncodeDifferently() {
        let style = Style(fg: .rgb(255, 135, 0), bg: .rgb(0, 0, 0))
        func bytes(_ depth: ColorDepth) -> String {
            var w = FrameWriter(depth: depth, synchronizedOutput: false)
            var b = CellBuffer(size: size)
            _ = w.frame(b)
            b.put(0, 0, "x", style)
            return text(w.frame(b))
        }
        #expect(bytes(.truecolor) == "\u{1B}[38;2;255;135;0;48;2;0;0;0mx")
        #expect(bytes(.palette256) == "\u{1B}[38;5;208;48;5;16mx")
        #expect(bytes(.ansi16) == "\u{1B}[33;40mx")
        #expect(bytes(.none) == "x", "NO_COLOR: no colour codes at all")
    }

    @Test func monochromeStillWritesAttributes() {
        var w = FrameWriter(depth: .none, synchronizedOutput: false)
        var b = CellBuffer(size: size)
        _ = w.frame(b)
        b.put(0, 0, "x", Style(fg: .ansi(2), attributes: .reverse))
        #expect(text(w.frame(b)) == "\u{1B}[7mx")
    }

    @Test func synchronizedOutputBracketsChangedFrames() {
        var w = FrameWriter(depth: .ansi16, synchronizedOutput: true)
        var b = CellBuffer(size: size)
        _ = w.frame(b)
        b.put(1, 1, "x", .plain)
        #expect(text(w.frame(b)) == "\u{1B}[?2026h\u{1B}[2;2Hx\u{1B}[?2026l")
    }

    @Test func resizeAndInvalidateRedrawFully() {
        var w = FrameWriter(depth: .ansi16, synchronizedOutput: false)
        var b = CellBuffer(size: size)
        b.write("abc", x: 0, y: 0)
        _ = w.frame(b)
        w.invalidate()
        #expect(text(w.frame(b)) == "\u{1B}[0m\u{1B}[H\u{1B}[2Jabc", "the clear leaves the cursor home: no move")
        var bigger = CellBuffer(size: TerminalSize(columns: 30, rows: 6))
        bigger.write("abc", x: 0, y: 0)
        #expect(text(w.frame(bigger)).hasPrefix("\u{1B}[0m\u{1B}[H\u{1B}[2J"))
    }

    @Test func lastColumnMakesCursorPositionUnknown() {
        var w = FrameWriter(depth: .ansi16, synchronizedOutput: false)
        var b = CellBuffer(size: size)
        _ = w.frame(b)
        b.put(19, 0, "x", .plain)
        b.put(0, 1, "y", .plain)
        // the cursor starts home after the first frame (ESC[19C beats ESC[1;20H); after the last
        // column the terminal may be in pending-wrap state, so the next move is absolute
        #expect(text(w.frame(b)) == "\u{1B}[19Cx\u{1B}[2Hy")
    }

    @Test func wideCharacterRewrittenWhenItsRightHalfChanges() {
        var w = FrameWriter(depth: .ansi16, synchronizedOutput: false)
        var b = CellBuffer(size: size)
        b.write("中", x: 0, y: 0)
        _ = w.frame(b)
        b.write("ab", x: 0, y: 0)
        #expect(text(w.frame(b)) == "\rab")
    }
}

@Suite("ColorDepth detection")
struct ColorDepthTests {
    @Test func detection() {
        #expect(ColorDepth.detect(environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor"]) == .truecolor)
        #expect(ColorDepth.detect(environment: ["TERM": "xterm", "COLORTERM": "24bit"]) == .truecolor)
        #expect(ColorDepth.detect(environment: ["TERM": "screen-256color"]) == .palette256)
        #expect(ColorDepth.detect(environment: ["TERM": "xterm"]) == .ansi16)
        #expect(ColorDepth.detect(environment: [:]) == .ansi16)
        #expect(ColorDepth.detect(environment: ["TERM": "dumb", "COLORTERM": "truecolor"]) == ColorDepth.none)
        #expect(ColorDepth.detect(environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": "1"]) == ColorDepth.none)
        #expect(ColorDepth.detect(environment: ["TERM": "xterm-256color", "NO_COLOR": ""]) == .palette256, "an empty NO_COLOR does not count (no-color.org)")
    }

    @Test func paletteDowngrades() {
        #expect(ColorDepth.nearest256(255, 135, 0) == 208)
        #expect(ColorDepth.nearest256(128, 128, 128) == 244)
        #expect(ColorDepth.nearest16(250, 10, 10) == 9)
        #expect(ColorDepth.ansi16.map(.indexed(196)) == .ansi(9))
    }
}
