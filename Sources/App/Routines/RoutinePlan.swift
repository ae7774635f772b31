import Foundation
import Judge
import Lesson
import MIDIFile
import Store

/// A routine resolved against the catalogue into concrete steps with a schedule. Pure: the
/// player drives it (countdown in pauses, fade-out at a time limit) and tests check it directly.
public struct RoutinePlan: Equatable, Sendable {
    public struct Step: Equatable, Sendable {
        /// Index of the routine entry this step comes from.
        public var entryIndex: Int
        public var lesson: LessonInfo
        public var path: String?
        public var hand: PracticePlan.Hands?
        /// The tempo to play at (the entry's override, else 100).
        public var tempoPercent: Int
        public var bars: ClosedRange<Int>?
        public var mode: PracticeMode?
        public var length: RoutineEntry.Length
        public var pauseSeconds: Int
        /// Seconds from the start of the routine at which this step's pause begins.
        public var pauseStart: Double
        /// Seconds from the start of the routine at which playing begins.
        public var playStart: Double
        /// Planned playing time: the time limit, or repetitions × one pass (the entry's bars, or
        /// the whole lesson) at this tempo.
        public var plannedSeconds: Double
        /// The entry's `transpose=` (else the lesson's remembered transposition).
        public var transpose: Transposition.Request? = nil
        /// The speed trainer for a played step (`etude today`'s weakest section); nil: the tempo.
        public var speedTrainer: PracticePlan.SpeedTrainer? = nil
        /// The entry's `follow=on`: Etude's part keeps the learner's tempo.
        public var follow: Bool? = nil
        /// The entry's `recording=`: the step played with that recording of the lesson.
        public var recording: String? = nil
    }

    public struct Skipped: Equatable, Sendable {
        public var entryIndex: Int
        public var reason: String
    }

    public var name: String
    public var steps: [Step]
    public var skipped: [Skipped]
    public var totalSeconds: Double

    /// What the catalogue offers the planner.
    public struct Candidates: Sendable {
        public var lessons: [LessonListing]
        public init(lessons: [LessonListing]) { self.lessons = lessons }
    }

    /// What one pass of a step plays: asked of the caller's pass-duration function, which can
    /// read the lesson (the Store does not) and time the entry's bars at its tempo.
    public struct PassQuery: Equatable, Sendable {
        public var lesson: LessonInfo
        public var path: String?
        public var hand: PracticePlan.Hands?
        public var tempoPercent: Int
        public var bars: ClosedRange<Int>?
        /// The entry's `recording=`: a pass lasts as long as the recording plays its bars.
        public var recording: String? = nil
    }

    /// The catalogue's estimate of one pass: the whole lesson at the step's tempo.
    public static func catalogueSeconds(_ q: PassQuery) -> Double {
        q.lesson.durationSeconds * 100 / Double(max(1, q.tempoPercent))
    }

    /// The seed of a run without `--seed`: the routine's name and the day, so the random picks
    /// hold for the day and the run after `--plan` plays what the plan showed.
    public static func daySeed(name: String, date: Date, calendar: Calendar = .current) -> UInt64 {
        let day = calendar.dateComponents([.year, .month, .day], from: date)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in "\(name)|\(day.year ?? 0)-\(day.month ?? 0)-\(day.day ?? 0)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }

    /// Resolves every entry: a named lesson (skipped with a reason if it is not in the catalogue),
    /// a random favourite, a random lesson of a level. Random picks prefer lessons not yet in the
    /// plan. Entries are kept in order; the schedule adds each pause before its step.
    /// `passSeconds` times one pass of an entry with repetitions (its bars at its tempo); when it
    /// returns nil (the file cannot be read, the bars do not fit) the whole lesson's catalogue
    /// duration at the tempo stands in.
    public static func make<G: RandomNumberGenerator>(_ routine: Routine, candidates: Candidates, using rng: inout G,
                                                      passSeconds: (PassQuery) -> Double? = { _ in nil }) -> RoutinePlan {
        var byID: [String: LessonListing] = [:]
        for l in candidates.lessons { byID[l.lesson.id] = l }
        var used = Set<String>()
        var steps: [Step] = []
        var skipped: [Skipped] = []
        var clock = 0.0
        func pick(_ pool: [LessonListing]) -> LessonListing? {
            let fresh = pool.filter { !used.contains($0.lesson.id) }
            let from = fresh.isEmpty ? pool : fresh
            guard !from.isEmpty else { return nil }
            return from[Int(rng.next() % UInt64(from.count))]
        }
        for (i, entry) in routine.entries.enumerated() {
            // A routine stored before entries were checked may hold what no lesson can play.
            if let problem = entry.problem {
                skipped.append(Skipped(entryIndex: i, reason: "\(problem) (`etude routine edit \(routine.name)` fixes it)"))
                continue
            }
            let chosen: LessonListing?
            switch entry.source {
            case .lesson(let id, let title):
                chosen = byID[id] ?? title.flatMap { t in candidates.lessons.first { $0.lesson.title.lowercased() == t.lowercased() } }
                if chosen == nil { skipped.append(Skipped(entryIndex: i, reason: "\(title ?? String(id.prefix(8))) is not in the catalogue")) }
            case .randomFavourite:
                chosen = pick(candidates.lessons.filter(\.isFavourite))
                if chosen == nil { skipped.append(Skipped(entryIndex: i, reason: "no favourites yet (star some with `etude fav add`)")) }
            case .randomLevel(let level):
                chosen = pick(candidates.lessons.filter { $0.lesson.level == level })
                if chosen == nil { skipped.append(Skipped(entryIndex: i, reason: "no lesson of level \(level) in the catalogue")) }
            }
            guard let lesson = chosen else { continue }
            used.insert(lesson.lesson.id)
            let tempo = entry.tempoPercent ?? 100
            let planned: Double
            switch entry.length {
            case .minutes(let m): planned = m * 60
            case .repetitions(let n):
                let q = PassQuery(lesson: lesson.lesson, path: lesson.path, hand: entry.hand, tempoPercent: tempo, bars: entry.bars,
                                  recording: entry.recording)
                let pass = passSeconds(q).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? catalogueSeconds(q)
                planned = Double(n) * pass
            }
            let pauseStart = clock
            clock += Double(entry.pauseSeconds)
            steps.append(Step(entryIndex: i, lesson: lesson.lesson, path: lesson.path, hand: entry.hand, tempoPercent: tempo,
                              bars: entry.bars, mode: entry.mode, length: entry.length, pauseSeconds: entry.pauseSeconds,
                              pauseStart: pauseStart, playStart: clock, plannedSeconds: planned, transpose: entry.transpose,
                              follow: entry.follow, recording: entry.recording))
            clock += planned
        }
        return RoutinePlan(name: routine.name, steps: steps, skipped: skipped, totalSeconds: clock)
    }

    /// The number to show during a pause, `elapsed` seconds into it: pause 3 → 3, 2, 1, then nil (go).
    public static func countdown(pauseSeconds: Int, elapsed: Double) -> Int? {
        let left = Double(pauseSeconds) - elapsed
        guard left > 0 else { return nil }
        return Int(saturating: left.rounded(.up))
    }

    /// What the player does at a moment of a step.
    public enum Decision: Equatable, Sendable {
        /// Keep playing at this gain (1 = full; less while fading out).
        case play(gain: Double)
        /// The step is over: stop (after a fade, or at the end of a pass).
        case stop
    }

    /// The seconds over which a step cut by its time limit fades out.
    public static let fadeSeconds = 3.0

    /// Decides, `elapsed` seconds into a step, whether to keep playing and how loud.
    /// Repetitions end when the last pass ends. A time limit that falls within `fade` seconds of
    /// the end of the current pass lets that pass finish (a natural ending beats a fade);
    /// otherwise the sound fades linearly over the last `fade` seconds before the limit and stops
    /// at it — never dead in the middle of a phrase at full volume.
    public static func decide(length: RoutineEntry.Length, elapsed: Double, completedPasses: Int,
                              currentPassEnd: Double?, fade: Double = fadeSeconds) -> Decision {
        switch length {
        case .repetitions(let n):
            return completedPasses >= n ? .stop : .play(gain: 1)
        case .minutes(let m):
            let limit = m * 60
            if let end = currentPassEnd, end >= limit - fade, end <= limit + fade {
                return elapsed >= end ? .stop : .play(gain: 1)
            }
            if elapsed >= limit { return .stop }
            if elapsed > limit - fade { return .play(gain: max(0, min(1, (limit - elapsed) / fade))) }
            return .play(gain: 1)
        }
    }

    /// Whether to begin another pass of the step after `completedPasses`, `elapsed` seconds in.
    public static func startsAnotherPass(length: RoutineEntry.Length, elapsed: Double, completedPasses: Int,
                                         fade: Double = fadeSeconds) -> Bool {
        switch length {
        case .repetitions(let n): return completedPasses < n
        case .minutes(let m): return elapsed < m * 60 - fade
        }
    }

    /// The plan as text: one line per step with its start time, then skipped entries.
    public func text() -> String {
        func clock(_ s: Double) -> String {
            let t = Int(saturating: s.rounded())
            return "\(t / 60):" + (t % 60 < 10 ? "0" : "") + "\(t % 60)"
        }
        var out = "\(name): \(steps.count) step\(steps.count == 1 ? "" : "s"), about \(clock(totalSeconds))\n"
        for (n, s) in steps.enumerated() {
            var entry = RoutineEntry(source: .lesson(id: s.lesson.id, title: s.lesson.title), hand: s.hand,
                                     tempoPercent: s.tempoPercent == 100 ? nil : s.tempoPercent, bars: s.bars,
                                     mode: s.mode, length: s.length, pauseSeconds: s.pauseSeconds)
            entry.transpose = s.transpose
            entry.follow = s.follow
            entry.recording = s.recording
            out += "\(n + 1). [\(clock(s.playStart))] \(entry.text())\n"
        }
        for s in skipped { out += "   skipped entry \(s.entryIndex + 1): \(s.reason)\n" }
        return out
    }
}
