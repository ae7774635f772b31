import App
import Devices
import Foundation
import Lesson
import LessonLibrary
import MIDIFile
import Reports
import Screen
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
            let catalogue = try BrowserCatalogue.open(library)
            var screen: BrowserFrames?
            end = try ScreenHost.run(fps: 1) { host in
                let made = try BrowserFrames(host: host, catalogue: catalogue, silent: silent, kept: kept)
                screen = made
                return made
            }
            if let screen { kept = screen.model }
            let chosen = screen?.chosen
            if end.exitStatus != 0 { return end.exitStatus }
            guard let intent = chosen else { return 0 }
            kept?.message = nil
            do {
                let status = try Actions.run(intent, library: library, sound: sound, playing: playing)
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
}

/// The browser on the screen host until it is left or a lesson is opened: its model is the
/// `BrowserModel` (kept across practice: q there comes back to the same search, filters and
/// lesson), drawn by `BrowserScreen`; a key goes to the model and what it asks of the library
/// is done here. `chosen` is the lesson or routine chosen, nil when the browser was left.
final class BrowserFrames: FullScreen {
    let host: ScreenHost
    let catalogue: BrowserCatalogue
    let screen: BrowserScreen
    var model: BrowserModel
    private(set) var chosen: Intent?

    /// `kept` is the model of the last time (nil the first time).
    init(host: ScreenHost, catalogue: BrowserCatalogue, silent: Bool, kept: BrowserModel?) throws {
        self.host = host
        self.catalogue = catalogue
        screen = BrowserScreen(depth: host.depth)
        model = kept ?? BrowserModel()
        model.silent = silent
        let returning = kept?.selectedRow?.id
        model.levels = try catalogue.levels()
        model.overlay = nil
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
        model.rows = try catalogue.rows(matching: model.query, level: model.level, favouritesOnly: model.favouritesOnly)
        // The resume line stays under the level and favourites filters; a search hides it.
        model.resume = model.query.isEmpty ? catalogue.resumeLine : nil
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
            let last = catalogue.lastChoice(for: row.id)
            model.overlay = .practise(PractiseChoice(row: row, mode: last.mode.rawValue, hand: last.hand.rawValue))
        case .practise(let row, let mode, let hand):
            // The box offers the modes' and hands' own words (`PractiseChoice.modes`, `.hands`).
            guard let path = row.path, let mode = PracticeMode(rawValue: mode), let hand = PracticePlan.Hands(rawValue: hand) else { break }
            catalogue.saveChoice(for: row.id, mode: mode, hand: hand)
            chosen = .practise(path: path, mode: mode, hand: hand)
            return .quit
        case .resume:
            if catalogue.resumeLine != nil {
                chosen = .resume
                return .quit
            }
        case .toggleFavourite(let row):
            model.message = try catalogue.toggleFavourite(row.id) ? "★ \(row.title) added to favourites" : "☆ \(row.title) removed from favourites"
            let message = model.message
            try refresh()
            model.select(id: row.id)
            model.message = message
            model.clamp(visibleRows: listHeight)
        case .stats(let row):
            let lines = try catalogue.statsLines(for: row.id, title: row.title)
            model.overlay = .text(title: "Stats", lines: lines)
        case .routines:
            let titles = Dictionary(model.rows.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
            let routines = try catalogue.routines(titles: titles)
            if routines.isEmpty {
                model.overlay = .text(title: "Routines", lines: ["No routines yet.",
                                                                 "Make one: etude routine new NAME --entry \"lesson=…;minutes=5\""])
            } else {
                model.overlay = .routines(routines, selected: 0)
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
