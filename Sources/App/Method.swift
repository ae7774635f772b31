import Foundation
import Judge
import Lesson
import LessonLibrary
import MIDIFile
import Reports
import Screen
import Store

/// The method's path as the learner meets it: which lesson is next and why (`etude next`), and
/// the browser's marks (mastered, in progress, next). The rule of mastery is `Mastery`'s.
public enum MethodGuide {
    /// The lesson to work on and the reason, worded for the learner.
    public struct Next: Equatable, Sendable {
        public var lesson: PathLesson
        public var reason: String
    }

    /// The current piece: the lesson chosen with `etude next --set` while it is not mastered,
    /// else the first lesson on the path not yet mastered (in progress or not started). A lesson
    /// tried out of order (a level-4 piece while level 1 is being learnt) is a side trip: shown
    /// in progress, never the current piece unless chosen, so one try does not throw the path
    /// off. Nil when every lesson on the path is mastered (and none is chosen) or there is none.
    public static func next(_ path: [PathLesson], chosen: String? = nil, calendar: Calendar = .current) -> Next? {
        if let chosen, let l = path.first(where: { $0.listing.lesson.id == chosen }), l.status != .mastered {
            var why = l.status == .new ? "not started yet" : reason(l, path: path, calendar: calendar)
            if let own = path.first(where: { $0.status != .mastered }), own.listing.lesson.id != chosen {
                why = "you chose it (etude next --set); \(why); the path's own next is \(own.listing.lesson.title)"
            } else {
                why = "you chose it (etude next --set); \(why)"
            }
            return Next(lesson: l, reason: why)
        }
        guard let chosen = path.first(where: { $0.status != .mastered }) else { return nil }
        return Next(lesson: chosen, reason: reason(chosen, path: path, calendar: calendar))
    }

    /// Lessons in progress beyond the current piece: tried out of order, kept as side trips.
    public static func sideTrips(_ path: [PathLesson], chosen: String? = nil, calendar: Calendar = .current) -> [PathLesson] {
        guard let current = next(path, chosen: chosen, calendar: calendar)?.lesson,
              let at = path.firstIndex(where: { $0.listing.lesson.id == current.listing.lesson.id }) else { return [] }
        return path.enumerated().filter { i, l in
            l.status == .inProgress && l.listing.lesson.id != current.listing.lesson.id && (i > at || chosen != nil)
        }.map(\.element)
    }

    static func reason(_ l: PathLesson, path: [PathLesson], calendar: Calendar) -> String {
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.dateFormat = "yyyy-MM-dd"
        let level = l.listing.lesson.level.map { "level \($0)" } ?? "the path"
        switch l.status {
        case .inProgress:
            if let first = l.firstMasteringDay {
                return "it is in progress: mastered on \(day.string(from: first)); one more such pass on another day masters it (\(Mastery.rule))"
            }
            var best = "no scored pass yet with both hands in play mode"
            if let top = l.bestPlay {
                best = "best with both hands in play mode: \(Int((top.score ?? 0).rounded())) % at \(top.tempoPercent) % tempo"
            }
            return "it is in progress (\(best)); mastering it needs \(Mastery.rule)"
        case .new:
            if path.first?.listing.lesson.id == l.listing.lesson.id {
                return "it opens the method (\(level)): nothing on the path is mastered yet"
            }
            return "every lesson before it on the path is mastered, and it is the first of \(level) not yet started"
        case .mastered:
            return "it is mastered"
        }
    }

    /// The browser's mark of each lesson on the path, by lesson id.
    public static func marks(_ path: [PathLesson], chosen: String? = nil, calendar: Calendar = .current) -> [String: BrowserRow.Mark] {
        var out: [String: BrowserRow.Mark] = [:]
        for l in path {
            switch l.status {
            case .mastered: out[l.listing.lesson.id] = .mastered
            case .inProgress: out[l.listing.lesson.id] = .inProgress
            case .new: break
            }
        }
        if let n = next(path, chosen: chosen, calendar: calendar) { out[n.lesson.listing.lesson.id] = .next }
        return out
    }

    /// `etude next` as text: the lesson, where it is, and why.
    public static func text(_ next: Next?, pathCount: Int, sideTrips: [PathLesson] = []) -> String {
        guard let next else {
            return pathCount == 0
                ? "No graded lessons in the catalogue: the built-in curriculum was not found; add lessons with `etude library add DIR`.\n"
                : "Every lesson on the path (\(pathCount)) is mastered.\n"
        }
        let l = next.lesson.listing.lesson
        var out = "Next: \(safe(l.title))"
        if let level = l.level { out += " (level \(level))" }
        out += "\nWhy: \(safe(next.reason)).\n"
        if let d = l.description { out += "About: \(safe(d))\n" }
        out += "Practise it: etude practice \(LessonReference.quoted(l.title)) --mode play\n"
        if !sideTrips.isEmpty {
            let names = sideTrips.prefix(3).map { t in "\(safe(t.listing.lesson.title))\(t.listing.lesson.level.map { " (level \($0))" } ?? "")" }
            out += "Side trips: \(names.joined(separator: ", "))\(sideTrips.count > 3 ? " +\(sideTrips.count - 3) more" : "") (tried out of order; make one the current piece with etude next --set TITLE)\n"
        }
        return out
    }
}

/// What `etude next --json` prints.
public struct NextRecord: Codable, Equatable, Sendable {
    public var id: String
    public var title: String
    public var level: Int?
    public var status: String
    public var reason: String
    public var path: String?

    public init(_ next: MethodGuide.Next) {
        let l = next.lesson.listing
        id = l.lesson.id
        title = l.lesson.title
        level = l.lesson.level
        status = next.lesson.status.rawValue
        reason = next.reason
        path = l.path
    }
}

/// A title as a command-line argument (quoted when it has spaces or quotes).
enum LessonReference {
    static func quoted(_ title: String) -> String {
        let clean = safe(title)
        guard clean.contains(where: { $0 == " " || $0 == "'" || $0 == "\"" }) else { return clean }
        return "\"" + clean.replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

// MARK: Today

/// One piece of today's work, as `etude today --json` prints it.
public struct TodayEntry: Codable, Equatable, Sendable {
    /// warm-up, weakest-section, review, sight-reading or piece.
    public var kind: String
    public var lesson: String
    public var lessonID: String?
    /// "5-8", or nil for the whole lesson.
    public var bars: String?
    /// Percent of the written tempo (the speed trainer's start for the weakest section).
    public var tempo: Int
    public var seconds: Int
    public var hand: String
    public var mode: String
    /// The speed trainer's "start:target:step" (the weakest section), else nil.
    public var speedTrainer: String?
    public var why: String
}

/// `etude today`: a session planned from the history.
public struct TodayPlan: Codable, Equatable, Sendable {
    public var minutes: Int
    public var seconds: Int
    public var entries: [TodayEntry]

    /// The plan as a list for the terminal.
    public func text() -> String {
        var out = "Today: \(minutes) min, \(entries.count) parts\n"
        var clock = 0
        for (i, e) in entries.enumerated() {
            let at = String(format: "%d:%02d", clock / 60, clock % 60)
            var how = [e.hand == "both" ? "both hands" : "\(e.hand) hand", "\(e.mode) mode"]
            if let st = e.speedTrainer { how.append("speed trainer \(st)") } else { how.append("\(e.tempo) %") }
            if let b = e.bars { how.insert("bars \(b)", at: 0) }
            out += "\(i + 1). \(at)  \(e.kind): \(safe(e.lesson)) — \(how.joined(separator: ", ")) — \(TodayPlan.duration(e.seconds))\n"
            out += "      \(safe(e.why))\n"
            clock += e.seconds
        }
        return out
    }

    static func duration(_ s: Int) -> String { s % 60 == 0 ? "\(s / 60) min" : "\(s / 60) min \(s % 60) s" }
}

public enum TodayPlanner {
    /// Minutes a plan may have.
    public static let minutes = 5...180
    /// Shares of the time: warm-up, weakest section, review (all due pieces together),
    /// sight-reading; the current piece, whole, takes what is left.
    static let warmUpShare = 0.15, sectionShare = 0.35, reviewShare = 0.25
    static let sightReadingSeconds = 90.0
    static let reviewsAtMost = 2

    /// Parts a plan of `minutes` has at most, the current piece included: two in 5 minutes,
    /// one more every two and a half (4 in 10, 8 in 20), so a short session is not cut into
    /// slivers (a 45-second warm-up).
    public static func maximumParts(minutes: Int) -> Int { max(2, minutes * 2 / 5) }

    /// The parts in the order they are kept when a short plan has room for fewer: the piece,
    /// its weakest section, the most overdue review, sight-reading, the warm-up, a second review.
    static let priority = ["piece", "weakest-section", "review", "sight-reading", "warm-up", "review 2"]

    /// The plan for `minutes` minutes from the path and its history. `sections` gives the
    /// current piece's sections (from its file), `hands` the hand a lesson is played with
    /// ("right", "left" or "both": a one-hand lesson is not "both hands"); `sightReadingLevel`
    /// the level the learner reads at (level 1 is the right hand alone); `chosen` the lesson
    /// chosen with `etude next --set`. The entries' seconds add up to the minutes exactly.
    public static func plan(minutes: Int, path: [PathLesson], sections: (PathLesson) -> [Section],
                            hands: (PathLesson) -> String = { $0.listing.lesson.hands == 1 ? "right" : "both" },
                            sightReadingLevel: Int, chosen: String? = nil, now: Date, calendar: Calendar = .current) -> TodayPlan {
        let total = Double(minutes * 60)
        var entries: [(rank: String, entry: TodayEntry)] = []
        let current = MethodGuide.next(path, chosen: chosen, calendar: calendar)?.lesson ?? path.last
        func entry(_ kind: String, _ l: PathLesson?, title: String? = nil, bars: ClosedRange<Int>? = nil, tempo: Int = 100,
                   seconds: Double, hand: String? = nil, mode: String = "play", speedTrainer: String? = nil, why: String) -> TodayEntry {
            TodayEntry(kind: kind, lesson: title ?? l?.listing.lesson.title ?? "", lessonID: l?.listing.lesson.id,
                       bars: bars.map { "\($0.lowerBound)-\($0.upperBound)" }, tempo: tempo, seconds: Int(seconds.rounded()),
                       hand: hand ?? l.map(hands) ?? "both", mode: mode, speedTrainer: speedTrainer, why: why)
        }
        // Warm-up: the scale (else arpeggio, else five-finger position) of the current key.
        if let current, let warm = warmUp(for: current, path: path) {
            let key = current.listing.lesson.keyName ?? "C major"
            entries.append(("warm-up", entry("warm-up", warm, tempo: 80, seconds: total * warmUpShare,
                                             why: "the key of \(current.listing.lesson.title) (\(key)), at 80 % to loosen the hands")))
        }
        // The weakest section of the current piece, slower, with the speed trainer.
        if let current {
            let (section, why) = weakestSection(current, sections: sections(current))
            let bars = section.map { $0.firstBar...$0.lastBar }
            entries.append(("weakest-section", entry("weakest-section", current, bars: bars, tempo: 70, seconds: total * sectionShare,
                                                     speedTrainer: "70:100:5", why: why)))
        }
        // Review: mastered pieces due by spaced repetition, most overdue first.
        let due = path.filter { $0.status == .mastered && $0.listing.lesson.id != current?.listing.lesson.id }
            .compactMap { l -> (PathLesson, Review.Schedule)? in l.schedule.map { (l, $0) } }
            .filter { $0.1.due <= now }
            .sorted { $0.1.due < $1.1.due }
            .prefix(reviewsAtMost)
        if !due.isEmpty {
            let each = total * reviewShare / Double(due.count)
            for (n, (l, s)) in due.enumerated() {
                let day = calendar.dateComponents([.day], from: s.due, to: now).day ?? 0
                entries.append((n == 0 ? "review" : "review 2", entry("review", l, seconds: each,
                                     why: "mastered; due for review \(day == 0 ? "today" : "\(day) day\(day == 1 ? "" : "s") ago") (every \(s.intervalDays) day\(s.intervalDays == 1 ? "" : "s") now)")))
            }
        }
        // Sight-reading: one new exercise at the learner's level (the right hand alone at level 1).
        entries.append(("sight-reading", entry("sight-reading", nil, title: "Sight-reading, level \(sightReadingLevel)", seconds: sightReadingSeconds,
                                               hand: sightReadingLevel < 2 ? "right" : "both", why: "a new exercise, played once at sight")))
        // A short plan keeps the parts that matter most (the piece counts as one).
        let room = maximumParts(minutes: minutes) - (current == nil ? 0 : 1)
        let kept = Set(entries.map(\.rank).sorted { (priority.firstIndex(of: $0) ?? 99) < (priority.firstIndex(of: $1) ?? 99) }.prefix(max(0, room)))
        var list = entries.filter { kept.contains($0.rank) }.map(\.entry)
        // The current piece, whole, with what is left.
        let used = list.reduce(0) { $0 + $1.seconds }
        if let current {
            let left = max(0, Int(total) - used)
            list.append(TodayEntry(kind: "piece", lesson: current.listing.lesson.title, lessonID: current.listing.lesson.id, bars: nil,
                                   tempo: 100, seconds: left, hand: hands(current), mode: "play", speedTrainer: nil,
                                   why: current.status == .mastered ? "all mastered: keep it in the fingers" : "towards mastery: \(Mastery.rule)"))
        } else if let last = list.indices.last {
            list[last].seconds += max(0, Int(total) - used)
        }
        return TodayPlan(minutes: minutes, seconds: list.reduce(0) { $0 + $1.seconds }, entries: list.filter { $0.seconds > 0 })
    }

    /// The warm-up for a piece: a lesson of levels 1–3 in its key, scales first, and none of a
    /// higher level than the piece's (a learner at five-finger positions has no scales yet).
    static func warmUp(for piece: PathLesson, path: [PathLesson]) -> PathLesson? {
        let key = piece.listing.lesson.keyName ?? "C major"
        let level = piece.listing.lesson.level ?? 3
        let candidates = path.filter {
            ($0.listing.lesson.level ?? 0) <= min(3, level) && $0.listing.lesson.id != piece.listing.lesson.id
        }
        let rank: (PathLesson) -> Int = { [2: 0, 3: 1, 1: 2][$0.listing.lesson.level ?? 0] ?? 3 }
        let inKey = candidates.filter { $0.listing.lesson.keyName == key }.sorted { (rank($0), $0.place) < (rank($1), $1.place) }
        if let first = inKey.first { return first }
        return candidates.filter { $0.listing.lesson.keyName == "C major" }.sorted { (rank($0), $0.place) < (rank($1), $1.place) }.first
    }

    /// The section whose passes scored lowest (a section never practised on its own first);
    /// nil (the whole piece) when the lesson has no sections.
    static func weakestSection(_ l: PathLesson, sections: [Section]) -> (Section?, String) {
        guard !sections.isEmpty else { return (nil, "the whole piece: it has no sections") }
        var scored: [(Section, Double?)] = []
        for s in sections {
            let inside = l.passes.filter { p in
                guard p.complete, let a = p.firstBar, let b = p.lastBar, let score = p.score, score.isFinite else { return false }
                return a >= s.firstBar && b <= s.lastBar
            }
            let recent = inside.suffix(3).compactMap(\.score)
            scored.append((s, recent.isEmpty ? nil : recent.reduce(0, +) / Double(recent.count)))
        }
        if let fresh = scored.first(where: { $0.1 == nil }) {
            return (fresh.0, "section \(fresh.0.name) (bars \(fresh.0.firstBar)-\(fresh.0.lastBar)) has not been practised on its own yet")
        }
        guard let worst = scored.min(by: { ($0.1 ?? 0) < ($1.1 ?? 0) }) else { return (nil, "the whole piece") }
        return (worst.0, "section \(worst.0.name) (bars \(worst.0.firstBar)-\(worst.0.lastBar)) scores lowest: \(Int((worst.1 ?? 0).rounded())) % over its last passes")
    }

    /// The plan as a routine the routine runner plays: each entry for its seconds (the
    /// sight-reading exercise once), with a five-second pause between entries.
    static func routine(_ plan: TodayPlan, path: [PathLesson], sightReading: LessonListing?) -> RoutinePlan {
        var byID: [String: LessonListing] = [:]
        for l in path { byID[l.listing.lesson.id] = l.listing }
        var steps: [RoutinePlan.Step] = []
        var clock = 0.0
        for (i, e) in plan.entries.enumerated() {
            let listing = e.kind == "sight-reading" ? sightReading : e.lessonID.flatMap { byID[$0] }
            guard let listing else { continue }
            let pause = steps.isEmpty ? 0 : 5
            let pauseStart = clock
            clock += Double(pause)
            let bars = e.bars.flatMap(RoutineEntry.parseBars)
            let length: RoutineEntry.Length = e.kind == "sight-reading" ? .repetitions(1) : .minutes(Double(e.seconds) / 60)
            var step = RoutinePlan.Step(entryIndex: i, lesson: listing.lesson, path: listing.path, hand: PracticePlan.Hands(rawValue: e.hand) ?? .both, tempoPercent: e.tempo,
                                        bars: bars, mode: .play, length: length, pauseSeconds: pause, pauseStart: pauseStart,
                                        playStart: clock, plannedSeconds: Double(e.seconds))
            if e.speedTrainer != nil { step.speedTrainer = PracticePlan.SpeedTrainer(start: 70, target: 100, step: 5) }
            steps.append(step)
            clock += Double(e.seconds)
        }
        return RoutinePlan(name: "today", steps: steps, skipped: [], totalSeconds: clock)
    }
}

extension TodayPlanner {
    /// Today's plan from the library's history (the current piece's sections read from its file).
    public static func make(minutes: Int, store: Store, now: Date = Date()) throws -> (plan: TodayPlan, path: [PathLesson]) {
        guard TodayPlanner.minutes.contains(minutes) else {
            throw EtudeFailure("--minutes \(minutes): plan \(TodayPlanner.minutes.lowerBound)–\(TodayPlanner.minutes.upperBound) minutes (e.g. 20)")
        }
        var path = try store.methodPath()
        // The current piece's last passes (its weakest section): the one lesson whose passes are read.
        let current = MethodGuide.next(path, chosen: try store.methodChoice())?.lesson ?? path.last
        if let i = path.firstIndex(where: { $0.listing.lesson.id == current?.listing.lesson.id }) {
            path[i].passes = try store.recentPasses(lessonID: path[i].listing.lesson.id)
        }
        let level = SightReader.suggestedLevel(try store.sightReadings())
        let plan = TodayPlanner.plan(minutes: minutes, path: path, sections: { l in
            guard let p = l.listing.path, let opened = try? LessonOpener.open(p) else { return [] }
            return opened.lesson.sections
        }, hands: { l in
            // The hands the lesson's notes are written for, read from its file.
            guard let p = l.listing.path, let opened = try? LessonOpener.open(p) else { return l.listing.lesson.hands == 1 ? "right" : "both" }
            let parts = Set(opened.lesson.notes.compactMap(\.part.hand))
            return parts == [.left] ? "left" : parts == [.right] ? "right" : "both"
        }, sightReadingLevel: level, chosen: try store.methodChoice(), now: now)
        return (plan, path)
    }

    /// `etude today --run`: the plan played through the routine runner (a fresh sight-reading
    /// exercise made for it); the exit status.
    public static func run(minutes: Int, library: Library, player: any RoutinePlaying) throws -> Int32 {
        try library.withStore { s in
            let (plan, path) = try make(minutes: minutes, store: s)
            let level = SightReader.suggestedLevel(try s.sightReadings())
            let exercise = try SightReadingExercise(level: level, seed: SightReader.freshSeed(level: level, history: try s.sightReadings()))
            let listing = try SightReader.keep(exercise, library: library, store: s)
            let routine = TodayPlanner.routine(plan, path: path, sightReading: listing)
            Console.out(plan.text())
            if routine.steps.isEmpty { throw EtudeFailure("nothing to play today: the catalogue has no graded lessons; add some with `etude library add DIR`") }
            let started = Date()
            let status = try player.play(routine, history: RoutineHistory(store: s))
            try SightReader.record(exercise, lessonID: listing.lesson.id, since: started, store: s)
            return status
        }
    }
}

// MARK: Sight-reading

/// `etude sight-read`: an exercise made, kept beside the database as a lesson file (so the
/// history can refer to it; the catalogue keeps it out of `etude list`), played once in play
/// mode with a count-in, and its score kept with its level and seed.
public enum SightReader {
    /// The level to read at when none is given: the last one read, one higher after three
    /// exercises in a row at it scored 90 % or more (level 1 to start).
    public static func suggestedLevel(_ history: [SightReadingRecord]) -> Int {
        guard let last = history.last else { return 1 }
        let atLevel = history.filter { $0.level == last.level }.suffix(3)
        let up = atLevel.count == 3 && atLevel.allSatisfy { ($0.score ?? 0) >= 90 }
        return min(SightReadingExercise.levels.upperBound, last.level + (up ? 1 : 0))
    }

    /// How many exercises each level has (seeds 0 to this, less one).
    public static let seedsPerLevel: UInt64 = 1_000_000

    /// A seed not read before at this level (the exercise is new to the learner), in bounded
    /// time (F10): a few random draws, then the first unused seed after the last draw; one line
    /// when every seed of the level has been played.
    public static func freshSeed(level: Int, history: [SightReadingRecord], now: Date = Date(),
                                 seeds: UInt64 = seedsPerLevel) throws -> UInt64 {
        let seen = Set(history.filter { $0.level == level }.map { UInt64(bitPattern: $0.seed) }.filter { $0 < seeds })
        guard UInt64(seen.count) < seeds else {
            throw EtudeFailure("every sight-reading exercise of level \(level) has been played (\(seeds) of them); choose another --level, or give --seed N to play one again")
        }
        let millis = now.timeIntervalSince1970 * 1000
        var rng = SeededGenerator(seed: millis.isFinite && millis >= 0 && millis < 1.8e19 ? UInt64(millis) : 0)
        var seed = rng.next() % seeds
        for _ in 0..<64 where seen.contains(seed) { seed = rng.next() % seeds }
        // Each step looks at a seed not looked at before: at most `seeds` steps.
        while seen.contains(seed) { seed = (seed + 1) % seeds }
        return seed
    }

    /// The exercise's file beside the database, catalogued and hidden from the lesson list.
    public static func keep(_ exercise: SightReadingExercise, library: Library, store: Store) throws -> LessonListing {
        let folder = ((library.databasePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("sight-reading")
        let file = (folder as NSString).appendingPathComponent("level-\(exercise.level)-seed-\(exercise.seed).mid")
        do {
            var isDir: ObjCBool = false
            if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            }
            if !FileManager.default.fileExists(atPath: file) {
                try OutputFile.write(MIDIWriter.write(exercise.file), to: file, inputs: library.databaseFiles, option: "the sight-reading exercise")
            }
        } catch {
            let why = (error as? EtudeFailure)?.message ?? error.localizedDescription
            throw EtudeFailure("cannot keep the sight-reading exercise: cannot write \(safe(file)) (\(why)); check the folder is writable or pass --db")
        }
        let info = try store.catalogue(fileAt: file)
        try store.markQuiz(info.id)
        return LessonListing(lesson: info, path: file)
    }

    /// Plays the exercise once (play mode, count-in) and keeps its score; the exit status.
    public static func run(_ exercise: SightReadingExercise, library: Library, player: any RoutinePlaying) throws -> Int32 {
        try library.withStore { s in
            let listing = try keep(exercise, library: library, store: s)
            let started = Date()
            let step = RoutinePlan.Step(entryIndex: 0, lesson: listing.lesson, path: listing.path, hand: .both, tempoPercent: 100,
                                        bars: nil, mode: .play, length: .repetitions(1), pauseSeconds: 0, pauseStart: 0, playStart: 0,
                                        plannedSeconds: listing.lesson.durationSeconds)
            let plan = RoutinePlan(name: exercise.title, steps: [step], skipped: [], totalSeconds: listing.lesson.durationSeconds)
            Console.out("\(exercise.title): \(exercise.keyName), \(exercise.bars) bars (`etude sight-read --level \(exercise.level) --seed \(exercise.seed)` gives it again)\n")
            let status = try player.play(plan, history: RoutineHistory(store: s))
            try record(exercise, lessonID: listing.lesson.id, since: started, store: s)
            return status
        }
    }

    /// Keeps the pass the exercise scored (if it was played to its end) with its level and seed.
    static func record(_ exercise: SightReadingExercise, lessonID: String, since: Date, store: Store) throws {
        guard let pass = try store.passes(lessonID: lessonID, since: since).last(where: { $0.complete && $0.score != nil }) else { return }
        try store.recordSightReading(SightReadingRecord(level: exercise.level, seed: Int64(bitPattern: exercise.seed), lessonID: lessonID,
                                                        passID: pass.id, score: pass.score, playedAt: pass.startedAt))
    }

    /// The sight-reading part of `etude stats`: how many, the level, and the scores' graph.
    public static func statsText(_ history: [SightReadingRecord]) -> String {
        guard !history.isEmpty else { return "" }
        let scores = history.compactMap(\.score)
        var out = "Sight-reading: \(history.count) exercise\(history.count == 1 ? "" : "s"), level \(history.last?.level ?? 1) now"
        if let best = scores.max() { out += ", best \(Int(best.rounded()))" }
        out += "\n"
        if !scores.isEmpty { out += "Sight-reading score:  \(Sparkline.render(scores, lower: 0, upper: 100))  (0-100, last \(min(40, scores.count)))\n" }
        return out
    }
}

// MARK: The commands

extension MethodGuide {
    /// `etude next [--json]`'s output.
    public static func command(json: Bool, library: Library) throws -> String {
        try command(json: json, set: nil, backToPath: false, library: library)
    }

    /// `etude next [--set LESSON | --path] [--json]`: with `--set`, the lesson becomes the
    /// current piece (it must be on the path: a lesson with a level); with `--path`, the choice
    /// is dropped and the path's own next lesson is current again.
    public static func command(json: Bool, set: String?, backToPath: Bool, library: Library) throws -> String {
        try library.withStore { s in
            var path = try s.methodPath()
            if backToPath { try s.setMethodChoice(nil) }
            if let set {
                let listing: LessonListing
                do { listing = try s.resolveLesson(set) } catch { throw EtudeFailure("--set \((error as? StoreError)?.message ?? "\(error)")") }
                guard let l = path.first(where: { $0.listing.lesson.id == listing.lesson.id }) else {
                    throw EtudeFailure("--set \(safe(listing.lesson.title)): it has no level, so it is not on the method's path; practise it with etude practice")
                }
                guard l.status != .mastered else {
                    throw EtudeFailure("--set \(safe(listing.lesson.title)): it is mastered already; choose a lesson still to learn, or --path for the path's own next")
                }
                try s.setMethodChoice(listing.lesson.id)
                path = try s.methodPath()
            }
            let chosen = try s.methodChoice()
            let next = MethodGuide.next(path, chosen: chosen)
            return json ? JSONOutput.line(next.map(NextRecord.init)) : text(next, pathCount: path.count, sideTrips: sideTrips(path, chosen: chosen))
        }
    }
}

extension TodayPlanner {
    /// `etude today`: the plan printed (text or JSON), or played when `play` gives the synth
    /// and the instrument (`--run`); the exit status.
    public static func command(minutes: Int, json: Bool, library: Library, player: (any RoutinePlaying)?) throws -> Int32 {
        if let player { return try run(minutes: minutes, library: library, player: player) }
        let plan = try library.withStore { s in try make(minutes: minutes, store: s).plan }
        Console.out(json ? JSONOutput.line(plan) : plan.text())
        return 0
    }
}

extension SightReader {
    /// `etude sight-read`: the exercise written to `export`, or played once and scored.
    public static func command(level: Int?, seed: UInt64?, export: String?, library: Library, player: any RoutinePlaying) throws -> Int32 {
        // The file is checked before the database opens: one line, nothing written.
        if let export { try OutputFile.check(export, inputs: library.databaseFiles, option: "--export") }
        let history = try library.withStore(scan: false) { s in try s.sightReadings() }
        let chosen = level ?? suggestedLevel(history)
        let exercise: SightReadingExercise
        let seed = try seed ?? freshSeed(level: chosen, history: history)
        do {
            exercise = try SightReadingExercise(level: chosen, seed: seed)
        } catch {
            throw EtudeFailure(error.message)
        }
        if let export {
            try OutputFile.write(MIDIWriter.write(exercise.file), to: export, inputs: library.databaseFiles, option: "--export")
            Console.out("Wrote \(safe(export)): \(exercise.title), \(exercise.keyName), \(exercise.bars) bars.\n")
            return 0
        }
        return try run(exercise, library: library, player: player)
    }
}

/// The method commands' help, kept beside their logic (the executable only wires them).
public enum MethodHelp {
    public static let nextAbstract = "Name the next lesson on the method's path, and why."
    public static let nextDiscussion = """
        The path runs through the graded lessons (the built-in curriculum, level 1 to 8, and any lesson with a level) from the first level up: within a level, easier keys first, then shorter lessons. A lesson is mastered when you play it \(Mastery.rule). The next lesson (the current piece) is the first on the path not yet mastered; a lesson you try out of order is a side trip, listed but not made current, unless you choose it with --set (--path goes back to the path's own). The browser marks lessons ✓ mastered, … in progress, ▸ next.

        Examples:
          etude next
          etude next --json
          etude next --set "Ode to Joy"
          etude next --path
        """
    public static let todayAbstract = "Plan today's practice from your history (and play it with --run)."
    public static let todayDiscussion = """
        The plan: each part names the hand it is played with; a short plan has fewer parts (two in 5 minutes, four in 10, all in 20), keeping the piece, its weakest section, a due review and sight-reading before the warm-up. The parts: a warm-up in the key of your current piece (the one `etude next` names), its weakest section slower with the speed trainer (70 % up to 100 % in steps of 5 after each clean pass), the mastered pieces due for review (spaced repetition: the interval doubles after a good day, 90 % or more, and halves after a weaker one), a new sight-reading exercise, and the current piece whole with the time left. --json prints entries with kind, lesson, bars, tempo and seconds; --run plays the plan as a routine (→ skips a part, q ends).

        Examples:
          etude today
          etude today --minutes 30 --json
          etude today --run
        """
    public static let sightReadAbstract = "Read a new exercise at sight: generated, graded, played once and scored."
    public static let sightReadDiscussion = """
        Level 1 is the right hand alone in the C five-finger position in quarters and halves; each level adds the left hand, more keys, rhythms, range and accidentals, up to level 8. The same level and seed always give the same exercise; without --seed you get one you have not read. It is played once in play mode after a bar of count-in, judged like `etude practice --mode play`, and its score goes to the history (`etude stats` draws its graph). Without --level the level is your last one, one higher after three exercises in a row at 90 % or more.

        Examples:
          etude sight-read
          etude sight-read --level 3 --seed 41
          etude sight-read --level 2 --seed 7 --export exercise.mid
        """
}
