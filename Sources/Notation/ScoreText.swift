import Lesson
import enum Judge.VerdictMark
import MIDIFile

/// Whether `etude score` colours its text: `auto` colours a terminal unless NO_COLOR (or
/// TERM=dumb) says not to; `always` and `never` are what they say.
public enum ColorChoice: String, Sendable, CaseIterable {
    case auto, always, never

    public func colors(isTerminal: Bool, environment: [String: String]) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return isTerminal
        }
    }
}

/// The grand staff as lines of text, for `etude score`: a heading, then every system with a
/// blank line between, trailing spaces trimmed. With colour, SGR escapes (16 colours, so any
/// terminal and pager shows them): right hand blue, left hand green, fingering yellow, staff
/// lines dim; judged notes green, red and grey (and marked × ◌ without colour).
public enum ScoreText {
    /// The heading: title, key, time signature, the bars shown.
    public static func heading(lesson: Lesson, score: Score) -> String {
        var parts = [TextDecoding.sanitize(lesson.title)]
        if let first = score.systems.first {
            var key = first.key.name
            if score.estimatedKey != nil { key += " (estimated: the file has no key signature)" }
            parts.append(key)
            parts.append("\(first.time.numerator)/\(first.time.denominator)")
            if let a = first.bars.first, let b = score.systems.last?.bars.last {
                parts.append(a.displayNumber == b.displayNumber ? "bar \(a.displayNumber)" : "bars \(a.displayNumber)–\(b.displayNumber)")
            }
        } else {
            parts.append("no bars")
        }
        return parts.joined(separator: " · ")
    }

    /// Lays out and draws a lesson. `options.width` is the text's width.
    public static func lines(lesson: Lesson, options: NotationOptions, color: Bool, density: StaffDensity = .full,
                             marks: StaffMarks = StaffMarks()) -> [String] {
        let score = ScoreLayout.layout(lesson, options: options)
        let raster = StaffRaster(score: score, lesson: lesson, density: density)
        return [heading(lesson: lesson, score: score), ""] + lines(raster: raster, color: color, marks: marks)
    }

    /// Every system of a drawn score, a blank line between systems.
    public static func lines(raster: StaffRaster, color: Bool, marks: StaffMarks = StaffMarks()) -> [String] {
        var out: [String] = []
        for index in raster.systems.indices {
            if index > 0 { out.append("") }
            out += systemLines(raster: raster, index: index, color: color, marks: marks)
        }
        return out
    }

    static func systemLines(raster: StaffRaster, index: Int, color: Bool, marks: StaffMarks) -> [String] {
        let overlay = raster.overlay(system: index, marks: marks)
        let system = raster.systems[index]
        let width = system.width
        var lines: [String] = []
        for y in 0..<raster.systemHeight {
            var line = ""
            var current = ""
            var pendingSpaces = 0
            for x in 0..<width {
                let cell = raster.cell(system, x: x, y: y, marks: marks, overlay: overlay)
                let scalar = cell.character
                if scalar == " " && (!color || !cell.cursor) {
                    pendingSpaces += 1
                    continue
                }
                let sgr = color ? sgr(for: cell) : ""
                if pendingSpaces > 0 {
                    if color, !current.isEmpty {
                        line += "\u{1B}[0m"
                        current = ""
                    }
                    line += String(repeating: " ", count: pendingSpaces)
                    pendingSpaces = 0
                }
                if color, sgr != current {
                    line += "\u{1B}[0m"
                    if !sgr.isEmpty { line += "\u{1B}[\(sgr)m" }
                    current = sgr
                }
                line.unicodeScalars.append(scalar)
            }
            if color, !current.isEmpty { line += "\u{1B}[0m" }
            lines.append(line)
        }
        // Rows with nothing at all are kept (they are the staff's own spacing).
        return lines
    }

    /// SGR parameters for a cell, "" for the terminal's default.
    public static func sgr(for cell: ResolvedCell) -> String {
        var codes: [String] = []
        switch cell.mark {
        case .judged(let verdict):
            switch verdict {
            case .ok: codes = ["1", "92"]
            case .wrong, .wrongKeyFirst: codes = ["1", "91"]
            case .missed: codes = ["90"]
            case .early, .late: codes = ["1", "33"]
            case .short, .long, .loud, .soft: codes = ["1", "95"]
            }
        case .lit:
            codes = ["1", "7", cell.hand == .left ? "32" : (cell.hand == .right ? "34" : "35")]
        case .plain, .hidden:
            switch cell.ink {
            case .staffLine, .ledger: codes = ["2"]
            case .barNumber: codes = ["2"]
            case .clef, .keySignature, .timeSignature: codes = ["1"]
            case .head, .accidental:
                codes = [cell.hand == .left ? "32" : (cell.hand == .right ? "34" : "35")]
            case .finger: codes = ["33"]
            case .ottava: codes = ["3"]
            case .loop: codes = ["1", "36"]
            case .cursor: codes = ["1", "33"]
            default: codes = []
            }
        }
        if cell.cursor, cell.ink != .cursor { codes.append("43") }
        return codes.joined(separator: ";")
    }
}
