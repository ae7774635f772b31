import Judge
import Lesson
import Notation
import Practice
import Screen
import Terminal

/// The review of a judged pass, bar by bar (Enter on the results panel): it opens on the first
/// bar with a mistake, → / n and ← / p step, Home goes back to the first mistake, `v` changes
/// the view (falling notes / staff / both) as ever, Esc or Enter goes back to the results. Each bar shows its notes marked with their verdicts (`VerdictMark`)
/// on the falling notes (and the staff), and a line that counts them ("bar 9: 2 late, 1 short").
///
/// Front-end state only: built from the `PassReport` the session already emits, never stored
/// in the session, so the practice session knows nothing of it.
public struct PassReview: Equatable, Sendable {
    /// One bar of the pass with the notes judged in it.
    public struct Bar: Equatable, Sendable {
        /// `Bar.number` (the performed bar), for the lesson's bar map.
        public var number: Int
        /// As printed ("9", "12@2").
        public var label: String
        public var notes: [NoteVerdict]
    }

    /// The pass reviewed (1-based).
    public let pass: Int
    /// The bars of the pass that hold judged notes, in order.
    public let bars: [Bar]
    /// The bar shown, an index into `bars`.
    public private(set) var index: Int
    /// The review's own `?` help (its keys and the marks) is up.
    public var showHelp = false

    /// The review of `report` (pass `pass`), nil when it judged no notes placed in bars.
    public init?(report: PassReport, pass: Int) {
        var byBar: [Int: Bar] = [:]
        for n in report.notes {
            guard let b = n.barNumber else { continue }
            byBar[b, default: Bar(number: b, label: n.bar.isEmpty ? String(b) : n.bar, notes: [])].notes.append(n)
        }
        guard !byBar.isEmpty else { return nil }
        self.pass = pass
        bars = byBar.keys.sorted().map { byBar[$0]! }
        index = 0
        index = firstMistake ?? 0
    }

    /// The bar shown.
    public var bar: Bar { bars[index] }

    /// The first bar with a mistake, nil when every note was right.
    public var firstMistake: Int? { bars.firstIndex { $0.notes.contains(where: \.isFault) } }

    /// What a key does in the review.
    public enum Step: Equatable, Sendable {
        /// The key was the review's (a step, the help): stay.
        case stay
        /// Back to the results panel.
        case leave
        /// Not the review's key (q quits as everywhere).
        case pass
    }

    public mutating func key(_ key: Key) -> Step {
        if showHelp {
            showHelp = false  // any key closes the help, as on the practice screen
            return .stay
        }
        switch key.code {
        case .right: step(1)
        case .left: step(-1)
        case .home: index = firstMistake ?? 0
        case .escape, .enter: return .leave
        case .function(1): showHelp = true
        case .character(let c) where key.modifiers.isEmpty || key.modifiers == .shift || key.modifiers == .alt:
            switch c {
            case "n": step(1)
            case "p": step(-1)
            case "?": showHelp = true
            case "q": return .pass
            default: break
            }
        default: break
        }
        return .stay
    }

    /// Moves `by` bars, staying within the pass.
    public mutating func step(_ by: Int) {
        index = min(max(0, index + by), bars.count - 1)
    }

    /// "bar 9: 2 late, 1 short" (or "bar 9: all 4 notes right").
    public var summary: String { "bar \(bar.label): " + Self.counts(bar.notes) }

    /// The line under the review: the bar's summary, then where it is and the keys.
    public var message: String {
        "\(summary)  ·  \(index + 1) of \(bars.count)  ·  ←/→ bar · Esc back"
    }

    /// Each verdict counted once per note that has it, worst first: "1 wrong, 2 late, 1 short".
    public static func counts(_ notes: [NoteVerdict]) -> String {
        var counts: [VerdictMark: Int] = [:]
        for n in notes {
            for mark in n.marks { counts[mark, default: 0] += 1 }
        }
        let words = VerdictMark.severity.compactMap { mark -> String? in
            guard let count = counts[mark] else { return nil }
            guard mark == .wrong || mark == .wrongKeyFirst else { return "\(count) \(mark.word)" }
            // The wrong keys named: "1 wrong (D4 → D#4)".
            let named = notes.filter { $0.marks.contains(mark) }.map(\.wrongKeyText)
            return "\(count) \(mark.word) (\(named.prefix(3).joined(separator: ", "))\(named.count > 3 ? ", …" : ""))"
        }
        if words.isEmpty { return notes.count == 1 ? "the note right" : "all \(notes.count) notes right" }
        return words.joined(separator: ", ")
    }

    /// Every judged note's mark, by index into `Lesson.notes`: the falling notes after a pass.
    public static func verdicts(_ report: PassReport) -> [Int: VerdictMark] {
        var out: [Int: VerdictMark] = [:]
        out.reserveCapacity(report.notes.count)
        for n in report.notes { out[n.id] = n.worst }
        return out
    }

    /// The frame of the review: `base` (the practice screen's frame now) with the bar's notes
    /// falling from the keyboard line, each marked, the bar's lines, and the summary below.
    public func model(lesson: Lesson, base: ScreenModel) -> ScreenModel {
        var model = base
        let bars = lesson.bars
        let shown = bars.bar(number: bar.number)
        let startTick = shown?.startTick ?? bar.notes.compactMap { lesson.notes.indices.contains($0.id) ? lesson.notes[$0.id].startTick : nil }.min() ?? 0
        let endTick = shown?.endTick ?? startTick + lesson.ticksPerQuarter * 4
        let t0 = lesson.tempoMap.seconds(atTick: startTick)
        let length = lesson.tempoMap.seconds(atTick: endTick) - t0
        let barSeconds = length.isFinite && length > 0 ? length : 1
        // The bar takes four fifths of the view: its closing line and the next bar's number show.
        model.lookaheadSeconds = barSeconds * 1.25
        var notes: [FallingNote] = []
        for n in bar.notes where lesson.notes.indices.contains(n.id) {
            let note = lesson.notes[n.id]
            let start = lesson.tempoMap.seconds(atTick: note.startTick) - t0
            let end = lesson.tempoMap.seconds(atTick: note.endTick) - t0
            let role: NoteRole = note.part.hand == .left ? .leftHand : note.part.hand == .right ? .rightHand : .accompaniment
            notes.append(FallingNote(pitch: n.pitch, start: max(0, start), end: max(start + 0.01, end), role: role, verdict: n.worst))
        }
        model.notes = notes
        let nextLabel = bars.bars.first { $0.startTick >= endTick }.map { bars.label(of: $0) }
        model.barLines = [BarLine(seconds: 0, bar: bar.number, label: bar.label)]
            + (nextLabel.map { [BarLine(seconds: barSeconds, bar: bar.number + 1, label: $0)] } ?? [BarLine(seconds: barSeconds, bar: bar.number + 1, label: "end")])
        model.loopStartSeconds = nil
        model.loopEndSeconds = nil
        model.keyboard = KeyboardState()
        model.showFingers = false
        model.message = message
        model.overlay = showHelp ? .help : nil
        model.helpEntries = PracticeKeys.review
        model.status.title = "review of pass \(pass) · " + model.status.title
        model.status.playing = false
        model.status.waiting = nil
        model.status.countIn = nil
        model.status.bar = bar.number
        model.status.beat = 1
        model.status.barLabel = bars.isPrinted ? bar.label : nil
        let barIndex = bars.index(atTick: startTick)
        model.timeline.position = Double(max(0, barIndex))
        return model
    }

    /// The staff in the review: the page of the bar shown, the bar bracketed, every judged
    /// note of the pass marked with its worst verdict, as on the falling notes (× wrong, ◌
    /// missed, ‹ early, › late, x after a wrong key, . short, = long, f loud, p soft).
    public func staffMarks(lesson: Lesson) -> StaffMarks {
        var judgements: [Int: VerdictMark] = [:]
        for b in bars {
            for n in b.notes { judgements[n.id] = n.worst }
        }
        let tick = lesson.bars.bar(number: bar.number)?.startTick
        return StaffMarks(cursorTick: tick, judgements: judgements, loopBars: bar.number...bar.number)
    }
}
