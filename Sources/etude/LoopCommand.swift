import Clocks
import ArgumentParser
import Foundation
import Trainer
import Judge
import Lesson
import MIDIFile
import Practice

struct LoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loop",
        abstract: "Loop bars A-B of a lesson, hands separately or together, at any tempo.",
        discussion: """
        Each pass plays exactly bars A to B: notes held past B stop at the bar line, notes held into A are not sounded. With --speed-trainer the tempo rises after each pass.

        Examples:
          etude loop song.mid 5-8 --tempo 60% --hand right --dry-run
          etude loop "Ode to Joy" 5-8 --speed-trainer 60:100:10 --dry-run
        """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
    @Argument(help: "Bars A-B to loop, inclusive (e.g. 5-8; a score's printed bars, 12-16@2 the second time through); optional with --saved.") var bars: String?
    @OptionGroup var practice: PracticeOptions
    @Flag(name: .customLong("count-in"), help: "One bar of clicks before the first pass.") var countIn = false
    @Flag(name: .customLong("dry-run"), help: "Print the passes (tempo, BPM, length) instead of playing.") var dryRun = false
    @Option(help: "Recall a loop saved on the practice screen (`s`) or listed by `etude loops LESSON`.") var saved: String?
    @OptionGroup var synth: SynthOptions
    @OptionGroup var instrument: InstrumentOptions
    @OptionGroup var audioBuffer: AudioBufferOption
    @OptionGroup var store: StoreOptions

    func run() throws {
        let path = try store.library.lessonPath(self.lesson)
        var opened = try LessonFit.open(path, split: practice.splitPitch(), transpose: practice.transpose, library: store.library)
        var lesson = opened.lesson
        // The history is only opened when it is needed: to recall a loop, or to play.
        let history = (saved != nil || !dryRun) ? StoreHistory.open(store.library, path: path) : nil
        var plan: PracticePlan
        var loopName: String?
        do {
            if let saved {
                guard let history else { throw EtudeFailure("--saved \(safe(saved)): the library could not be opened") }
                let loop = try history.savedLoop(named: saved)
                if bars != nil { throw EtudeFailure("--saved \(saved) and bars \(bars ?? "") both given: use one of them") }
                plan = try practice.plan(bars: BarsArgument(parsing: "\(loop.firstBar)-\(loop.lastBar)"), defaultOther: .play, defaultRepeat: .forever)
                if practice.hand == .both { plan.hands = try PracticePlan.parseHands(loop.hand) }
                if practice.other == nil { plan.otherHand = try PracticePlan.parseOtherHand(SavedLoopModes.otherHand(loop.otherHandMode)) }
                if practice.tempo == nil && practice.bpm == nil && practice.speedTrainer == nil { plan.tempo = .percent(Double(loop.tempoPercent)) }
                loopName = loop.name
                if practice.transpose == nil, let t = loop.transpose { (opened, lesson) = try LessonFit.reopened(opened, stored: t, split: practice.splitPitch()) }
            } else {
                guard let bars else { throw EtudeFailure("give the bars to loop (e.g. 5-8) or --saved NAME") }
                plan = try practice.plan(bars: try BarsArgument(parsing: bars), lesson: lesson, defaultOther: .play, defaultRepeat: .forever)
            }
            plan.countIn = countIn
            try plan.validate(for: lesson)
        } catch let error as PlanError {
            // The bars are an argument here, not the --bars option.
            var message = error.cliMessage
            if message.hasPrefix("--bars ") { message.removeFirst(2) }
            throw EtudeFailure(message)
        }
        guard !dryRun else {
            do {
                Console.out(try LoopPreview.text(lesson: lesson, plan: plan, maxPasses: 12))
            } catch {
                throw EtudeFailure(error.cliMessage)
            }
            return
        }
        var sound = try instrument.applied(to: audioBuffer.applied(to: synth.sound))
        sound.library = store.library  // the audio buffer learned per device
        let status = try LoopPlayer.play(opened, plan: plan, sound: sound,
                                         history: history, loopName: loopName)
        if status != 0 { throw ExitCode(status) }
    }
}
