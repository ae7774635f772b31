import Testing
import Terminal
@testable import Screen

func keyboardBuffer(width: Int, depth: ColorDepth, names: Bool = false, naming: NoteNaming = .scientific) -> CellBuffer {
    var b = CellBuffer(size: TerminalSize(columns: width, rows: KeyboardWidget.height))
    let layout = KeyboardLayout(width: width, range: Fixture.range)
    KeyboardWidget(theme: Theme(depth: depth), layout: layout, state: Fixture.keyboard, showNoteNames: names, naming: naming)
        .render(into: Rect(size: b.size), buffer: &b)
    return b
}

@Suite("Keyboard")
struct KeyboardTests {
    @Test func fullKeyboardFromFullWidth() {
        for w in [105, 120, 200] {
            let l = KeyboardLayout(width: w, range: Fixture.range)
            #expect(l.low == 21 && l.high == 108, "all 88 keys at \(w) columns")
            #expect(l.width <= w)
        }
        #expect(KeyboardLayout(width: 200, range: nil).keyWidth == 3, "wider keys when there is room")
    }

    /// Every white key is as wide as every other at every terminal width (no key a column
    /// wider to use up the remainder), side by side with no gap, and the keys fit — except
    /// that on a wide terminal the lesson's octaves are one width and the rest another
    /// (issue 39: the piece was a thin strip in 88 keys).
    @Test func whiteKeysHaveEqualWidthAtEveryWidth() {
        for width in 20...260 {
            for range in [nil, Fixture.range, 60...64, 21...108] as [ClosedRange<Int>?] {
                let l = KeyboardLayout(width: width, range: range)
                let whites = (l.low...l.high).filter { !KeyboardLayout.isBlack($0) }
                let columns = whites.compactMap { l.whiteColumns($0) }
                #expect(columns.count == whites.count)
                let widths = columns.map(\.count)
                let changes = zip(widths, widths.dropFirst()).filter { $0 != $1 }.count
                if width < KeyboardLayout.fullWidth || range == nil {
                    #expect(Set(widths) == [l.keyWidth], "\(width) columns, \(String(describing: range))")
                } else {
                    #expect(Set(widths).count <= 2 && changes <= 2, "\(width) columns, \(String(describing: range)): \(widths)")
                }
                #expect(zip(columns, columns.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
                #expect((columns.last?.upperBound ?? 0) <= width)
            }
        }
    }

    /// At 200 columns all 88 keys stay, the lesson's octaves wider than the rest: the falling
    /// notes of the piece get the room, the keys it does not use are narrowed, not dropped.
    @Test func wideFitsTheLessonsRangeAndNarrowsTheRest() {
        let l = KeyboardLayout(width: 200, range: Fixture.range)   // G2–G5: C2–B5 wide
        #expect(l.low == 21 && l.high == 108, "nothing dropped")
        #expect(l.width <= 200)
        #expect(l.keyWidth(of: 60) > KeyboardLayout(width: 200, range: nil).keyWidth, "the piece's keys are wider than 88 even keys")
        #expect(l.keyWidth(of: 21) == 2 && l.keyWidth(of: 108) == 2)
        #expect(l.keyWidth(of: 36) == l.keyWidth(of: 83) && l.keyWidth(of: 36) > 2)
        #expect((l.noteColumns(61)?.count ?? 0) >= 2 && (l.noteColumns(60)?.count ?? 0) >= 2)
        // Every key's falling-note columns stay apart.
        var seen = Set<Int>()
        for p in 21...108 { for c in l.noteColumns(p) ?? 0..<0 { #expect(seen.insert(c).inserted, "column \(c) of \(p) shared") } }
    }

    @Test func narrowShowsTheLessonRangeInWholeOctaves() {
        let l = KeyboardLayout(width: 80, range: Fixture.range)
        #expect(l.low == 36 && l.high == 83, "G2–G5 becomes C2–B5")
        #expect(l.width <= 80)
        // A range too wide for 60 columns keeps its middle.
        let wide = KeyboardLayout(width: 60, range: 21...108)
        #expect(wide.width <= 60)
        #expect(wide.contains(60) && wide.contains(64))
        #expect(!KeyboardLayout.isBlack(wide.low) && !KeyboardLayout.isBlack(wide.high))
    }

    @Test func rangesOutsideThePianoAreClamped() {
        for range in [120...127, 0...5, 0...127, 108...108, 21...21, -40 ... -3] {
            let l = KeyboardLayout(width: 80, range: range)
            #expect(l.low >= 21 && l.high <= 108 && l.low < l.high, "\(range) → \(l.low)…\(l.high)")
            var b = CellBuffer(size: TerminalSize(columns: 80, rows: 24))
            var model = ScreenModel()
            model.pitchRange = range
            model.keyboard.light(127, .rightHand)
            model.notes = [FallingNote(pitch: 0, start: 0, end: 1, role: .leftHand)]
            PracticeScreen(depth: .ansi16).render(model, into: &b, size: b.size)
        }
    }

    @Test(arguments: [60, 80, 104, 105, 120, 200])
    func everyShownPitchHasItsOwnColumns(width: Int) {
        let l = KeyboardLayout(width: width, range: Fixture.range)
        var owner: [Int: Int] = [:]
        for p in l.low...l.high {
            let cols = l.noteColumns(p)
            #expect(cols != nil && !(cols?.isEmpty ?? true), "pitch \(p) has columns at width \(width)")
            for c in cols ?? 0..<0 {
                #expect(owner[c] == nil, "column \(c) shared by \(owner[c] ?? -1) and \(p)")
                owner[c] = p
                #expect(c >= 0 && c < width)
            }
        }
    }

    @Test func blackAndWhiteKeysDifferInMonochrome() {
        let b = keyboardBuffer(width: 120, depth: .none)
        let layout = KeyboardLayout(width: 120, range: nil)
        // unlit black key (A#0 = 22) vs unlit white key (B0 = 23), top row
        let black = layout.blackColumns(22)!.lowerBound
        let white = layout.noteColumns(23)!.lowerBound
        #expect(b[black, 0].character == "█")
        #expect(b[white, 0].character == " ")
        #expect(b.cells.allSatisfy { $0.fg == .default && $0.bg == .default }, "no colour at all with NO_COLOR")
        // lit keys carry a role glyph; the white-key row names the role with a letter
        #expect(b[layout.noteColumns(60)!.lowerBound, 2].character == "R")
        #expect(b[layout.noteColumns(48)!.lowerBound, 2].character == "L")
        #expect(b[layout.blackColumns(61)!.lowerBound, 0].character == "×")
    }

    @Test func litKeysUseRoleColours() {
        let b = keyboardBuffer(width: 120, depth: .truecolor)
        let layout = KeyboardLayout(width: 120, range: nil)
        let theme = Theme(depth: .truecolor)
        #expect(b[layout.noteColumns(60)!.lowerBound, 2].bg == theme.color(.rightHand))
        #expect(b[layout.noteColumns(48)!.lowerBound, 2].bg == theme.color(.leftHand))
        #expect(b[layout.noteColumns(72)!.lowerBound, 2].bg == theme.color(.learner))
        #expect(b[layout.blackColumns(61)!.lowerBound, 0].bg == theme.darkColor(.wrong))
        #expect(b[layout.blackColumns(73)!.lowerBound, 0].bg == theme.darkColor(.accompaniment))
        #expect(b[layout.noteColumns(62)!.lowerBound, 2].bg == Theme.whiteKey)
        #expect(b[layout.blackColumns(63)!.lowerBound, 0].bg == Theme.blackKey)
    }

    @Test func keyboardStatePriority() {
        var s = KeyboardState()
        s.light(60, .accompaniment)
        s.light(60, .rightHand)
        s.light(60, .leftHand)
        #expect(s[60] == .rightHand)
        s.light(60, .wrong)
        #expect(s[60] == .wrong)
        s.light(200, .wrong)
        #expect(s[200] == nil)
    }

    @Test func snapshots() {
        Snapshot.check("keyboard-80", keyboardBuffer(width: 80, depth: .truecolor))
        Snapshot.check("keyboard-120-names", keyboardBuffer(width: 120, depth: .truecolor, names: true))
        Snapshot.check("keyboard-200", keyboardBuffer(width: 200, depth: .truecolor))
        Snapshot.check("keyboard-80-nocolor", keyboardBuffer(width: 80, depth: .none))
        Snapshot.check("keyboard-120-nocolor-names", keyboardBuffer(width: 120, depth: .none, names: true))
        Snapshot.check("keyboard-80-yamaha", keyboardBuffer(width: 80, depth: .truecolor, names: true, naming: .yamaha))
    }
}

@Suite("Theme at every colour depth")
struct ThemeDepthTests {
    /// After downgrading to what the terminal shows, white keys, black keys and every role
    /// (bright on white keys, dark on black keys) must still be different colours.
    @Test(arguments: [ColorDepth.ansi16, .palette256, .truecolor])
    func keyColoursStayDistinct(depth: ColorDepth) {
        let theme = Theme(depth: depth)
        let white = [Theme.whiteKey] + NoteRole.allCases.map { theme.color($0) }
        let black = [Theme.blackKey] + NoteRole.allCases.map { theme.darkColor($0) }
        for set in [white, black] {
            let mapped = set.map { depth.map($0) }
            #expect(Set(mapped).count == mapped.count, "\(depth): \(mapped)")
        }
        #expect(depth.map(Theme.whiteKey) != depth.map(Theme.blackKey))
    }
}
