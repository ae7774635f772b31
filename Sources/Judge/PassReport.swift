import Foundation
import MIDIFile

/// The figures of one pass or one section of it.
///
/// - Each expected note is counted once: hit (on time, early or late), wrong (a wrong key was
///   struck where it was due and the note never came: not also missed) or missed. Every other
///   key played is an extra: a duplicate strike, a stray key, a second wrong key for the same
///   note, the slip before a note struck right in the end (the wrong key that counts as a
///   note's `wrong` is not also an extra).
/// - accuracy = 100 × hit / (hit + missed + wrong + extra); 100 when there was nothing to
///   play and nothing was played.
/// - timingMeanMs / timingSdMs: mean and population standard deviation of (played − written)
///   time over hits, in ms (positive = late); 0 without hits.
/// - score (0–100) = 100 × Σ hit points / (hit + missed + wrong + extra), where an on-time hit
///   is worth 1 point and an early or late hit falls linearly from 1 at the on-time edge
///   (±50 ms) to 0.5 at the window edge (±150 ms). A perfect pass scores 100.
/// - short / long / loud / soft: notes released too early or held too long, played too loud or
///   too soft (`Ear`). They stand beside the score and never enter it, so a score stays
///   comparable with every pass judged before the ear existed (those read as 0).
public struct ScoreFigures: Equatable, Sendable, Codable {
    public var hit = 0
    public var missed = 0
    public var wrong = 0
    public var extra = 0
    public var early = 0
    public var onTime = 0
    public var late = 0
    public var accuracy: Double = 100
    public var timingMeanMs: Double = 0
    public var timingSdMs: Double = 0
    public var score: Double = 100
    public var short = 0
    public var long = 0
    public var loud = 0
    public var soft = 0

    public init() {}

    private enum CodingKeys: String, CodingKey {
        case hit, missed, wrong, extra, early, onTime, late, accuracy, timingMeanMs, timingSdMs, score, short, long, loud, soft
    }

    /// Reads older report lines too (before the ear's counts, which then read as 0).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hit = try c.decode(Int.self, forKey: .hit)
        missed = try c.decode(Int.self, forKey: .missed)
        wrong = try c.decode(Int.self, forKey: .wrong)
        extra = try c.decode(Int.self, forKey: .extra)
        early = try c.decode(Int.self, forKey: .early)
        onTime = try c.decode(Int.self, forKey: .onTime)
        late = try c.decode(Int.self, forKey: .late)
        accuracy = try c.decode(Double.self, forKey: .accuracy)
        timingMeanMs = try c.decode(Double.self, forKey: .timingMeanMs)
        timingSdMs = try c.decode(Double.self, forKey: .timingSdMs)
        score = try c.decode(Double.self, forKey: .score)
        short = try c.decodeIfPresent(Int.self, forKey: .short) ?? 0
        long = try c.decodeIfPresent(Int.self, forKey: .long) ?? 0
        loud = try c.decodeIfPresent(Int.self, forKey: .loud) ?? 0
        soft = try c.decodeIfPresent(Int.self, forKey: .soft) ?? 0
    }

    /// Counts the ear's verdicts (short, long, loud, soft) of `notes` into these figures.
    public mutating func count(_ notes: [NoteVerdict]) {
        short = 0; long = 0; loud = 0; soft = 0
        for n in notes { tally(n) }
    }

    /// Adds one note's release and loudness verdicts to the counts.
    mutating func tally(_ n: NoteVerdict) {
        switch n.release {
        case .short?: short += 1
        case .long?: long += 1
        default: break
        }
        switch n.loudness {
        case .loud?: loud += 1
        case .soft?: soft += 1
        default: break
        }
    }

    /// Figures as stored or shown elsewhere (the history's columns, a test's expectation).
    public init(hit: Int, missed: Int, wrong: Int, extra: Int, early: Int = 0, onTime: Int = 0, late: Int = 0,
                accuracy: Double, timingMeanMs: Double = 0, timingSdMs: Double = 0, score: Double) {
        self.hit = hit
        self.missed = missed
        self.wrong = wrong
        self.extra = extra
        self.early = early
        self.onTime = onTime
        self.late = late
        self.accuracy = accuracy
        self.timingMeanMs = timingMeanMs
        self.timingSdMs = timingSdMs
        self.score = score
    }

    /// False for a pass in which the learner played nothing at all: it is no score, only time.
    public var somethingPlayed: Bool { hit + wrong + extra > 0 }

    /// Mean and spread of the timing errors, nil when nothing was hit (the figures are 0 then).
    public var timing: (meanMs: Double, sdMs: Double)? {
        hit > 0 ? (timingMeanMs, timingSdMs) : nil
    }

    /// "score 96, accuracy 100%, hit 4 missed 0 wrong 0 extra 0": one pass on one line.
    public var summary: String {
        "score \(Int(saturating: score.rounded())), accuracy \(Int(saturating: accuracy.rounded()))%, hit \(hit) missed \(missed) wrong \(wrong) extra \(extra)"
    }

    init(_ judgements: [Judgement], window: TimingWindow) {
        var errors: [Double] = []
        var points = 0.0
        // Each expected note once: the notes struck right, then those a wrong key stood for.
        var struck: Set<Int> = []
        for j in judgements where j.verdict.isHit { if let id = j.expected?.id { struck.insert(id) } }
        var wrongNotes: Set<Int> = []
        for j in judgements where j.verdict == .wrongPitch {
            if let id = j.expected?.id, !struck.contains(id) { wrongNotes.insert(id) }
        }
        var wrongCounted: Set<Int> = []
        for j in judgements {
            switch j.verdict {
            case .early: early += 1
            case .onTime: onTime += 1
            case .late: late += 1
            case .wrongPitch:
                if let id = j.expected?.id, wrongNotes.contains(id), wrongCounted.insert(id).inserted { wrong += 1 } else { extra += 1 }
            case .missed:
                if let id = j.expected?.id, wrongNotes.contains(id) { break }
                missed += 1
            case .extra: extra += 1
            }
            if j.verdict.isHit, let e = j.errorMs {
                hit += 1
                errors.append(e)
                points += Self.points(errorMs: e, window: window)
            }
        }
        let total = hit + missed + wrong + extra
        accuracy = total == 0 ? 100 : Self.round(100 * Double(hit) / Double(total))
        score = total == 0 ? 100 : Self.round(100 * points / Double(total))
        if !errors.isEmpty {
            let mean = errors.reduce(0, +) / Double(errors.count)
            let variance = errors.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(errors.count)
            timingMeanMs = Self.round(mean)
            timingSdMs = Self.round(variance.squareRoot())
        }
    }

    /// Points for one hit: 1 when on time, down to 0.5 at the edge of the window.
    public static func points(errorMs: Double, window: TimingWindow) -> Double {
        let off = abs(errorMs) / 1000
        if off <= window.onTime { return 1 }
        let span = window.window - window.onTime
        guard span > 0 else { return 0.5 }
        return max(0.5, 1 - 0.5 * (off - window.onTime) / span)
    }

    static func round(_ x: Double) -> Double { (x * 100).rounded() / 100 }
}

/// One section's figures, with its index in the lesson. Encoded flat (`section`, then the
/// figures' fields), as `--report` has always written it.
@dynamicMemberLookup
public struct SectionReport: Equatable, Sendable, Codable {
    public var section: Int
    public var figures: ScoreFigures

    public init(section: Int, _ figures: ScoreFigures) {
        self.section = section
        self.figures = figures
    }

    public subscript<T>(dynamicMember path: KeyPath<ScoreFigures, T>) -> T { figures[keyPath: path] }

    /// Notes the section asked for.
    public var expectedCount: Int { figures.hit + figures.missed + figures.wrong }

    private enum Keys: String, CodingKey { case section }

    public init(from decoder: any Decoder) throws {
        section = try decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .section)
        figures = try ScoreFigures(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(section, forKey: .section)
        try figures.encode(to: encoder)
    }
}

/// The results of one pass, as the results panel shows it and `--report FILE` writes it: the
/// pass's `ScoreFigures`, the window it was judged with, the input offset subtracted from the
/// played times (`offsetMs`), and each section's figures. Encoded flat, field for field as
/// `--report` has always written it, plus `offsetMs`.
@dynamicMemberLookup
public struct PassReport: Equatable, Sendable, Codable {
    public var figures: ScoreFigures
    public var windowMs: Double
    public var onTimeMs: Double
    /// The learner's input offset subtracted from every played time before judging (ms,
    /// positive = their keys arrive late): the calibrated one, `--offset`, or 0.
    public var offsetMs: Double = 0
    /// Per-section figures, by section index.
    public var sections: [SectionReport]
    /// Every expected note as the ear heard it (bar, beat, pitch, hand, onset, release,
    /// loudness): empty for reports written before it.
    public var notes: [NoteVerdict] = []
    /// Spread of the played velocities about what the dynamics ask (0 = even), nil without
    /// real velocities (the computer keyboard).
    public var evennessSpread: Double?
    /// True when the lesson marks dynamics, so loudness was judged.
    public var dynamics = false
    /// Wait mode: mean seconds from one chord to the next held (timing means nothing there).
    public var secondsPerChord: Double?
    /// With `--follow`: the tempo the learner played, bar by bar, nil otherwise.
    public var barTempo: [BarTempo]?

    /// The learner's tempo in a bar, as a percent of the lesson's own.
    public struct BarTempo: Equatable, Sendable, Codable {
        public var bar: Int
        public var percent: Double
        public init(bar: Int, percent: Double) {
            self.bar = bar
            self.percent = percent
        }
    }

    public subscript<T>(dynamicMember path: KeyPath<ScoreFigures, T>) -> T { figures[keyPath: path] }

    /// Builds the report from judgements; `sections` lists sections that must appear even
    /// when nothing in them was judged.
    public init(judgements: [Judgement], window: TimingWindow = TimingWindow(), sections: Set<Int> = []) {
        figures = ScoreFigures(judgements, window: window)
        windowMs = ScoreFigures.round(window.window * 1000)
        onTimeMs = ScoreFigures.round(window.onTime * 1000)
        // One pass over the judgements (not one per section: a long piece has hundreds of sections).
        var bySection: [Int: [Judgement]] = [:]
        for j in judgements { bySection[j.section, default: []].append(j) }
        let indices = sections.union(bySection.keys).sorted()
        self.sections = indices.map { s in
            SectionReport(section: s, ScoreFigures(bySection[s] ?? [], window: window))
        }
    }

    private enum Keys: String, CodingKey { case windowMs, onTimeMs, offsetMs, sections, notes, evennessSpread, dynamics, secondsPerChord, barTempo }

    /// Reads older report lines too (before `offsetMs`, which then reads as 0, and before the
    /// ear's `notes`, which read as none).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        figures = try ScoreFigures(from: decoder)
        windowMs = try c.decode(Double.self, forKey: .windowMs)
        onTimeMs = try c.decode(Double.self, forKey: .onTimeMs)
        offsetMs = try c.decodeIfPresent(Double.self, forKey: .offsetMs) ?? 0
        sections = try c.decode([SectionReport].self, forKey: .sections)
        notes = try c.decodeIfPresent([NoteVerdict].self, forKey: .notes) ?? []
        evennessSpread = try c.decodeIfPresent(Double.self, forKey: .evennessSpread)
        dynamics = try c.decodeIfPresent(Bool.self, forKey: .dynamics) ?? false
        secondsPerChord = try c.decodeIfPresent(Double.self, forKey: .secondsPerChord)
        barTempo = try c.decodeIfPresent([BarTempo].self, forKey: .barTempo)
    }

    public func encode(to encoder: any Encoder) throws {
        try figures.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(windowMs, forKey: .windowMs)
        try c.encode(onTimeMs, forKey: .onTimeMs)
        try c.encode(offsetMs, forKey: .offsetMs)
        try c.encode(sections, forKey: .sections)
        try c.encode(notes, forKey: .notes)
        try c.encodeIfPresent(evennessSpread, forKey: .evennessSpread)
        try c.encode(dynamics, forKey: .dynamics)
        try c.encodeIfPresent(secondsPerChord, forKey: .secondsPerChord)
        try c.encodeIfPresent(barTempo, forKey: .barTempo)
    }

    /// Adds what the ear heard: the notes list, the counts (in the pass's and each section's
    /// figures; the score is unchanged) and the evenness figure. `section` gives a note's section.
    public mutating func add(_ hearing: Ear.Hearing, section: (NoteVerdict) -> Int) {
        notes = hearing.notes
        evennessSpread = hearing.evennessSpread
        dynamics = hearing.hasDynamics
        figures.count(notes)
        // Each section's counts in one pass over the notes.
        var bySection: [Int: ScoreFigures] = [:]
        for n in notes where n.release.map({ $0 != .ok }) ?? false || n.loudness.map({ $0 != .ok }) ?? false {
            bySection[section(n), default: ScoreFigures()].tally(n)
        }
        for i in sections.indices {
            let f = bySection[sections[i].section] ?? ScoreFigures()
            sections[i].figures.short = f.short
            sections[i].figures.long = f.long
            sections[i].figures.loud = f.loud
            sections[i].figures.soft = f.soft
        }
    }

    /// The section to work on: lowest figures.accuracy among sections with notes to play (ties: lower
    /// score, then the earlier section). Nil when every section is perfect.
    public var weakestSection: SectionReport? {
        let candidates = sections.filter { $0.expectedCount > 0 || $0.wrong + $0.extra > 0 }
        guard let worst = candidates.min(by: { a, b in
            a.accuracy != b.accuracy ? a.accuracy < b.accuracy
                : a.score != b.score ? a.score < b.score : a.section < b.section
        }) else { return nil }
        return worst.accuracy >= 100 ? nil : worst
    }

    /// Speed trainer: a pass at or above `threshold` % accuracy lets the tempo step up.
    public func isClean(threshold: Double = 90) -> Bool {
        figures.accuracy >= threshold
    }

    /// The results panel's lines, e.g. "Accuracy 92% · score 88/100". `sectionName` turns a
    /// section index into what the learner sees (e.g. "bars 9–12").
    public func summaryLines(sectionName: (Int) -> String = { "section \($0 + 1)" }) -> [String] {
        func pct(_ x: Double) -> String { x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String((x * 10).rounded() / 10) }
        func ms(_ x: Double) -> String { (x >= 0 ? "+" : "−") + String(Int(saturating: abs(x).rounded())) }
        var lines = [
            "Accuracy \(pct(figures.accuracy))% · score \(pct(figures.score))/100",
            "Hit \(figures.hit) (early \(figures.early), on time \(figures.onTime), late \(figures.late)) · missed \(figures.missed) · wrong \(figures.wrong) · extra \(figures.extra)",
        ]
        if let perChord = secondsPerChord {
            // Every key not held for a chord: a note's wrong key, or one struck before the right one.
            lines.append("Wait mode: \(figures.hit) notes held, \(figures.wrong + figures.extra) wrong keys, \(String(format: "%.1f", perChord)) s per chord")
        } else {
            lines.append(figures.hit > 0 ? "Timing \(ms(figures.timingMeanMs)) ms on average (\(TimingLean(meanMs: figures.timingMeanMs).word)), spread ±\(Int(saturating: figures.timingSdMs.rounded())) ms" : "Timing: no notes hit")
        }
        if let ear = earLine { lines.append(ear) }
        if let weakest = weakestSection {
            lines.append("Work on \(sectionName(weakest.section)): \(pct(weakest.accuracy))% accuracy")
        }
        return lines
    }

    /// "Releases: short 2, long 0 · loudness: loud 1, soft 0 · evenness ±6": nil when the ear
    /// judged nothing (onset-only input).
    public var earLine: String? {
        var parts: [String] = []
        if notes.contains(where: { $0.release != nil }) { parts.append("releases: short \(figures.short), long \(figures.long)") }
        if dynamics { parts.append("loudness: loud \(figures.loud), soft \(figures.soft)") }
        if let e = evennessSpread { parts.append("evenness ±\(Int(saturating: e.rounded()))") }
        guard !parts.isEmpty else { return nil }
        let text = parts.joined(separator: " · ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// Where it went wrong, bar by bar: the first `limit` bars with a fault, in the order
    /// played, then "+N more bars" when more went wrong, e.g. "bar 9: D4 short, E4 loud (p),
    /// F4 → F#4 wrong" (at most four notes a bar, then "+2").
    public func reviewLines(limit: Int = 3) -> [String] {
        var bars: [(key: Int, label: String, faults: [NoteVerdict])] = []
        var index: [String: Int] = [:]
        for n in notes where n.isFault && !n.bar.isEmpty {
            if let i = index[n.bar] { bars[i].faults.append(n) } else {
                index[n.bar] = bars.count
                bars.append((n.barNumber ?? bars.count, n.bar, [n]))
            }
        }
        // In the order played (notes are in time order; a bar's number orders repeats too).
        let ordered = bars.enumerated().sorted { a, b in a.element.key != b.element.key ? a.element.key < b.element.key : a.offset < b.offset }
            .map(\.element)
        var lines = ordered.prefix(max(0, limit)).map { b in
            var words = b.faults.prefix(4).map(Self.faultText)
            if b.faults.count > 4 { words.append("+\(b.faults.count - 4)") }
            return "bar \(b.label): " + words.joined(separator: ", ")
        }
        let more = ordered.count - lines.count
        if more > 0, limit > 0 { lines.append("+\(more) more bar\(more == 1 ? "" : "s")") }
        return lines
    }

    /// One fault as a bar's line words it: "D4 short", "E4 loud (p)", "F4 → F#4 wrong",
    /// "C4 wrong key first (C#4)".
    public static func faultText(_ n: NoteVerdict) -> String {
        let mark = n.worst
        var aside = ""
        switch mark {
        case .loud, .soft: aside = n.dynamic.map { " (\($0))" } ?? ""  // the dynamic marked there: "E4 loud (p)"
        case .wrongKeyFirst: aside = n.played.map { " (\(PitchName.name($0)))" } ?? ""  // the key struck first
        case .ok, .early, .late, .wrong, .missed, .short, .long: break
        }
        return "\(n.pitchText) \(mark.word)\(aside)"
    }

    /// One JSON object (sorted keys) for `--report FILE`.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
