import ArgumentParser
import Foundation
import Judge
import Lesson
import Trainer

/// `etude judge LESSON PERFORMANCE.mid`: a recording judged as play mode judges a pass.
struct JudgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "judge",
        abstract: "Judge a recorded performance (.mid) against a lesson: onsets, releases, loudness, bar by bar.",
        discussion: """
        The recording's first note is taken as the lesson's first note expected (from --bars); then every note is judged as play mode judges it: hit, early, late, missed or wrong, held short or long for its written length (pedal-aware), loud or soft against the dynamics marked (relative to your own playing). The pass is stored in the history as a judged pass.

        Record with `etude record -o mine.mid`, then judge it; a lesson's own .mid is a perfect performance.

        Examples:
          etude judge song.abc song.mid --bars 1-8
          etude judge "Ode to Joy" Lessons/level4/ode-to-joy.mid --json
        """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
    @Argument(help: "The recorded performance, a .mid file.", completion: .file(extensions: ["mid", "midi"])) var performance: String
    @Option(help: "Hand(s) played: left, right or both.", completion: .list(["right", "left", "both"])) var hand: String = "both"
    @Option(help: "Only these bars, e.g. 5-8 (a score's printed bars, 12-16@2 the second time).") var bars: String?
    @Option(help: "The tempo it was played at, as a percent of the lesson's own (e.g. 80%).") var tempo: String?
    @Flag(help: "Print the pass report as one JSON object (every note with its verdicts).") var json = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        let path = try store.library.lessonPath(lesson)
        let opened = try LessonOpener.open(path)
        var plan = PracticePlan()
        do {
            plan.hands = try PracticePlan.parseHands(hand)
            if let bars { plan.bars = try PracticePlan.parseBars(bars, in: opened.lesson) }
            if let tempo { plan.tempo = try PracticePlan.parseTempo(tempo) }
        } catch {
            throw EtudeFailure(error.cliMessage)
        }
        guard let data = FileManager.default.contents(atPath: performance) else {
            throw EtudeFailure("\(safe(performance)): no such file; give the .mid you recorded")
        }
        let played = try PerformanceJudge.performance(bytes: [UInt8](data), name: safe(performance))
        let (report, percent) = try PerformanceJudge.judge(played, lesson: opened.lesson, plan: plan)
        do {
            try store.library.withStore(scan: false) { s in
                let id = try s.catalogue(fileAt: path).id
                try PerformanceJudge.store(report, lessonID: id, plan: plan, lesson: opened.lesson, percent: percent,
                                           seconds: (played.events.last?.time ?? 0) - (played.events.first?.time ?? 0), in: s)
            }
        } catch {
            Console.error("etude: the judged pass is not in the history: \((error as? EtudeFailure)?.message ?? "\(error)")")
        }
        Console.out((json ? JSONOutput.text(report) : PerformanceJudge.text(report, title: safe(opened.lesson.title), percent: percent,
                                                                           lesson: opened.lesson)) + "\n")
    }
}
