import Foundation
import Testing
import TestSupport

/// Issue 40: the third hostile-input probe. Every case is made here in a temporary folder (a
/// device node is made with `mknod` there, never a real system path) and run through the built
/// `etude` as a user runs it.
@Suite("Hostile input, round three", .serialized)
struct HostileInputRoundThreeTests {
    let etude: Etude
    let dir: TempDir
    let lesson: String

    init() throws {
        etude = try Etude()
        dir = try TempDir("etude-hostile3")
        lesson = try dir.write("o.mid", [UInt8](try Data(contentsOf: URL(fileURLWithPath: Repo.lesson("level4/ode-to-joy.mid")))))
    }

    static func clean(_ r: ProcessResult, status: Int32, message: String? = nil, _ what: String,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        HostileInputTests.expectClean(r, status: status, message: message, what, sourceLocation: sourceLocation)
    }

    func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// What `lstat` says of a path: its type bits, device and inode (nil when there is none).
    static func entry(_ path: String) -> [UInt64]? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return [UInt64(st.st_mode & S_IFMT), UInt64(st.st_dev), UInt64(st.st_ino)]
    }

    static let isRoot = getuid() == 0
    static let smallSoundFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    // MARK: 1. One writer for every file Etude writes

    /// Every writer (`-o`, `--export`, `--report`) against every kind of target: an input of the
    /// command, the database and its sidecars (there or not yet), a SoundFont played through, a
    /// device node, a FIFO, a folder, a symlink to each; each refused in one line naming the file,
    /// with the target untouched (a symlink still the same link). A symlink to a file and a
    /// dangling one are written *through*: the link stays, the file it names gets the bytes.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: smallSoundFont), "TimGM6mb.sf2 is not installed (apt-get install timgm6mb-soundfont)"))
    func everyWriterAgainstEveryKindOfTarget() throws {
        let font = try dir.write("font.sf2", [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.smallSoundFont))))
        let abc = try dir.write("t.abc", "X:1\nT:Tune\nK:C\nCDEF|GABc|\n")
        let inputFIFO = dir.file("in.fifo")
        #expect(mkfifo(inputFIFO, 0o600) == 0)
        Self.clean(try etude.run(["routine", "new", "r", "--entry", "lesson=\(lesson);minutes=1"]), status: 0, "routine new")
        let db = etude.database
        #expect(FileManager.default.fileExists(atPath: db))
        let fifo = dir.file("out.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let folder = dir.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        var device: String?
        if Self.isRoot {
            // A character device (1, 3) made in the test's own folder: never a real system path.
            let node = dir.file("node")
            if mknod(node, S_IFCHR | 0o666, makedev(1, 3)) == 0 { device = node }
        }

        struct Writer {
            var name: String
            var args: (String) -> [String]
            /// The targets that are this writer's own inputs.
            var inputs: [String]
            /// Whether the test can see this writer succeed (record and practice need a player).
            var succeeds: Bool
        }
        let writers = [
            Writer(name: "export -o", args: { ["export", lesson, "-o", $0] }, inputs: [lesson], succeeds: true),
            Writer(name: "render -o", args: { ["render", lesson, "-o", $0, "--soundfont", font, "--tail", "0"] }, inputs: [lesson, font], succeeds: true),
            Writer(name: "abc -o", args: { ["abc", abc, "-o", $0] }, inputs: [abc], succeeds: true),
            Writer(name: "record -o", args: { ["record", "-o", $0, "--input", inputFIFO, "--soundfont", font] }, inputs: [inputFIFO, font], succeeds: false),
            Writer(name: "sight-read --export", args: { ["sight-read", "--export", $0] }, inputs: [], succeeds: true),
            Writer(name: "routine export -o", args: { ["routine", "export", "r", "-o", $0] }, inputs: [], succeeds: true),
            Writer(name: "practice --report", args: { ["practice", lesson, "--report", $0, "--soundfont", font, "--input", inputFIFO] },
                   inputs: [lesson, font, inputFIFO], succeeds: false),
        ]
        var refused: [(target: String, kind: String, message: String)] = [
            (db, "the database", "that is the input file"),
            (db + "-wal", "its -wal (not there)", "that is the input file"),
            (db + "-shm", "its -shm", "that is the input file"),
            (db + "-journal", "its -journal (not there)", "that is the input file"),
            (fifo, "a FIFO", "a FIFO"),
            (folder, "a folder", "a folder"),
        ]
        if let device { refused.append((device, "a device node", "a device node")) }
        var n = 0
        for writer in writers {
            var targets = refused
            for input in writer.inputs {
                targets.append((input, "its input \((input as NSString).lastPathComponent)", input == inputFIFO ? "" : "that is the input file"))
            }
            // A symlink to each: refused the same way, and left a symlink to it.
            for t in targets {
                n += 1
                let link = dir.file("link-\(n)")
                #expect(symlink(t.target, link) == 0)
                targets.append((link, "a symlink to \(t.kind)", t.message))
            }
            for t in targets {
                let before = Self.entry(t.target)
                // The database's own bytes are SQLite's to change (a lesson catalogued on the way).
                let content = !t.kind.contains("database") && !t.kind.contains("its -") ? bytes(t.target) : nil
                let r = try etude.run(writer.args(t.target), directory: dir.path, timeout: 60)
                let what = "\(writer.name) \(t.kind)"
                Self.clean(r, status: 1, message: t.message.isEmpty ? nil : t.message, what)
                #expect(r.stderr.contains((t.target as NSString).lastPathComponent), "\(what): the line does not name the file: \(r.stderr)")
                if content != nil || !t.target.hasPrefix(db) {
                    #expect(Self.entry(t.target) == before, "\(what): the target changed")
                }
                if let content { #expect(bytes(t.target) == content, "\(what): the target's bytes changed") }
                // The database's files are SQLite's: none holds what the writer makes.
                let head = content == nil ? Array((bytes(t.target) ?? []).prefix(4)) : []
                #expect(head != Array("MThd".utf8) && head != Array("RIFF".utf8) && head.first != UInt8(ascii: "{"), "\(what): written over")
            }
            guard writer.succeeds else { continue }
            // Written through a symlink to a file, and through a dangling one.
            n += 1
            let file = try dir.write("file-\(n)", "old bytes")
            let link = dir.file("link-\(n)")
            #expect(symlink(file, link) == 0)
            let dangling = dir.file("dangling-\(n)")
            let missing = dir.file("missing-\(n)")
            #expect(symlink(missing, dangling) == 0)
            for (target, written) in [(link, file), (dangling, missing)] {
                let r = try etude.run(writer.args(target), directory: dir.path, timeout: 120)
                Self.clean(r, status: 0, "\(writer.name) through a symlink")
                var st = stat()
                #expect(lstat(target, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK, "\(writer.name): the symlink was replaced")
                let got = bytes(written) ?? []
                #expect(got.count > 9 && got != Array("old bytes".utf8), "\(writer.name): nothing written through the link")
            }
        }
        #expect(FileManager.default.fileExists(atPath: db + "-journal") == false)
        // Nothing half-written was left anywhere.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp") }
        #expect(left.isEmpty, "\(left)")
        // The database is still the database: the routine is there.
        Self.clean(try etude.run(["routine", "list"]), status: 0, "routine list")
    }

    /// F19: `--report` onto the SoundFont played through is refused before a byte of it changes.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: smallSoundFont), "TimGM6mb.sf2 is not installed (apt-get install timgm6mb-soundfont)"))
    func theReportIsNeverTheSoundFont() throws {
        let font = try dir.write("font.sf2", [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.smallSoundFont))))
        let before = bytes(font)
        let r = try etude.run(["practice", lesson, "--soundfont", font, "--report", font], timeout: 30)
        Self.clean(r, status: 1, message: "that is the input file", "--report the SoundFont")
        #expect(bytes(font) == before)
    }
}
