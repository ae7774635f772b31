import ArgumentParser
import Foundation
import Trainer
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
        try store.library.withStore { s in
            var title = "All lessons"
            var id: String?
            if let lesson {
                let l = try s.resolveLesson(lesson)
                title = l.lesson.title
                id = l.lesson.id
            }
            let stats = PracticeStats.compute(try s.passes(lessonID: id), now: Date())
            Console.out(json ? StatsJSON.json(stats, title: title) : StatsReport.text(stats, title: title))
        }
    }
}


/// `etude stats --json`.
enum StatsJSON {
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
                j.raw("{\"start\":"); j.string(Listing.isoDate(p.start))
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
