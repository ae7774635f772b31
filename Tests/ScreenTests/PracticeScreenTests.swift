import Judge
import Testing
import Terminal
@testable import Screen

private func size(_ c: Int, _ r: Int) -> TerminalSize { TerminalSize(columns: c, rows: r) }

@Suite("PracticeScreen")
struct PracticeScreenTests {
    @Test func snapshots() {
        Snapshot.check("practice-80x24", PracticeScreen(depth: .truecolor).render(Fixture.model(), size: size(80, 24)))
        Snapshot.check("practice-80x24-nocolor", PracticeScreen(depth: .none).render(Fixture.model(), size: size(80, 24)))
        Snapshot.check("practice-120x40", PracticeScreen(depth: .truecolor).render(Fixture.model(), size: size(120, 40)))
        Snapshot.check("help-80x24", PracticeScreen(depth: .truecolor).render(Fixture.model(overlay: .help), size: size(80, 24)))
        Snapshot.check("help-60x16", PracticeScreen(depth: .none).render(Fixture.model(overlay: .help), size: size(60, 16)))
        let results = ResultsInfo(title: "Pass 3 — bars 9–12",
                                  figures: ScoreFigures(hit: 118, missed: 4, wrong: 3, extra: 2, accuracy: 93.65,
                                                        timingMeanMs: -12.4, timingSdMs: 18.2, score: 912))
        Snapshot.check("results-80x24", PracticeScreen(depth: .truecolor).render(Fixture.model(overlay: .results(results)), size: size(80, 24)))
        Snapshot.check("too-small-50x12", PracticeScreen(depth: .truecolor).render(Fixture.model(), size: size(50, 12)))
    }

    @Test func statusShowsBarTempoHandLoopMetronomeMode() {
        let text = PracticeScreen(depth: .ansi16).render(Fixture.model(), size: size(120, 40)).plainText()
        for piece in ["Minuet in G", "bar 9:2/32", "♩=86 (80%)", "hand: right", "other: quiet", "loop 9–12 ×3", "metronome on", "mode: watch"] {
            #expect(text.contains(piece), "status shows \(piece)")
        }
    }

    /// `--follow` says on the first line that Etude keeps the learner's tempo, and by ear with
    /// the listener's delay it makes up (issue 37), within 80 columns.
    @Test func theHeaderSaysFollowingAndByEar() {
        var model = Fixture.model()
        model.status.following = true
        let keys = PracticeScreen(depth: .none).render(model, size: size(80, 24)).plainText()
        #expect(keys.contains("follow · ") && !keys.contains("by ear"))
        model.status.followingByEarMs = 120
        let byEar = PracticeScreen(depth: .none).render(model, size: size(80, 24)).plainText()
        #expect(byEar.contains("follow by ear +120 ms · "), "\(byEar.split(separator: "\n").first ?? "")")
    }

    /// The status's second line gives way in a set order — separators, the other hand, the
    /// metronome, the loop — and always keeps the hand and the mode (issue 39: cut at 60×20).
    @Test func theSecondStatusLineGivesWayInOrder() {
        let s = Fixture.model().status
        let full = StatusBarWidget.secondLine(s)
        #expect(StatusBarWidget.secondLine(s, width: 200) == full)
        for width in [70, 60, 50, 40, 30] {
            let line = StatusBarWidget.secondLine(s, width: width)
            #expect(CellBuffer.width(of: line) <= width || width < 30, "\(width): \(line)")
            #expect(line.contains("right") && line.contains("watch"), "\(width): the hand and the mode stay: \(line)")
        }
        #expect(!StatusBarWidget.secondLine(s, width: 58).contains("other"), "the other hand goes first")
        #expect(StatusBarWidget.secondLine(s, width: 58).contains("loop"), "the loop stays while there is room")
    }

    @Test func helpListsEveryKey() {
        let text = PracticeScreen(depth: .ansi16).render(Fixture.model(overlay: .help), size: size(80, 24)).plainText()
        for entry in PracticeKeys.controls + PracticeKeys.piano + PracticeKeys.modes {
            #expect(text.contains(entry.keys), "help lists \(entry.keys)")
            #expect(text.contains(entry.action), "help explains \(entry.action)")
        }
        let small = PracticeScreen(depth: .ansi16).render(Fixture.model(overlay: .help), size: size(60, 16)).plainText()
        for entry in PracticeKeys.controls { #expect(small.contains(entry.keys), "60×16 help still lists \(entry.keys)") }
    }

    /// A routine's step lists its own → (next entry) and q (end the routine) in the help.
    @Test func helpInARoutineNamesItsOwnKeys() {
        var model = Fixture.model(overlay: .help)
        model.helpEntries = PracticeKeys.inRoutine
        let text = PracticeScreen(depth: .ansi16).render(model, size: size(80, 24)).plainText()
        #expect(text.contains("next routine entry"))
        #expect(text.contains("end the routine"))
        #expect(text.contains("previous bar"))
        #expect(!text.contains("previous / next bar"))
        #expect(PracticeKeys.inRoutine.count == PracticeKeys.all.count + 1)
    }

    @Test func tooSmallThenEnlargedResumes() {
        let screen = PracticeScreen(depth: .ansi16)
        let small = screen.render(Fixture.model(), size: size(59, 24)).plainText()
        #expect(small.contains("Terminal too small: 59×24"))
        #expect(small.contains("need at least 60×16"))
        #expect(screen.render(Fixture.model(), size: size(80, 15)).plainText().contains("too small"))
        #expect(!screen.render(Fixture.model(), size: size(60, 16)).plainText().contains("too small"))
    }

    @Test func fileTextCannotInjectEscapes() {
        var model = Fixture.model()
        model.status.title = "Evil\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m title"
        model.message = "marker\u{1B}[31m"
        let buffer = PracticeScreen(depth: .truecolor).render(model, size: size(80, 24))
        #expect(buffer.cells.allSatisfy { $0.scalar >= 0x20 || $0.scalar == 0 }, "no control character reaches a cell")
        #expect(buffer.cells.allSatisfy { !(0x7F...0x9F).contains($0.scalar) })
        #expect(buffer.plainText().contains("Evil]0;pwned[2J31m title"))
        var writer = FrameWriter(depth: .truecolor, synchronizedOutput: false)
        let bytes = writer.frame(buffer)
        // Every ESC the writer emits starts one of its own CSI sequences (ESC [), never an OSC.
        for (i, b) in bytes.enumerated() where b == 0x1B {
            #expect(i + 1 < bytes.count && bytes[i + 1] == 0x5B)
        }
        #expect(!bytes.contains(0x07) && !bytes.contains(0x9B))
    }

    @Test func fallingNotesLandOnTheirKeys() {
        var model = ScreenModel()
        model.notes = [FallingNote(pitch: 60, start: 0, end: 1, role: .rightHand), FallingNote(pitch: 61, start: 1.5, end: 2, role: .leftHand)]
        model.lookaheadSeconds = 3
        let s = size(120, 40)
        let buffer = PracticeScreen(depth: .none).render(model, size: s)
        let layout = KeyboardLayout(width: 120, range: nil)
        let keyboardY = 40 - 1 - KeyboardWidget.height
        let height = keyboardY - 3
        let c60 = layout.noteColumns(60)!.lowerBound
        let c61 = layout.noteColumns(61)!.lowerBound
        // 32 rows for 3 s: a row is 3/32 s. C4 (0–1 s) covers rows 0…10 from the bottom (the
        // last one partly); C#4 (1.5–2 s) rows 16…21.
        #expect(height == 32)
        let rows60 = (3..<keyboardY).filter { buffer[c60, $0].character == "▓" }
        #expect(rows60.count == 11)
        #expect(rows60.last == keyboardY - 1, "a note starting now touches the keyboard")
        let rows61 = (3..<keyboardY).filter { buffer[c61, $0].character == "▒" }
        #expect(rows61.count == 6)
        #expect(rows61.last == keyboardY - 1 - height / 2)
    }

    /// A falling note meets the keyboard line at its time, not up to a row early (issue 39):
    /// drawn in half rows, its foot is in the bottom row's lower half only once it is due, in
    /// its upper half (`▀`) while it is half a row away; repeated notes of one key stay apart.
    @Test func fallingNotesMeetTheKeyboardAtTheirTime() {
        let layout = KeyboardLayout(width: 80, range: 48...84)
        let keyboardY = 24 - 1 - KeyboardWidget.height
        let height = keyboardY - 3
        let dt = 3.0 / Double(height)
        let c = layout.noteColumns(60)!.lowerBound
        /// What the bottom row of the fall shows in C4's column: "full", "▀", "▄" or "empty".
        func bottom(_ notes: [FallingNote], depth: ColorDepth = .truecolor, row: Int = 0) -> String {
            var model = ScreenModel()
            model.lookaheadSeconds = 3
            model.pitchRange = 48...84
            model.notes = notes
            let cell = PracticeScreen(depth: depth).render(model, size: size(80, 24))[c, keyboardY - 1 - row]
            if cell.character == "▀" || cell.character == "▄" { return String(cell.character) }
            if depth == .none { return cell.character == "▓" ? "full" : "empty" }
            return cell.bg != .default ? "full" : "empty"
        }
        func note(_ start: Double, _ end: Double? = nil) -> FallingNote { FallingNote(pitch: 60, start: start, end: end ?? start + 1, role: .rightHand) }
        // Due now: the bottom row whole. A quarter row ahead: its upper half only, not the line.
        #expect(bottom([note(0)]) == "full")
        #expect(bottom([note(-0.2)]) == "full")
        #expect(bottom([note(dt * 0.25)]) == "▀", "a note not yet due does not touch the line")
        #expect(bottom([note(dt * 0.75)]) == "empty" && bottom([note(dt * 0.75)], row: 1) == "full")
        #expect(bottom([note(dt * 1.25)]) == "empty" && bottom([note(dt * 1.25)], row: 1) == "▀")
        #expect(bottom([note(dt * 0.25)], depth: .none) == "▀", "without colour too")
        #expect(bottom([note(0)], depth: .none) == "full")
        // C4 C4, one after the other: half a row apart, in colour and without.
        let repeated = [note(0, 0.5), note(0.5, 1)]
        for depth in [ColorDepth.truecolor, .none] {
            let rows = (0..<height).map { bottom(repeated, depth: depth, row: $0) }
            let first = rows.firstIndex { $0 != "full" } ?? 0
            #expect(rows[first] == "▄" || rows[first] == "empty" || rows[first] == "▀", "\(depth): \(rows.prefix(14))")
            #expect(rows[first...].contains("full"), "the second note follows: \(rows.prefix(14))")
        }
    }

    /// Notes falling through the loop's end do not cut letters out of its label ("loo ▲").
    @Test func theLoopLabelIsDrawnOverTheNotes() {
        var model = ScreenModel()
        model.lookaheadSeconds = 3
        model.loopEndSeconds = 1.5
        model.notes = (21...108).map { FallingNote(pitch: $0, start: 1, end: 2, role: .rightHand) }
        for depth in [ColorDepth.none, .palette256] {
            let text = PracticeScreen(depth: depth).render(model, size: size(80, 24)).plainText()
            #expect(text.contains("loop ▲"), "\(text)")
        }
    }

    @Test func steadyPlaybackWritesLittle() {
        let screen = PracticeScreen(depth: .truecolor)
        var writer = FrameWriter(depth: .truecolor)
        var model = Fixture.model()
        _ = writer.frame(screen.render(model, size: size(120, 40)))
        #expect(writer.frame(screen.render(model, size: size(120, 40))).isEmpty, "the same model twice writes nothing")
        for i in 0..<model.notes.count { model.notes[i].start -= 1.0 / 30; model.notes[i].end -= 1.0 / 30 }
        let bytes = writer.frame(screen.render(model, size: size(120, 40)))
        #expect(bytes.count < 3000)
    }

    /// Numbers that are not finite (a broken tempo map, a division by zero upstream) are
    /// drawn as "–" or dropped; rendering never traps.
    @Test func nonFiniteNumbersNeverTrap() {
        let bad: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300]
        for v in bad {
            var model = Fixture.model()
            model.status.bpm = v
            model.timeline = TimelineInfo(position: v, length: v, loopStart: v, loopEnd: v, loopEnabled: true)
            model.notes.append(FallingNote(pitch: 60, start: v, end: v, role: .rightHand))
            model.notes.append(FallingNote(pitch: 62, start: -1, end: v, role: .rightHand, finger: 2))
            model.barLines.append(BarLine(seconds: v, bar: 3))
            model.loopStartSeconds = v
            model.loopEndSeconds = v
            model.lookaheadSeconds = v
            model.overlay = .results(ResultsInfo(figures: ScoreFigures(hit: 1, missed: 0, wrong: 0, extra: 0, accuracy: v, timingMeanMs: v, timingSdMs: v, score: 0)))
            let text = PracticeScreen(depth: .truecolor).render(model, size: TerminalSize(columns: 80, rows: 24)).plainText()
            #expect(text.contains("bar 9:2/32"))
        }
    }
}
