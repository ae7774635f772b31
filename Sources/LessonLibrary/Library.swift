import Foundation
import MIDIFile
import Reports
import Store
import Synchronization

/// The learner's library (the database) as commands use it: its one `Store`, opened lazily
/// the first time anything needs it and then shared by every copy of this value (as GRDB's
/// `AppDatabase` is one per app), its notices on stderr once, every Store failure one line, and
/// a LESSON named by path, title or id. A command makes one `Library` and passes it on.
public struct Library: Sendable {
    /// `--db` (else `$ETUDE_DB`, else the XDG path).
    public let databaseOverride: String?
    /// The store once opened (or why it could not be), shared by the copies of this value.
    private let opened = OpenedStore()

    public init(databaseOverride: String? = nil) {
        self.databaseOverride = databaseOverride
    }

    /// The database file this library opens.
    public var databasePath: String { Store.defaultPath(override: databaseOverride) }

    /// The database and its sidecars: inputs no command may write over.
    public var databaseFiles: [String] { Store.files(ofDatabase: databasePath) }

    /// Opens the store, rescans the built-in lessons and added folders when `scan` (cheap when
    /// nothing changed: a stat per file), and runs `body`.
    public func withStore<T>(scan: Bool = true, _ body: (Store) throws -> T) throws -> T {
        // Rows skipped as unreadable (`Store.damagedRowsNotice`): one line, after the output.
        defer { if let n = Store.damagedRowsNotice() { Console.error("etude: \(n)") } }
        var readOnly: String?
        do {
            let store = try openStore()
            readOnly = store.readOnlyReason
            // A read-only database is read as it is (the catalogue as last scanned).
            if scan && readOnly == nil {
                let report = try store.rescan(builtinDirectory: BuiltinLessons.directory())
                // A file given up for taking too long is worth a line; it is not tried again until it changes.
                for f in report.slow { Console.error("etude: skipped \(safe(f.path)): \(f.message)") }
            }
            return try body(store)
        } catch let e as EtudeFailure {
            throw e
        } catch {
            if let readOnly, Store.isReadOnlyFailure(error) {
                throw EtudeFailure("\(databasePath) cannot be written (\(readOnly)) and this command saves to it; make it writable or choose another database with --db PATH or ETUDE_DB")
            }
            if let m = Store.message(for: error) { throw EtudeFailure(m) }
            throw error
        }
    }

    /// True when the user named the database (`--db`, `$ETUDE_DB`): Etude then creates only
    /// that file and its sidecars, in a folder that must exist, and never moves it aside. The
    /// default place may create its own folder.
    public var databaseIsExplicit: Bool {
        if let o = databaseOverride, !o.isEmpty { return true }
        return !(ProcessInfo.processInfo.environment["ETUDE_DB"] ?? "").isEmpty
    }

    /// The library's store, opened the first time it is asked for (see `databaseIsExplicit`)
    /// and the same one after; its notices (a damaged default database moved aside) are said
    /// on stderr when it opens. A failure is remembered and thrown again, never retried.
    public func openStore() throws -> Store {
        try opened.store {
            let chosen = databaseIsExplicit
            let store = try Store.open(path: databasePath, formats: LessonFormats.all, createFolder: !chosen, chosen: chosen)
            for n in store.notices { Console.error("etude: \(n)") }
            // Passes a session kept while another program held the library locked: stored now.
            if let line = PassSpool.storeKept(in: store) { Console.error("etude: \(line)") }
            return store
        }
    }

    /// The store for what only helps (a remembered setting, an offset, the audio buffer
    /// learned): nil when it cannot be opened, and the command goes on without it (the one that
    /// saves to it says why). Its notices are said when it opens, as `openStore`'s.
    public var storeIfAvailable: Store? { try? openStore() }

    /// The process's library for `--db` (nil: `$ETUDE_DB`, else the default place), made the
    /// first time a command asks and the same one after (as GRDB's `AppDatabase`): the
    /// executable's one place to get it, passed on from there.
    public static func process(databaseOverride: String?) -> Library {
        processLibrary.withLock { slot in
            if let made = slot, made.databaseOverride == databaseOverride { return made }
            let made = Library(databaseOverride: databaseOverride)
            slot?.opened.close()  // a command names one database; another one is a new library
            slot = made
            return made
        }
    }

    /// Closes the process's store before the process exits, as a store going out of scope
    /// did: its connections closed, so SQLite checkpoints the WAL and removes the `-wal` and
    /// `-shm` sidecars (left behind, they would stop a reader without write permission).
    public static func closeProcess() {
        processLibrary.withLock { $0?.opened.close() }
    }

    private static let processLibrary = Mutex<Library?>(nil)

    /// The file a LESSON argument names: a file that is there (or anything shaped like a path,
    /// so a mistyped one still says "no such file") is used as given; anything else is looked
    /// up in the catalogue by id prefix or title (or a unique start of one).
    public func lessonPath(_ reference: String) throws -> String {
        if FileManager.default.fileExists(atPath: reference) || Self.looksLikePath(reference) { return reference }
        return try withStore { s in
            let listing = try s.resolveLesson(reference)
            guard let path = listing.path else {
                throw EtudeFailure("\(safe(listing.lesson.title)): its file is no longer where Etude found it; open it by its path or run `etude library rescan`")
            }
            return path
        }
    }

    static func looksLikePath(_ reference: String) -> Bool {
        let lower = reference.lowercased()
        guard !reference.contains("/") else { return true }
        guard let dot = lower.lastIndex(of: ".") else { return false }
        return LessonFormats.pathExtensions.contains(String(lower[lower.index(after: dot)...]))
    }
}

/// A library's store, opened once: the value or the failure, behind a mutex held only while it
/// is looked at or made.
final class OpenedStore: Sendable {
    private let state = Mutex<Result<Store, any Error>?>(nil)

    /// Closes the store if it was opened (a later ask opens it again).
    func close() {
        state.withLock { state in
            if case .success(let store)? = state { store.close() }
            state = nil
        }
    }

    func store(_ open: () throws -> Store) throws -> Store {
        try state.withLock { state in
            if let state { return try state.get() }
            let result = Result { try open() }
            state = result
            return try result.get()
        }
    }
}
