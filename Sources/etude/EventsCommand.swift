import ArgumentParser
import LessonLibrary
import MIDIFile
import Reports

struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print every event with its absolute tick and time, as JSON.",
        discussion: """
            The interface other parsers are checked against.

            Examples:
              etude events song.mid --json
              etude events "Ode to Joy" --json
            """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var file: String
    @Flag(help: "Print JSON (the only format; accepted for clarity).") var json = false
    @Flag(help: "Refuse files that need any repair.") var strict = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        let result = try LessonOpener.readChecked(try store.library.lessonPath(file), strict: strict)
        Console.out(EventsReport.json(result) + "\n")
    }
}

/// The `etude events --json` document.
enum EventsReport {
    static func json(_ result: MIDIReadResult) -> String {
        let file = result.file
        var j = JSONText(capacity: file.tracks.reduce(0) { $0 + $1.events.count * 80 })
        j.raw("{\"format\":\(file.format),\"division\":")
        j.raw(JSONOutput.text(InfoRecord.DivisionInfo(file.division)))
        j.raw(",\"durationSeconds\":")
        j.number(file.durationSeconds)
        j.raw(",\"tracks\":[")
        let shared = TempoMap(file: file)
        for (t, track) in file.tracks.enumerated() {
            let map = file.format == 2 ? TempoMap(file: file, track: t) : shared
            var cursor = map.cursor()
            if t > 0 { j.raw(",") }
            j.raw("{\"events\":[")
            for (i, e) in track.events.enumerated() {
                if i > 0 { j.raw(",") }
                j.raw("{\"tick\":\(e.tick),\"seconds\":")
                j.number(cursor.seconds(atTick: e.tick))
                j.raw(",\"kind\":\"\(e.kind.name)\"")
                if let c = e.kind.channel {
                    j.raw(",\"channel\":\(c)")
                } else if case .meta(let type, _) = e.kind {
                    j.raw(",\"type\":\(type)")
                }
                j.raw(",\"data\":")
                j.bytes(e.kind.data)
                j.raw("}")
            }
            j.raw("]}")
        }
        j.raw("],\"warnings\":")
        j.raw(JSONOutput.text(result.warnings.map(InfoRecord.Warning.init)))
        j.raw("}")
        return j.text
    }
}
