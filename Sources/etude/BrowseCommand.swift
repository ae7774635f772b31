import ArgumentParser
import Foundation
import MIDIFile
import Screen
import Store
import Terminal
import Lesson

/// `etude` (no arguments, on a terminal) or `etude browse`: the full-screen lesson browser.
struct BrowseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse the lessons full screen: search as you type, filter, practise (also `etude` alone).",
        discussion: """
        Keys: type to search (Backspace deletes, Ctrl-U clears); ↑/↓ PgUp/PgDn Home/End move;
        Enter practises (or resumes); Tab or F2 all/favourites; Ctrl-L or F3 level;
        Ctrl-F or F4 favourite on/off; Ctrl-S or F5 stats; Ctrl-R or F6 routines;
        ? or F1 help; Esc clears the search, then quits; Ctrl-Q, F10 or Ctrl-C quit.
        """
    )

    @OptionGroup var store: StoreOptions

    func run() throws {
        try BrowserController.run(store)
    }
}

/// What the browser decided once its screen is closed.
enum BrowserOutcome {
    case quit
    case open(path: String)
    case resume
    case routine(String)
}

/// Wires the pure `BrowserModel`/`BrowserScreen` to the terminal and the store. The session is
/// closed (terminal restored) before anything else runs, so practice gets a clean terminal.
enum BrowserController {
    static func run(_ options: StoreOptions) throws {
        // The practice command opens the same database as the browser did.
        if let db = options.db { setenv("ETUDE_DB", db, 1) }
        // Kept across practice: q there comes back to the same search, filters and lesson.
        var kept: BrowserModel?
        while true {
            let outcome = try StoreCLI.withStore(options) { store in
                try TerminalSession.run { session in try loop(session: session, store: store, kept: &kept) }
            }
            let arguments: [String]
            switch outcome {
            case .quit: return
            case .open(let path): arguments = ["practice", path]
            // As `etude resume`: the hand, tempo, loop and its name, and the bar left at.
            case .resume: arguments = ["resume", "--play"]
            case .routine(let name): arguments = ["routine", "run", name]
            }
            kept?.message = nil
            do {
                var command = try Etude.parseAsRoot(arguments)
                try command.run()
                // What a routine printed stays on screen until the learner has read it.
                if case .routine = outcome { waitForAKey("Press any key to go back to the lessons.") }
            } catch let failure as EtudeFailure {
                // A lesson that cannot be practised is said in the browser, which stays open.
                kept?.message = failure.message
            }
            // Ctrl-C or a signal ended practice (its ExitCode was thrown): Etude ends with it.
        }
    }

    /// Waits for one key on the terminal (raw, no echo); returns at once without one.
    static func waitForAKey(_ prompt: String) {
        guard let raw = RawStdin() else { return }
        defer { raw.restore() }
        Console.out(prompt)
        while let bytes = raw.read(timeoutMs: 1000), bytes.isEmpty {}
        Console.out("\n")
    }

    /// "3 entries: Ode to Joy, a random favourite, …" for the routines box.
    static func routineSummary(_ routine: Routine, titles: [String: String]) -> String {
        let names = routine.entries.prefix(2).map { e -> String in
            switch e.source {
            case .lesson(let id, let title): return titles[id] ?? title ?? "a lesson"
            case .randomFavourite: return "a random favourite"
            case .randomLevel(let n): return "a random level-\(n) lesson"
            }
        }
        let count = routine.entries.count
        return "\(count) entr\(count == 1 ? "y" : "ies"): " + names.joined(separator: ", ") + (count > 2 ? ", …" : "")
    }

    static func rows(_ listings: [LessonListing]) -> [BrowserRow] {
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.dateFormat = "yyyy-MM-dd"
        return listings.map { l in
            BrowserRow(id: l.lesson.id, title: l.lesson.title, composer: l.lesson.composer,
                       level: l.lesson.level, durationSeconds: l.lesson.durationSeconds, favourite: l.isFavourite,
                       bestScore: l.bestScore, lastPractised: l.lastPractised.map { day.string(from: $0) }, path: l.path)
        }
    }

    /// "Resume: Minuet in G bar 9, right hand, 80%".
    static func resumeLine(_ state: ResumeState, listing: LessonListing?) -> String {
        var bar = ""
        if let read = try? LessonFile.readLesson(listing?.path ?? state.path) {
            let tick = TempoMap(file: read.file).tick(atSeconds: state.positionSeconds)
            if tick.isFinite { bar = " bar \(barAt(tick: Int(tick), file: read.file))," }
        }
        let hand = state.hand == "both" ? "both hands" : "\(state.hand) hand"
        var line = "Resume: \(TextDecoding.sanitize(listing?.lesson.title ?? (state.path as NSString).lastPathComponent))\(bar) \(hand), \(state.tempoPercent)%"
        if let a = state.loopFirstBar, let b = state.loopLastBar { line += ", loop \(a)-\(b)" }
        return line
    }

    static func barAt(tick: Int, file: MIDIFile) -> Int {
        Lesson(file: file).bars.bar(atTick: tick).number
    }

    /// The browser until it is left or a lesson is opened; `kept` is the model of the last time
    /// (nil the first time) and is left as it was when the browser closed.
    static func loop(session: TerminalSession, store: Store, kept: inout BrowserModel?) throws -> BrowserOutcome {
        let screen = BrowserScreen(depth: session.colorDepth)
        var writer = FrameWriter(depth: session.colorDepth)
        var decoder = KeyDecoder()
        var buffer = CellBuffer(size: session.size())
        var model = kept ?? BrowserModel()
        let returning = kept?.selectedRow?.id
        model.levels = try store.levels()
        model.overlay = nil
        defer { kept = model }
        let resume = try store.resume()
        let resumeText = resume.map { resumeLine($0.state, listing: $0.lesson) }
        func refresh() throws {
            model.rows = rows(try store.lessons(matching: model.query, level: model.level, favouritesOnly: model.favouritesOnly))
            // The resume line belongs to the unfiltered view.
            model.resume = (model.query.isEmpty && !model.favouritesOnly && model.level == nil) ? resumeText : nil
            model.clamp(visibleRows: BrowserScreen.listHeight(rows: session.size().rows))
        }
        try refresh()
        if let returning {
            // Back from practice: the same lesson selected (its best score may have moved it).
            let message = model.message
            model.select(id: returning)
            model.message = message
            model.clamp(visibleRows: BrowserScreen.listHeight(rows: session.size().rows))
        }
        func draw() {
            let size = session.size()
            screen.render(model, into: &buffer, size: size)
            let bytes = writer.frame(buffer)
            if !bytes.isEmpty { session.write(bytes) }
        }
        draw()
        var lastInput = ContinuousClock.now
        while true {
            var waitMs: Int32 = 1000
            if decoder.hasPending && !decoder.isInPaste { waitMs = Int32(KeyDecoder.escapeTimeoutMilliseconds) }
            let bytes = session.readInput(timeoutMilliseconds: waitMs)
            let events = session.takeEvents()
            if events.contains(.inputClosed) { return .quit }
            if events.contains(.resized) || events.contains(.resumed) { writer.invalidate() }
            var keys: [Key] = []
            if !bytes.isEmpty {
                lastInput = ContinuousClock.now
                keys = decoder.feed(bytes)
            } else if decoder.hasPending && !decoder.isInPaste,
                      ContinuousClock.now - lastInput >= .milliseconds(KeyDecoder.escapeTimeoutMilliseconds) {
                keys = decoder.flush()
            }
            for key in keys {
                if key == Key.ctrl("c") { return .quit }
                if key == Key.ctrl("z") {
                    session.suspend()
                    writer.invalidate()
                    continue
                }
                switch model.handle(key, visibleRows: BrowserScreen.listHeight(rows: session.size().rows)) {
                case .none: break
                case .refresh: try refresh()
                case .quit: return .quit
                case .open(let row):
                    guard let path = row.path else {
                        model.message = "\(row.title): the file is missing; `etude library rescan` finds moved files"
                        break
                    }
                    return .open(path: path)
                case .resume:
                    if resume != nil { return .resume }
                case .toggleFavourite(let row):
                    if try store.isFavourite(row.id) {
                        _ = try store.removeFavourite(row.id)
                        model.message = "☆ \(row.title) removed from favourites"
                    } else {
                        try store.addFavourite(row.id)
                        model.message = "★ \(row.title) added to favourites"
                    }
                    let message = model.message
                    try refresh()
                    model.select(id: row.id)
                    model.message = message
                    model.clamp(visibleRows: BrowserScreen.listHeight(rows: session.size().rows))
                case .stats(let row):
                    let stats = PracticeStats.compute(try store.passes(lessonID: row.id), now: Date())
                    let text = StatsReport.text(stats, title: row.title)
                    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    while lines.last == "" { lines.removeLast() }
                    // Only the days and weeks with practice (time or passes): the box has to fit the
                    // screen. A heading left with nothing under it goes too.
                    lines = lines.filter { !$0.hasSuffix(" 0 min  0 passes") }
                    lines = lines.enumerated().filter { i, line in
                        !(line.hasSuffix(":") && line.hasPrefix("Last ") && !(lines.indices.contains(i + 1) && lines[i + 1].hasPrefix("  ")))
                    }.map(\.element)
                    model.overlay = .text(title: "Stats", lines: lines)
                case .routines:
                    let routines = try store.routines()
                    if routines.isEmpty {
                        model.overlay = .text(title: "Routines", lines: ["No routines yet.",
                                                                         "Make one: etude routine new NAME --entry \"lesson=…;minutes=5\""])
                    } else {
                        let titles = Dictionary(model.rows.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
                        model.overlay = .routines(routines.map { RoutineChoice(name: $0.name, summary: routineSummary($0, titles: titles)) },
                                                  selected: 0)
                    }
                case .runRoutine(let name):
                    return .routine(name)
                }
            }
            if !keys.isEmpty || !events.isEmpty { draw() }
        }
    }
}
