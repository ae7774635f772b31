import ArgumentParser
import FrontEnd
import Lesson
import LessonLibrary
import MIDIFile
import Reports

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a lesson file: tracks, tempo, signatures, markers, duration, repairs; a score's parts, staves and printed bars.",
        discussion: """
            Keys, time signatures and tempo changes are listed once each, at their bars.

            Examples:
              etude info "Ode to Joy"
              etude info song.mid --json
            """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var file: String
    @Flag(help: "Print one JSON object instead of text.") var json = false
    @Flag(help: "Refuse files that need any repair.") var strict = false
    @Option(help: "Split a single piano part at this note (e.g. C4) instead of guessing.") var split: NoteArgument?
    @OptionGroup var store: StoreOptions

    func run() throws {
        let splitPitch = split?.pitch
        let file = try store.library.lessonPath(self.file)
        let result = try LessonOpener.readChecked(file, strict: strict)
        let summary = MIDIFileSummary(file: result.file)
        let warnings = result.warnings
        let lesson = Lesson(file: result.file, fileName: file, split: splitPitch)
        if json {
            Console.out(JSONOutput.line(InfoRecord(summary, warnings: warnings, lesson: lesson)))
        } else {
            StatusLine.keepAll(InfoReport.text(summary, warnings: warnings, path: file, lesson: lesson))
        }
    }
}
