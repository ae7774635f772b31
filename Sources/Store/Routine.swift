import Foundation
import GRDB
import MIDIFile

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
    public var hand: String?
    public var tempoPercent: Int?
    public var bars: ClosedRange<Int>?
    public var mode: String?
    /// The practice modes an entry may ask for (`etude practice --mode`): watch plays the entry
    /// for listening; wait, play and memory have the learner play it, judged and scored.
    public static let modes = ["watch", "wait", "play", "memory"]
    public var length: Length
    public var pauseSeconds: Int

    public init(source: Source, hand: String? = nil, tempoPercent: Int? = nil, bars: ClosedRange<Int>? = nil,
                mode: String? = nil, length: Length = .repetitions(1), pauseSeconds: Int = 0) {
        self.source = source
        self.hand = hand
        self.tempoPercent = tempoPercent
        self.bars = bars
        self.mode = mode
        self.length = length
        self.pauseSeconds = pauseSeconds
    }

    enum Key: String, CodingKey {
        case lesson, title, random, level, hand, tempo, bars, mode, minutes, repetitions, pause
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if let id = try c.decodeIfPresent(String.self, forKey: .lesson) {
            source = .lesson(id: id, title: try c.decodeIfPresent(String.self, forKey: .title))
        } else if let r = try c.decodeIfPresent(String.self, forKey: .random) {
            switch r {
            case "favourite", "favorite": source = .randomFavourite
            case "level":
                guard let l = try c.decodeIfPresent(Int.self, forKey: .level) else {
                    throw DecodingError.dataCorruptedError(forKey: .level, in: c, debugDescription: "\"random\": \"level\" needs \"level\": N")
                }
                source = .randomLevel(l)
            default:
                throw DecodingError.dataCorruptedError(forKey: .random, in: c, debugDescription: "\"random\" must be \"favourite\" or \"level\"")
            }
        } else {
            throw DecodingError.dataCorruptedError(forKey: .lesson, in: c, debugDescription: "an entry needs \"lesson\" or \"random\"")
        }
        hand = try c.decodeIfPresent(String.self, forKey: .hand)
        tempoPercent = try c.decodeIfPresent(Int.self, forKey: .tempo)
        if let b = try c.decodeIfPresent(String.self, forKey: .bars) {
            guard let r = RoutineEntry.parseBars(b) else {
                throw DecodingError.dataCorruptedError(forKey: .bars, in: c, debugDescription: "bars must look like \"5-8\"")
            }
            bars = r
        }
        // Lenient here (routines stored before modes were checked still load); files are
        // checked on import (`RoutineFile.parse`), specs when written.
        mode = try c.decodeIfPresent(String.self, forKey: .mode).map { $0.lowercased() }
        if let m = try c.decodeIfPresent(Double.self, forKey: .minutes) {
            length = .minutes(m)
        } else {
            length = .repetitions(try c.decodeIfPresent(Int.self, forKey: .repetitions) ?? 1)
        }
        pauseSeconds = try c.decodeIfPresent(Int.self, forKey: .pause) ?? 0
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
        try c.encodeIfPresent(hand, forKey: .hand)
        try c.encodeIfPresent(tempoPercent, forKey: .tempo)
        try c.encodeIfPresent(bars.map { "\($0.lowerBound)-\($0.upperBound)" }, forKey: .bars)
        try c.encodeIfPresent(mode, forKey: .mode)
        switch length {
        case .minutes(let m): try c.encode(m, forKey: .minutes)
        case .repetitions(let n): try c.encode(n, forKey: .repetitions)
        }
        if pauseSeconds != 0 { try c.encode(pauseSeconds, forKey: .pause) }
    }

    /// "5-8" or "5" → 5...8 / 5...5; nil for anything else.
    public static func parseBars(_ s: String) -> ClosedRange<Int>? {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first.flatMap({ Int($0) }), first >= 1 else { return nil }
        if parts.count == 1 { return first...first }
        guard parts.count == 2, let last = Int(parts[1]), last >= first else { return nil }
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
        if let hand { how.append(hand == "both" ? "both hands" : "\(hand) hand") }
        if let tempoPercent { how.append("\(tempoPercent)%") }
        if let bars { how.append("bars \(bars.lowerBound)-\(bars.upperBound)") }
        if let mode { how.append("\(mode) mode") }
        if !how.isEmpty { what += " — " + how.joined(separator: ", ") }
        switch length {
        case .minutes(let m): what += " — \(m == m.rounded() ? String(Int(m)) : String(m)) min"
        case .repetitions(let n): what += " — \(n == 1 ? "once" : "\(n) times")"
        }
        if pauseSeconds > 0 { what += " (pause \(pauseSeconds) s before)" }
        return what
    }

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
                throw StoreError("entry \"\(spec)\": write key=value pairs, e.g. lesson=TITLE;minutes=5")
            }
        }
        var entry = RoutineEntry(source: .randomFavourite)
        var reference: String?
        var haveSource = false
        for (k, v) in pairs {
            func int() throws -> Int {
                guard let n = Int(v), n >= 0 else { throw StoreError("entry \"\(spec)\": \(k) needs a whole number, not \(v)") }
                return n
            }
            switch k {
            case "lesson":
                reference = v
                entry.source = .lesson(id: "", title: nil)
                haveSource = true
            case "random":
                let l = v.lowercased()
                if l == "favourite" || l == "favorite" {
                    entry.source = .randomFavourite
                } else if l.hasPrefix("level"), let n = Int(l.dropFirst(5).trimmingCharacters(in: CharacterSet(charactersIn: ": "))) {
                    entry.source = .randomLevel(n)
                } else {
                    throw StoreError("entry \"\(spec)\": random must be favourite or level:N")
                }
                haveSource = true
            case "hand":
                let h = v.lowercased()
                guard ["right", "left", "both"].contains(h) else { throw StoreError("entry \"\(spec)\": hand must be right, left or both") }
                entry.hand = h
            case "tempo":
                let t = try int()
                guard (10...200).contains(t) else { throw StoreError("entry \"\(spec)\": tempo is a percentage from 10 to 200") }
                entry.tempoPercent = t
            case "bars":
                guard let b = parseBars(v) else { throw StoreError("entry \"\(spec)\": bars must look like 5-8") }
                entry.bars = b
            case "mode":
                let m = v.lowercased()
                guard RoutineEntry.modes.contains(m) else { throw StoreError("entry \"\(spec)\": mode must be watch, wait, play or memory") }
                entry.mode = m
            case "minutes", "min":
                guard let m = Double(v), m > 0 else { throw StoreError("entry \"\(spec)\": minutes must be a positive number") }
                entry.length = .minutes(m)
            case "reps", "repetitions", "times":
                let n = try int()
                guard n > 0 else { throw StoreError("entry \"\(spec)\": repetitions must be at least 1") }
                entry.length = .repetitions(n)
            case "pause":
                entry.pauseSeconds = try int()
            default:
                throw StoreError("entry \"\(spec)\": unknown key \(k) (lesson, random, hand, tempo, bars, mode, minutes, reps, pause)")
            }
        }
        guard haveSource else { throw StoreError("entry \"\(spec)\": say what to play: lesson=TITLE, random=favourite or random=level:N") }
        return (entry, reference)
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

    struct Document: Codable {
        var etudeRoutine: Int
        var name: String
        var entries: [RoutineEntry]
    }

    public static func export(_ routine: Routine) throws -> String {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try enc.encode(Document(etudeRoutine: version, name: routine.name, entries: routine.entries))
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    public static func parse(_ text: String) throws -> Routine {
        let doc: Document
        do {
            doc = try JSONDecoder().decode(Document.self, from: Data(text.utf8))
        } catch let DecodingError.dataCorrupted(ctx) {
            throw StoreError("not a routine file: \(ctx.debugDescription)")
        } catch let DecodingError.keyNotFound(key, _) {
            throw StoreError("not a routine file: missing \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(_, ctx) {
            throw StoreError("not a routine file: wrong type at \(ctx.codingPath.map(\.stringValue).joined(separator: "."))")
        } catch {
            throw StoreError("not a routine file (\(error))")
        }
        guard doc.etudeRoutine <= version else {
            throw StoreError("routine file version \(doc.etudeRoutine) is newer than this Etude understands (\(version)); update Etude")
        }
        guard !doc.name.trimmingCharacters(in: .whitespaces).isEmpty else { throw StoreError("routine file: the name is empty") }
        for (i, e) in doc.entries.enumerated() {
            if let m = e.mode, !RoutineEntry.modes.contains(m) {
                throw StoreError("routine file: entry \(i + 1): mode \(TextDecoding.sanitize(m)) is not one of watch, wait, play, memory")
            }
        }
        return Routine(name: doc.name, entries: doc.entries)
    }

    /// A plain numbered list for paper.
    public static func text(_ routine: Routine, titles: [String: String] = [:]) -> String {
        var out = "\(routine.name)\n"
        for (i, e) in routine.entries.enumerated() {
            var title: String?
            if case .lesson(let id, _) = e.source { title = titles[id] }
            out += "\(i + 1). \(e.text(title: title))\n"
        }
        return out
    }
}

extension Store {
    /// Creates or replaces the routine of that name.
    public func saveRoutine(_ routine: Routine, now: Date = Date()) throws {
        let name = routine.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw StoreError("a routine needs a name") }
        try writer.write { db in
            if var old = try RoutineRecord.filter(Column("name") == name).fetchOne(db) {
                old.entries = routine.entries
                old.updatedAt = now
                try old.update(db)
            } else {
                var r = RoutineRecord(id: nil, name: name, entries: routine.entries, createdAt: now, updatedAt: now)
                try r.insert(db)
            }
        }
    }

    public func routine(named name: String) throws -> Routine? {
        try writer.read { db in
            try RoutineRecord.filter(Column("name") == name).fetchOne(db).map { Routine(name: $0.name, entries: $0.entries) }
        }
    }

    public func routines() throws -> [Routine] {
        try writer.read { db in
            try RoutineRecord.order(Column("name").collating(.nocase)).fetchAll(db).map { Routine(name: $0.name, entries: $0.entries) }
        }
    }

    @discardableResult
    public func deleteRoutine(named name: String) throws -> Bool {
        try writer.write { db in try RoutineRecord.filter(Column("name") == name).deleteAll(db) > 0 }
    }

    public func renameRoutine(_ name: String, to newName: String) throws {
        try writer.write { db in
            guard var r = try RoutineRecord.filter(Column("name") == name).fetchOne(db) else {
                throw StoreError("no routine named \(name); see `etude routine list`")
            }
            if try RoutineRecord.filter(Column("name") == newName).fetchCount(db) > 0 {
                throw StoreError("a routine named \(newName) already exists")
            }
            r.name = newName
            try r.update(db)
        }
    }

    /// Imports a routine file; a lesson id unknown here is matched by its title when possible.
    public func importRoutine(_ text: String, as name: String? = nil) throws -> Routine {
        var routine = try RoutineFile.parse(text)
        if let name { routine.name = name }
        for i in routine.entries.indices {
            guard case .lesson(let id, let title) = routine.entries[i].source else { continue }
            if try listing(id: id) == nil, let title,
               let match = try lessons().first(where: { $0.lesson.title.lowercased() == title.lowercased() }) {
                routine.entries[i].source = .lesson(id: match.lesson.id, title: title)
            }
        }
        try saveRoutine(routine)
        return routine
    }
}
