import MIDIFile

/// Reading the words printed on a score: jumps (D.C., D.S., Fine, To Coda), section names,
/// ending numbers.
enum FormWords {
    struct Kind: OptionSet {
        let rawValue: Int
        static let daCapo = Kind(rawValue: 1)
        static let dalSegno = Kind(rawValue: 2)
        static let fine = Kind(rawValue: 4)
        static let toCoda = Kind(rawValue: 8)
        static let coda = Kind(rawValue: 16)
    }

    /// Lowercased, dots and spaces squeezed: "D. C. al Fine" → "d.c. al fine".
    static func normalized(_ text: String) -> String {
        var out = ""
        var lastSpace = true
        for ch in text.lowercased() {
            if ch.isWhitespace {
                if !lastSpace { out.append(" ") }
                lastSpace = true
            } else {
                if ch == ".", out.hasSuffix(" ") { out.removeLast() }
                out.append(ch)
                lastSpace = false
            }
        }
        if out.hasSuffix(" ") { out.removeLast() }
        return out.replacingOccurrences(of: ". ", with: ".")
    }

    static func classify(_ text: String) -> Kind {
        guard !text.isEmpty, text.count <= 80 else { return [] }
        let t = normalized(text)
        var k: Kind = []
        if t.hasPrefix("d.c.") || t.hasPrefix("dc ") || t == "dc" || t.hasPrefix("da capo") { k.insert(.daCapo) }
        if t.hasPrefix("d.s.") || t.hasPrefix("ds ") || t == "ds" || t.hasPrefix("dal segno") { k.insert(.dalSegno) }
        if t == "fine" { k.insert(.fine) }
        if t.hasPrefix("to coda") || t.hasPrefix("al coda") && k.isEmpty { k.insert(.toCoda) }
        if t == "coda" || t.hasPrefix("coda ") && !t.contains("to coda") { k.insert(.coda) }
        return k
    }

    static let sectionWords = ["intro", "introduction", "verse", "chorus", "refrain", "bridge", "interlude", "outro",
                               "coda", "trio", "theme", "thema", "variation", "var.", "solo", "pre-chorus", "section",
                               "part ", "strophe", "ritornello", "episode", "development", "exposition", "recapitulation"]

    /// The words as a section name when they name one ("Verse 2", "Trio", "Coda").
    static func sectionName(_ text: String) -> String? {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !t.isEmpty, t.count <= 40 else { return nil }
        let lower = t.lowercased()
        for w in sectionWords where lower == w.trimmingCharacters(in: .whitespaces) || lower.hasPrefix(w.hasSuffix(" ") || w.hasSuffix(".") ? w : w + " ") {
            return t
        }
        return nil
    }

    /// `1`, `1, 2`, `1-3` (and a printed `1.` when the attribute is empty) as numbers.
    static func endingNumbers(_ attribute: String, text: String) -> [Int] {
        var out: [Int] = []
        let source = attribute.trimmingCharacters(in: .whitespaces).isEmpty ? text : attribute
        for piece in source.split(whereSeparator: { $0 == "," || $0 == " " }) {
            let range = piece.split(separator: "-")
            if range.count == 2, let a = Int(range[0].filter(\.isNumber)), let b = Int(range[1].filter(\.isNumber)), a <= b, b - a < 32 {
                out += Array(a...b)
            } else if let n = Int(piece.filter(\.isNumber)), n > 0, n < 100 {
                out.append(n)
            }
        }
        return out.isEmpty ? [1] : out
    }
}

/// One bar as performed: which written measure (or which of the empty bars a multi-measure
/// rest stands for), where it starts, and the number printed on it.
struct PerformedBar {
    var written: Int
    /// 0 for the written measure itself, k ≥ 1 for the k-th bar a multi-measure rest adds.
    var extra: Int
    var startTick: Int
    var length: Int
    var printed: Int
    /// False when this measure continues the bar before it (a bar split in two measures).
    var startsBar: Bool
}

/// The score played from start to end: repeats taken (each `times`, endings by pass), D.C. and
/// D.S. jumps taken once, then Fine ends the piece and To Coda jumps to the Coda. After a jump
/// repeats are not taken again and only each repeat's last ending is played (the usual
/// convention, and music21's).
struct Performance {
    var bars: [PerformedBar] = []
    var warnings: [MusicXMLWarning] = []
    /// Printed number of each written measure, and whether it starts a printed bar.
    var printed: [Int] = []
    var startsBar: [Bool] = []
    /// Bars a multi-measure rest adds after each written measure (when the file leaves them out).
    var extraBars: [Int] = []

    /// `asWritten`: every measure once in document order, no repeat or jump taken (tests
    /// compare the notes read with other readers' unexpanded reading).
    init(score: Score, limits: MusicXMLLimits, asWritten: Bool = false) throws(MusicXMLError) {
        let ms = score.measures
        number(ms)
        let order = asWritten ? Array(ms.indices) : try Self.playingOrder(ms, limits: limits, warnings: &warnings)
        var tick = 0
        var previous = -2
        let timeIndex = TimelineIndex(score.times, measures: ms.count)
        for w in order {
            let continues = !startsBar[w] && previous == w - 1
            bars.append(PerformedBar(written: w, extra: 0, startTick: tick, length: ms[w].length, printed: printed[w], startsBar: !continues))
            tick += ms[w].length
            if extraBars[w] > 0 {
                let sig = timeIndex.at(w, Int.max) ?? TimeSignature(numerator: 4, denominatorPower: 2)
                let full = max(1, sig.numerator * score.ticksPerQuarter * 4 / max(1, sig.denominator))
                for k in 1...extraBars[w] {
                    bars.append(PerformedBar(written: w, extra: k, startTick: tick, length: full, printed: printed[w] + k, startsBar: true))
                    tick += full
                }
            }
            previous = w
            if bars.count > limits.maxPerformedBars {
                throw MusicXMLError("the repeats expand to more than \(limits.maxPerformedBars) bars; Etude reads shorter performances")
            }
        }
    }

    /// Printed numbers: the `number` attribute; a first measure marked implicit is the pickup
    /// (0, or one less than the next number); a measure whose number repeats the one before
    /// (`12`, then `12` or `12a`/`12b`) or a later implicit measure (the rest of a bar split at
    /// a repeat sign) continues the bar before; a number with no digits counts on from the one
    /// before, with a warning.
    private mutating func number(_ ms: [MeasureInfo]) {
        printed = Array(repeating: 0, count: ms.count)
        startsBar = Array(repeating: true, count: ms.count)
        extraBars = Array(repeating: 0, count: ms.count)
        var prev: Int?
        var counted: [String] = []
        for (w, m) in ms.enumerated() {
            let value = Self.numberValue(m.numberText)
            if w == 0 && m.implicit {
                let next = ms.count > 1 ? Self.numberValue(ms[1].numberText) : nil
                printed[w] = max(0, min(value ?? 0, (next ?? 1) - 1))
            } else if let p = prev, value == p || m.implicit {
                printed[w] = p
                startsBar[w] = false
            } else if let v = value {
                printed[w] = v
            } else {
                printed[w] = (prev ?? 0) + 1
                if counted.count < 3 { counted.append(m.numberText.isEmpty ? "(none)" : "\"\(m.numberText)\"") }
            }
            prev = printed[w]
            // A multi-measure rest written as one measure: the bars it stands for.
            if m.multipleRest > 1 {
                let next = w + 1 < ms.count ? Self.numberValue(ms[w + 1].numberText) : nil
                if let n = next, n == printed[w] + m.multipleRest {
                    extraBars[w] = m.multipleRest - 1
                    prev = printed[w] + extraBars[w]
                }
            }
        }
        if !counted.isEmpty {
            warnings.append(MusicXMLWarning("measure numbers \(counted.joined(separator: ", ")) are not numbers: counted on from the bar before"))
        }
    }

    /// The number in a `number` attribute: its leading digits ("12", "12a" → 12), nil when it
    /// has none or is out of range.
    static func numberValue(_ text: String) -> Int? {
        let digits = text.trimmingCharacters(in: .whitespaces).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 5, let v = Int(digits), v <= 99_999 else { return nil }
        return v
    }

    struct Ending {
        var first: Int
        var last: Int
        var numbers: [Int]
        var groupLast = 0
        var groupMax = 1
    }

    /// Written measure indices in playing order.
    static func playingOrder(_ ms: [MeasureInfo], limits: MusicXMLLimits, warnings: inout [MusicXMLWarning]) throws(MusicXMLError) -> [Int] {
        let n = ms.count
        // Endings: from the measure that starts one to the one that stops it (or to the next
        // backward repeat, or just that measure, when the stop is missing).
        var endings: [Ending] = []
        var endingOf = Array(repeating: -1, count: n)
        var w = 0
        while w < n {
            guard let numbers = ms[w].endingStart else { w += 1; continue }
            var last = w
            var k = w
            while k < n {
                if k > w, ms[k].endingStart != nil { last = k - 1; break }
                if ms[k].endingStop || ms[k].backwardRepeat { last = k; break }
                k += 1
                last = w
            }
            for j in w...last where endingOf[j] < 0 { endingOf[j] = endings.count }
            endings.append(Ending(first: w, last: last, numbers: numbers))
            w = last + 1
        }
        // Endings that follow one another form one group (1st, 2nd, …).
        var g = 0
        while g < endings.count {
            var h = g
            while h + 1 < endings.count, endings[h + 1].first == endings[h].last + 1 { h += 1 }
            let groupMax = endings[g...h].flatMap(\.numbers).max() ?? 1
            for k in g...h {
                endings[k].groupLast = endings[h].last
                endings[k].groupMax = groupMax
            }
            g = h + 1
        }
        // The first To Coda sign before the first D.C./D.S. jumps; a coda sign after it is the Coda.
        let firstJump = ms.firstIndex { $0.daCapo || $0.dalSegno } ?? n
        let toCodaAt = Set(ms.indices.filter { ms[$0].toCoda || (ms[$0].codaSymbol && $0 < firstJump) })
        let codaAt = ms.indices.filter { ms[$0].codaTarget || (ms[$0].codaSymbol && $0 > firstJump && !ms[$0].toCoda) }
        let segnoAt = ms.indices.filter { ms[$0].segno }

        var order: [Int] = []
        var i = 0
        var repeatStart = 0
        // Whether repeatStart is a forward repeat sign (else the start, the bar after the last
        // repeat, or after a double bar line: where a repeat without a forward sign goes back).
        var explicitStart = false
        var pass = 1
        var jumped = false
        var justJumpedBack = false
        var jumpsTaken = Set<Int>()
        var repeatsTaken: [Int: Int] = [:]
        var groupEnd: Int?
        var steps = 0
        var missing: Set<String> = []
        while i < n {
            steps += 1
            if steps > 4 * limits.maxPerformedBars + 1000 || order.count > limits.maxPerformedBars {
                throw MusicXMLError("the repeats expand to more than \(limits.maxPerformedBars) bars; Etude reads shorter performances")
            }
            let m = ms[i]
            if m.forwardRepeat && !justJumpedBack {
                repeatStart = i
                explicitStart = true
                pass = 1
            } else if m.doubleBarLeft && !explicitStart && !justJumpedBack && pass == 1 {
                repeatStart = i
            }
            justJumpedBack = false
            if endingOf[i] >= 0 {
                let e = endings[endingOf[i]]
                groupEnd = max(groupEnd ?? 0, e.groupLast)
                let wanted = jumped ? e.groupMax : pass
                if !e.numbers.contains(wanted) {
                    i += 1
                    continue
                }
            } else if let end = groupEnd, i > end {
                groupEnd = nil
                pass = 1
                if !m.forwardRepeat {
                    repeatStart = i
                    explicitStart = false
                }
            }
            order.append(i)
            if m.fine && jumped { break }
            if m.backwardRepeat && !jumped {
                var times = m.repeatTimes ?? 2
                if endingOf[i] >= 0 { times = max(times, endings[endingOf[i]].groupMax) }
                if repeatsTaken[i, default: 0] < times - 1 {
                    repeatsTaken[i, default: 0] += 1
                    pass += 1
                    i = repeatStart
                    justJumpedBack = true
                    continue
                }
                repeatsTaken[i] = 0
                if endingOf[i] < 0 {
                    pass = 1
                    repeatStart = i + 1
                    explicitStart = false
                }
            } else if m.doubleBarRight && !explicitStart && pass == 1 && endingOf[i] < 0 {
                repeatStart = i + 1
            }
            if jumped, toCodaAt.contains(i) {
                if let c = codaAt.first(where: { $0 > i }) {
                    i = c
                    continue
                }
                missing.insert("To Coda without a Coda after it")
            }
            if (m.daCapo || m.dalSegno) && !jumpsTaken.contains(i) {
                jumpsTaken.insert(i)
                var target = 0
                if m.dalSegno && !m.daCapo {
                    if let s = segnoAt.last(where: { $0 <= i }) ?? segnoAt.first {
                        target = s
                    } else {
                        missing.insert("D.S. without a segno (played from the start)")
                    }
                }
                jumped = true
                pass = 1
                groupEnd = nil
                repeatStart = target
                explicitStart = false
                i = target
                continue
            }
            i += 1
        }
        for m in missing.sorted() { warnings.append(MusicXMLWarning(m)) }
        // Endings no pass reaches (numbers garbled, or every measure inside one) would leave a
        // score that plays nothing: a learner gets the measures as printed instead.
        if order.isEmpty && n > 0 {
            warnings.append(MusicXMLWarning("the repeats and endings play no measure (an ending no pass reaches): the measures are played as written"))
            return Array(0..<n)
        }
        return order
    }
}
