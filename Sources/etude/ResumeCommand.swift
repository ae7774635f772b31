import ArgumentParser
import Foundation
import Trainer
import Lesson
import Practice
import MIDIFile
import Store

struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Practise again where you left off: lesson, position, hand, tempo and loop.",
        discussion: """
        On a terminal `etude resume` opens the practice screen with that state (as --play does);
        --show (or output that is not a terminal) only prints it.
        Examples: etude resume    etude resume --show    etude resume --json
        """
    )

    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "Start practising where you left off (the default on a terminal).") var play = false
    @Flag(help: "Only print where you left off.") var show = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        if play && (show || json) { throw EtudeFailure("--play with --show/--json: choose one") }
        let onTerminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if play || (onTerminal && !show && !json) {
            try practise()
            return
        }
        try store.library.withStore(scan: false) { s in
            guard let (state, listing) = try s.resume() else {
                throw EtudeFailure("nothing to resume yet: practise a lesson first (see `etude list`)")
            }
            let path = listing?.path ?? state.path
            if json {
                var j = JSONText()
                j.raw("{\"lessonID\":"); j.string(state.lessonID)
                j.raw(",\"title\":"); if let t = listing?.lesson.title { j.string(t) } else { j.raw("null") }
                j.raw(",\"path\":"); j.string(path)
                j.raw(",\"positionSeconds\":"); j.number(state.positionSeconds)
                j.raw(",\"hand\":"); j.string(state.hand)
                j.raw(",\"tempoPercent\":"); j.number(state.tempoPercent)
                j.raw(",\"mode\":"); j.string(state.mode)
                j.raw(",\"loop\":")
                if let a = state.loopFirstBar, let b = state.loopLastBar {
                    j.raw("{\"firstBar\":"); j.number(a); j.raw(",\"lastBar\":"); j.number(b)
                    j.raw(",\"name\":"); if let n = state.loopName { j.string(n) } else { j.raw("null") }
                    j.raw("}")
                } else { j.raw("null") }
                j.raw(",\"updatedAt\":"); j.string(Listing.isoDate(state.updatedAt))
                j.raw("}\n")
                Console.out(j.text)
            } else {
                var out = "Lesson:   \(TextDecoding.sanitize(listing?.lesson.title ?? "?"))\n"
                out += "File:     \(TextDecoding.sanitize(path))\n"
                out += "Position: \(Listing.duration(state.positionSeconds))\n"
                out += "Hand:     \(state.hand)\nTempo:    \(state.tempoPercent)%\nMode:     \(state.mode)\n"
                if let a = state.loopFirstBar, let b = state.loopLastBar {
                    out += "Loop:     bars \(a)-\(b)\(state.loopName.map { " (\($0))" } ?? "")\n"
                }
                out += "Saved:    \(Listing.date(state.updatedAt))\n"
                Console.out(out)
            }
        }
    }

    /// Opens the practice screen with the saved state: hand, tempo, loop, from the saved bar.
    func practise() throws {
        let (state, path) = try store.library.withStore(scan: false) { s -> (ResumeState, String) in
            guard let (state, listing) = try s.resume() else {
                throw EtudeFailure("nothing to resume yet: practise a lesson first (see `etude list`)")
            }
            return (state, listing?.path ?? state.path)
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw EtudeFailure("\(TextDecoding.sanitize(path)): the lesson you practised last is gone; open another with `etude practice`")
        }
        let opened = try LessonOpener.open(path, split: nil)
        var plan = PracticePlan(repeatMode: .forever)
        var playing = Playing()
        do {
            plan.hands = try PracticePlan.parseHands(state.hand)
            plan.tempo = .percent(TempoPercent.clamped(Double(state.tempoPercent)).value)
            if let a = state.loopFirstBar, let b = state.loopLastBar { plan.bars = a...b }
            try plan.validate(for: opened.lesson)
            playing.mode = (try? PracticeMode(parsing: state.mode)) ?? .watch
        } catch {
            throw EtudeFailure("the saved state no longer fits \(TextDecoding.sanitize(path)) (\(error.cliMessage)); start it with `etude practice`")
        }
        // A stored position from an older or damaged database is clamped to the lesson.
        let tick = opened.lesson.tempoMap.tick(atSeconds: state.positionSeconds.isFinite ? max(0, state.positionSeconds) : 0)
        let bar = opened.lesson.bars.position(atTick: tick.isFinite ? Int(min(max(0, tick), Double(opened.lesson.endTick))) : 0).bar
        let status = try PracticeScreenRunner.run(opened, plan: plan, sound: LiveSound(), display: PracticeView.Options(),
                                                  history: StoreHistory.open(store.library, path: path), startBar: bar,
                                                  loopName: state.loopName, playing: playing)
        if status != 0 { throw ExitCode(status) }
    }
}
