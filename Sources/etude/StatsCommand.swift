import ArgumentParser
import Foundation
import MIDIFile
import Store

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Practice time per day and week, passes, scores and progress sparklines.",
        discussion: """
        Examples:
          etude stats
          etude stats "Minuet in G"
        """
    )

    @Argument(help: "A lesson (else all practice).") var lesson: String?
    @Flag(help: "Print one JSON object.") var json = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        try StoreCLI.withStore(store) { s in
            var title = "All lessons"
            var id: String?
            if let lesson {
                let l = try s.resolveLesson(lesson)
                title = l.lesson.title
                id = l.lesson.id
            }
            let stats = PracticeStats.compute(try s.passes(lessonID: id), now: Date())
            Console.out(json ? StatsReport.json(stats, title: title) : StatsReport.text(stats, title: title))
        }
    }
}

/// Formatting of `etude stats`.
enum StatsReport {
    static func minutes(_ s: Double) -> String {
        let m = Int((s / 60).rounded())
        return m >= 60 ? "\(m / 60) h \(m % 60) min" : "\(m) min"
    }

    static func passes(_ n: Int) -> String { n == 1 ? "1 pass" : "\(n) passes" }

    static func text(_ st: PracticeStats, title: String) -> String {
        var out = "\(TextDecoding.sanitize(title))\n"
        out += "Passes:       \(st.passCount) (\(st.scoredPassCount) scored), \(minutes(st.totalSeconds)) in all\n"
        if let b = st.bestScore { out += "Best score:   \(Int(b.rounded()))\n" }
        if let l = st.latestScore { out += "Latest score: \(Int(l.rounded()))\n" }
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.dateFormat = "EEE dd MMM"
        out += "Last 7 days:\n"
        for d in st.days { out += "  \(day.string(from: d.start))  \(minutes(d.seconds).leftPad(10))  \(passes(d.passes))\n" }
        out += "Last 8 weeks:\n"
        for w in st.weeks { out += "  week of \(day.string(from: w.start))  \(minutes(w.seconds).leftPad(10))  \(passes(w.passes))\n" }
        if !st.scores.isEmpty {
            out += "Score:  \(Sparkline.render(st.scores, lower: 0, upper: 100))  (0-100, last \(min(40, st.scores.count)))\n"
        }
        if !st.tempos.isEmpty {
            out += "Tempo:  \(Sparkline.render(st.tempos, lower: 0, upper: max(100, st.tempos.max() ?? 100)))  (% of written tempo)\n"
        }
        return out
    }

    static func json(_ st: PracticeStats, title: String) -> String {
        var j = JSONText()
        j.raw("{\"title\":"); j.string(title)
        j.raw(",\"passes\":"); j.number(st.passCount)
        j.raw(",\"scoredPasses\":"); j.number(st.scoredPassCount)
        j.raw(",\"totalSeconds\":"); j.number(st.totalSeconds)
        j.raw(",\"bestScore\":"); if let b = st.bestScore { j.number(b) } else { j.raw("null") }
        j.raw(",\"latestScore\":"); if let l = st.latestScore { j.number(l) } else { j.raw("null") }
        for (key, periods) in [("days", st.days), ("weeks", st.weeks)] {
            j.raw(",\"\(key)\":[")
            for (i, p) in periods.enumerated() {
                if i > 0 { j.raw(",") }
                j.raw("{\"start\":"); j.string(StoreCLI.isoDate(p.start))
                j.raw(",\"seconds\":"); j.number(p.seconds)
                j.raw(",\"passes\":"); j.number(p.passes); j.raw("}")
            }
            j.raw("]")
        }
        j.raw(",\"scores\":["); j.raw(st.scores.map { String($0) }.joined(separator: ",")); j.raw("]")
        j.raw(",\"tempos\":["); j.raw(st.tempos.map { String(Int($0)) }.joined(separator: ",")); j.raw("]")
        j.raw("}\n")
        return j.text
    }
}
