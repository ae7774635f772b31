import ArgumentParser
import Foundation
import Lesson
import MIDIFile

struct LoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loop",
        abstract: "Loop bars A-B of a lesson, hands separately or together, at any tempo.",
        discussion: """
        Each pass plays exactly bars A to B: notes held past B stop at the bar line, notes held into A are not sounded. With --speed-trainer the tempo rises after each pass.

        Examples:
          etude loop song.mid 5-8 --tempo 60% --hand right --dry-run
          etude loop song.mid 5-8 --speed-trainer 60:100:10 --final-slow-pass --repeat 8 --dry-run
        """
    )

    @Argument(help: "The lesson (.mid).") var lesson: String
    @Argument(help: "Bars A-B to loop, inclusive (e.g. 5-8).") var bars: String
    @OptionGroup var practice: PracticeOptions
    @Flag(name: .customLong("count-in"), help: "One bar of clicks before the first pass.") var countIn = false
    @Flag(name: .customLong("dry-run"), help: "Print the passes (tempo, BPM, length) instead of playing.") var dryRun = false

    func run() throws {
        let lesson = try practice.lesson(self.lesson)
        var plan: PracticePlan
        do {
            plan = try practice.plan(bars: bars, defaultOther: .play, defaultRepeat: .forever)
            plan.countIn = countIn
            try plan.validate(for: lesson)
        } catch {
            // The bars are an argument here, not the --bars option.
            var message = error.message
            if message.hasPrefix("--bars ") { message.removeFirst(2) }
            throw EtudeFailure(message)
        }
        guard dryRun else {
            throw EtudeFailure("loop: sound output is not wired into this build yet; add --dry-run to see the passes")
        }
        Console.out(try LoopPreview.text(lesson: lesson, plan: plan, maxPasses: 12))
    }
}

/// The passes a loop would play, computed on a virtual clock (every pass counted clean).
enum LoopPreview {
    static func text(lesson: Lesson, plan: PracticePlan, maxPasses: Int) throws -> String {
        let clock = VirtualClock()
        let transport: Transport
        do {
            transport = try Transport(lesson: lesson, plan: plan, clock: clock)
        } catch {
            throw EtudeFailure(error.message)
        }
        let range = transport.bars
        var out = "\(lesson.title): bars \(range.lowerBound)–\(range.upperBound), "
        out += plan.hands == .both ? "both hands" : "\(plan.hands.rawValue) hand (other hand: \(otherText(plan.otherHand)))"
        out += plan.metronome.enabled ? ", metronome" : ""
        out += "\n"
        transport.play()
        var passStart = 0.0
        var passes = 0
        var bpm = transport.effectiveBPM
        while let t = transport.nextEventTime(), passes < maxPasses {
            clock.set(t)
            for e in transport.advance(to: clock.now) {
                switch e.event {
                case .passStarted:
                    passStart = e.time
                    bpm = 0
                case .tempo(let b):
                    if bpm == 0 { bpm = b }
                case .passFinished(let n, let percent):
                    passes += 1
                    out += "pass \(n): \(ExportCommand.format(percent))% (\(ExportCommand.format(bpm)) BPM), \(String(format: "%.1f", e.time - passStart)) s\n"
                default:
                    break
                }
            }
        }
        if transport.state != .finished { out += "… (repeats until stopped)\n" }
        return out
    }

    static func otherText(_ o: PracticePlan.OtherHand) -> String {
        switch o {
        case .play: return "play"
        case .quiet: return "quiet"
        case .mute: return "mute"
        }
    }
}
