import Foundation
import Lesson
import LessonLibrary
import Reports
import Store

/// `etude loops list|save|rename|delete`: a lesson's named loops in the library, each command's
/// output as text; the command line only parses the options.
public enum LoopActions {
    /// The lesson's saved loops, one line each (bars as the lesson names them), or a JSON array.
    public static func list(_ lesson: String, json: Bool, library: Library) throws -> String {
        try library.withStore { s in
            let l = try s.resolveLesson(lesson)
            let loops = try s.loops(for: l.lesson.id)
            if json { return JSONOutput.array(loops.map(LoopRecord.init)) }
            if loops.isEmpty { return "No saved loops for \(l.lesson.title).\n" }
            return loops.map { loop in
                let hand = loop.hand == .both ? "both hands" : "\(loop.hand.rawValue) hand"
                let transposed = loop.transpose.map { ", transposed \(safe($0))" } ?? ""
                return "\(safe(loop.name)): bars \(ResumePlace.bars(loop.firstBar, loop.lastBar, path: l.path)), \(hand), \(loop.tempoPercent)%, other hand \(loop.otherHandMode.name)\(transposed)"
            }.joined(separator: "\n") + "\n"
        }
    }

    /// Saves (or replaces) a named loop with the same words and checks as `etude practice`, so a
    /// saved loop always plays; a score's bars are its printed ones (12-16@2), stored as the
    /// bars played. The line saying so.
    public static func save(_ lesson: String, name: String, bars: BarsArgument, hand: PracticePlan.Hands, tempo: TempoPercent,
                            otherHand: PracticePlan.OtherHand, library: Library) throws -> String {
        try library.withStore { s in
            let l = try s.resolveLesson(lesson)
            let opened = try l.path.map { path in Lesson(file: try LessonOpener.read(path).file, fileName: path) }
            var plan = PracticePlan()
            let range: ClosedRange<Int>
            do throws(PlanError) {
                range = try PracticePlan.bars(bars, in: opened)
                (plan.bars, plan.hands, plan.tempo, plan.otherHand) = (range, hand, .percent(tempo.value), otherHand)
                if let opened { try plan.validate(for: opened) }
            } catch {
                // This command calls the other hand's option --other-hand.
                throw EtudeFailure(error.worded { setting, value in
                    "--\(setting == .other ? "other-hand" : PlanError.optionName(setting)) \(value)"
                })
            }
            try s.saveLoop(SavedLoop(lessonID: l.lesson.id, name: name, firstBar: range.lowerBound, lastBar: range.upperBound,
                                     hand: plan.hands, tempoPercent: Int(tempo.value.rounded()), otherHandMode: plan.otherHand))
            let shown = opened?.bars.label(ofRange: range) ?? "\(range.lowerBound)-\(range.upperBound)"
            return "Saved loop \(name) of \(l.lesson.title): bars \(shown)\n"
        }
    }

    /// Renames a saved loop (e.g. one `s` saved under an automatic name); the line saying so.
    public static func rename(_ lesson: String, name: String, to newName: String, library: Library) throws -> String {
        try library.withStore { s in
            let l = try s.resolveLesson(lesson)
            guard try s.renameLoop(name, to: newName, for: l.lesson.id) else {
                throw EtudeFailure("\(l.lesson.title) has no loop named \(name); see `etude loops list`")
            }
            return "Renamed loop \(name) to \(newName.trimmingCharacters(in: .whitespaces))\n"
        }
    }

    /// Deletes a saved loop; the line saying so.
    public static func delete(_ lesson: String, name: String, library: Library) throws -> String {
        try library.withStore { s in
            let l = try s.resolveLesson(lesson)
            guard try s.deleteLoop(named: name, for: l.lesson.id) else {
                throw EtudeFailure("\(l.lesson.title) has no loop named \(name); see `etude loops list`")
            }
            return "Deleted loop \(name)\n"
        }
    }
}
