import Foundation
import GRDB
import MIDIFile
#if canImport(Glibc)
import Glibc
#endif

/// A kind of lesson file the catalogue reads: its extensions and how its bytes become a
/// `MIDIFile`. MIDI is built in; the lead registers others (ABC) when opening the store, so the
/// Store does not depend on their modules.
public struct LessonFormat: Sendable {
    public var name: String
    /// Lowercased, without the dot.
    public var extensions: Set<String>
    public var parse: @Sendable ([UInt8]) throws -> MIDIFile
    /// Whether a file with one of the extensions is this format at all (nil: every such file
    /// is). A file it does not claim (an `.xml` that is not MusicXML) is no lesson: the
    /// catalogue passes over it instead of listing it as unreadable.
    public var claims: (@Sendable (String) -> Bool)?
    /// The largest file of this format Etude reads (checked by stat before reading: README,
    /// "Hostile input"), and how a refusal names the format ("MIDI files").
    public var maxBytes: Int
    public var plural: String

    public init(name: String, extensions: Set<String>, claims: (@Sendable (String) -> Bool)? = nil,
                maxBytes: Int = 64 << 20, plural: String? = nil,
                parse: @escaping @Sendable ([UInt8]) throws -> MIDIFile) {
        self.name = name
        self.extensions = extensions
        self.claims = claims
        self.maxBytes = maxBytes
        self.plural = plural ?? "\(name) files"
        self.parse = parse
    }

    /// Standard MIDI Files (.mid, .midi, .kar), read leniently.
    public static let midi = LessonFormat(name: "midi", extensions: ["mid", "midi", "kar"], maxBytes: 64 << 20, plural: "MIDI files") { bytes in
        try MIDIReader.read(bytes, strict: false).file
    }

    /// The format for a path by its extension, if any.
    public static func find(_ path: String, in formats: [LessonFormat]) -> LessonFormat? {
        guard let dot = path.lastIndex(of: ".") else { return nil }
        let ext = path[path.index(after: dot)...].lowercased()
        return formats.first { $0.extensions.contains(ext) }
    }
}

/// Catalogue metadata computed from a parsed file: pure, so it is tested without a database.
public enum LessonMetadata {
    /// Builds the catalogue row for a file's bytes already parsed into `file`.
    public static func make(id: String, file: MIDIFile, fileName: String, format: String = "midi", now: Date = Date()) -> LessonInfo {
        let tags = LessonTags(file: file)
        let summary = MIDIFileSummary(file: file)
        let stem = (fileName as NSString).deletingPathExtension
        let title = clean(tags.all["title"]) ?? clean(file.tracks.first?.name).flatMap { isGeneric($0) ? nil : $0 } ?? stem
        let keyName = summary.keySignatures.first?.value.name
        let timeSig = summary.timeSignatures.first.map { "\($0.value.numerator)/\($0.value.denominator)" }
        let tempo = summary.tempos.first.map { 60_000_000.0 / Double(max(1, $0.value)) }
        let composer = clean(tags.composer)
        let description = clean(tags.description)
        let search = [title, composer, description, keyName, fileName]
            .compactMap { $0 }.joined(separator: " ").lowercased()
        return LessonInfo(id: id, title: title, composer: composer, level: tags.level, description: description,
                          durationSeconds: summary.durationSeconds, hands: hands(in: summary), keyName: keyName,
                          timeSignature: timeSig, tempoBPM: tempo.map { ($0 * 100).rounded() / 100 },
                          noteCount: summary.noteCount, format: format, searchText: search, firstSeen: now)
    }

    /// Track names that say what a track is, not what the piece is called.
    static func isGeneric(_ name: String) -> Bool {
        let n = name.lowercased()
        let generic: Set<String> = ["piano", "right hand", "left hand", "rh", "lh", "treble", "bass", "melody", "untitled",
                                    "conductor", "tempo", "track", "sequence", "acoustic grand piano", "grand piano"]
        return generic.contains(n) || (n.hasPrefix("track") && n.dropFirst(5).trimmingCharacters(in: .whitespaces).allSatisfy(\.isNumber))
    }

    private static func clean(_ s: String?) -> String? {
        guard let s else { return nil }
        let t = TextDecoding.sanitize(s).trimmingCharacters(in: .whitespacesAndNewlines)
        return t.isEmpty ? nil : t
    }

    /// Tracks named for a hand ("Right Hand", "RH", "Treble", "Left Hand", "LH", "Bass") decide;
    /// otherwise each piano track with notes counts as a hand (at most two).
    public static func hands(in summary: MIDIFileSummary) -> Int {
        var right = false
        var left = false
        for t in summary.tracks where t.noteCount > 0 {
            let name = (t.name ?? "").lowercased().trimmingCharacters(in: .whitespaces)
            if name.contains("right") || name == "rh" || name == "r.h." || name.contains("treble") { right = true }
            if name.contains("left") || name == "lh" || name == "l.h." || name.hasPrefix("bass") { left = true }
        }
        if right || left { return (right ? 1 : 0) + (left ? 1 : 0) }
        let pianoTracks = summary.tracks.filter { t in
            t.noteCount > 0 && !t.channels.contains(9) && t.programs.allSatisfy { (0...7).contains($0) }
        }
        return min(2, pianoTracks.count)
    }
}

/// The result of a catalogue scan, for `etude library` and the benchmark.
public struct ScanReport: Equatable, Sendable {
    public var added = 0
    public var updated = 0
    public var unchanged = 0
    public var removed = 0
    /// Files that could not be read or parsed: path and a one-line reason.
    public var failures: [Failure] = []
    /// Files given up in this scan because reading them took longer than the budget (also in
    /// `failures`): a command that scans on the side names them in a one-line note each.
    public var slow: [Failure] = []

    public struct Failure: Error, Equatable, Sendable {
        public var path: String
        public var message: String
    }

    public init() {}

    public static func + (a: ScanReport, b: ScanReport) -> ScanReport {
        var r = a
        r.added += b.added
        r.updated += b.updated
        r.unchanged += b.unchanged
        r.removed += b.removed
        r.failures += b.failures
        r.slow += b.slow
        return r
    }
}

/// How a scan spends its time: a file that takes longer than `secondsPerFile` to read is
/// skipped (and noted, so later scans do not try it again until it changes), and what was read
/// is committed every `batchFiles` files or `batchSeconds` seconds, so an interrupted scan
/// keeps what it did.
public struct ScanLimits: Sendable {
    public var secondsPerFile: Double
    public var batchFiles: Int
    public var batchSeconds: Double

    public init(secondsPerFile: Double = 5, batchFiles: Int = 256, batchSeconds: Double = 1) {
        self.secondsPerFile = secondsPerFile
        self.batchFiles = max(1, batchFiles)
        self.batchSeconds = batchSeconds
    }
}

/// Reads lesson files on a thread of its own, so the scan can give up on one that takes too
/// long: the caller waits at most the budget; past it, this worker is abandoned (it ends when
/// the slow read returns, its result dropped) and the scan goes on with a new one.
final class ReadWorker: @unchecked Sendable {
    typealias Outcome = Result<LessonInfo, ScanReport.Failure>
    private let condition = NSCondition()
    private var pending: (@Sendable () -> Outcome)?
    private var outcome: Outcome?
    private var abandoned = false

    init() {
        let thread = Thread { [self] in loop() }
        thread.name = "etude-scan"
        // Parsers may recurse on a deeply nested file: the main thread's stack size, not a small one.
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func loop() {
        while true {
            condition.lock()
            while pending == nil && !abandoned { condition.wait() }
            guard let work = pending else {
                condition.unlock()
                return
            }
            pending = nil
            condition.unlock()
            let result = work()
            condition.lock()
            if abandoned {
                condition.unlock()
                return
            }
            outcome = result
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Runs `work` on the worker; nil when it took longer than `budget` seconds (the worker is
    /// then abandoned: make a new one).
    func run(budget: Double, _ work: @escaping @Sendable () -> Outcome) -> Outcome? {
        condition.lock()
        defer { condition.unlock() }
        outcome = nil
        pending = work
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: budget)
        while outcome == nil {
            if !condition.wait(until: deadline) { break }
        }
        guard let result = outcome else {
            abandoned = true
            pending = nil
            return nil
        }
        outcome = nil
        return result
    }

    /// Lets the worker's thread end once it is idle.
    func finish() {
        condition.lock()
        abandoned = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Size and modification time: a rescan re-reads a file only when one of them changed.
struct FileStamp: Equatable {
    var size: Int64
    var mtime: Double

    static func of(_ path: String) -> FileStamp? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileStamp(size: Int64(st.st_size),
                         mtime: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
    }
}

/// Lists lesson files under a folder with plain readdir/stat (fast on 10,000 files); skips hidden
/// entries and does not follow symlinked folders (no cycles).
enum FileWalker {
    static func lessonFiles(under root: String, formats: [LessonFormat]) -> [(path: String, stamp: FileStamp)] {
        var out: [(String, FileStamp)] = []
        // A lesson kept in two formats side by side (song.abc compiled to song.mid) is one
        // lesson: keep the file of the earliest format given.
        var rank: [String: Int] = [:]
        for (i, f) in formats.enumerated() { for e in f.extensions where rank[e] == nil { rank[e] = i } }
        walk(root, depth: 0, rank: rank, into: &out)
        let claims = formats.filter { $0.claims != nil }
        guard !claims.isEmpty else { return out }
        return out.filter { entry in
            let (_, ext) = stemAndExtension(entry.0)
            guard let f = formats.first(where: { $0.extensions.contains(ext) }), let claim = f.claims else { return true }
            return claim(entry.0)
        }
    }

    static func stemAndExtension(_ path: String) -> (String, String) {
        guard let dot = path.lastIndex(of: ".") else { return (path, "") }
        return (String(path[..<dot]), path[path.index(after: dot)...].lowercased())
    }

    private static func walk(_ dir: String, depth: Int, rank: [String: Int], into out: inout [(String, FileStamp)]) {
        let extensions = Set(rank.keys)
        let before = out.count
        guard depth < 32, let d = opendir(dir) else { return }
        defer { closedir(d) }
        var subdirs: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix(".") { continue }
            let path = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            let type = st.st_mode & S_IFMT
            if type == S_IFDIR {
                subdirs.append(path)
            } else if let dot = name.lastIndex(of: "."), extensions.contains(name[name.index(after: dot)...].lowercased()),
                      type == S_IFREG || type == S_IFLNK, let stamp = FileStamp.of(path) {
                out.append((path, stamp))
            }
        }
        var best: [String: Int] = [:]
        for (path, _) in out[before...] {
            let (stem, ext) = stemAndExtension(path)
            best[stem] = min(best[stem] ?? Int.max, rank[ext] ?? Int.max)
        }
        let kept = out[before...].filter { entry in
            let (stem, ext) = stemAndExtension(entry.0)
            return rank[ext] == best[stem]
        }
        out.replaceSubrange(before..., with: kept)
        for s in subdirs.sorted() { walk(s, depth: depth + 1, rank: rank, into: &out) }
    }
}

/// Built-in lessons: `$ETUDE_LESSONS`, else `Lessons/` next to the executable (or in
/// `../share/etude/`), else the `Lessons/` of the source checkout the executable was built in.
public enum BuiltinLessons {
    /// This process's executable (argv[0] may be a bare name found through PATH).
    public static func executablePath() -> String {
        if let p = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return p }
        return Bundle.main.executablePath ?? CommandLine.arguments.first ?? ""
    }

    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment,
                                 executablePath: String = BuiltinLessons.executablePath()) -> String? {
        if let e = environment["ETUDE_LESSONS"], !e.isEmpty { return e }
        let exe = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [exe.appendingPathComponent("Lessons"),
                          exe.deletingLastPathComponent().appendingPathComponent("share/etude/Lessons")]
        var dir = exe
        for _ in 0..<6 {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
                candidates.append(dir.appendingPathComponent("Lessons"))
                break
            }
            dir = dir.deletingLastPathComponent()
        }
        for c in candidates {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: c.path, isDirectory: &isDir), isDir.boolValue { return c.path }
        }
        return nil
    }
}

extension Store {
    static func absolute(_ path: String) -> String {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path)
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
        return url.standardizedFileURL.path
    }

    /// Reads one file: bytes, content hash, metadata. A failure is a one-line message.
    func read(_ path: String, now: Date) -> Result<LessonInfo, ScanReport.Failure> {
        guard let format = LessonFormat.find(path, in: formats) else {
            let known = formats.flatMap(\.extensions).sorted().map { "." + $0 }.joined(separator: ", ")
            return .failure(.init(path: path, message: "not a lesson file (Etude reads \(known))"))
        }
        let bytes: [UInt8]
        switch BoundedRead.bytes(path, limit: format.maxBytes) {
        case .success(let b): bytes = b
        case .failure(.tooLarge(let size)):
            return .failure(.init(path: path, message: BoundedRead.tooLargeMessage(size: size, limit: format.maxBytes, what: format.plural)))
        case .failure(.unreadable):
            return .failure(.init(path: path, message: "cannot be read (check its permissions)"))
        }
        let id = SHA256.hex(bytes)
        do {
            let file = try format.parse(bytes)
            return .success(LessonMetadata.make(id: id, file: file, fileName: (path as NSString).lastPathComponent,
                                                format: format.name, now: now))
        } catch let e as MIDIReadError {
            return .failure(.init(path: path, message: e.message))
        } catch {
            return .failure(.init(path: path, message: String(describing: error)))
        }
    }

    /// Inserts a lesson or refreshes its metadata, keeping when it was first seen. One cached
    /// statement (preparing statements that fire triggers costs more than running them).
    static func upsert(_ info: LessonInfo, _ db: Database) throws {
        let st = try db.cachedStatement(sql: """
            INSERT INTO lesson (id, title, composer, level, description, durationSeconds, hands, keyName, timeSignature,
                                tempoBPM, noteCount, format, searchText, firstSeen)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET
                title = excluded.title, composer = excluded.composer, level = excluded.level,
                description = excluded.description, durationSeconds = excluded.durationSeconds, hands = excluded.hands,
                keyName = excluded.keyName, timeSignature = excluded.timeSignature, tempoBPM = excluded.tempoBPM,
                noteCount = excluded.noteCount, format = excluded.format, searchText = excluded.searchText
            """)
        try st.execute(arguments: [info.id, info.title, info.composer, info.level, info.description, info.durationSeconds,
                                   info.hands, info.keyName, info.timeSignature, info.tempoBPM, info.noteCount, info.format,
                                   info.searchText, info.firstSeen])
    }

    /// Inserts or replaces where a file is (one cached statement, see `upsert`).
    static func upsert(_ file: LessonFileRecord, _ db: Database) throws {
        let st = try db.cachedStatement(sql: """
            INSERT INTO lessonFile (path, lessonID, size, mtime, source, root) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (path) DO UPDATE SET
                lessonID = excluded.lessonID, size = excluded.size, mtime = excluded.mtime,
                source = excluded.source, root = excluded.root
            """)
        try st.execute(arguments: [file.path, file.lessonID, file.size, file.mtime, file.source.rawValue, file.root])
    }

    /// Files the lesson as the quiz's own (its results are history; the lesson is never listed).
    public func markQuiz(_ lessonID: String) throws {
        try writer.write { db in
            try db.execute(sql: "UPDATE lesson SET isQuiz = 1 WHERE id = ?", arguments: [lessonID])
        }
    }

    /// Adds a file the learner opened directly (any path) and returns its lesson: the lead calls
    /// this whenever a lesson is opened, so favourites, loops and history can refer to it.
    @discardableResult
    public func catalogue(fileAt path: String, now: Date = Date()) throws -> LessonInfo {
        var abs = Store.absolute(path)
        guard FileStamp.of(abs) != nil else { throw StoreError("\(path): no such file") }
        // A lesson kept in two formats side by side (song.abc and its compiled song.mid) is one
        // lesson, as a folder scan lists it: the file of the earliest format stands for both.
        abs = Store.preferredSibling(of: abs, formats: formats)
        guard let stamp = FileStamp.of(abs) else { throw StoreError("\(path): no such file") }
        if let known = try writer.read({ db in try LessonFileRecord.fetchOneDecodable(db, key: abs) }),
           known.size == stamp.size, known.mtime == stamp.mtime,
           let info = try writer.read({ db in try LessonInfo.fetchOneDecodable(db, key: known.lessonID) }) {
            return info
        }
        let info: LessonInfo
        switch read(abs, now: now) {
        case .success(let i): info = i
        case .failure(let f): throw StoreError("\(path): \(f.message)")
        }
        try writer.write { db in
            try Store.upsert(info, db)
            let old = try LessonFileRecord.fetchOneDecodable(db, key: abs)
            try Store.upsert(LessonFileRecord(path: abs, lessonID: info.id, size: stamp.size, mtime: stamp.mtime,
                                              source: old?.source ?? .opened, root: old?.root), db)
        }
        return info
    }

    /// Scans one catalogue root: new and changed files are read, unchanged ones (same size and
    /// mtime) are not, vanished ones are dropped (their lessons, favourites and history stay).
    /// What was read is committed in batches and a file slower than the budget is skipped
    /// (`ScanLimits`).
    public func scan(root: String, source: LessonFileRecord.Source, now: Date = Date(),
                     limits: ScanLimits = ScanLimits()) throws -> ScanReport {
        let root = Store.absolute(root)
        var report = ScanReport()
        let known = try writer.read { db in
            try LessonFileRecord.fetchDecodable(db, LessonFileRecord.filter(Column("root") == root))
        }
        var knownByPath: [String: LessonFileRecord] = [:]
        knownByPath.reserveCapacity(known.count)
        for k in known { knownByPath[k.path] = k }
        let unreadable = try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT path, size, mtime, message FROM unreadableFile WHERE root = ?", arguments: [root])
        }
        var unreadableByPath: [String: (FileStamp, String)] = [:]
        for r in unreadable {
            guard let path = try? r.decode(String.self, atIndex: 0), let size = try? r.decode(Int64.self, atIndex: 1),
                  let mtime = try? r.decode(Double.self, atIndex: 2), let message = try? r.decode(String.self, atIndex: 3) else {
                DamagedRows.note(table: "unreadableFile", row: r)
                continue
            }
            unreadableByPath[path] = (FileStamp(size: size, mtime: mtime), message)
        }

        var seen = Set<String>()
        var changed: [(String, FileStamp, Bool)] = []
        for (path, stamp) in FileWalker.lessonFiles(under: root, formats: formats) {
            seen.insert(path)
            if let k = knownByPath[path] {
                if k.size == stamp.size && k.mtime == stamp.mtime { report.unchanged += 1 } else { changed.append((path, stamp, false)) }
            } else if let (badStamp, message) = unreadableByPath[path], badStamp == stamp {
                report.failures.append(.init(path: path, message: message))
            } else {
                changed.append((path, stamp, true))
            }
        }
        let gone = known.filter { !seen.contains($0.path) }.map(\.path)
        // In path order: a scan reads (and commits) the same files first every time.
        changed.sort { $0.0 < $1.0 }

        // Parse outside the write transaction so another process is never kept waiting long;
        // commit every batch of files or seconds, so an interrupted scan keeps what it did.
        var rows: [(LessonInfo, LessonFileRecord, Bool)] = []
        var bad: [(ScanReport.Failure, FileStamp)] = []
        var lastCommit = Date()
        func commit() throws {
            guard !rows.isEmpty || !bad.isEmpty else { return }
            try writer.write { db in
                for (info, file, _) in rows {
                    try Store.upsert(info, db)
                    try Store.upsert(file, db)
                    if unreadableByPath[file.path] != nil {
                        try db.execute(sql: "DELETE FROM unreadableFile WHERE path = ?", arguments: [file.path])
                    }
                }
                for (f, stamp) in bad {
                    // A file that changed into something unreadable no longer stands for its old lesson.
                    _ = try LessonFileRecord.deleteOne(db, key: f.path)
                    try db.execute(sql: "INSERT OR REPLACE INTO unreadableFile (path, size, mtime, message, root) VALUES (?, ?, ?, ?, ?)",
                                   arguments: [f.path, stamp.size, stamp.mtime, f.message, root])
                }
            }
            for (_, _, isNew) in rows { if isNew { report.added += 1 } else { report.updated += 1 } }
            rows.removeAll(keepingCapacity: true)
            bad.removeAll(keepingCapacity: true)
            lastCommit = Date()
        }
        var worker = ReadWorker()
        defer { worker.finish() }
        for (path, stamp, isNew) in changed {
            let outcome: Result<LessonInfo, ScanReport.Failure>
            if let read = worker.run(budget: limits.secondsPerFile, { [self] in self.read(path, now: now) }) {
                outcome = read
            } else {
                worker = ReadWorker()
                let failure = ScanReport.Failure(path: path, message: "took longer than \(Store.seconds(limits.secondsPerFile)) to read, skipped; "
                                                 + "it is read again when it changes")
                report.slow.append(failure)
                outcome = .failure(failure)
            }
            switch outcome {
            case .success(let info):
                rows.append((info, LessonFileRecord(path: path, lessonID: info.id, size: stamp.size, mtime: stamp.mtime,
                                                    source: source, root: root), isNew))
            case .failure(let f):
                report.failures.append(f)
                bad.append((f, stamp))
            }
            if rows.count + bad.count >= limits.batchFiles || Date().timeIntervalSince(lastCommit) >= limits.batchSeconds {
                try commit()
            }
        }
        try commit()
        if !gone.isEmpty {
            try writer.write { db in
                for p in gone { _ = try LessonFileRecord.deleteOne(db, key: p) }
            }
            report.removed = gone.count
        }
        let goneBad = unreadableByPath.keys.filter { !seen.contains($0) }
        if !goneBad.isEmpty {
            try writer.write { db in
                for p in goneBad { try db.execute(sql: "DELETE FROM unreadableFile WHERE path = ?", arguments: [p]) }
            }
        }
        return report
    }

    /// Rescans the built-in lessons, every added folder and the opened files (dropping ones that
    /// vanished, re-reading ones that changed).
    public func rescan(builtinDirectory: String?, now: Date = Date(), limits: ScanLimits = ScanLimits()) throws -> ScanReport {
        var report = ScanReport()
        if let b = builtinDirectory {
            // The built-in lessons of an earlier install elsewhere (/usr/local before a .deb in
            // /usr, an old checkout) are not this Etude's: listed beside the new ones they would
            // show every lesson twice. Their history stays with the lessons.
            let root = Store.absolute(b)
            let stale = try writer.write { db -> Int in
                try LessonFileRecord.filter(Column("source") == LessonFileRecord.Source.builtin.rawValue && Column("root") != root).deleteAll(db)
            }
            report.removed += stale
            report = report + (try scan(root: b, source: .builtin, now: now, limits: limits))
        }
        for folder in try libraryFolders() {
            report = report + (try scan(root: folder.path, source: .folder, now: now, limits: limits))
        }
        let opened = try writer.read { db in
            try LessonFileRecord.fetchDecodable(db, LessonFileRecord.filter(Column("source") == LessonFileRecord.Source.opened.rawValue))
        }
        for file in opened {
            if let stamp = FileStamp.of(file.path) {
                if stamp.size == file.size && stamp.mtime == file.mtime {
                    report.unchanged += 1
                } else if (try? catalogue(fileAt: file.path, now: now)) != nil {
                    report.updated += 1
                } else {
                    report.failures.append(.init(path: file.path, message: "cannot be read any more"))
                }
            } else {
                _ = try writer.write { db in try LessonFileRecord.deleteOne(db, key: file.path) }
                report.removed += 1
            }
        }
        return report
    }

    // MARK: Library folders

    public func libraryFolders() throws -> [LibraryFolder] {
        try writer.read { db in try LibraryFolder.fetchDecodable(db, LibraryFolder.order(Column("path"))) }
    }

    /// Adds a folder to the library and scans it.
    public func addFolder(_ path: String, now: Date = Date(), limits: ScanLimits = ScanLimits()) throws -> ScanReport {
        let abs = Store.absolute(path)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: abs, isDirectory: &isDir), isDir.boolValue else {
            throw StoreError("\(path): no such folder")
        }
        try writer.write { db in
            if try LibraryFolder.filter(Column("path") == abs).fetchCount(db) == 0 {
                try LibraryFolder(id: nil, path: abs, addedAt: now).insert(db)
            }
        }
        return try scan(root: abs, source: .folder, now: now, limits: limits)
    }

    /// "5 s", "0.5 s".
    static func seconds(_ s: Double) -> String {
        s == s.rounded() && abs(s) < 1e9 ? "\(Int(s)) s" : "\(s) s"
    }

    /// Removes a folder from the library (its lessons' history, favourites and loops stay, and
    /// come back if the files are found again). Returns false when the folder was not in it.
    @discardableResult
    public func removeFolder(_ path: String) throws -> Bool {
        let abs = Store.absolute(path)
        return try writer.write { db in
            let n = try LibraryFolder.filter(Column("path") == abs).deleteAll(db)
            try LessonFileRecord.filter(Column("root") == abs).deleteAll(db)
            try db.execute(sql: "DELETE FROM unreadableFile WHERE root = ?", arguments: [abs])
            return n > 0
        }
    }

    // MARK: Listing and search

    static let listingSelect = """
        SELECT l.id, l.title, l.composer, l.level, l.description, l.durationSeconds, l.hands, l.keyName,
               l.timeSignature, l.tempoBPM, l.noteCount, l.format, '' AS searchText, l.firstSeen, l.path,
               (f.lessonID IS NOT NULL) AS isFavourite, s.bestScore, s.lastPractised, coalesce(s.passes, 0) AS passes
        FROM lesson l LEFT JOIN favourite f ON f.lessonID = l.id LEFT JOIN lessonStats s ON s.lessonID = l.id
        """

    /// The catalogue as lists show it: lessons whose file is present, filtered by words (all must
    /// appear in title, composer, description, key or file name), level and star; those with the
    /// words in their title first, then by level, title.
    public func lessons(matching query: String = "", level: Int? = nil, favouritesOnly: Bool = false,
                        limit: Int? = nil) throws -> [LessonListing] {
        var clauses: [String] = []
        var args: [(any DatabaseValueConvertible)?] = []
        // searchText is stored lowercased, so a plain substring test (instr) does: faster than LIKE
        // and free of wildcard characters. A word is matched where a word of the text starts
        // ("ode" finds Ode to Joy, not an episode; "minu" still finds Minuet as it is typed):
        // the text's punctuation is read as spaces first. A word starting with a symbol ("%")
        // is found anywhere.
        let words = query.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        for word in words {
            if word.first?.isLetter == true || word.first?.isNumber == true {
                clauses.append("instr(\(Store.wordsOf("l.searchText")), ?) > 0")
                args.append(Store.wordSeparators.reduce(" " + word) { $0.replacingOccurrences(of: $1, with: " ") })
            } else {
                clauses.append("instr(l.searchText, ?) > 0")
                args.append(word)
            }
        }
        if let level {
            clauses.append("l.level = ?")
            args.append(level)
        }
        if favouritesOnly { clauses.append("f.lessonID IS NOT NULL") }
        clauses.append("l.path IS NOT NULL")
        clauses.append("NOT l.isQuiz")
        var select = Store.listingSelect
        if favouritesOnly {
            // Drive the query from the (short) favourites table.
            select = select.replacingOccurrences(of: "LEFT JOIN favourite f", with: "JOIN favourite f")
        }
        // Lessons whose title holds the words come first ("sonatina" finds the sonatinas before
        // the studies that mention them), then by level and title.
        let titleHits = words.isEmpty ? "" : "(" + words.map { _ in "(instr(lower(l.title), ?) > 0)" }.joined(separator: " + ") + ") DESC, "
        args += words.map { $0 as (any DatabaseValueConvertible)? }
        var sql = select + " WHERE " + clauses.joined(separator: " AND ")
            + " ORDER BY " + titleHits + "l.level IS NULL, l.level, l.title COLLATE NOCASE, l.id"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        let arguments = StatementArguments(args)
        return try writer.read { db in try LessonListing.fetchDecodable(db, sql: sql, arguments: arguments, table: "lesson") }
    }

    /// Characters a search reads as spaces, so a query word matches where a word starts
    /// (after a space, a dash, a bracket, a file name's `_` or `.`).
    static let wordSeparators: [String] = ["-", "_", ".", "(", ")", "/", ",", ":", ";", "'", "\"", "“", "‘", "—", "–", "[", "\t"]

    /// SQL for `column` with a space in front and every separator as a space: `instr` of it and
    /// " word" is true exactly when a word of the text starts with `word`.
    static func wordsOf(_ column: String) -> String {
        wordSeparators.reduce("' ' || \(column)") { sql, sep in
            "replace(\(sql), '\(sep.replacingOccurrences(of: "'", with: "''"))', ' ')"
        }
    }

    /// The levels the listed lessons have, ascending: the browser's level filter cycles through
    /// them without fetching the whole catalogue.
    public func levels() throws -> [Int] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT DISTINCT level FROM lesson WHERE level IS NOT NULL AND path IS NOT NULL ORDER BY level")
                .compactMap { try? $0.decode(Int.self, atIndex: 0) }
        }
    }

    /// One lesson by id, whether or not its file is currently present.
    public func listing(id: String) throws -> LessonListing? {
        try writer.read { db in
            try LessonListing.fetchDecodable(db, sql: Store.listingSelect + " WHERE l.id = ?", arguments: [id], table: "lesson").first
        }
    }

    /// Finds the lesson a user means by LESSON on the command line: an existing file path (added
    /// to the catalogue), an id prefix (4+ hex digits), an exact title, or a unique title prefix
    /// or search match. Ambiguity is an error listing the candidates.
    public func resolveLesson(_ reference: String) throws -> LessonListing {
        let ref = reference.trimmingCharacters(in: .whitespaces)
        guard !ref.isEmpty else { throw StoreError("name a lesson: a file path, a title or an id prefix") }
        if FileStamp.of(ref) != nil {
            let info = try catalogue(fileAt: ref)
            if let l = try listing(id: info.id) { return l }
        }
        let lower = ref.lowercased()
        if lower.count >= 4, lower.allSatisfy({ $0.isHexDigit }) {
            let hits = try writer.read { db in
                try LessonListing.fetchDecodable(db, sql: Store.listingSelect + " WHERE l.id LIKE ? LIMIT 5", arguments: [lower + "%"], table: "lesson")
            }
            if hits.count == 1 { return hits[0] }
            if hits.count > 1 { throw StoreError("\(ref): several lessons have ids starting so; give more digits") }
        }
        let all = try lessons()
        let exact = all.filter { $0.lesson.title.lowercased() == lower }
        if exact.count == 1 { return exact[0] }
        let candidates = exact.count > 1 ? exact : {
            let prefix = all.filter { $0.lesson.title.lowercased().hasPrefix(lower) }
            return prefix.isEmpty ? (try? lessons(matching: ref)) ?? [] : prefix
        }()
        if candidates.count == 1 { return candidates[0] }
        if candidates.isEmpty {
            if let near = TitleSuggestion.closest(to: ref, among: all.map(\.lesson.title)) {
                throw StoreError("\(ref): no such lesson or file; did you mean \"\(near)\"? (`etude list` shows titles and ids)")
            }
            throw StoreError("\(ref): no such lesson or file; see `etude list` for titles and ids")
        }
        let names = candidates.prefix(4).map { "\($0.lesson.title) (\($0.lesson.id.prefix(8)))" }.joined(separator: ", ")
        throw StoreError("\(ref) matches \(candidates.count) lessons: \(names)\(candidates.count > 4 ? ", …" : ""); use an id prefix")
    }
}

extension Store {
    /// The file of the same name in an earlier format beside `path` (song.mid for song.abc),
    /// else `path` itself.
    static func preferredSibling(of path: String, formats: [LessonFormat]) -> String {
        guard let own = LessonFormat.find(path, in: formats), let ownRank = formats.firstIndex(where: { $0.name == own.name }),
              let dot = path.lastIndex(of: ".") else { return path }
        let stem = path[..<dot]
        for format in formats.prefix(ownRank) {
            for ext in format.extensions.sorted() {
                let candidate = stem + "." + ext
                if FileStamp.of(String(candidate)) != nil { return String(candidate) }
            }
        }
        return path
    }

    /// Inserts or refreshes a lesson row that has no file (generated lessons, tools, tests).
    public func register(_ info: LessonInfo) throws {
        try writer.write { db in try Store.upsert(info, db) }
    }
}

/// "Did you mean": the title a mistyped one was most likely meant to be, by edit distance
/// (a letter added, dropped, changed or two swapped) to the whole title or to its start as far
/// as the learner typed ("Ode to Jyo" → Ode to Joy, "fur elis" → Für Elise).
public enum TitleSuggestion {
    /// The nearest title, if it is near enough to be a typo: at most one edit in five letters
    /// (at least one, at most three); nil when none is, or two are equally near.
    public static func closest(to typed: String, among titles: [String]) -> String? {
        let want = fold(typed)
        guard want.count >= 3 else { return nil }
        let allowed = min(3, max(1, want.count / 5))
        var best: (title: String, distance: Int)?
        var tied = false
        for title in Set(titles) {
            let have = fold(title)
            let start = Array(have.prefix(want.count))
            let d = min(distance(want, have), distance(want, start))
            guard d <= allowed else { continue }
            if let b = best, d >= b.distance {
                if d == b.distance { tied = true }
                continue
            }
            best = (title, d)
            tied = false
        }
        return tied ? nil : best?.title
    }

    /// Lowercased, accents dropped (ü → u), spaces and punctuation kept as one space.
    static func fold(_ text: String) -> [Character] {
        let plain = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        var out: [Character] = []
        for c in plain {
            let k: Character = c.isLetter || c.isNumber ? c : " "
            if k == " " && (out.last == " " || out.isEmpty) { continue }
            out.append(k)
        }
        while out.last == " " { out.removeLast() }
        return out
    }

    /// Optimal string alignment distance (Damerau–Levenshtein without repeated edits of one span).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev2 = [Int](repeating: 0, count: b.count + 1)
        var prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { cur[j] = min(cur[j], prev2[j - 2] + 1) }
            }
            (prev2, prev, cur) = (prev, cur, prev2)
        }
        return prev[b.count]
    }
}
