import MIDIFile

// Printed bar numbers and staves of scores (MusicXML lessons): how a learner names bars, and
// which hand reads which staff.
//
// Bar syntax, as `--bars`, `etude loop` and `BarMap.range(parsing:)` read it:
//
//   12          bar 12
//   12-16       bars 12 to 16 (also 12–16), the first time bar 12 is played
//   12-16@2     the same stretch the second time through (a repeat, or after D.C./D.S.):
//               from the second time bar 12 is played to the next bar 16 after it
//   12@2-16     the same as 12-16@2
//   12@2-16@3   from the second bar 12 to the third bar 16 (any two places in the performance)
//   8@1-2       from bar 8 through the repeat sign to the next bar 2
//
// A range runs in playing order: from its first bar to the first bar with the last number that
// follows it, so a stretch through a repeat sign or a first ending reads as it is played. For
// lessons without printed numbers (MIDI, ABC) bars are counted 1, 2, 3 … (0 for a pickup) and
// are played once each, so `12-16` means what it always has and `@2` is refused.

extension BarMap {
    /// How a learner names a bar: its printed number, `@2`, `@3` … the second and later times
    /// it is played ("12", "12@2").
    public func label(of bar: Bar) -> String {
        bar.pass > 1 ? "\(bar.printed)@\(bar.pass)" : "\(bar.printed)"
    }

    /// The label of the bar with a performed number (the number itself when it does not exist).
    public func label(number: Int) -> String {
        bar(number: number).map { label(of: $0) } ?? "\(number)"
    }

    /// A range of performed bars as the learner would write it, so that `range(parsing:)`
    /// reads it back: "5–8", "12–16@2" (the stretch the second time), "8@1–2" (through a
    /// repeat sign back to bar 2), "8@1–2@3".
    public func label(ofRange range: ClosedRange<Int>) -> String {
        guard let a = bar(number: range.lowerBound), let b = bar(number: range.upperBound) else {
            return range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound)–\(range.upperBound)"
        }
        if range.lowerBound == range.upperBound { return label(of: a) }
        let firstAfter = firstIndex(printed: b.printed, from: a.number - firstNumber) == b.number - firstNumber
        if firstAfter {
            if b.printed >= a.printed { return "\(a.printed)–\(b.printed)" + (a.pass > 1 ? "@\(a.pass)" : "") }
            return "\(a.printed)@\(a.pass)–\(b.printed)"
        }
        return "\(a.printed)@\(a.pass)–\(b.printed)@\(b.pass)"
    }

    /// Index into `bars` of the first bar at or after index `start` printed `printed`, by
    /// bisection in `printedPlaces` (a scan per label made sections quadratic in bars).
    func firstIndex(printed: Int, from start: Int) -> Int? {
        guard isPrinted else {  // printed = number, one bar each, in order
            let i = printed - firstNumber
            return bars.indices.contains(i) && i >= start ? i : nil
        }
        guard let places = printedPlaces[printed] else { return nil }
        var lo = 0, hi = places.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if places[mid] < start { lo = mid + 1 } else { hi = mid }
        }
        return lo < places.count ? places[lo] : nil
    }

    /// The lowest and highest printed numbers.
    public var printedRange: ClosedRange<Int> {
        let ps = bars.map(\.printed)
        return (ps.min() ?? 0)...(ps.max() ?? 0)
    }

    /// Bars as a learner says them (see the syntax above), as the range of performed bar
    /// numbers that plans and loops use. Errors name `option` and what would work.
    public func range(parsing text: String, option: String = "--bars") throws(PlanError) -> ClosedRange<Int> {
        try range(BarsArgument(parsing: text, option: option), option: option)
    }

    /// `written` (already checked for form) as the range of performed bar numbers.
    public func range(_ written: BarsArgument, option: String = "--bars") throws(PlanError) -> ClosedRange<Int> {
        let shown = "\(option) \(written.text)"
        let parsed = [written.first] + (written.last.map { [$0] } ?? [])
        let first = written.first
        let last = written.last ?? BarsArgument.End(bar: first.bar, pass: nil)
        var startPass = first.pass ?? 1
        var endPass: Int?
        if parsed.count == 2 {
            if first.pass == nil, let p = last.pass {
                startPass = p  // `A-B@n`: the whole stretch the n-th time
            } else if first.pass != nil {
                endPass = last.pass  // `A@n-B@m`, or `A@n-B`
            }
        }

        guard isPrinted else {
            if startPass > 1 || (endPass ?? 1) > 1 {
                throw PlanError("\(shown): this lesson's bars are each played once (only scores with repeats have a second time); write \(first.bar)\(parsed.count == 2 ? "-\(last.bar)" : "")")
            }
            guard first.bar <= last.bar else {
                throw PlanError("\(shown): the first bar comes after the last; did you mean \(last.bar)-\(first.bar)?")
            }
            guard first.bar >= firstNumber, last.bar <= lastNumber else {
                throw PlanError("\(shown): \(outOfRange(first.bar))")
            }
            return first.bar...last.bar
        }

        let numbers = printedRange
        for n in [first.bar, last.bar] where !bars.contains(where: { $0.printed == n }) {
            throw PlanError("\(shown): the score has no bar \(n) (its bars are numbered \(numbers.lowerBound)–\(numbers.upperBound))")
        }
        func times(_ n: Int) -> Int { bars.reduce(0) { $0 + ($1.printed == n ? 1 : 0) } }
        guard let start = bars.firstIndex(where: { $0.printed == first.bar && $0.pass == startPass }) else {
            let t = times(first.bar)
            throw PlanError("\(shown): bar \(first.bar) is played \(t == 1 ? "once" : "\(t) times")\(t > 1 ? "; use @1 to @\(t)" : "; leave @ out")")
        }
        let end: Int
        if let endPass {
            guard let e = bars.firstIndex(where: { $0.printed == last.bar && $0.pass == endPass }) else {
                let t = times(last.bar)
                throw PlanError("\(shown): bar \(last.bar) is played \(t == 1 ? "once" : "\(t) times")")
            }
            guard e >= start else {
                throw PlanError("\(shown): bar \(last.bar)@\(endPass) is played before bar \(first.bar)@\(startPass)")
            }
            end = e
        } else {
            guard let e = bars[start...].firstIndex(where: { $0.printed == last.bar }) else {
                throw PlanError("\(shown): bar \(last.bar) is not played after bar \(label(of: bars[start])); try \(first.bar)-\(last.bar) with another @")
            }
            end = e
        }
        return bars[start].number...bars[end].number
    }

    /// Runs of the printed⇄performed map: printed numbers rising one by one on the same pass
    /// form one run, e.g. printed 1–8 (2nd time) = performed bars 9–16.
    public var printedRuns: [(printed: ClosedRange<Int>, pass: Int, performed: ClosedRange<Int>)] {
        var out: [(ClosedRange<Int>, Int, ClosedRange<Int>)] = []
        for b in bars {
            if let last = out.last, last.1 == b.pass, last.0.upperBound + 1 == b.printed, last.2.upperBound + 1 == b.number {
                out[out.count - 1] = (last.0.lowerBound...b.printed, b.pass, last.2.lowerBound...b.number)
            } else {
                out.append((b.printed...b.printed, b.pass, b.number...b.number))
            }
        }
        return out
    }

    /// The map in one line for `etude info`: "0, 1–8, 1–8@2 (bars 0–16), 9–12 (17–20)".
    public var printedMapText: String {
        printedRuns.map { run in
            let printed = run.printed.count == 1 ? "\(run.printed.lowerBound)" : "\(run.printed.lowerBound)–\(run.printed.upperBound)"
            let performed = run.performed.count == 1 ? "\(run.performed.lowerBound)" : "\(run.performed.lowerBound)–\(run.performed.upperBound)"
            return "\(printed)\(run.pass > 1 ? "@\(run.pass)" : "") → \(performed)"
        }.joined(separator: ", ")
    }
}

/// Bars as the learner writes them (`5-8`, `12`, `12-16@2`, `3@1-2@2`; see the syntax above),
/// checked for form once, where they are typed, so a mistake like `9-3` is refused before any
/// file opens; `BarMap.range(_:)` then reads them as the lesson numbers its bars.
public struct BarsArgument: Equatable, Sendable, CustomStringConvertible {
    /// One end: a bar number and which time through (nil: unsaid).
    public struct End: Equatable, Sendable {
        public var bar: Int
        public var pass: Int?
    }

    /// As typed (what messages quote).
    public let text: String
    public let first: End
    /// The last bar; nil for a single bar (`12`).
    public let last: End?

    public init(parsing text: String) throws(PlanError) { try self.init(parsing: text, option: "--bars") }

    /// Errors name `option` (`bar` for the practice screen's go-to).
    public init(parsing text: String, option: String) throws(PlanError) {
        let shown = "\(option) \(text)"
        let cleaned = text.replacingOccurrences(of: "–", with: "-").replacingOccurrences(of: " ", with: "")
        let ends = cleaned.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 1 || ends.count == 2 else {
            throw PlanError("\(shown): write the bars as A-B, e.g. 5-8 (or 5-8@2 for the second time through)")
        }
        var parsed: [End] = []
        for e in ends {
            let parts = e.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count <= 2, let n = Int(parts[0]), n >= 0 else {
                throw PlanError("\(shown): write the bars as A-B, e.g. 5-8 (or 5-8@2 for the second time through)")
            }
            var pass: Int?
            if parts.count == 2 {
                guard let p = Int(parts[1]), p >= 1 else {
                    throw PlanError("\(shown): after @ give which time through, 1 or more (e.g. 12-16@2)")
                }
                pass = p
            }
            parsed.append(End(bar: n, pass: pass))
        }
        // Unless the first end names its time through, the bars run forwards.
        if parsed.count == 2, parsed[0].pass == nil, parsed[0].bar > parsed[1].bar {
            throw PlanError("\(shown): the first bar comes after the last; did you mean \(parsed[1].bar)-\(parsed[0].bar)?")
        }
        self.text = text
        first = parsed[0]
        last = parsed.count == 2 ? parsed[1] : nil
    }

    public var description: String { text }
}

extension PracticePlan {
    /// `--bars` for this lesson: printed bars for scores (`BarMap.range(parsing:)`: `12-16`,
    /// `12-16@2`), counted bars for MIDI and ABC lessons (as `parseBars(_:)`).
    public static func parseBars(_ text: String, in lesson: Lesson) throws(PlanError) -> ClosedRange<Int> {
        try lesson.bars.range(parsing: text)
    }

    /// `--bars` as typed, for this lesson (`lesson`) or as counted bars (nil).
    public static func bars(_ written: BarsArgument, in lesson: Lesson?) throws(PlanError) -> ClosedRange<Int> {
        guard let lesson else { return try parseBars(written.text) }
        return try lesson.bars.range(written)
    }
}

/// A part of a score as its staves: the tracks a MusicXML part became, with the hand and
/// first clef of each staff.
public struct ScorePart: Equatable, Sendable {
    public struct Staff: Equatable, Sendable {
        public var track: Int
        public var hand: Hand?
        public var clef: Clef?
    }

    public var name: String
    public var staves: [Staff]
}

extension Lesson {
    /// The parts of a score with their staves, for lessons whose tracks carry staff
    /// annotations (`etude:hand`, `etude:clef`); tracks sharing a channel and a name are one
    /// part. Empty for plain MIDI.
    public var scoreParts: [ScorePart] {
        guard !annotations.hands.isEmpty || !annotations.clefs.isEmpty || annotations.bars.count > 0 else { return [] }
        var out: [ScorePart] = []
        var lastKey: (String, [UInt8])?
        for t in tracks where t.noteCount > 0 || annotations.hands[t.index] != nil {
            let name = t.name ?? "Track \(t.index + 1)"
            let staff = ScorePart.Staff(track: t.index, hand: annotations.hands[t.index].flatMap { Hand(rawValue: $0.rawValue) },
                                        clef: annotations.clefs[t.index]?.first?.clef)
            if let k = lastKey, k.0 == name, k.1 == t.channels, !t.channels.isEmpty {
                out[out.count - 1].staves.append(staff)
            } else {
                out.append(ScorePart(name: name, staves: [staff]))
            }
            lastKey = (name, t.channels)
        }
        return out
    }
}
