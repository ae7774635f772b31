import Foundation
import Judge
import Lesson
import Notation
import Terminal
import Testing
@testable import Screen

/// Exact text snapshots of `etude score`'s output under Snapshots/ (ETUDE_RECORD_SNAPSHOTS=1
/// rewrites them, as `Snapshot` does for cell buffers).
enum TextSnapshot {
    static func check(_ name: String, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = Snapshot.directory.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["ETUDE_RECORD_SNAPSHOTS"] == "1" {
            try? FileManager.default.createDirectory(at: Snapshot.directory, withIntermediateDirectories: true)
            try? text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try? String(contentsOf: url, encoding: .utf8)
        #expect(expected != nil, "missing snapshot \(name).txt (record with ETUDE_RECORD_SNAPSHOTS=1)", sourceLocation: sourceLocation)
        #expect(expected == text, "\(name) differs:\n\(text)", sourceLocation: sourceLocation)
    }
}

enum StaffFixture {
    static let lessons = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Lessons")

    static func lesson(_ relative: String) throws -> Lesson {
        let data = try Data(contentsOf: lessons.appendingPathComponent(relative))
        return try Lesson(bytes: [UInt8](data), fileName: relative)
    }

    /// The score as `etude score LESSON --width N --color never|always` prints it.
    static func score(_ relative: String, width: Int, color: Bool = false) throws -> String {
        let lesson = try lesson(relative)
        return ScoreText.lines(lesson: lesson, options: NotationOptions(width: width), color: color).joined(separator: "\n") + "\n"
    }

    /// Ode to Joy in wait mode, the cursor in bar 2: bar 1's notes judged (one wrong, one
    /// missed), the left hand's C sounding, the loop over bars 1–2.
    static func odeMarks(_ lesson: Lesson) -> StaffMarks {
        let tpq = lesson.ticksPerQuarter
        let bar2 = lesson.bars.bar(number: 2)?.startTick ?? 4 * tpq
        var judgements: [Int: VerdictMark] = [:]
        let firstBar = lesson.notes.indices.filter { lesson.notes[$0].startTick < bar2 && lesson.notes[$0].part.hand == .right }
        for (k, i) in firstBar.enumerated() { judgements[i] = k == 1 ? .wrong : (k == 2 ? .missed : .ok) }
        let cursor = bar2 + tpq / 2
        return StaffMarks(cursorTick: cursor, sounding: SoundingNotes(lesson: lesson).at(tick: cursor), judgements: judgements,
                          loopBars: 1...2)
    }

    static var model: ScreenModel {
        var keyboard = KeyboardState()
        keyboard.light(64, .rightHand)
        keyboard.light(55, .leftHand)
        return ScreenModel(
            status: StatusInfo(title: "Ode to Joy", playing: true, bar: 2, beat: 1, bars: 16, bpm: 100, tempoPercent: 100,
                               hand: "both", otherHand: "play", loop: LoopStatus(startBar: 1, endBar: 2, enabled: true, pass: 1),
                               metronome: false, mode: "wait"),
            timeline: TimelineInfo(position: 1.1, length: 16, loopStart: 0, loopEnd: 2, loopEnabled: true),
            keyboard: keyboard, pitchRange: 43...67)
    }

    static func screen(size: TerminalSize, view: PracticeDisplay, depth: ColorDepth) throws -> CellBuffer {
        let lesson = try lesson("level4/ode-to-joy.mid")
        let area = StaffPracticeScreen.staffArea(size, view: view)
        let raster = StaffCache(lesson: lesson).raster(width: area.width, height: area.height)
        var buffer = CellBuffer(size: size)
        StaffPracticeScreen(depth: depth).render(model, staff: raster, marks: odeMarks(lesson), view: view, into: &buffer, size: size)
        return buffer
    }
}

@Suite("Staff view")
struct StaffTests {
    @Test func scoreTextSnapshots() throws {
        for (name, file) in [("ode-to-joy", "level4/ode-to-joy.mid"), ("d-major-scale", "level2/d-major-scale.mid"),
                             ("minuet-in-g", "level4/minuet-in-g-petzold.mid"), ("fur-elise", "level5/fur-elise.mid")] {
            for width in [80, 120] {
                TextSnapshot.check("score-\(name)-\(width)", try StaffFixture.score(file, width: width))
            }
        }
        TextSnapshot.check("score-ode-to-joy-80-color", try StaffFixture.score("level4/ode-to-joy.mid", width: 80, color: true))
    }

    @Test func screenSnapshotsWithJudgedNotes() throws {
        let s = { (c: Int, r: Int) in TerminalSize(columns: c, rows: r) }
        Snapshot.check("staff-both-80x24", try StaffFixture.screen(size: s(80, 24), view: .both, depth: .truecolor))
        Snapshot.check("staff-80x24-nocolor", try StaffFixture.screen(size: s(80, 24), view: .staff, depth: .none))
        Snapshot.check("staff-120x40", try StaffFixture.screen(size: s(120, 40), view: .staff, depth: .truecolor))
        Snapshot.check("staff-both-200x60", try StaffFixture.screen(size: s(200, 60), view: .both, depth: .truecolor))
    }

    @Test(arguments: [PracticeDisplay.staff, .both])
    func grandStaffAndTwoBarsFit80x24(view: PracticeDisplay) throws {
        let size = TerminalSize(columns: 80, rows: 24)
        for file in ["level4/ode-to-joy.mid", "level2/e-flat-major-scale.mid", "level4/minuet-in-g-petzold.mid", "level5/fur-elise.mid",
                     "level5/bach-prelude-in-c.mid", "level1/c-major-five-finger-parallel.mid"] {
            let lesson = try StaffFixture.lesson(file)
            let area = StaffPracticeScreen.staffArea(size, view: view)
            let raster = StaffCache(lesson: lesson).raster(width: area.width, height: area.height)
            var buffer = CellBuffer(size: size)
            StaffPracticeScreen(depth: .ansi16).render(StaffFixture.model, staff: raster, marks: StaffMarks(cursorTick: 0), view: view,
                                                       into: &buffer, size: size)
            // All ten staff lines show, and the first system's first two bars with them.
            let l = StaffScreenLayout.layout(size, view: view)
            let lines = (l.staffY..<(l.staffY + l.staffHeight)).filter { y in
                (1..<(size.columns - 1)).filter { buffer[$0, y].character == "─" }.count > 30
            }
            #expect(lines.count >= 10, "\(file) \(view): \(lines.count) staff lines\n\(buffer.plainText())")
            #expect(raster.score.systems[0].bars.filter { $0.number > 0 }.count >= 2, "\(file): two bars a line at 80 columns")
            let text = buffer.plainText()
            #expect(text.contains("Ode to Joy") && text.contains("hand: both"), "status lines stay")
            if view == .both { #expect(text.contains("C4"), "the keyboard's octave labels") }
        }
    }

    @Test func wideTerminalsUseTheirWidth() throws {
        let lesson = try StaffFixture.lesson("level4/ode-to-joy.mid")
        let cache = StaffCache(lesson: lesson)
        let small = StaffPracticeScreen.staffArea(TerminalSize(columns: 80, rows: 24), view: .staff)
        let large = StaffPracticeScreen.staffArea(TerminalSize(columns: 200, rows: 60), view: .staff)
        let a = cache.raster(width: small.width, height: small.height), b = cache.raster(width: large.width, height: large.height)
        #expect(a.density == .compact && b.density == .full)
        #expect(b.score.systems[0].bars.count > 2 * a.score.systems[0].bars.count - 1)
        #expect(b.page(forTick: 0, height: large.height).count >= 2, "several systems a page at 200×60")
        #expect(b.score.systems.allSatisfy { $0.width <= large.width })
    }

    @Test func judgementsReadWithoutColour() throws {
        let buffer = try StaffFixture.screen(size: TerminalSize(columns: 80, rows: 24), view: .staff, depth: .none)
        #expect(buffer.cells.allSatisfy { $0.fg == .default && $0.bg == .default }, "no colour at all with NO_COLOR")
        let text = buffer.plainText()
        #expect(text.contains("×"), "the wrong note marked")
        #expect(text.contains("◌"), "the missed note marked")
        #expect(text.contains("▼"), "the cursor marked")
        #expect(text.contains("┌"), "the loop bracketed")
        // A hit head is bold and underlined; a lit one reversed.
        #expect(buffer.cells.contains { $0.attributes.contains(.underline) && $0.attributes.contains(.bold) })
        #expect(buffer.cells.contains { $0.attributes.contains(.reverse) && ($0.character == "●" || $0.character == "○" || $0.character == "◡" || $0.character == "◠") })
    }

    @Test func judgedNotesTakeTheirColours() throws {
        let buffer = try StaffFixture.screen(size: TerminalSize(columns: 120, rows: 40), view: .staff, depth: .truecolor)
        let theme = Theme(depth: .truecolor)
        #expect(buffer.cells.contains { $0.character == "×" && $0.fg == theme.color(.wrong) })
        #expect(buffer.cells.contains { $0.character == "◌" && $0.fg == StaffWidget.missed })
        #expect(buffer.cells.contains { ($0.character == "●" || $0.character == "█") && $0.fg == StaffWidget.hit })
        #expect(buffer.cells.contains { $0.fg == theme.color(.leftHand) && $0.attributes.contains(.bold) }, "the sounding bass lit in the left hand's colour")
        #expect(buffer.cells.contains { $0.bg == StaffWidget.cursorBackground }, "the cursor column")
    }

    @Test func memoryModeHidesWhatIsToCome() throws {
        let lesson = try StaffFixture.lesson("level4/ode-to-joy.mid")
        let size = TerminalSize(columns: 120, rows: 40)
        let area = StaffPracticeScreen.staffArea(size, view: .staff)
        let raster = StaffCache(lesson: lesson).raster(width: area.width, height: area.height)
        let bar2 = lesson.bars.bar(number: 2)?.startTick ?? 0
        var shown = CellBuffer(size: size), hidden = CellBuffer(size: size)
        let screen = StaffPracticeScreen(depth: .none)
        screen.render(StaffFixture.model, staff: raster, marks: StaffMarks(cursorTick: bar2), view: .staff, into: &shown, size: size)
        screen.render(StaffFixture.model, staff: raster, marks: StaffMarks(cursorTick: bar2, hideNotesAfterTick: bar2), view: .staff,
                      into: &hidden, size: size)
        func heads(_ b: CellBuffer) -> Int {
            (area.height > 0 ? 3..<(3 + area.height) : 0..<0).reduce(0) { n, y in
                n + (0..<size.columns).filter { ["●", "█", "○", "◡", "▄"].contains(b[$0, y].character) }.count
            }
        }
        let notesUpToBar2 = lesson.notes.filter { $0.startTick <= bar2 }.count
        #expect(heads(hidden) == notesUpToBar2, "only the notes up to the cursor")
        #expect(heads(shown) > heads(hidden))
    }

    @Test func pagesTurnOnlyAtSystemBoundaries() throws {
        let lesson = try StaffFixture.lesson("level4/ode-to-joy.mid")
        let size = TerminalSize(columns: 80, rows: 24)
        let area = StaffPracticeScreen.staffArea(size, view: .staff)
        let raster = StaffCache(lesson: lesson).raster(width: area.width, height: area.height)
        var previous: String?
        var turns = 0
        let screen = StaffPracticeScreen(depth: .none)
        var t = 0
        while t < lesson.endTick {
            var b = CellBuffer(size: size)
            screen.render(StaffFixture.model, staff: raster, marks: StaffMarks(cursorTick: t), view: .staff, into: &b, size: size)
            // The music without the cursor's marks: the staff area's rows but the one with ▼.
            let rows = (3..<(size.rows - 1)).map { y in String((0..<size.columns).map { b[$0, y].character }) }
            let page = rows.filter { !$0.contains("▼") }.joined(separator: "\n")
            if let p = previous, p != page {
                turns += 1
                let system = raster.score.location(ofTick: t)?.system ?? -1
                #expect(raster.score.systems[system].startTick <= t && system % max(1, area.height / raster.systemHeight) == 0,
                        "a page turns when a page's first system begins")
            }
            previous = page
            t += lesson.ticksPerQuarter / 4
        }
        let perPage = max(1, area.height / raster.systemHeight)
        #expect(turns == (raster.systems.count - 1) / perPage)
    }

    @Test func layoutRegions() {
        let s80 = StaffScreenLayout.staffAboveKeyboard(TerminalSize(columns: 80, rows: 24))
        #expect(s80.staffY == 3 && s80.staffHeight == 16 && s80.keyboardY == 19 && s80.hintY == 23 && s80.staffWidth == 78)
        let only = StaffScreenLayout.staffOnly(TerminalSize(columns: 80, rows: 24))
        #expect(only.staffHeight == 20 && only.keyboardY == nil)
        #expect(PracticeDisplay.fallingNotes.next == .staff && PracticeDisplay.staff.next == .both && PracticeDisplay.both.next == .fallingNotes)
    }

    @Test func soundingNotesByHand() throws {
        let lesson = try StaffFixture.lesson("level4/ode-to-joy.mid")
        let sounding = SoundingNotes(lesson: lesson)
        for t in stride(from: 0, to: lesson.endTick, by: 97) {
            let expected = Set(lesson.notes.indices.filter { lesson.notes[$0].startTick <= t && lesson.notes[$0].endTick > t })
            #expect(sounding.at(tick: t) == expected)
            #expect(sounding.at(tick: t, hands: [.left]) == expected.filter { lesson.notes[$0].part.hand == .left })
        }
    }
}
