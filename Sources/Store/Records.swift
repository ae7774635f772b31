import Foundation
import GRDB
import Judge
import Lesson

/// A lesson in the catalogue, identified by the SHA-256 of its file's bytes; metadata is read
/// from the file (tags, tracks, tempo, signatures) when it is first seen or changes.
public struct LessonInfo: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "lesson"
    public var id: String
    public var title: String
    public var composer: String?
    public var level: Int?
    public var description: String?
    public var durationSeconds: Double
    /// 1 or 2 (0 when the file has no notes): how many hands the lesson is written for.
    public var hands: Int
    public var keyName: String?
    /// "3/4" style.
    public var timeSignature: String?
    /// The tempo at the start, in quarter notes per minute.
    public var tempoBPM: Double?
    public var noteCount: Int
    /// "midi" for now ("abc" once that reader lands).
    public var format: String
    /// Lowercased title, composer, description, key and first file name, for search (left empty
    /// in `LessonListing`s, which never need it).
    public var searchText: String
    public var firstSeen: Date

    public init(id: String, title: String, composer: String? = nil, level: Int? = nil, description: String? = nil,
                durationSeconds: Double = 0, hands: Int = 0, keyName: String? = nil, timeSignature: String? = nil,
                tempoBPM: Double? = nil, noteCount: Int = 0, format: String = "midi", searchText: String = "",
                firstSeen: Date = Date()) {
        self.id = id
        self.title = title
        self.composer = composer
        self.level = level
        self.description = description
        self.durationSeconds = durationSeconds
        self.hands = hands
        self.keyName = keyName
        self.timeSignature = timeSignature
        self.tempoBPM = tempoBPM
        self.noteCount = noteCount
        self.format = format
        self.searchText = searchText
        self.firstSeen = firstSeen
    }

    /// What a number read back from the database may be: a damaged or hand-edited file must
    /// not carry 1e308 or infinity into a list or the browser.
    static let secondsRange = 0.0...1e9
    static let bpmRange = 0.0...1e8
    static let scoreRange = -1e6...1e6

    /// `value` when finite and in `range`, else nil.
    static func sane(_ value: Double?, _ range: ClosedRange<Double>) -> Double? {
        guard let value, value.isFinite, range.contains(value) else { return nil }
        return value
    }

    /// Decoded by hand: the Codable path costs too much per row for a 10,000-lesson search.
    public init(row: Row) throws {
        // With `try`: a value that does not convert (a damaged or hand-edited file) throws
        // for this row (skipped, see `DamagedRows`) instead of trapping in a subscript.
        id = try row.decode(forColumn: "id")
        title = try row.decode(forColumn: "title")
        composer = try row.decode(forColumn: "composer")
        level = try row.decode(forColumn: "level")
        description = try row.decode(forColumn: "description")
        durationSeconds = LessonInfo.sane(try? row.decode(Double?.self, forColumn: "durationSeconds"), LessonInfo.secondsRange) ?? 0
        hands = try row.decode(forColumn: "hands")
        keyName = try row.decode(forColumn: "keyName")
        timeSignature = try row.decode(forColumn: "timeSignature")
        tempoBPM = LessonInfo.sane(try? row.decode(Double?.self, forColumn: "tempoBPM"), LessonInfo.bpmRange)
        noteCount = try row.decode(forColumn: "noteCount")
        format = try row.decode(forColumn: "format")
        searchText = try row.decode(forColumn: "searchText")
        firstSeen = try row.decode(forColumn: "firstSeen")
    }
}

/// Where a lesson's bytes were found: a catalogue root scan or a file opened directly.
public struct LessonFileRecord: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "lessonFile"
    public enum Source: String, Codable, Sendable {
        case builtin, folder, opened
    }
    public var path: String
    public var lessonID: String
    public var size: Int64
    public var mtime: Double
    public var source: Source
    /// The scanned folder the file was found under; `nil` for opened files.
    public var root: String?

    public init(path: String, lessonID: String, size: Int64, mtime: Double, source: Source, root: String?) {
        self.path = path
        self.lessonID = lessonID
        self.size = size
        self.mtime = mtime
        self.source = source
        self.root = root
    }
}

/// A folder the user added with `etude library add`.
public struct LibraryFolder: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "libraryFolder"
    public var id: Int64?
    public var path: String
    public var addedAt: Date
}

/// One practised pass through a lesson (or a loop of it). Score figures are `nil` for passes
/// that were only watched or not scored.
///
/// The mode and hand are typed columns stored as their raw values; the figures are stored
/// through `ScoreFigures`' own coding, flat in the row's columns (`hit`, `missed`, … `soft`),
/// so a new figure is one field there and one column here.
@dynamicMemberLookup
public struct PassRecord: Codable, Equatable, Sendable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "pass"
    public var id: Int64?
    public var lessonID: String
    public var startedAt: Date
    /// How the pass was played (practice mode, judge, quiz).
    public var mode: PassMode
    public var hand: PracticePlan.Hands
    public var tempoPercent: Int
    public var firstBar: Int?
    public var lastBar: Int?
    public var durationSeconds: Double
    /// The pass's score figures (the one record Judge makes, the results panel shows and
    /// `--report` writes), nil for a pass that was only watched or not scored.
    public var figures: ScoreFigures? {
        didSet { score = figures?.score }
    }
    /// 0…100: the column the best score and the stats read (the figures' score, or a score
    /// alone from older tools).
    public private(set) var score: Double?
    /// False for a pass left before its end (practice quit mid-way): its time counts as practice,
    /// but it is not counted, scored or drawn as a pass.
    public var complete: Bool

    public init(id: Int64? = nil, lessonID: String, startedAt: Date, mode: PassMode, hand: PracticePlan.Hands, tempoPercent: Int,
                firstBar: Int? = nil, lastBar: Int? = nil, durationSeconds: Double, figures: ScoreFigures? = nil,
                complete: Bool = true) {
        self.id = id
        self.lessonID = lessonID
        self.startedAt = startedAt
        self.mode = mode
        self.hand = hand
        self.tempoPercent = tempoPercent
        self.firstBar = firstBar
        self.lastBar = lastBar
        self.durationSeconds = durationSeconds
        self.complete = complete
        self.figures = figures
        self.score = figures?.score
    }

    /// A pass with only a score (older tools and tests that have no other figures).
    public init(lessonID: String, startedAt: Date, mode: PassMode, hand: PracticePlan.Hands, tempoPercent: Int, durationSeconds: Double,
                score: Double?) {
        self.init(lessonID: lessonID, startedAt: startedAt, mode: mode, hand: hand, tempoPercent: tempoPercent,
                  durationSeconds: durationSeconds)
        self.score = score
    }

    private enum CodingKeys: String, CodingKey {
        case id, lessonID, startedAt, mode, hand, tempoPercent, firstBar, lastBar, durationSeconds, complete, score
        /// Present (not NULL) exactly when the pass was scored with figures.
        case hit
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIfPresent(Int64.self, forKey: .id)
        lessonID = try c.decode(String.self, forKey: .lessonID)
        startedAt = try c.decode(Date.self, forKey: .startedAt)
        mode = try c.decode(PassMode.self, forKey: .mode)
        hand = try c.decode(PracticePlan.Hands.self, forKey: .hand)
        tempoPercent = try c.decode(Int.self, forKey: .tempoPercent)
        firstBar = try c.decodeIfPresent(Int.self, forKey: .firstBar)
        lastBar = try c.decodeIfPresent(Int.self, forKey: .lastBar)
        durationSeconds = try c.decode(Double.self, forKey: .durationSeconds)
        complete = try c.decodeIfPresent(Bool.self, forKey: .complete) ?? true
        score = try c.decodeIfPresent(Double.self, forKey: .score)
        // The figures' own coding, from the same row (v13 filled the NULLs older rows held).
        figures = try c.decodeIfPresent(Int.self, forKey: .hit) == nil ? nil : try ScoreFigures(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        if let figures { try figures.encode(to: encoder) }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(lessonID, forKey: .lessonID)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(mode, forKey: .mode)
        try c.encode(hand, forKey: .hand)
        try c.encode(tempoPercent, forKey: .tempoPercent)
        try c.encodeIfPresent(firstBar, forKey: .firstBar)
        try c.encodeIfPresent(lastBar, forKey: .lastBar)
        try c.encode(durationSeconds, forKey: .durationSeconds)
        try c.encode(complete, forKey: .complete)
        try c.encodeIfPresent(score, forKey: .score)
    }

    /// A figure of a scored pass (`pass.hit`, `pass.accuracy`), nil when it was not scored.
    public subscript<T>(dynamicMember path: KeyPath<ScoreFigures, T>) -> T? { figures?[keyPath: path] }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A named loop of a lesson: bars, hand, tempo and what the other hand does.
public struct SavedLoop: Codable, Equatable, Sendable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "savedLoop"
    public var id: Int64?
    public var lessonID: String
    public var name: String
    public var firstBar: Int
    public var lastBar: Int
    /// Stored as its raw value.
    public var hand: PracticePlan.Hands
    public var tempoPercent: Int
    /// What the hand not practised does, stored as its word: "play" (heard), "quiet" or
    /// "mute" (older files may hold "hide", read as "mute").
    public var otherHandMode: PracticePlan.OtherHand
    public var createdAt: Date
    public var updatedAt: Date
    /// The transposition the loop was saved in (`+2`, `D`), nil for none.
    public var transpose: String?

    public init(id: Int64? = nil, lessonID: String, name: String, firstBar: Int, lastBar: Int, hand: PracticePlan.Hands,
                tempoPercent: Int, otherHandMode: PracticePlan.OtherHand, createdAt: Date = Date(), updatedAt: Date = Date(), transpose: String? = nil) {
        self.id = id
        self.lessonID = lessonID
        self.name = name
        self.firstBar = firstBar
        self.lastBar = lastBar
        self.hand = hand
        self.tempoPercent = tempoPercent
        self.otherHandMode = otherHandMode
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.transpose = transpose
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// Where the learner left off: restored by `etude resume` and offered by the browser.
public struct ResumeState: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "resumeState"
    public var id: Int = 1
    public var lessonID: String
    /// The file it was opened from last time (the lesson may since be found elsewhere).
    public var path: String
    public var positionSeconds: Double
    /// The typed settings, stored as their raw values (a row whose values do not read is left
    /// out and reported once, as every damaged row).
    public var hand: PracticePlan.Hands
    public var tempoPercent: Int
    public var mode: PracticeMode
    public var loopFirstBar: Int?
    public var loopLastBar: Int?
    public var loopName: String?
    /// Stored as "play", "quiet" or "mute"; nil in a state saved before v9 (play).
    public var otherHand: PracticePlan.OtherHand?
    /// Whether the metronome was on; nil in a state saved before v9 (off).
    public var metronome: Bool?
    /// The input the session was played on (`--input` as typed); nil in a state saved before
    /// v13 (the instrument set up, else the computer keyboard).
    public var input: String?
    public var updatedAt: Date

    public init(lessonID: String, path: String, positionSeconds: Double, hand: PracticePlan.Hands, tempoPercent: Int, mode: PracticeMode,
                loopFirstBar: Int? = nil, loopLastBar: Int? = nil, loopName: String? = nil, otherHand: PracticePlan.OtherHand? = nil,
                metronome: Bool? = nil, input: String? = nil, updatedAt: Date = Date()) {
        self.input = input
        self.lessonID = lessonID
        self.path = path
        self.positionSeconds = positionSeconds
        self.hand = hand
        self.tempoPercent = tempoPercent
        self.mode = mode
        self.loopFirstBar = loopFirstBar
        self.loopLastBar = loopLastBar
        self.loopName = loopName
        self.otherHand = otherHand
        self.metronome = metronome
        self.updatedAt = updatedAt
    }
}

/// A catalogue row as lists and the browser show it: the lesson, where it is, its star,
/// its best score and when it was last practised.
public struct LessonListing: Equatable, Sendable, FetchableRecord {
    public var lesson: LessonInfo
    public var path: String?
    public var isFavourite: Bool
    public var bestScore: Double?
    public var lastPractised: Date?
    public var passes: Int

    public init(lesson: LessonInfo, path: String?, isFavourite: Bool = false, bestScore: Double? = nil,
                lastPractised: Date? = nil, passes: Int = 0) {
        self.lesson = lesson
        self.path = path
        self.isFavourite = isFavourite
        self.bestScore = bestScore
        self.lastPractised = lastPractised
        self.passes = passes
    }

    /// Reads the columns of `Store.listingSelect` by position (the search hot path).
    public init(row: Row) throws {
        // With `try` (see `LessonInfo.init(row:)`). The figures drawn from the history (best
        // score, last practised, passes) are nil or 0 when a pass row holds garbage: the
        // lesson itself still lists.
        lesson = LessonInfo(id: try row.decode(atIndex: 0), title: try row.decode(atIndex: 1), composer: try row.decode(atIndex: 2),
                            level: try row.decode(atIndex: 3), description: try row.decode(atIndex: 4),
                            durationSeconds: LessonInfo.sane(try? row.decode(Double?.self, atIndex: 5), LessonInfo.secondsRange) ?? 0,
                            hands: try row.decode(atIndex: 6), keyName: try row.decode(atIndex: 7), timeSignature: try row.decode(atIndex: 8),
                            tempoBPM: LessonInfo.sane(try? row.decode(Double?.self, atIndex: 9), LessonInfo.bpmRange),
                            noteCount: try row.decode(atIndex: 10), format: try row.decode(atIndex: 11), searchText: try row.decode(atIndex: 12),
                            firstSeen: try row.decode(atIndex: 13))
        path = try row.decode(atIndex: 14)
        isFavourite = (try? row.decode(Bool?.self, atIndex: 15)) ?? false
        bestScore = LessonInfo.sane(try? row.decode(Double?.self, atIndex: 16), LessonInfo.scoreRange)
        lastPractised = try? row.decode(Date?.self, atIndex: 17)
        passes = (try? row.decode(Int?.self, atIndex: 18)) ?? 0
    }
}
