import Foundation
import Testing
import TestSupport

/// Issue 31, point 12: a database Etude cannot write (its file mode 0444, a file of another
/// user, a read-only folder) still serves every command that only reads; a command that saves
/// says in one line what is read-only and what to do. Permissions do not bind root, so under
/// root the commands run as `nobody` (setpriv), as a user would meet the case.
@Suite("Read-only database", .serialized)
struct ReadOnlyDatabaseTests {
    let etude: Etude
    let dir: TempDir

    init() throws {
        etude = try Etude()
        dir = try TempDir("etude-readonly")
        chmod(dir.path, 0o755)
        chmod(etude.home.path, 0o755)
    }

    static let asRoot = geteuid() == 0
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let canDropRoot = !asRoot || setpriv != nil

    /// `etude args…` as a user without write permission on root's files.
    func runAsUser(_ arguments: [String]) throws -> ProcessResult {
        guard Self.asRoot, let setpriv = Self.setpriv else { return try etude.run(arguments) }
        return try ProcessRunner.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", "--", EtudeBinary.path] + arguments,
                                     environment: etude.environment, directory: dir.path, timeout: 120)
    }

    /// A database with the catalogue, a saved loop and a favourite, then made read-only by `lock`.
    func database(_ name: String, lock: (String, String) -> Void) throws -> (db: String, lesson: String) {
        let folder = dir.file(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let db = folder + "/etude.sqlite"
        let lesson = Repo.lesson("level4/ode-to-joy.mid")
        for args in [["list"], ["loops", "save", lesson, "chorus", "--bars", "1-2"], ["fav", "add", lesson]] {
            let r = try etude.run(args + ["--db", db])
            #expect(r.status == 0, "\(args): \(r.stderr)")
        }
        lock(folder, db)
        return (db, lesson)
    }

    @Test(.enabled(if: canDropRoot, "running as root without setpriv (util-linux) to drop to nobody"),
          arguments: ["file 0444", "file of another user", "folder 0555"])
    func readingCommandsWorkAndWritingOnesSayWhy(_ how: String) throws {
        let (db, lesson) = try database(how.replacingOccurrences(of: " ", with: "-")) { folder, db in
            switch how {
            case "file 0444": chmod(db, 0o444); chmod(folder, 0o777)
            case "file of another user": chmod(db, Self.asRoot ? 0o644 : 0o444); chmod(folder, 0o777)
            default: chmod(db, 0o666); chmod(folder, 0o555)
            }
        }
        let before = FileManager.default.contents(atPath: db)
        let reading: [[String]] = [
            ["list"], ["list", "--json"], ["list", "ode"], ["info", "Ode to Joy"], ["info", lesson, "--json"], ["stats"], ["stats", "--json"],
            ["loops", "list", lesson], ["loops", "list", lesson, "--json"], ["calibrate", "--show"], ["fav", "list"],
            ["next"], ["today", "--json"], ["routine", "list"],
        ]
        for args in reading {
            let r = try runAsUser(args + ["--db", db])
            HostileInputTests.expectClean(r, status: 0, "\(how): \(args.joined(separator: " "))")
        }
        // Nothing to resume in this database: the same one line as a writable one gives.
        HostileInputTests.expectClean(try runAsUser(["resume", "--show", "--db", db]), status: 1, message: "nothing to resume yet", "\(how): resume --show")
        // Reading leaves no WAL sidecars behind (they would be read-only for the file's owner).
        #expect(!FileManager.default.fileExists(atPath: db + "-shm") && !FileManager.default.fileExists(atPath: db + "-wal"), "\(how)")
        // A saved loop is recalled; the practice history's being off is said before anything plays.
        let loop = try runAsUser(["loop", lesson, "--saved", "chorus", "--dry-run", "--db", db])
        HostileInputTests.expectClean(loop, status: 0, "\(how): loop --saved --dry-run")
        #expect(loop.stderr.contains("practice history is off") && loop.stderr.contains("cannot be written"), "\(loop.stderr)")
        let list = try runAsUser(["list", "--db", db])
        #expect(list.stdout.contains("Ode to Joy") && list.stdout.contains("★"), "\(list.stdout)")
        #expect(try runAsUser(["loops", "list", lesson, "--db", db]).stdout.contains("chorus"))
        let writing: [[String]] = [
            ["loops", "save", lesson, "verse", "--bars", "3-4"], ["fav", "add", "Ode to Joy"], ["library", "add", dir.path],
        ]
        for args in writing {
            let r = try runAsUser(args + ["--db", db])
            HostileInputTests.expectClean(r, status: 1, message: "cannot be written", "\(how): \(args.joined(separator: " "))")
            #expect(r.stderr.contains("--db") && r.stderr.contains(how == "folder 0555" ? "folder" : "read-only"), "\(r.stderr)")
        }
        #expect(FileManager.default.contents(atPath: db) == before, "\(how): the database changed")
        chmod(dir.file(how.replacingOccurrences(of: " ", with: "-")), 0o755)
    }
}
