import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// A failure opening or using the database, phrased so the CLI can print it as one line.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Etude's SQLite database: catalogue, favourites, saved loops, history, resume state, routines.
/// One `Store` per process; a `DatabasePool` in WAL mode with a busy timeout, so two Etude
/// processes (say, a practice session and `etude stats`) can work on the same file side by side.
public final class Store: Sendable {
    /// The GRDB connection; exposed for tests and tools, commands should use the methods.
    public let writer: any DatabaseWriter
    /// Where the database lives (`nil` for an in-memory store).
    public let path: String?
    /// One-line notices for the user, e.g. that a corrupt database was moved aside.
    public let notices: [String]
    /// The lesson file formats the catalogue reads (MIDI unless more were given to `open`).
    public let formats: [LessonFormat]
    /// Why the database is open for reading only (the file or its folder cannot be written),
    /// nil when it can be written: commands that only read work, the others say this.
    public let readOnlyReason: String?

    /// How long a writer waits for another process before giving up (seconds).
    public static let busyTimeout: TimeInterval = 15

    private init(writer: any DatabaseWriter, path: String?, notices: [String], formats: [LessonFormat], readOnlyReason: String? = nil) {
        self.writer = writer
        self.path = path
        self.notices = notices
        self.formats = formats
        self.readOnlyReason = readOnlyReason
    }

    /// The database at `path` and its sidecars (WAL, shared memory, the lock): files no
    /// command may write over.
    public static func files(ofDatabase path: String) -> [String] {
        [path, path + "-wal", path + "-shm", path + ".lock"]
    }

    /// The database path: `override` (from `--db`), else `$ETUDE_DB`, else
    /// `$XDG_DATA_HOME/etude/etude.sqlite`, else `~/.local/share/etude/etude.sqlite`.
    public static func defaultPath(override: String? = nil,
                                   environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let o = override, !o.isEmpty { return o }
        if let e = environment["ETUDE_DB"], !e.isEmpty { return e }
        let dataHome: String
        if let x = environment["XDG_DATA_HOME"], x.hasPrefix("/") {
            dataHome = x
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = (home as NSString).appendingPathComponent(".local/share")
        }
        return ((dataHome as NSString).appendingPathComponent("etude") as NSString).appendingPathComponent("etude.sqlite")
    }

    /// A throwaway store in memory, for tests and previews.
    public static func inMemory(formats: [LessonFormat] = [.midi]) throws -> Store {
        var config = Configuration()
        config.foreignKeysEnabled = true
        let queue = try DatabaseQueue(configuration: config)
        try Schema.migrator.migrate(queue)
        return Store(writer: queue, path: nil, notices: [], formats: formats)
    }

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// A file that is not a SQLite database, or a corrupt one, is moved aside to
    /// `<name>.corrupt-<date>` and a fresh one is created (reported in `notices`); a location that
    /// cannot be written gives a `StoreError` naming the fix. Never overwrites a user's file,
    /// never opens anything but a regular file (`/dev/null` is no database), and creates the
    /// folder only when `createFolder` (the default location's own folder; a path the user
    /// gave must be in a folder that exists).
    ///
    /// `chosen`: the user named this path (`--db`, `$ETUDE_DB`). A file there that is not a
    /// SQLite database (a lesson, a text file, `/etc/passwd`), or a damaged one, is then
    /// refused, never moved aside: only a file at the default place can be a database Etude
    /// wrote and lost. Commands open it through the executable's one `Library`, which passes
    /// `chosen` and says the notices.
    public static func open(path: String, formats: [LessonFormat] = [.midi], now: Date = Date(),
                            createFolder: Bool = true, chosen: Bool = false) throws -> Store {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        var st = stat()
        if stat(path, &st) == 0 {
            if st.st_mode & S_IFMT == S_IFDIR {
                throw StoreError("\(path) is a folder: give the database's file path, e.g. --db \(url.appendingPathComponent("etude.sqlite").path)")
            }
            if st.st_mode & S_IFMT != S_IFREG {
                throw StoreError("\(path) is not a regular file: give the database's file path, e.g. --db ~/etude.sqlite")
            }
        }
        // A database that is there but cannot be written (mode 0444, a read-only folder or
        // mount) is opened for reading: the commands that only read still work.
        if st.st_mode & S_IFMT == S_IFREG {
            let reason = access(path, W_OK) != 0 ? "the file is read-only"
                : access(dir, W_OK) != 0 ? "its folder \(dir) is read-only" : nil
            if let reason {
                return try openReadOnly(path, reason: reason, formats: formats)
            }
        }
        try ensureWritableDirectory(dir, dbPath: path, create: createFolder)
        // A file that is not ours is refused before anything is created beside it.
        if chosen, let problem = corruptionProblem(atPath: path) {
            throw StoreError("\(path) is not an Etude database (\(problem)); Etude leaves it alone: give a new file name or the database's path with --db PATH or ETUDE_DB")
        }
        if try isForeignDatabase(atPath: path) {
            throw StoreError("\(path) is a SQLite database of another program (it has tables but no Etude history); Etude leaves it alone: choose another file with --db PATH or ETUDE_DB")
        }
        // Migrations and moving a corrupt file aside must not race with another Etude process.
        let lock = try FileLock(path: path + ".lock")
        defer { lock.unlock() }

        var notices: [String] = []
        if let problem = corruptionProblem(atPath: path) {
            notices.append(try moveAside(path, reason: problem, now: now))
        }
        do {
            let pool = try openPool(path)
            return Store(writer: pool, path: path, notices: notices, formats: formats)
        } catch let error as DatabaseError where isCorruption(error) {
            let reason = error.message ?? "database disk image is malformed"
            // A database the user chose is theirs: refused, never moved aside (only the default
            // place holds a database Etude itself made and may start again).
            if chosen {
                throw StoreError("\(path) is damaged (\(reason)); Etude leaves a database you chose as it is: repair it (sqlite3 \(path) .recover) or move it aside yourself, or choose another with --db PATH or ETUDE_DB")
            }
            notices.append(try moveAside(path, reason: reason, now: now))
            do {
                let pool = try openPool(path)
                return Store(writer: pool, path: path, notices: notices, formats: formats)
            } catch {
                throw StoreError("\(path): cannot create a new database (\(describe(error)))")
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where Self.isFullDisk(error) && st.st_mode & S_IFMT == S_IFREG {
            // A full disk: the commands that only read still work (issue 40); those that save say so.
            return try openReadOnly(path, reason: "the disk is full", formats: formats)
        } catch {
            throw StoreError("\(path): cannot open the database (\(describe(error))); choose another with --db PATH or ETUDE_DB")
        }
    }

    /// SQLite could not write for want of room (`SQLITE_FULL`, or an I/O error a full disk gives).
    static func isFullDisk(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_FULL || error.resultCode == .SQLITE_IOERR
    }

    /// The database at `path` for reading only: an Etude database of this version (one that
    /// needs a migration, or is not Etude's, is refused: nothing may be written to it).
    static func openReadOnly(_ path: String, reason: String, formats: [LessonFormat]) throws -> Store {
        let fix = "make it writable (chmod u+w, or its folder) or choose another with --db PATH or ETUDE_DB"
        if let problem = corruptionProblem(atPath: path) {
            throw StoreError("\(path) is not an Etude database (\(problem)) and \(reason); \(fix)")
        }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        config.label = "etude"
        let queue: DatabaseQueue
        do {
            queue = try readOnlyQueue(path, configuration: config)
            let state = try queue.read { db -> (current: Bool, newer: Bool, etude: Bool) in
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                guard tables.contains("grdb_migrations") else { return (false, false, false) }
                return (try Schema.migrator.hasCompletedMigrations(db), try Schema.migrator.hasBeenSuperseded(db), true)
            }
            if !state.etude {
                throw StoreError("\(path) holds no Etude database and \(reason); \(fix)")
            }
            if state.newer {
                throw StoreError("\(path): the database was written by a newer Etude; update Etude or choose another with --db PATH")
            }
            if !state.current {
                throw StoreError("\(path) needs updating for this Etude, and \(reason); \(fix)")
            }
        } catch let e as StoreError {
            throw e
        } catch {
            throw StoreError("\(path) cannot be read (\(describe(error))), and \(reason); \(fix)")
        }
        return Store(writer: queue, path: path, notices: [], formats: formats, readOnlyReason: reason)
    }

    /// A read-only connection that leaves nothing behind: SQLite would otherwise create the
    /// WAL's `-shm` and `-wal` beside the file (read-only too, so they would stop the owner's
    /// next write once the file is writable again). With no WAL content pending, the file is
    /// opened as immutable (an URI, which the system SQLite reads); else, or when the URI is
    /// not understood, as a plain read-only file.
    static func readOnlyQueue(_ path: String, configuration: Configuration) throws -> DatabaseQueue {
        var st = stat()
        let pendingWAL = stat(path + "-wal", &st) == 0 && st.st_size > 0
        if !pendingWAL {
            var allowed = CharacterSet.urlPathAllowed
            allowed.remove(charactersIn: "?#%")
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            if let escaped = absolute.addingPercentEncoding(withAllowedCharacters: allowed),
               let queue = try? DatabaseQueue(path: "file:\(escaped)?immutable=1", configuration: configuration),
               (try? queue.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") })) != nil {
                return queue
            }
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    private static func openPool(_ path: String) throws -> DatabasePool {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(busyTimeout)
        config.label = "etude"
        config.prepareDatabase { db in
            // The catalogue's working set (a few MB for 10,000 lessons) stays in memory between
            // searches instead of being re-read page by page.
            try db.execute(sql: "PRAGMA cache_size = -32000; PRAGMA mmap_size = 268435456")
        }
        let pool = try DatabasePool(path: path, configuration: config)
        do {
            let ok = try pool.read { db in try quickCheck(db, path: path) }
            if ok != "ok" {
                throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "integrity check failed: \(ok)")
            }
            if try pool.read({ db in try Schema.migrator.hasBeenSuperseded(db) }) {
                throw StoreError("\(path): the database was written by a newer Etude; update Etude or choose another with --db PATH")
            }
            try Schema.migrator.migrate(pool)
        } catch {
            try? pool.close()
            throw error
        }
        return pool
    }

    /// Above this size the open-time check leaves out the history's own tables (see `quickCheck`).
    static let wholeCheckBytes: Int64 = 32 << 20

    /// The structural check made on every open, in bounded time: `PRAGMA quick_check` of the
    /// whole file while it is small (`wholeCheckBytes`: a few tens of milliseconds); of a larger
    /// one, the schema and every table but the history's (`pass`, its bars and days), whose pages
    /// SQLite checks as it reads them (a damaged one gives a one-line error, never a wrong
    /// answer). So a learner's years of history do not make every command read the whole file.
    /// "ok", or the first problem found.
    static func quickCheck(_ db: Database, path: String) throws -> String {
        var st = stat()
        guard stat(path, &st) == 0, Int64(st.st_size) > wholeCheckBytes else {
            return try String.fetchOne(db, sql: "PRAGMA quick_check(1)") ?? "?"
        }
        let history: Set<String> = ["pass", "passBar", "passDay", "passTotal"]
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        for table in tables where !history.contains(table) {
            let found = try String.fetchOne(db, sql: "PRAGMA quick_check(\(table.quotedDatabaseIdentifier))") ?? "?"
            if found != "ok" { return found }
        }
        return "ok"
    }

    /// A SQLite file with tables but no migration record: another program's database, not one
    /// to migrate into (nor to turn to WAL mode). Read without writing; false when it cannot
    /// be read (a damaged file is handled as such by `open`).
    static func isForeignDatabase(atPath path: String) throws -> Bool {
        guard corruptionProblem(atPath: path) == nil, let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int,
              size > 0 else { return false }
        var config = Configuration()
        config.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: config) else { return false }
        defer { try? queue.close() }
        guard let tables = try? queue.read({ db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        }) else { return false }
        return !tables.isEmpty && !tables.contains("grdb_migrations")
    }

    static func isCorruption(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    static func describe(_ error: Error) -> String {
        if let e = error as? DatabaseError { return e.message ?? "\(e.resultCode)" }
        if let e = error as? StoreError { return e.message }
        return "\(error)"
    }

    /// A non-empty file whose first 16 bytes are not the SQLite header is not ours to open.
    static func corruptionProblem(atPath path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        if head.isEmpty { return nil }
        if head != Data("SQLite format 3\0".utf8) { return "not a SQLite database" }
        return nil
    }

    /// Moves `path` (and its -wal/-shm companions) to `path.corrupt-<date>` and returns the notice.
    static func moveAside(_ path: String, reason: String, now: Date) throws -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd-HHmmss"
        var target = "\(path).corrupt-\(f.string(from: now))"
        var n = 1
        while FileManager.default.fileExists(atPath: target) {
            n += 1
            target = "\(path).corrupt-\(f.string(from: now))-\(n)"
        }
        do {
            try FileManager.default.moveItem(atPath: path, toPath: target)
        } catch {
            throw StoreError("\(path) is damaged (\(reason)) and cannot be moved aside (\(error.localizedDescription)); move it yourself or use --db PATH")
        }
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.moveItem(atPath: path + suffix, toPath: target + suffix)
        }
        return "\(path) was damaged (\(reason)); moved it to \(target) and started a new database"
    }

    static func ensureWritableDirectory(_ dir: String, dbPath: String, create: Bool = true) throws {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) {
            guard isDir.boolValue else {
                throw StoreError("\(dir) is not a directory; choose a database path with --db PATH or ETUDE_DB")
            }
        } else if !create {
            throw StoreError("\(dbPath): the folder \(dir) does not exist; create it first (Etude creates only the database file there)")
        } else {
            do {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            } catch {
                throw StoreError("cannot create \(dir) for the database (read-only or no permission); choose a writable place with --db PATH or ETUDE_DB")
            }
        }
        if access(dir, W_OK) != 0 {
            throw StoreError("\(dir) is read-only: cannot write the database there; choose a writable place with --db PATH or ETUDE_DB")
        }
    }

    /// Closes the database's connections (a process about to exit: SQLite then checkpoints the
    /// WAL and removes its sidecars). A failure to close leaves them, as a crash would.
    public func close() {
        // The pool's readers first: the writer, closing last, checkpoints and removes the WAL
        // (a read-only reader closing last cannot, and would leave the sidecars).
        (writer as? DatabasePool)?.releaseMemory()
        try? writer.close()
    }

    /// `PRAGMA integrity_check`: "ok" when the file is sound.
    public func integrityCheck() throws -> String {
        try writer.read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
        }
    }

    /// The schema version (the last applied migration), for `etude library` and tests.
    public func schemaVersion() throws -> String? {
        try writer.read { db in try Schema.migrator.appliedMigrations(db).last }
    }
}

/// An exclusive advisory lock on a small side file (never the database itself: closing another
/// descriptor of the database file would drop SQLite's own POSIX locks).
final class FileLock {
    private var fd: Int32

    init(path: String) throws {
        fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 {
            throw StoreError("cannot create \(path) (\(String(cString: strerror(errno)))); choose a writable place with --db PATH or ETUDE_DB")
        }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { break }
        }
    }

    func unlock() {
        if fd >= 0 {
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    deinit { unlock() }
}

extension Store {
    /// True for a write refused because the database is read-only.
    public static func isReadOnlyFailure(_ error: Error) -> Bool {
        (error as? DatabaseError)?.resultCode == .SQLITE_READONLY
    }

    /// A one-line message for a Store or database failure, for the command line.
    public static func message(for error: Error) -> String? {
        if let e = error as? StoreError { return e.message }
        if error is RowDecodingError {
            return "the database holds a value Etude cannot read (a damaged or hand-edited file); use another with --db PATH, or let Etude start anew by moving the file aside"
        }
        if let e = error as? DatabaseError {
            if e.resultCode == .SQLITE_READONLY { return "the database is read-only (\(e.message ?? "")); choose a writable one with --db PATH or ETUDE_DB" }
            if e.resultCode == .SQLITE_FULL { return "the disk is full; nothing was saved" }
            return "database error: \(e.message ?? "\(e.resultCode)")"
        }
        return nil
    }
}
