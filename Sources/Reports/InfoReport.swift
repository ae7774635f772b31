import Foundation
import Lesson
import MIDIFile

/// Formatting of `etude info` (text for people, JSON for scripts).
public enum InfoReport {
    static func divisionText(_ d: Division) -> String {
        switch d {
        case .ticksPerQuarter(let t): return "\(t) ticks per quarter note"
        case .smpte(let fps, let tpf): return "SMPTE \(fps == 29 ? "29.97" : String(fps)) fps × \(tpf) ticks per frame"
        }
    }

    static func seconds(_ s: Double) -> String {
        let total = Int(saturating: s.rounded())
        return "\(String(format: "%.3f", s)) s (\(total / 60):\(String(format: "%02d", total % 60)))"
    }

    /// How the hands were assigned, with note counts: `right 120, left 98 — track names: …`.
    static func handsText(_ lesson: Lesson) -> String {
        var parts: [String] = []
        for h in [Hand.right, .left] { parts.append("\(h.rawValue) \(lesson.noteCount(.hand(h)))") }
        let acc = lesson.noteCount(.accompaniment)
        if acc > 0 { parts.append("accompaniment \(acc)") }
        return parts.joined(separator: ", ") + " — " + safe(lesson.handAssignment.description)
    }

    static func barsText(_ lesson: Lesson) -> String {
        // A score is counted as printed (as its header shows it), the bars played beside it.
        let b = lesson.bars, printed = b.printedRange.upperBound
        var s = b.isPrinted && printed != b.count ? "\(printed) as printed (\(b.count) played, with the repeats)" : "\(b.count)"
        if b.hasPickup { s += " and a pickup bar 0" }
        if lesson.markers.isEmpty {
            s += "; sections of 4 bars (\(lesson.sections.count))"
        } else {
            s += "; sections: " + lesson.sections.map { "\(safe($0.name)) (\(b.label(ofRange: $0.firstBar...max($0.firstBar, $0.lastBar))))" }.joined(separator: ", ")
        }
        return s
    }

    /// A score's parts with their staves, and its printed bars against the bars played
    /// (`12@2` is bar 12 the second time through).
    static func scoreText(_ lesson: Lesson) -> String {
        var out = ""
        let parts = lesson.scoreParts
        if !parts.isEmpty {
            out += "Parts:     " + parts.map { p in
                let staves = p.staves.map { s in [s.hand?.name, s.clef?.rawValue].compactMap { $0 }.joined(separator: ", ") }
                let detail = p.staves.count == 1 ? staves[0] : "\(p.staves.count) staves: " + staves.map { "(\($0))" }.joined(separator: " ")
                return TextDecoding.sanitize(p.name) + (detail.isEmpty ? "" : " — \(detail)")
            }.joined(separator: "; ") + "\n"
        }
        if lesson.bars.isPrinted {
            out += "Printed:   printed bar → bar played: \(lesson.bars.printedMapText)\n"
        }
        return out
    }

    /// Key or time changes, each once (tracks often repeat them), where a reader looks for
    /// them: at bar numbers as the score prints them (ticks only when the file has no notes).
    static func changesText<V: Equatable>(_ changes: [MIDIFileSummary.Timed<V>], lesson: Lesson?, name: (V) -> String) -> String {
        var kept: [MIDIFileSummary.Timed<V>] = []
        for c in changes where kept.last?.value != c.value {
            if let last = kept.last, last.tick == c.tick {
                kept.removeLast()  // two at one tick: the later one holds
                if kept.last?.value != c.value { kept.append(c) }
            } else {
                kept.append(c)
            }
        }
        return kept.map { c in
            guard let lesson else { return "\(name(c.value)) at tick \(c.tick)" }
            let bar = lesson.bars.bar(atTick: c.tick)
            let position = lesson.bars.position(atTick: c.tick)
            let beat = c.tick > bar.startTick && position.beat > 1 ? " beat \(position.beat)" : ""
            return "\(name(c.value)) from bar \(lesson.bars.label(of: bar))\(beat)"
        }.joined(separator: "; ")
    }

    public static func text(_ s: MIDIFileSummary, warnings: [MIDIWarning], path: String, lesson: Lesson? = nil) -> String {
        var out = "File:      \(safe(path))\n"
        out += "Format:    \(s.format)\n"
        out += "Division:  \(divisionText(s.division))\n"
        out += "Duration:  \(seconds(s.durationSeconds))\n"
        out += "Notes:     \(s.noteCount)\n"
        if let lesson {
            out += "Title:     \(safe(lesson.title))\n"
            if let c = lesson.composer { out += "Composer:  \(safe(c))\n" }
            if let l = lesson.tags.level { out += "Level:     \(l)\n" }
            if let d = lesson.tags.description { out += "About:     \(safe(d))\n" }
            out += "Hands:     \(handsText(lesson))\n"
            out += "Bars:      \(barsText(lesson))\n"
            out += scoreText(lesson)
        }
        out += "Tracks:    \(s.tracks.count)\n"
        for t in s.tracks {
            var line = "  \(t.index + 1). \(t.name.map { "\"\(safe($0))\"" } ?? "(unnamed)")"
            if !t.channels.isEmpty { line += "  channels \(t.channels.map { String($0 + 1) }.joined(separator: ","))" }
            if t.noteCount > 0 {
                line += "  \(t.noteCount) notes"
                if let lo = t.lowestPitch, let hi = t.highestPitch {
                    line += " \(PitchName.name(lo))–\(PitchName.name(hi))"
                }
            }
            if !t.programs.isEmpty { line += "  \(t.programs.map { GeneralMIDI.name(program: $0) }.joined(separator: ", "))" }
            out += line + "\n"
        }
        if s.division.framesPerSecond == nil {
            out += "Tempo:     " + s.tempos.map { t in
                let bpm = 60_000_000 / Double(t.value)
                // In the beat's note value where that is not the quarter (♪=120 for a 3/8 minuet).
                let mark = lesson.map { $0.tempoMark(quarterBPM: bpm, atBar: $0.bars.bar(atTick: t.tick).number) }
                let marked = mark.map { $0.symbol == "♩" ? "" : "\($0) (" } ?? ""
                return "\(marked)\(String(format: "%.1f", bpm)) BPM\(marked.isEmpty ? "" : ")") at \(String(format: "%.3f", t.seconds)) s"
            }.joined(separator: "; ") + "\n"
        }
        if !s.timeSignatures.isEmpty {
            out += "Time:      " + changesText(s.timeSignatures, lesson: lesson) { $0.description } + "\n"
        }
        if !s.keySignatures.isEmpty {
            out += "Key:       " + changesText(s.keySignatures, lesson: lesson) { $0.name } + "\n"
        }
        if !s.markers.isEmpty {
            out += "Markers:   " + s.markers.map { "\"\(safe($0.value))\" at \(String(format: "%.3f", $0.seconds)) s" }.joined(separator: "; ") + "\n"
        }
        if warnings.isEmpty {
            out += "Warnings:  none\n"
        } else {
            out += "Warnings:  \(warnings.count)\n"
            for w in warnings { out += "  - \(safe(w.description))\n" }
        }
        return out
    }
}
