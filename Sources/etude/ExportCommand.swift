import ArgumentParser
import Foundation
import Lesson
import LessonLibrary
import MIDIFile
import Reports

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a lesson as practised (hands, bars, tempo, repeats, metronome) to a .mid file.",
        discussion: """
        The result is a format-1 file: a conductor track, "Right Hand" / "Left Hand" tracks, the accompaniment, and the tempo map scaled. Cutting at bar A carries the time signature, key, tempo and instruments in force there; notes held past bar B stop at the bar line. The other hand is left out unless --other play or --other quiet is given. What a score says beyond MIDI (fingering, written values, marks, grace notes, ornaments, clefs, dynamics…) goes along as etude: text events, so `etude score out.mid` draws the score's staff.

        Examples:
          etude export song.mid -o slow.mid --tempo 60%
          etude export "Ode to Joy" -o rh.mid --hand right --bars 5-8 --repeat 4
          etude export song.mid -o drill.mid --bars 5-8 --speed-trainer 60:100:10
        """
    )

    @Argument(help: LessonArgument.help, completion: .custom(LessonCompletion.candidates)) var lesson: String
    @Option(name: [.customShort("o"), .customLong("output")], help: "The .mid file to write.") var output: String
    @Option(help: "Bars A-B to export, inclusive (e.g. 5-8; 0 is a pickup bar; a score's printed bars, 12-16@2 the second time through).") var bars: BarsArgument?
    @OptionGroup var practice: PracticeOptions
    @OptionGroup var store: StoreOptions

    func run() throws {
        do {
            let path = try store.library.lessonPath(lesson)
            try OutputFile.check(output, inputs: [path] + store.library.databaseFiles)
            let source = try practice.lesson(path)
            let plan = try practice.plan(bars: bars, lesson: source, defaultOther: .mute, defaultRepeat: .times(1))
            let file = try LessonExport.midiFile(lesson: source, plan: plan)
            try OutputFile.write(MIDIWriter.write(file), to: output, inputs: [path] + store.library.databaseFiles)
            let exportedLesson = Lesson(file: file, fileName: output)
            let range = plan.barRange(in: source)
            let passes = try LessonExport.passPercents(lesson: source, plan: plan)
            var line = "Wrote \(TextDecoding.sanitize(output)): bars \(source.bars.label(ofRange: range))"
            if passes.count > 1 { line += " × \(passes.count)" }
            line += ", \(plan.hands == .both ? "both hands" : "\(plan.hands.rawValue) hand")"
            var percents: [String] = []
            for p in passes.map({ "\(Self.format($0))%" }) where percents.last != p { percents.append(p) }
            line += ", tempo \(percents.joined(separator: "→"))"
            line += " (\(Self.format(source.tempoMap.bpm(atTick: 0) * passes[0] / 100)) BPM)"
            line += ", \(exportedLesson.notes.count) notes, \(file.tracks.count) tracks\n"
            Console.out(line)
        } catch let error as PlanError {
            throw EtudeFailure(error.cliMessage)
        }
    }

    static func format(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() && abs(r) < 1e15 ? String(Int(r)) : String(r)
    }
}
