import Foundation
import Lesson
import LessonLibrary
import MIDIFile
import Reports
import Screen
import Store

/// The library as the browser shows it and changes it: rows, the resume line, the method's
/// marks, a lesson's last choice, favourites, stats and routines. The browser (FrontEnd) asks
/// here and never holds the Store; each answer is a value it can draw.
public struct BrowserCatalogue {
    private let store: Store
    /// The method's marks (mastered, in progress, next), from the history as it was opened.
    private let marks: [String: BrowserRow.Mark]
    /// "Resume: Minuet in G bar 9, right hand, 80%", nil when nothing was practised yet.
    public let resumeLine: String?

    /// The library rescanned once (cheap when nothing changed) and read for a browser.
    public static func open(_ library: Library) throws -> BrowserCatalogue {
        try library.withStore { try BrowserCatalogue(store: $0) }
    }

    private init(store: Store) throws {
        self.store = store
        resumeLine = try store.resume().map { Self.resumeLine($0.state, listing: $0.lesson) }
        marks = MethodGuide.marks(try store.methodPath(), chosen: try store.methodChoice())
    }

    /// The levels lessons have, for the level filter.
    public func levels() throws -> [Int] { try store.levels() }

    /// The lessons matching the browser's search and filters, marked by the method.
    public func rows(matching query: String, level: Int?, favouritesOnly: Bool) throws -> [BrowserRow] {
        Self.rows(try store.lessons(matching: query, level: level, favouritesOnly: favouritesOnly), marks: marks)
    }

    /// How the lesson was practised last time (its mode and hand words), else watch with both hands.
    public func lastChoice(for id: String) -> (mode: PracticeMode, hand: PracticePlan.Hands) {
        let last = try? store.lessonChoice(for: id)
        return (last?.mode ?? .watch, last?.hand ?? .both)
    }

    /// Remembers how the lesson is practised now (a failure only loses the suggestion next time).
    public func saveChoice(for id: String, mode: PracticeMode, hand: PracticePlan.Hands) {
        try? store.saveLessonChoice(LessonChoice(lessonID: id, mode: mode, hand: hand))
    }

    /// Adds the lesson to the favourites or takes it out; true when it is one now.
    public func toggleFavourite(_ id: String) throws -> Bool {
        if try store.isFavourite(id) {
            _ = try store.removeFavourite(id)
            return false
        }
        try store.addFavourite(id)
        return true
    }

    /// The lesson's stats as the browser's box shows them: only the days and weeks with
    /// practice (the box has to fit the screen), a heading left with nothing under it dropped.
    public func statsLines(for id: String, title: String) throws -> [String] {
        let stats = PracticeStats.compute(try store.passes(lessonID: id), now: Date())
        var lines = StatsReport.text(stats, title: title).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last == "" { lines.removeLast() }
        lines = lines.filter { !$0.hasSuffix(" 0 min  0 passes") }
        return lines.enumerated().filter { i, line in
            !(line.hasSuffix(":") && line.hasPrefix("Last ") && !(lines.indices.contains(i + 1) && lines[i + 1].hasPrefix("  ")))
        }.map(\.element)
    }

    /// The routines, each with a short summary ("3 entries: Ode to Joy, a random favourite, …");
    /// `titles` names the lessons the browser already has rows for.
    public func routines(titles: [String: String]) throws -> [RoutineChoice] {
        try store.routines().map { RoutineChoice(name: $0.name, summary: Self.routineSummary($0, titles: titles)) }
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
