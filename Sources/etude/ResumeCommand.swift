import ArgumentParser
import Foundation
import MIDIFile
import Store

struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Show where you left off: lesson, position, hand, tempo and loop.",
        discussion: "Example: etude resume --json"
    )

    @Flag(help: "Print one JSON object.") var json = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        try StoreCLI.withStore(store, scan: false) { s in
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
                j.raw(",\"updatedAt\":"); j.string(StoreCLI.isoDate(state.updatedAt))
                j.raw("}\n")
                Console.out(j.text)
            } else {
                var out = "Lesson:   \(TextDecoding.sanitize(listing?.lesson.title ?? "?"))\n"
                out += "File:     \(TextDecoding.sanitize(path))\n"
                out += "Position: \(StoreCLI.duration(state.positionSeconds))\n"
                out += "Hand:     \(state.hand)\nTempo:    \(state.tempoPercent)%\nMode:     \(state.mode)\n"
                if let a = state.loopFirstBar, let b = state.loopLastBar {
                    out += "Loop:     bars \(a)-\(b)\(state.loopName.map { " (\($0))" } ?? "")\n"
                }
                out += "Saved:    \(StoreCLI.date(state.updatedAt))\n"
                Console.out(out)
            }
        }
    }
}
