import Foundation
import Lesson
import MIDIFile
import Reports
import Store

/// A practice routine: a named, ordered list of entries a teacher can hand to a pupil as a
/// small JSON file (see `RoutineFile`).
public struct Routine: Equatable, Sendable {
    public var name: String
    public var entries: [RoutineEntry]

    public init(name: String, entries: [RoutineEntry]) {
        self.name = name
        self.entries = entries
    }
}

/// One step of a routine: what to play, how, for how long, and the pause before it.
/// Encoded flat (see `RoutineFile` for the documented format).
public struct RoutineEntry: Equatable, Sendable, Codable {
    public enum Source: Equatable, Sendable {
        /// A catalogue lesson by content id; the title helps a pupil whose copy differs.
        case lesson(id: String, title: String?)
        case randomFavourite
        case randomLevel(Int)
    }

    public enum Length: Equatable, Sendable {
        case minutes(Double)
        case repetitions(Int)
    }

    public var source: Source
    /// Overrides; `nil` keeps the lesson's default.
    public var hand: PracticePlan.Hands?
    /// Percent of the written tempo, checked as every tempo is (`TempoPercent`).
    public var tempoPercent: Int?
    public var bars: ClosedRange<Int>?
    /// Watch plays the entry for listening; wait, play and memory have the learner play it,
    /// judged and scored (`etude practice --mode`).
    public var mode: PracticeMode?
    public var length: Length
    public var pauseSeconds: Int
    /// `transpose=+2`, `transpose=D`: the lesson moved for this entry (`--transpose`), stored as its text.
    public var transpose: Transposition.Request?
    /// `follow=on`: Etude's part keeps the learner's tempo (`--follow`; play and memory mode).
    public var follow: Bool?
    /// `recording=FILE`: played with a recording of the lesson (`--recording`): heard instead
    /// of the synth's lesson, the lesson paced by it; a path (made absolute when given).
    public var recording: String?
    /// What was wrong with this entry as stored (a routine saved before entries were checked):
    /// it still loads, and `problem` says what to fix.
    var storedProblem: String?

    public init(source: Source, hand: PracticePlan.Hands? = nil, tempoPercent: Int? = nil, bars: ClosedRange<Int>? = nil,
                mode: PracticeMode? = nil, length: Length = .repetitions(1), pauseSeconds: Int = 0) {
        self.source = source
        self.hand = hand
        self.tempoPercent = tempoPercent
        self.bars = bars
        self.mode = mode
        self.length = length
        self.pauseSeconds = pauseSeconds
    }

    enum Key: String, CodingKey {
        case lesson, title, random, level, hand, tempo, bars, mode, minutes, repetitions, pause, transpose, follow, recording
    }

    /// Any key of an entry, to find the ones `Key` does not know.
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes leniently: routines stored before entries were checked still load (an odd mode
    /// or tempo is reported when the routine runs; see `problem`). Files and edits are checked
    /// whole by `RoutineFile.parse`, which decodes `Fields` and runs `validated`.
    public init(from decoder: any Decoder) throws {
        let f = try Fields(from: decoder)
        do {
            self = try RoutineEntry.validated(f)
        } catch {
            // What can be read is kept; the rest is reported when the routine runs.
            let minutes = f.minutes.flatMap { $0.isFinite && $0 > 0 ? min($0, RoutineEntry.maxMinutes) : nil }
            self.init(source: f.source, hand: f.hand.flatMap { try? PracticePlan.parseHands($0) },
                      tempoPercent: f.tempo.flatMap { TempoPercent.range.contains(Double($0)) ? $0 : nil },
                      bars: f.bars.flatMap(RoutineEntry.parseBars), mode: f.mode.flatMap { try? PracticeMode(parsing: $0) },
                      length: minutes.map { .minutes($0) } ?? .repetitions(min(max(1, f.repetitions ?? 1), RoutineEntry.maxRepetitions)),
                      pauseSeconds: min(max(0, f.pause ?? 0), RoutineEntry.maxPause))
            transpose = f.transpose.flatMap { try? Transposition.Request.parse($0) }
            follow = f.follow.flatMap(RoutineEntry.parseSwitch)
            recording = f.recording
            storedProblem = error.message
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch source {
        case .lesson(let id, let title):
            try c.encode(id, forKey: .lesson)
            try c.encodeIfPresent(title, forKey: .title)
        case .randomFavourite:
            try c.encode("favourite", forKey: .random)
        case .randomLevel(let l):
            try c.encode("level", forKey: .random)
            try c.encode(l, forKey: .level)
        }
        try c.encodeIfPresent(hand?.rawValue, forKey: .hand)
        try c.encodeIfPresent(tempoPercent, forKey: .tempo)
        try c.encodeIfPresent(bars.map { "\($0.lowerBound)-\($0.upperBound)" }, forKey: .bars)
        try c.encodeIfPresent(mode?.rawValue, forKey: .mode)
        switch length {
        case .minutes(let m): try c.encode(m, forKey: .minutes)
        case .repetitions(let n): try c.encode(n, forKey: .repetitions)
        }
        if pauseSeconds != 0 { try c.encode(pauseSeconds, forKey: .pause) }
        try c.encodeIfPresent(transpose?.text, forKey: .transpose)
        try c.encodeIfPresent(follow.map { $0 ? "on" : "off" }, forKey: .follow)
        try c.encodeIfPresent(recording, forKey: .recording)
    }

    /// `on` / `off` (and yes/no, true/false), nil for anything else.
    static func parseSwitch(_ s: String) -> Bool? {
        switch s.lowercased() {
        case "on", "yes", "true": return true
        case "off", "no", "false": return false
        default: return nil
        }
    }

    /// "5-8" or "5" → 5...8 / 5...5; nil for anything else.
    public static func parseBars(_ s: String) -> ClosedRange<Int>? {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first.flatMap({ Int($0) }), first >= 1, first <= maxBar else { return nil }
        if parts.count == 1 { return first...first }
        guard parts.count == 2, let last = Int(parts[1]), last >= first, last <= maxBar else { return nil }
        return first...last
    }

    /// One line for the paper list: "Minuet in G — right hand, 80%, bars 1-8 — 5 min (pause 10 s)".
    public func text(title: String? = nil) -> String {
        var what: String
        switch source {
        case .lesson(let id, let t): what = title ?? t ?? String(id.prefix(8))
        case .randomFavourite: what = "a random favourite"
        case .randomLevel(let l): what = "a random lesson of level \(l)"
        }
        var how: [String] = []
        if let hand { how.append(hand == .both ? "both hands" : "\(hand.rawValue) hand") }
        if let tempoPercent { how.append("\(tempoPercent)%") }
        if let bars { how.append("bars \(bars.lowerBound)-\(bars.upperBound)") }
        if let mode { how.append("\(mode.rawValue) mode") }
        if let transpose { how.append("transposed \(transpose)") }
        if follow == true { how.append("following your tempo") }
        if let recording { how.append("with " + TextDecoding.sanitize((recording as NSString).lastPathComponent)) }
        if !how.isEmpty { what += " — " + how.joined(separator: ", ") }
        switch length {
        case .minutes(let m): what += " — \(RoutineEntry.number(m)) min"
        case .repetitions(let n): what += " — \(n == 1 ? "once" : "\(n) times")"
        }
        if pauseSeconds > 0 { what += " (pause \(pauseSeconds) s before)" }
        return what
    }

    /// The entry keys as help prints them (`etude routine`, `routine new`, `routine edit`): one
    /// text beside the parser that reads them, so the help names every key the parser takes.
    public static let specHelp = """
        An entry is key=value pairs separated by ';': lesson=TITLE|ID|PATH or random=favourite or random=level:N; hand=right|left|both, tempo=PERCENT (10–400), bars=FIRST-LAST, mode=watch|wait|play|memory; minutes=M or reps=N (default 1); pause=SECONDS (before the entry); transpose=+2 or transpose=D (semitones or a key); follow=on (play and memory mode: Etude keeps your tempo); recording=FILE (a recording of the lesson heard instead of the synth, the lesson moving with it; tempo 50–150).
        """

    /// The keys `parseSpec` reads, in the order help lists them.
    public static let specKeys = ["lesson", "random", "hand", "tempo", "bars", "mode", "minutes", "reps", "pause", "transpose", "follow", "recording"]

    /// Parses the command-line entry form, `key=value` pairs separated by `;` or `,`:
    /// `lesson=Minuet in G;hand=right;tempo=80;bars=1-8;mode=wait;minutes=5;pause=10`,
    /// `random=favourite;reps=3`, `random=level:2;minutes=3`. The lesson reference is returned
    /// unresolved (the caller looks it up in the catalogue).
    public static func parseSpec(_ spec: String) throws -> (entry: RoutineEntry, lessonReference: String?) {
        var pairs: [(String, String)] = []
        for piece in spec.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            if let eq = piece.firstIndex(of: "=") {
                pairs.append((piece[..<eq].trimmingCharacters(in: .whitespaces).lowercased(),
                              piece[piece.index(after: eq)...].trimmingCharacters(in: .whitespaces)))
            } else if !pairs.isEmpty {
                pairs[pairs.count - 1].1 += "," + piece   // a comma inside a title
            } else {
                throw RoutineError("entry \"\(spec)\": write key=value pairs, e.g. lesson=TITLE;minutes=5")
            }
        }
        var fields = Fields(source: .randomFavourite)
        var reference: String?
        var haveSource = false
        for (k, v) in pairs {
            func int() throws -> Int {
                guard let n = Int(v) else { throw RoutineError("entry \"\(spec)\": \(k) needs a whole number, not \(v)") }
                return n
            }
            switch k {
            case "lesson":
                reference = v
                fields.source = .lesson(id: "", title: nil)
                haveSource = true
            case "random":
                let l = v.lowercased()
                if l == "favourite" || l == "favorite" {
                    fields.source = .randomFavourite
                } else if l.hasPrefix("level"), let n = Int(l.dropFirst(5).trimmingCharacters(in: CharacterSet(charactersIn: ": "))) {
                    fields.source = .randomLevel(n)
                } else {
                    throw RoutineError("entry \"\(spec)\": random must be favourite or level:N")
                }
                haveSource = true
            case "hand": fields.hand = v
            case "tempo": fields.tempo = try int()
            case "bars": fields.bars = v
            case "mode": fields.mode = v
            case "minutes", "min":
                guard let m = Double(v) else { throw RoutineError("entry \"\(spec)\": minutes must be a positive number, not \(v)") }
                fields.minutes = m
            case "reps", "repetitions", "times": fields.repetitions = try int()
            case "pause": fields.pause = try int()
            case "transpose": fields.transpose = v
            case "follow": fields.follow = v
            case "recording":
                // A path: kept absolute, so the routine finds it from wherever it runs.
                fields.recording = v.hasPrefix("/") || v.isEmpty ? v : FileManager.default.currentDirectoryPath + "/" + v
            default:
                throw RoutineError("entry \"\(spec)\": unknown key \(k) (\(specKeys.joined(separator: ", ")))")
            }
        }
        guard haveSource else { throw RoutineError("entry \"\(spec)\": say what to play: lesson=TITLE, random=favourite or random=level:N") }
        let entry: RoutineEntry
        do {
            entry = try RoutineEntry.validated(fields)
        } catch {
            throw RoutineError("entry \"\(spec)\": \(error.message)")
        }
        // A recording that cannot be played is said now, not when the routine runs.
        if let path = entry.recording {
            do {
                _ = try RecordingAlign.openRecording(path)
            } catch {
                throw RoutineError("entry \"\(TextDecoding.sanitize(spec))\": recording=\((error as? EtudeFailure)?.message ?? "\(error)")")
            }
        }
        return (entry, reference)
    }
}

extension RoutineEntry {
    /// An entry's fields as written — on the command line (`parseSpec`), in a routine file or
    /// in a routine edited in $EDITOR — before `validated` checks them.
    public struct Fields: Equatable, Sendable, Decodable {
        public var source: Source
        public var hand: String?
        public var tempo: Int?
        public var bars: String?
        public var mode: String?
        public var minutes: Double?
        public var repetitions: Int?
        public var pause: Int?
        public var transpose: String?
        public var follow: String?
        public var recording: String?

        public init(source: Source, hand: String? = nil, tempo: Int? = nil, bars: String? = nil, mode: String? = nil,
                    minutes: Double? = nil, repetitions: Int? = nil, pause: Int? = nil, transpose: String? = nil, follow: String? = nil,
                    recording: String? = nil) {
            self.follow = follow
            self.recording = recording
            self.source = source
            self.hand = hand
            self.tempo = tempo
            self.bars = bars
            self.mode = mode
            self.minutes = minutes
            self.repetitions = repetitions
            self.pause = pause
            self.transpose = transpose
        }

        /// The fields of an entry (to check one stored before entries were checked).
        public init(_ entry: RoutineEntry) {
            self.init(source: entry.source, hand: entry.hand?.rawValue, tempo: entry.tempoPercent,
                      bars: entry.bars.map { "\($0.lowerBound)-\($0.upperBound)" }, mode: entry.mode?.rawValue, pause: entry.pauseSeconds,
                      transpose: entry.transpose?.text, follow: entry.follow.map { $0 ? "on" : "off" }, recording: entry.recording)
            switch entry.length {
            case .minutes(let m): minutes = m
            case .repetitions(let n): repetitions = n
            }
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            // A key this Etude does not know (`keys`, `range`, `fit`: those belong to the input,
            // given to `routine run`) is refused as `--entry` refuses it, never dropped unsaid.
            for key in try decoder.container(keyedBy: AnyKey.self).allKeys where Key(stringValue: key.stringValue) == nil {
                throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription:
                    "unknown key \"\(TextDecoding.sanitize(key.stringValue))\" (lesson, random, hand, tempo, bars, mode, minutes, repetitions, pause, transpose, follow, recording; --keys, --range and --fit go to `etude routine run`)"))
            }
            if let id = try c.decodeIfPresent(String.self, forKey: .lesson) {
                source = .lesson(id: id, title: try c.decodeIfPresent(String.self, forKey: .title))
            } else if let r = try c.decodeIfPresent(String.self, forKey: .random) {
                switch r {
                case "favourite", "favorite": source = .randomFavourite
                case "level":
                    guard let l = try c.decodeIfPresent(Int.self, forKey: .level) else {
                        throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "\"random\": \"level\" needs \"level\": N"))
                    }
                    source = .randomLevel(l)
                default:
                    throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "\"random\" must be \"favourite\" or \"level\""))
                }
            } else {
                throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "an entry needs \"lesson\" or \"random\""))
            }
            hand = try c.decodeIfPresent(String.self, forKey: .hand)
            tempo = try c.decodeIfPresent(Int.self, forKey: .tempo)
            bars = try c.decodeIfPresent(String.self, forKey: .bars)
            mode = try c.decodeIfPresent(String.self, forKey: .mode)
            minutes = try c.decodeIfPresent(Double.self, forKey: .minutes)
            repetitions = try c.decodeIfPresent(Int.self, forKey: .repetitions)
            pause = try c.decodeIfPresent(Int.self, forKey: .pause)
            transpose = try c.decodeIfPresent(String.self, forKey: .transpose)
            follow = try c.decodeIfPresent(String.self, forKey: .follow)
            recording = try c.decodeIfPresent(String.self, forKey: .recording)
        }
    }

    /// The longest an entry may run, the most repetitions and the longest pause: beyond these a
    /// value is a typo, not a plan (and a number like 1e308 must never reach a timer).
    public static let maxMinutes = 24.0 * 60
    public static let maxRepetitions = 10_000
    public static let maxPause = 3600
    public static let maxBar = 99_999
    public static let levels = 0...1000

    /// A plan's problem in an entry's words: "tempo=900: the tempo must be between 10% and 400%".
    public static func words(_ error: PlanError) -> String {
        error.worded { setting, value in "\(setting.rawValue)=\(value)" }
    }

    /// The one check of an entry, wherever it comes from (`--entry`, `routine edit --add/--set`,
    /// an imported file, a routine edited in $EDITOR, a stored routine about to run). Hands,
    /// tempo and mode are read by the same parsers as `etude practice`; the message names the
    /// field, e.g. "tempo=900: the tempo must be between 10% and 400%"; callers say which entry.
    public static func validated(_ f: Fields) throws(RoutineError) -> RoutineEntry {
        func shown(_ s: String) -> String { TextDecoding.sanitize(s) }
        func check<T>(_ body: () throws(PlanError) -> T) throws(RoutineError) -> T {
            do { return try body() } catch { throw RoutineError(shown(words(error))) }
        }
        let hand = try f.hand.map { h throws(RoutineError) in try check { () throws(PlanError) in try PracticePlan.parseHands(h) } }
        if let t = f.tempo { _ = try check { () throws(PlanError) in try TempoPercent(Double(t), as: "\(t)") } }
        var bars: ClosedRange<Int>?
        if let b = f.bars {
            guard let r = parseBars(b) else { throw RoutineError("bars must look like 5-8 (first bar, last bar), not \(shown(b))") }
            bars = r
        }
        let mode = try f.mode.map { m throws(RoutineError) in try check { () throws(PlanError) in try PracticeMode(parsing: m) } }
        if case .randomLevel(let l) = f.source, !levels.contains(l) {
            throw RoutineError("level must be a whole number from \(levels.lowerBound) to \(levels.upperBound), not \(l)")
        }
        let length: Length
        switch (f.minutes, f.repetitions) {
        case (.some, .some):
            throw RoutineError("give minutes or repetitions (reps), not both")
        case (.some(let m), nil):
            guard m.isFinite, m > 0 else { throw RoutineError("minutes must be a positive number, not \(number(m))") }
            guard m <= maxMinutes else { throw RoutineError("minutes must be at most \(Int(maxMinutes)) (a day), not \(number(m))") }
            length = .minutes(m)
        case (nil, .some(let n)):
            guard n >= 1 else { throw RoutineError("repetitions must be at least 1, not \(n)") }
            guard n <= maxRepetitions else { throw RoutineError("repetitions must be at most \(maxRepetitions), not \(n)") }
            length = .repetitions(n)
        case (nil, nil):
            length = .repetitions(1)
        }
        let pause = f.pause ?? 0
        guard pause >= 0 else { throw RoutineError("pause is a whole number of seconds, 0 or more, not \(pause)") }
        guard pause <= maxPause else { throw RoutineError("pause must be at most \(maxPause) seconds (an hour), not \(pause)") }
        var entry = RoutineEntry(source: f.source, hand: hand, tempoPercent: f.tempo, bars: bars, mode: mode, length: length, pauseSeconds: pause)
        entry.transpose = try f.transpose.map { t throws(RoutineError) in try check { () throws(PlanError) in try Transposition.Request.parse(t) } }
        if let text = f.follow {
            guard let on = parseSwitch(text) else { throw RoutineError("follow must be on or off, not \(shown(text))") }
            if on && !(mode?.follows ?? false) {
                throw RoutineError("follow=on: Etude follows your tempo in play and memory mode; add mode=play or mode=memory")
            }
            entry.follow = on
        }
        if let path = f.recording {
            guard !path.isEmpty else { throw RoutineError("recording= needs a file: recording=take.flac") }
            if entry.follow == true {
                throw RoutineError("follow=on with recording=: the recording sets the time, it cannot follow yours; leave one out")
            }
            if let t = f.tempo, !RecordingPractice.tempoRange.contains(Double(t)) {
                throw RoutineError("tempo=\(t): a recording plays from \(Int(RecordingPractice.tempoRange.lowerBound))% to \(Int(RecordingPractice.tempoRange.upperBound))% of its speed; choose a tempo in that range")
            }
            entry.recording = path
        }
        return entry
    }

    /// -2 as "-2", 0.5 as "0.5".
    static func number(_ m: Double) -> String {
        m.isFinite && abs(m) < 1e15 && m == m.rounded() ? String(Int(m)) : String(m)
    }

    /// What is wrong with this entry (a stored one may predate the checks), or nil.
    public var problem: String? {
        if let storedProblem { return storedProblem }
        do {
            _ = try RoutineEntry.validated(Fields(self))
            return nil
        } catch {
            return error.message
        }
    }
}

/// The routine exchange file, version 1 — small and hand-editable JSON:
///
/// ```json
/// {
///   "etudeRoutine": 1,
///   "name": "Morning warm-up",
///   "entries": [
///     {"lesson": "<sha-256 of the .mid>", "title": "Minuet in G", "hand": "right",
///      "tempo": 80, "bars": "1-8", "mode": "wait", "minutes": 5, "pause": 10},
///     {"random": "favourite", "repetitions": 3},
///     {"random": "level", "level": 2, "minutes": 3}
///   ]
/// }
/// ```
/// `lesson` is the content id shown by `etude list --json`; `title` is used when that id is not
/// in the pupil's catalogue. Give `minutes` or `repetitions` (default 1); `pause` is seconds.
public enum RoutineFile {
    public static let version = 1
    /// The largest routine file `routine import` reads (a routine of 500 entries is 60 KB).
    public static let maxBytes = 1 << 20

    struct Document: Codable {
        var etudeRoutine: Int
        var name: String
        var entries: [RoutineEntry]
    }

    public static func export(_ routine: Routine) throws -> String {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try enc.encode(Document(etudeRoutine: version, name: routine.name, entries: routine.entries))
        return JSONOutput.escapingControls(String(decoding: data, as: UTF8.self)) + "\n"
    }

    /// The file as written: entries as `Fields`, each checked by `RoutineEntry.validated`.
    struct Written: Decodable {
        var etudeRoutine: Int
        var name: String
        var entries: [RoutineEntry.Fields]
    }

    /// Reads and checks a routine file (imported, or edited in $EDITOR). Every error is one
    /// line naming what is wrong and where (e.g. "entry 2: tempo 900: the tempo must be between 10% and 400%").
    public static func parse(_ text: String) throws -> Routine {
        let doc: Written
        do {
            doc = try JSONDecoder().decode(Written.self, from: Data(text.utf8))
        } catch let DecodingError.dataCorrupted(ctx) {
            if ctx.codingPath.isEmpty {
                throw RoutineError("not valid JSON\(jsonDetail(text, ctx.underlyingError))")
            }
            throw RoutineError("\(place(ctx.codingPath)): \(ctx.debugDescription)")
        } catch let DecodingError.keyNotFound(key, ctx) {
            let at = ctx.codingPath.isEmpty ? "" : place(ctx.codingPath) + ": "
            throw RoutineError("not a routine file: \(at)missing \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(type, ctx) {
            if ctx.codingPath.isEmpty {
                throw RoutineError("not a routine file: write a JSON object with \"etudeRoutine\", \"name\" and \"entries\"")
            }
            throw RoutineError("\(place(ctx.codingPath)): \(typeName(type))")
        } catch let DecodingError.valueNotFound(type, ctx) {
            throw RoutineError("\(place(ctx.codingPath)): \(typeName(type))")
        } catch {
            throw RoutineError("not a routine file (\(error))")
        }
        guard doc.etudeRoutine <= version else {
            throw RoutineError("routine file version \(doc.etudeRoutine) is newer than this Etude understands (\(version)); update Etude")
        }
        guard !doc.name.trimmingCharacters(in: .whitespaces).isEmpty else { throw RoutineError("routine file: the name is empty") }
        guard !doc.entries.isEmpty else { throw RoutineError("the routine has no entries; give at least one in \"entries\"") }
        var entries: [RoutineEntry] = []
        for (i, fields) in doc.entries.enumerated() {
            do {
                entries.append(try RoutineEntry.validated(fields))
            } catch {
                throw RoutineError("entry \(i + 1): \(error.message)")
            }
        }
        return Routine(name: doc.name, entries: entries)
    }

    /// "entry 2: tempo" for a decoding path like entries[1].tempo.
    static func place(_ path: [any CodingKey]) -> String {
        var parts: [String] = []
        var rest = path[...]
        if rest.first?.stringValue == "entries", rest.count >= 2, let i = rest[rest.startIndex + 1].intValue {
            parts.append("entry \(i + 1)")
            rest = rest.dropFirst(2)
        }
        let keys = rest.map(\.stringValue).joined(separator: ".")
        if !keys.isEmpty { parts.append(keys) }
        return parts.isEmpty ? "the file" : parts.joined(separator: ": ")
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: return "must be a whole number"
        case is Double.Type: return "must be a number"
        case is String.Type: return "must be text in quotes"
        default: return "has the wrong type"
        }
    }

    /// Where and how the JSON is broken, from the JSON parser's own words when it gives any:
    /// ": invalid value at line 3, column 5" (its "around character N" as a line and column).
    static func jsonDetail(_ text: String, _ error: (any Error)?) -> String {
        var description = error.flatMap { ($0 as NSError).userInfo[NSDebugDescriptionErrorKey] as? String }
        if description == nil {
            do { _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) } catch {
                description = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            }
        }
        guard var d = description?.trimmingCharacters(in: .whitespacesAndNewlines), !d.isEmpty else { return "" }
        while d.hasSuffix(".") { d.removeLast() }
        if d == "Unexpected end of file during JSON parse" { return ": it ends too soon (a missing } or ])" }
        if let r = d.range(of: " around character "), let offset = Int(d[r.upperBound...]) {
            let before = Data(text.utf8).prefix(max(0, offset))
            let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? before.startIndex
            let column = String(decoding: before[lineStart...], as: UTF8.self).count + 1
            d = String(d[..<r.lowerBound]) + " at line \(line), column \(column)"
        }
        return ": " + TextDecoding.sanitize(d.prefix(1).lowercased() + d.dropFirst())
    }

    /// A plain numbered list for paper.
    public static func text(_ routine: Routine, titles: [String: String] = [:]) -> String {
        var out = "\(safe(routine.name))\n"
        for (i, e) in routine.entries.enumerated() {
            var title: String?
            if case .lesson(let id, _) = e.source { title = titles[id] }
            out += "\(i + 1). \(e.text(title: title))\n"
        }
        return out
    }
}


/// A routine (an entry, a file, an edit) that does not hold up: one line naming what is wrong
/// and where; the command adds which file or that the stored routine is unchanged.
public struct RoutineError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
