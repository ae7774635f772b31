import Testing
import Terminal
@testable import Screen

private func size(_ c: Int, _ r: Int) -> TerminalSize { TerminalSize(columns: c, rows: r) }

enum BrowserFixture {
    static var rows: [BrowserRow] {
        [
            BrowserRow(id: "a1", title: "C major five-finger position", composer: "Etude curriculum", level: 1, durationSeconds: 33,
                       favourite: true, bestScore: 87.4, lastPractised: "2026-11-21", path: "/l/c.mid"),
            BrowserRow(id: "b2", title: "Minuet in G major, BWV Anh. 114", composer: "Christian Petzold", level: 4, durationSeconds: 29,
                       path: "/l/minuet.mid"),
            BrowserRow(id: "c3", title: "Ode to Joy", level: 2, durationSeconds: 75, bestScore: 64, lastPractised: "2026-11-02",
                       path: "/l/ode.mid"),
            BrowserRow(id: "d4", title: "Lost lesson", level: nil, durationSeconds: 3725, path: nil),
        ]
    }

    static func model(resume: Bool = true) -> BrowserModel {
        BrowserModel(rows: rows, resume: resume ? "Resume: Ode to Joy bar 9, right hand, 80%" : nil, levels: [1, 2, 4])
    }
}

@Suite("Lesson browser")
struct BrowserTests {
    @Test func snapshots() {
        var m = BrowserFixture.model()
        m.selected = 2
        Snapshot.check("browser-80x24", BrowserScreen(depth: .truecolor).render(m, size: size(80, 24)))
        Snapshot.check("browser-80x24-nocolor", BrowserScreen(depth: .none).render(m, size: size(80, 24)))
        var filtered = BrowserFixture.model(resume: false)
        filtered.query = "min"
        filtered.favouritesOnly = true
        filtered.level = 4
        filtered.rows = [BrowserFixture.rows[1]]
        Snapshot.check("browser-filtered-60x12", BrowserScreen(depth: .truecolor).render(filtered, size: size(60, 12)))
        var help = m
        help.overlay = .help
        Snapshot.check("browser-help-80x24", BrowserScreen(depth: .truecolor).render(help, size: size(80, 24)))
        var stats = m
        stats.overlay = .text(title: "Stats", lines: ["Ode to Joy", "Passes:       3 (1 scored), 4 min in all", "Best score:   64"])
        Snapshot.check("browser-stats-80x24", BrowserScreen(depth: .truecolor).render(stats, size: size(80, 24)))
        var routines = m
        routines.overlay = .routines([RoutineChoice(name: "morning", summary: "3 entries: C major scale, Ode to Joy, …"),
                                      RoutineChoice(name: "exam piece", summary: "1 entry: Minuet in G major")], selected: 1)
        Snapshot.check("browser-routines-80x24", BrowserScreen(depth: .truecolor).render(routines, size: size(80, 24)))
        var empty = BrowserModel()
        empty.query = "zzz"
        Snapshot.check("browser-empty-60x12", BrowserScreen(depth: .none).render(empty, size: size(60, 12)))
    }

    /// At 80 columns the built-in five-finger lessons differ only at the end of their titles, and
    /// the scales share a composer: what tells each row apart stays, the repeated parts go.
    @Test func narrowTitlesKeepWhatTellsThemApart() {
        func row(_ title: String, _ composer: String? = nil, path: String? = "/l/x.mid") -> BrowserRow {
            BrowserRow(id: title, title: title, composer: composer, level: 1, durationSeconds: 30, path: path)
        }
        let family = ["contrary motion", "hands separately", "parallel motion"].map { row("A minor five-finger position: \($0)") }
        let fitted = family.indices.map { i in
            BrowserTitle.fit(family[i], beside: [i - 1, i + 1].filter(family.indices.contains).map { family[$0] }, width: 43)
        }
        // The shared start is shortened after a whole word, never inside one ("posit…", issue 39).
        #expect(fitted == ["A minor five-finger…: contrary motion", "A minor five-finger…: hands separately",
                           "A minor five-finger…: parallel motion"])
        #expect(fitted.allSatisfy { CellBuffer.width(of: $0) <= 43 })
        let narrow = BrowserTitle.fit(family[1], beside: [family[0], family[2]], width: 20)
        #expect(narrow == "…: hands separately")

        // A composer the neighbours share goes before any of the title does.
        let scale = row("B harmonic minor scale (two octaves)", "Etude curriculum")
        let other = row("B major scale (two octaves)", "Etude curriculum")
        #expect(BrowserTitle.fit(scale, beside: [other], width: 40) == "B harmonic minor scale (two octaves)")
        // One of its own is shortened, the title kept whole.
        let minuet = row("Minuet in G major", "Christian Petzold")
        #expect(BrowserTitle.fit(minuet, beside: [other], width: 30) == "Minuet in G major — Christian…")
        #expect(BrowserTitle.fit(minuet, beside: [other], width: 60) == "Minuet in G major — Christian Petzold")
        // The key is what a pianist looks for: the words the neighbours share go before it does.
        let major = row("Minuet in G major, BWV Anh. 114 (first half)", "Christian Petzold")
        let minor = row("Minuet in G minor, BWV Anh. 115 (first half)", "Christian Petzold")
        for width in [26, 30, 36] {
            let a = BrowserTitle.fit(major, beside: [minor], width: width), b = BrowserTitle.fit(minor, beside: [major], width: width)
            #expect(a.hasPrefix("Minuet in G major") && a.contains("114") && CellBuffer.width(of: a) <= width, "\(width): \(a)")
            #expect(b.hasPrefix("Minuet in G minor") && b.contains("115") && CellBuffer.width(of: b) <= width, "\(width): \(b)")
        }
        // Narrower still, the key outlasts the catalogue number.
        #expect(BrowserTitle.fit(major, beside: [minor], width: 20) == "Minuet in G major,…")
        #expect(BrowserTitle.fit(major, beside: [minor], width: 33) == "Minuet in G major, BWV Anh. 114…")
        // A missing file says so however narrow.
        let lost = row("A minor five-finger position: parallel motion", path: nil)
        #expect(BrowserTitle.fit(lost, beside: [family[1]], width: 40).hasSuffix("…: parallel motion (missing)"))
    }

    @Test func theFooterKeepsHelpAndQuitAtEveryWidth() {
        for width in [60, 80, 120] {
            let lines = BrowserScreen(depth: .none).render(BrowserFixture.model(), size: size(width, 24)).plainText()
                .split(separator: "\n", omittingEmptySubsequences: false)
            let footer = String(lines[23])
            #expect(footer.contains("? help") && footer.contains("Esc quit"), "\(width): \(footer)")
        }
    }

    @Test func rowsShowTitleLevelDurationStarBestAndLastPractised() {
        let text = BrowserScreen(depth: .ansi16).render(BrowserFixture.model(), size: size(100, 24)).plainText()
        let lines = text.split(separator: "\n").map(String.init)
        let c = try? #require(lines.first { $0.contains("C major five-finger") })
        for piece in ["★", "L1", "0:33", "87", "2026-11-21", "Etude curriculum"] {
            #expect(c?.contains(piece) == true, "row shows \(piece)")
        }
        let minuet = lines.first { $0.contains("Minuet in G") } ?? ""
        #expect(minuet.contains("L4") && minuet.contains("0:29") && minuet.contains("never") && !minuet.contains("★"))
        #expect(text.contains("62:05"), "an hour-long lesson shows its minutes")
        #expect(text.contains("Lost lesson (missing)"))
        #expect(lines[3].contains("Resume: Ode to Joy bar 9, right hand, 80%"), "the resume line comes first")
        #expect(text.contains("4 lessons"))
    }

    @Test func typingSearchesAndBackspaceEdits() {
        var m = BrowserFixture.model()
        m.selected = 3
        #expect(m.handle(Key("m"), visibleRows: 10) == .refresh)
        #expect(m.handle(Key("i"), visibleRows: 10) == .refresh)
        #expect(m.query == "mi" && m.selected == 0)
        #expect(m.handle(Key("?"), visibleRows: 10) == .refresh, "? types once the search has text")
        #expect(m.query == "mi?")
        #expect(m.handle(Key(.backspace), visibleRows: 10) == .refresh)
        #expect(m.query == "mi")
        #expect(m.handle(Key(.paste("nuet\u{1B}[31m")), visibleRows: 10) == .refresh)
        #expect(m.query == "minuet[31m", "pasted control characters are dropped")
        #expect(m.handle(.ctrl("u"), visibleRows: 10) == .refresh)
        #expect(m.query.isEmpty)
        #expect(m.handle(Key(.backspace), visibleRows: 10) == .none)
        m.query = "ode"
        #expect(m.handle(Key(.escape), visibleRows: 10) == .refresh, "Esc clears the search first")
        #expect(m.query.isEmpty)
        #expect(m.handle(Key(.escape), visibleRows: 10) == .quit, "then quits")
    }

    @Test func filtersCycle() {
        var m = BrowserFixture.model()
        #expect(m.handle(Key(.tab), visibleRows: 10) == .refresh)
        #expect(m.favouritesOnly)
        #expect(m.handle(Key(.function(2)), visibleRows: 10) == .refresh)
        #expect(!m.favouritesOnly)
        var levels: [Int?] = []
        for _ in 0..<4 {
            #expect(m.handle(.ctrl("l"), visibleRows: 10) == .refresh)
            levels.append(m.level)
        }
        #expect(levels == [1, 2, 4, nil])
        _ = m.handle(Key(.function(3)), visibleRows: 10)
        #expect(m.level == 1)
    }

    @Test func movingAndCommands() {
        var m = BrowserFixture.model()
        #expect(m.isResumeSelected)
        #expect(m.handle(Key(.enter), visibleRows: 2) == .resume)
        _ = m.handle(Key(.down), visibleRows: 2)
        #expect(m.selectedRow?.id == "a1")
        #expect(m.handle(Key(.enter), visibleRows: 2) == .open(BrowserFixture.rows[0]))
        _ = m.handle(Key(.pageDown), visibleRows: 2)
        #expect(m.selectedRow?.id == "c3")
        #expect(m.top == 2, "the cursor stays in view")
        _ = m.handle(Key(.end), visibleRows: 2)
        #expect(m.selectedRow?.id == "d4")
        _ = m.handle(Key(.down), visibleRows: 2)
        #expect(m.selectedRow?.id == "d4", "the cursor stops at the end")
        _ = m.handle(Key(.home), visibleRows: 2)
        #expect(m.isResumeSelected && m.top == 0)
        _ = m.handle(Key(.up), visibleRows: 2)
        #expect(m.selected == 0)
        _ = m.handle(Key(.down), visibleRows: 2)
        #expect(m.handle(.ctrl("f"), visibleRows: 2) == .toggleFavourite(BrowserFixture.rows[0]))
        #expect(m.handle(Key(.function(4)), visibleRows: 2) == .toggleFavourite(BrowserFixture.rows[0]))
        #expect(m.handle(.ctrl("s"), visibleRows: 2) == .stats(BrowserFixture.rows[0]))
        #expect(m.handle(Key(.function(5)), visibleRows: 2) == .stats(BrowserFixture.rows[0]))
        #expect(m.handle(.ctrl("r"), visibleRows: 2) == .routines)
        #expect(m.handle(Key(.function(6)), visibleRows: 2) == .routines)
        #expect(m.query.isEmpty, "command keys never type into the search")
        #expect(m.handle(.ctrl("q"), visibleRows: 2) == .quit)
        #expect(m.handle(Key(.function(10)), visibleRows: 2) == .quit)
    }

    @Test func lessonKeysOnTheResumeLineSayWhatToDo() {
        var m = BrowserFixture.model()
        #expect(m.isResumeSelected)
        for key in [Key.ctrl("f"), Key.ctrl("s"), Key(.function(4)), Key(.function(5))] {
            #expect(m.handle(key, visibleRows: 5) == .none)
            #expect(m.message == "move to a lesson first (↑ ↓): that key works on the lesson under the cursor")
        }
        _ = m.handle(Key(.down), visibleRows: 5)
        #expect(m.message == nil)
    }

    @Test func theRoutinesBoxChoosesOneToRun() {
        var m = BrowserFixture.model()
        let choices = [RoutineChoice(name: "morning", summary: "3 entries"), RoutineChoice(name: "evening", summary: "1 entry")]
        m.overlay = .routines(choices, selected: 0)
        #expect(m.handle(Key(.down), visibleRows: 5) == .none)
        #expect(m.overlay == .routines(choices, selected: 1))
        #expect(m.handle(Key(.down), visibleRows: 5) == .none)
        #expect(m.overlay == .routines(choices, selected: 1), "stops at the last")
        let shown = BrowserScreen(depth: .ansi16).render(m, size: size(80, 24)).plainText()
        #expect(shown.contains("morning") && shown.contains("evening") && shown.contains("Enter runs it"))
        #expect(m.handle(Key(.up), visibleRows: 5) == .none)
        #expect(m.handle(Key(.enter), visibleRows: 5) == .runRoutine("morning"))
        #expect(m.overlay == nil)
        m.overlay = .routines(choices, selected: 0)
        #expect(m.handle(Key("x"), visibleRows: 5) == .none)
        #expect(m.overlay == nil && m.query.isEmpty, "any other key closes, and is not typed")
        m.overlay = .routines(choices, selected: 0)
        #expect(m.handle(.ctrl("q"), visibleRows: 5) == .quit)
    }

    @Test func helpOpensAndAnyKeyCloses() {
        var m = BrowserFixture.model()
        #expect(m.handle(Key("?"), visibleRows: 10) == .none)
        #expect(m.overlay == .help)
        #expect(m.handle(Key("x"), visibleRows: 10) == .none)
        #expect(m.overlay == nil && m.query.isEmpty, "the closing key is not typed")
        _ = m.handle(Key(.function(1)), visibleRows: 10)
        #expect(m.overlay == .help)
        let text = BrowserScreen(depth: .ansi16).render(m, size: size(80, 24)).plainText()
        for entry in BrowserKeys.entries {
            #expect(text.contains(entry.keys), "help lists \(entry.keys)")
            #expect(text.contains(entry.action), "help explains \(entry.action)")
        }
    }

    @Test func selectByIDAfterReorder() {
        var m = BrowserFixture.model()
        m.selected = 2
        m.rows.swapAt(0, 1)
        m.select(id: "b2")
        #expect(m.selectedRow?.id == "b2")
    }

    @Test func fileTextCannotInjectEscapes() {
        var m = BrowserFixture.model()
        m.rows[0].title = "Evil\u{1B}]0;pwned\u{07}\u{9B}31m"
        m.query = "q\u{1B}[2J"
        let buffer = BrowserScreen(depth: .truecolor).render(m, size: size(80, 24))
        #expect(buffer.cells.allSatisfy { $0.scalar >= 0x20 || $0.scalar == 0 })
        #expect(buffer.cells.allSatisfy { !(0x7F...0x9F).contains($0.scalar) })
    }

    @Test func tooSmall() {
        let text = BrowserScreen(depth: .none).render(BrowserFixture.model(), size: size(30, 6)).plainText()
        #expect(text.contains("Terminal too small"))
    }
}
