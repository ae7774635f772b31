import Foundation
import Lesson
import MIDIFile
import Screen
import Store
import Terminal

/// The full-screen lesson browser: the pure `BrowserModel`/`BrowserScreen` wired to the
/// terminal and the library. It returns what the learner chose as an `Intent`, which `run`
/// carries out through `App` and comes back (q in practice returns to the same search,
/// filters and lesson). The browser's terminal session is closed before an intent runs, so
/// practice gets a clean terminal.
public enum BrowserApp {
    /// The browser until the learner quits; the exit status (128 + a signal, 130 for Ctrl-C in
    /// practice, which ends Etude with it).
    public static func run(_ library: Library, sound: LiveSound = LiveSound(), playing: Playing = Playing()) throws -> Int32 {
        // Kept across practice: q there comes back to the same search, filters and lesson.
        var kept: BrowserModel?
        // Said from the first screen, not first heard as silence in practice.
        let silent = LiveSound().check().driver == nil
        while true {
            // Signals end the browser through its cleanup, as on every screen (the host's watch
            // is the browser's only: practice and routines catch them with their own).
            var end = ScreenEnd(ending: .quit)
            let chosen: Intent? = try library.withStore { store in
                var screen: BrowserFrames?
                defer { if let screen { kept = screen.model } }
                end = try ScreenHost.run(fps: 1) { host in
                    let made = try BrowserFrames(host: host, store: store, silent: silent, kept: kept)
                    screen = made
                    return made
                }
                return screen?.chosen
            }
            if end.exitStatus != 0 { return end.exitStatus }
            guard let intent = chosen else { return 0 }
            kept?.message = nil
            do {
                let status = try App.run(intent, library: library, sound: sound, playing: playing)
                if status != 0 { return status }
                // What a routine printed stays on screen until the learner has read it.
                if case .runRoutine = intent { waitForAKey("Press any key to go back to the lessons.") }
                if intent == .setUpInstrument { waitForAKey("Press any key to go back to the lessons.") }
            } catch let failure as EtudeFailure {
                // A lesson that cannot be practised is said in the browser, which stays open.
                kept?.message = failure.message
            } catch let failure as RoutineError {
                kept?.message = failure.message
            }
        }
    }

    /// Waits for one key on the terminal (raw, no echo); returns at once without one.
    static func waitForAKey(_ prompt: String) {
        let keys = LineKeys()
        defer { keys.close() }
        guard keys.isTerminal else { return }
        Console.out(prompt)
        while let k = keys.read(timeoutMs: 1000), k.isEmpty {}
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

    static func rows(_ listings: [LessonListing], marks: [String: BrowserRow.Mark] = [:]) -> [BrowserRow] {
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.dateFormat = "yyyy-MM-dd"
        return listings.map { l in
            BrowserRow(id: l.lesson.id, title: l.lesson.title, composer: l.lesson.composer,
                       level: l.lesson.level, durationSeconds: l.lesson.durationSeconds, favourite: l.isFavourite,
                       bestScore: l.bestScore, lastPractised: l.lastPractised.map { day.string(from: $0) }, path: l.path,
                       mark: marks[l.lesson.id])
        }
    }

    /// "Resume: Minuet in G bar 9, right hand, 80%".
    static func resumeLine(_ state: ResumeState, listing: LessonListing?) -> String {
        let bar = ResumePlace.bar(seconds: state.positionSeconds, path: listing?.path ?? state.path).map { " bar \($0)," } ?? ""
        var hand = state.hand == .both ? "both hands" : "\(state.hand.rawValue) hand"
        if state.hand != .both, let other = state.otherHand, other != .play { hand += " (other \(other.name))" }
        var line = "Resume: \(TextDecoding.sanitize(listing?.lesson.title ?? (state.path as NSString).lastPathComponent))\(bar) \(hand), \(state.tempoPercent)%"
        if let a = state.loopFirstBar, let b = state.loopLastBar { line += ", loop \(ResumePlace.bars(a, b, path: listing?.path ?? state.path))" }
        if state.metronome == true { line += ", metronome" }
        return line
    }

}

/// Where a saved position is, in bars as the lesson names them (`etude resume --show`,
/// the browser's resume line).
public enum ResumePlace {
    /// "9" (a score's printed number, "9@2" the second time); nil when the file cannot be read.
    public static func bar(seconds: Double, path: String) -> String? {
        guard let read = try? LessonOpener.read(path), seconds.isFinite else { return nil }
        let lesson = Lesson(file: read.file)
        let tick = lesson.tempoMap.tick(atSeconds: max(0, seconds))
        guard tick.isFinite else { return nil }
        let bars = lesson.bars
        return bars.label(of: bars.bar(atTick: Int(min(max(0, tick), Double(lesson.endTick)))))
    }

    /// A saved loop's bars as the lesson names them: a score's printed bars ("9–12@2"), else
    /// (or when the file cannot be read) the numbers ("9-12").
    public static func bars(_ first: Int, _ last: Int, path: String?) -> String {
        guard let path, let read = try? LessonOpener.read(path) else { return "\(first)-\(last)" }
        let bars = Lesson(file: read.file).bars
        return bars.isPrinted ? bars.label(ofRange: first...max(first, last)) : "\(first)-\(last)"
    }
}

/// The browser on the screen host until it is left or a lesson is opened: its model is the
/// `BrowserModel` (kept across practice: q there comes back to the same search, filters and
/// lesson), drawn by `BrowserScreen`; a key goes to the model and what it asks of the library
/// is done here. `chosen` is the lesson or routine chosen, nil when the browser was left.
final class BrowserFrames: FullScreen {
    let host: ScreenHost
    let store: Store
    let screen: BrowserScreen
    var model: BrowserModel
    private(set) var chosen: Intent?
    private let resume: (state: ResumeState, lesson: LessonListing?)?
    private let resumeText: String?
    private let marks: [String: BrowserRow.Mark]

    /// `kept` is the model of the last time (nil the first time).
    init(host: ScreenHost, store: Store, silent: Bool, kept: BrowserModel?) throws {
        self.host = host
        self.store = store
        screen = BrowserScreen(depth: host.depth)
        model = kept ?? BrowserModel()
        model.silent = silent
        let returning = kept?.selectedRow?.id
        model.levels = try store.levels()
        model.overlay = nil
        resume = try store.resume()
        resumeText = resume.map { BrowserApp.resumeLine($0.state, listing: $0.lesson) }
        // The method's marks (mastered, in progress, next), from the history as it is now.
        marks = MethodGuide.marks(try store.methodPath(), chosen: try store.methodChoice())
        try refresh()
        if kept == nil {
            // Opened afresh: on the ▸ lesson the method names next, not the first row.
            model.selectNext()
            model.clamp(visibleRows: listHeight)
        }
        if let returning {
            // Back from practice: the same lesson selected (its best score may have moved it).
            let message = model.message
            model.select(id: returning)
            model.message = message
            model.clamp(visibleRows: listHeight)
        }
    }

    var minimumSize: TerminalSize { BrowserScreen.minimumSize }
    private var listHeight: Int { BrowserScreen.listHeight(rows: host.size().rows) }

    func render(into area: Rect, buffer: inout CellBuffer) {
        screen.render(model, into: area, buffer: &buffer)
    }

    private func refresh() throws {
        model.rows = BrowserApp.rows(try store.lessons(matching: model.query, level: model.level, favouritesOnly: model.favouritesOnly),
                                     marks: marks)
        // The resume line stays under the level and favourites filters; a search hides it.
        model.resume = model.query.isEmpty ? resumeText : nil
        model.clamp(visibleRows: listHeight)
    }

    /// One key: `.quit` when the browser closes (with `chosen` set when a lesson or a routine
    /// was chosen).
    func key(_ key: Key) throws -> TerminalAction {
        switch model.handle(key, visibleRows: listHeight) {
        case .none: break
        case .refresh: try refresh()
        case .quit: return .quit
        case .open(let row):
            guard row.path != nil else {
                model.message = "\(safe(row.title)): the file is missing; `etude library rescan` finds moved files"
                break
            }
            // How to practise it: what was chosen for this lesson last time, else watch.
            let last = try? store.lessonChoice(for: row.id)
            model.overlay = .practise(PractiseChoice(row: row, mode: (last?.mode ?? .watch).rawValue, hand: (last?.hand ?? .both).rawValue))
        case .practise(let row, let mode, let hand):
            // The box offers the modes' and hands' own words (`PractiseChoice.modes`, `.hands`).
            guard let path = row.path, let mode = PracticeMode(rawValue: mode), let hand = PracticePlan.Hands(rawValue: hand) else { break }
            try? store.saveLessonChoice(LessonChoice(lessonID: row.id, mode: mode, hand: hand))
            chosen = .practise(path: path, mode: mode, hand: hand)
            return .quit
        case .resume:
            if resume != nil {
                chosen = .resume
                return .quit
            }
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
            model.clamp(visibleRows: listHeight)
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
                model.overlay = .routines(routines.map { RoutineChoice(name: $0.name, summary: BrowserApp.routineSummary($0, titles: titles)) },
                                          selected: 0)
            }
        case .runRoutine(let name):
            chosen = .runRoutine(name: name)
            return .quit
        case .instrument:
            chosen = .setUpInstrument
            return .quit
        }
        return .continue
    }
}
