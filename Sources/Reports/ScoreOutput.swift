import Foundation
import Lesson
import Notation

/// `etude score`: a lesson's grand staff as text on stdout (for reading, printing, sharing), or
/// its placed symbols as JSON.
public enum ScoreOutput {
    /// The score of `lesson` (read from `path`), `width` columns wide, optionally only some bars; colour on request.
    public static func text(_ lesson: Lesson, path: String, width: Int, bars: ClosedRange<Int>?, color: Bool) throws -> String {
        let score = try layout(lesson, path: path, width: width, bars: bars)
        let raster = StaffRaster(score: score, lesson: lesson, density: .full)
        // The heading carries the file's title (sanitised); the staff lines are Etude's own
        // drawing, with its colour escapes when asked.
        return ([safe(ScoreText.heading(lesson: lesson, score: score)), ""] + ScoreText.lines(raster: raster, color: color))
            .joined(separator: "\n") + "\n"
    }

    /// The placed symbols as JSON: for every note its bar, beat, staff, step, accidental, pitch,
    /// hand, finger and column.
    public static func json(_ lesson: Lesson, path: String, width: Int, bars: ClosedRange<Int>?) throws -> String {
        let score = try layout(lesson, path: path, width: width, bars: bars)
        do {
            return try ScoreDocument(score: score, lesson: lesson).jsonText() + "\n"
        } catch {
            throw EtudeFailure("\(safe(path)): the score could not be written as JSON (\(error.localizedDescription))")
        }
    }

    /// The most bars one `etude score` lays out (a long symphony movement has 600).
    public static let maxBars = 20_000

    static func layout(_ lesson: Lesson, path: String, width: Int, bars: ClosedRange<Int>?) throws -> Score {
        guard width >= NotationOptions.minimumWidth else {
            throw EtudeFailure("--width \(width): a staff needs at least \(NotationOptions.minimumWidth) columns")
        }
        guard width <= 1000 else { throw EtudeFailure("--width \(width): at most 1000 columns") }
        if let bars {
            do {
                try PracticePlan(bars: bars).validate(for: lesson)
            } catch {
                throw EtudeFailure(error.worded { "--\($0.rawValue) \($1)" })
            }
        }
        // A million bars (a note at tick 268,435,455 with division 1) is hundreds of MB of
        // staves: refused in one line, a stretch of it drawn on request.
        let drawn = bars.map { $0.count } ?? lesson.bars.bars.count
        guard drawn <= maxBars else {
            throw EtudeFailure("\(safe(path)): \(drawn) bars to draw; `etude score` draws up to \(maxBars) at once: give --bars A-B")
        }
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: width, bars: bars))
        guard !score.systems.isEmpty else {
            throw EtudeFailure("\(safe(path)): no notes for the hands to draw; `etude info \(safe(path))` shows what it holds")
        }
        return score
    }
}
