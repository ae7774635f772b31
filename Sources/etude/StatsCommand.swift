import App
import ArgumentParser
import Foundation
import LessonLibrary
import MIDIFile
import Reports
import Store

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Practice time per day and week, passes, scores and progress sparklines.",
        discussion: """
        Examples:
          etude stats
          etude stats "Minuet in G major"
        """
    )

    @Argument(help: ArgumentHelp("A lesson (\(LessonArgument.formats), or a title or id from `etude list`); else all practice."), completion: .custom(LessonCompletion.candidates)) var lesson: String?
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
            // Every lesson: from the history by day and an index, never every pass.
            let stats = try id.map { PracticeStats.compute(try s.passes(lessonID: $0), now: Date()) } ?? s.practiceStats(now: Date())
            let sightReading = id == nil ? SightReader.statsText(try s.sightReadings()) : ""
            Console.out(json ? JSONOutput.line(StatsRecord(stats, title: title))
                : StatsReport.text(stats, title: title) + (try id.flatMap { PerformanceJudge.barPictureText(try s.barPicture(lessonID: $0)) } ?? "") + sightReading)
        }
    }
}


