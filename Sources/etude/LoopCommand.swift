import App
import ArgumentParser
import Clocks
import Foundation
import FrontEnd
import Judge
import Lesson
import LessonLibrary
import MIDIFile
import Practice
import Reports
import Store

struct LoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loop",
        abstract: "Loop bars A-B of a lesson, hands separately or together, at any tempo.",
        discussion: """
        Each pass plays exactly bars A to B: notes held past B stop at the bar line, notes held into A are not sounded. With --speed-trainer the tempo rises after each pass.

        Examples:
          etude loop song.mid 5-8 --tempo 60% --hand right --dry-run
          etude loop "Ode to Joy" 5-8 --speed-trainer 60:100:10 --dry-run
          etude loop song.abc 5-8 --recording take.flac --tempo 70%
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
    @Option(help: ArgumentHelp("Loop the bars of a recording of the lesson instead of the synth's (its bars from `etude align`, found first if none are kept); --tempo 50–150% stretches it without a change of pitch.", valueName: "file"))
    var recording: String?
    @OptionGroup var store: StoreOptions

    func run() throws {
        if let recording { _ = try RecordingAlign.openRecording(recording) }  // a file that cannot be played: one line first
        let library = store.library
        let path = try library.lessonPath(self.lesson)
        // A saved loop is read first: it says the bars, hand, tempo and key.
        var history: StoreHistory?
        var loop: SavedLoop?
        if let saved {
            history = StoreHistory.open(library, path: path)
            guard let history else { throw EtudeFailure("--saved \(safe(saved)): the library could not be opened") }
            loop = try history.savedLoop(named: saved)
            if bars != nil { throw EtudeFailure("--saved \(saved) and bars \(bars ?? "") both given: use one of them") }
        } else if bars == nil {
            throw EtudeFailure("give the bars to loop (e.g. 5-8) or --saved NAME")
        }
        let key: PracticeSetup.Key = practice.transpose == nil ? loop?.transpose.map { .stored($0) } ?? .asked(nil) : .asked(practice.transpose)
        let (practice, bars, countIn) = (practice, bars, countIn)
        var request = PracticeSetup.Request(path: path, split: practice.splitPitch(), key: key, library: library,
                                            history: loop == nil && !dryRun) { lesson throws(PlanError) in
            var plan: PracticePlan
            if let loop {
                plan = try practice.plan(bars: BarsArgument(parsing: "\(loop.firstBar)-\(loop.lastBar)"), defaultOther: .play, defaultRepeat: .forever)
                if practice.hand == .both { plan.hands = loop.hand }
                if practice.other == nil { plan.otherHand = loop.otherHandMode }
                if practice.tempo == nil && practice.bpm == nil && practice.speedTrainer == nil { plan.tempo = .percent(Double(loop.tempoPercent)) }
            } else {
                plan = try practice.plan(bars: try BarsArgument(parsing: bars ?? ""), lesson: lesson, defaultOther: .play, defaultRepeat: .forever)
            }
            plan.countIn = countIn
            return plan
        }
        // The bars are an argument here, not the --bars option.
        request.words = { error in
            var message = error.cliMessage
            if message.hasPrefix("--bars ") { message.removeFirst(2) }
            return message
        }
        let setup = try PracticeSetup.make(request)
        let (lesson, plan, loopName) = (setup.opened.lesson, setup.plan, loop?.name)
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
        let practised = try recording.map { try RecordingPractice(path: $0, lessonPath: path, lesson: lesson, plan: plan, soundfont: synth.soundfont, library: library) }
        let status = try LoopPlayer.play(setup.opened, plan: plan, sound: sound,
                                         history: history ?? setup.history, loopName: loopName, recording: practised)
        if status != 0 { throw ExitCode(status) }
    }
}
