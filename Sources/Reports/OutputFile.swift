import Foundation
import Store

/// The one writer of every file Etude writes (exports, renders, recordings, sight-reading and
/// quiz lessons, routine exports, `--report`, a pass saved with `r`). Before a byte is written it
/// refuses, in one line naming the file and why: one of the command's inputs or the database
/// and its sidecars (compared by device and inode after following links, and by name for a
/// sidecar not there yet, so `./o.mid`, a hard link or a symlink to an input is caught), a
/// folder, a device node, a FIFO or a socket. A symlink is written *through* to the file it
/// ends at, as `cp` and shells do, never replaced; a dangling one creates its target. A file is
/// replaced by renaming a temporary file in its folder only once that is written whole, so a
/// failure leaves the old file whole and no partial file behind. `--report` is appended to,
/// never truncated (`openForAppend`).
public enum OutputFile {
    /// Checks before any work: `path` may be written (see the type) and its folder exists and
    /// can be written. `inputs` are the command's inputs (the database of `$ETUDE_DB` or the
    /// default one is always protected); `option` names the flag in messages (`-o`).
    public static func check(_ path: String, inputs: [String], option: String = "-o") throws {
        _ = try target(path, inputs: inputs, option: option)
    }

    /// Writes `bytes` to `path` through a temporary file renamed into place.
    public static func write(_ bytes: [UInt8], to path: String, inputs: [String], option: String = "-o") throws {
        try write(to: path, inputs: inputs, option: option) { handle in
            try handle.write(contentsOf: Data(bytes))
        }
    }

    /// Writes through a temporary file (the caller streams into `body`) beside the file a
    /// symlink ends at; renamed into place only when `body` returns, removed when it throws.
    public static func write(to path: String, inputs: [String], option: String = "-o", _ body: (FileHandle) throws -> Void) throws {
        let real = try target(path, inputs: inputs, option: option)
        let shown = safe(path)
        let (folder, name) = split(real)
        let temp = (folder.hasSuffix("/") ? folder : folder + "/") + ".\(name).etude-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw EtudeFailure("\(option) \(shown): cannot write in \(safe(folder)) (\(String(cString: strerror(errno))); check its permissions)")
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        // A file written again keeps its permissions.
        var old = stat()
        if stat(real, &old) == 0 { _ = fchmod(fd, old.st_mode & 0o7777) }
        do {
            try body(handle)
            guard fsync(fd) == 0 else { throw EtudeFailure("\(option) \(shown): cannot write it: \(String(cString: strerror(errno))); the old file (if any) is untouched") }
            guard close(fd) == 0 else { throw EtudeFailure("\(option) \(shown): cannot write it: \(String(cString: strerror(errno))); the old file (if any) is untouched") }
        } catch {
            _ = close(fd)
            unlink(temp)
            if let e = error as? EtudeFailure { throw e }
            throw EtudeFailure("\(option) \(shown): cannot write it: \(error.localizedDescription); the old file (if any) is untouched")
        }
        guard rename(temp, real) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw EtudeFailure("\(option) \(shown): cannot write it: \(reason)")
        }
    }

    /// Opens `path` to append to (created when missing, never truncated), after the same
    /// refusals as `write`; checked again on the open file, so nothing but a regular file that
    /// is not an input is ever written.
    public static func openForAppend(_ path: String, inputs: [String], option: String) throws -> FileHandle {
        let real = try target(path, inputs: inputs, option: option)
        // O_NONBLOCK: a FIFO put in its place since the check is refused below, not waited on.
        let fd = open(real, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw EtudeFailure("\(option) \(safe(path)): cannot write it (\(String(cString: strerror(errno)))); check the folder exists and is writable")
        }
        var st = stat()
        let protected = protectedIdentities(inputs)
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG,
              !protected.contains(where: { $0.file == [UInt64(st.st_dev), UInt64(st.st_ino)] }) else {
            _ = close(fd)
            throw EtudeFailure("\(option) \(safe(path)): changed while Etude opened it; give a regular file that is none of the inputs")
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// The file the bytes of `path` go to (the end of its symlinks), or the one-line refusal.
    static func target(_ path: String, inputs: [String], option: String) throws -> String {
        guard !path.isEmpty else { throw EtudeFailure("\(option) needs a file name") }
        let shown = safe(path)
        if let problem = nameProblem(path) { throw EtudeFailure("\(option) \(shown): \(problem)") }
        guard let real = resolve(path) else {
            throw EtudeFailure("\(option) \(shown): a symlink loop (or more than \(maxLinks) links deep); point it at a file")
        }
        let named = real == path ? shown : "\(shown) (a link to \(safe(real)))"
        var st = stat()
        let exists = stat(path, &st) == 0
        if exists, st.st_mode & S_IFMT == S_IFDIR {
            throw EtudeFailure("\(option) \(named): is a directory; give a file name in it, e.g. \(shown)/NAME")
        }
        if exists, let kind = kind(st.st_mode) {
            throw EtudeFailure("\(option) \(named): \(kind), not a file; give a file name to write")
        }
        if exists, stat(real, &st) != 0 {
            throw EtudeFailure("\(option) \(shown): a link Etude cannot follow to a file; give a file name to write")
        }
        for p in protectedIdentities(inputs) where p.matches(real) {
            throw EtudeFailure("\(option) \(named): that is the input file \(safe(p.path))\(p.what); write to another file")
        }
        let folder = split(real).folder
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDir), isDir.boolValue else {
            throw EtudeFailure("\(option) \(named): the folder \(safe(folder)) does not exist; create it first")
        }
        guard access(folder, W_OK) == 0 else {
            throw EtudeFailure("\(option) \(named): cannot write in \(safe(folder)) (check its permissions)")
        }
        return real
    }

    /// "a folder", "a device node"…: what a file that is not a regular one is, nil for one.
    static func kind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFCHR, S_IFBLK: return "a device node"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    /// More links than this in a row are taken as a loop (Linux stops at 40 too).
    static let maxLinks = 40

    /// `path` with its symlinks followed to the file they end at (which may not exist: a
    /// dangling link names the file it creates); nil for a loop.
    static func resolve(_ path: String) -> String? {
        var p = path
        for _ in 0...maxLinks {
            var st = stat()
            guard lstat(p, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return p }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(p, &buffer, Int(PATH_MAX))
            guard n > 0 else { return p }
            let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let folder = split(p).folder
            p = link.hasPrefix("/") ? link : (folder.hasSuffix("/") ? folder : folder + "/") + link
        }
        return nil
    }

    /// A file no output may be: an input, or the database or one of its sidecars.
    struct Protected {
        var path: String
        /// What it is, after its name in a refusal: "" for an input, " (the database…)".
        var what: String
        /// (device, inode) of the file, nil when it is not there.
        var file: [UInt64]?
        /// (device, inode) of its folder and its name, for a sidecar that may appear later.
        var place: (folder: [UInt64], name: String)?

        func matches(_ real: String) -> Bool {
            if let file, identity(real) == file { return true }
            if let place, split(real).name == place.name, identity(split(real).folder) == place.folder { return true }
            return false
        }
    }

    /// The command's inputs and the database files (the `$ETUDE_DB` or default one always; a
    /// `--db` one when the command passes `Library.databaseFiles`, which names its sidecars).
    static func protectedIdentities(_ inputs: [String]) -> [Protected] {
        let all = inputs + Store.files(ofDatabase: Store.defaultPath(override: nil))
        let databases = Set(all.compactMap { $0.hasSuffix("-wal") ? String($0.dropLast(4)) : nil })
        var files: [(path: String, what: String)] = []
        for file in all where !file.isEmpty && !files.contains(where: { $0.path == file }) {
            if databases.contains(file) {
                files.append((file, " (the database: your history)"))
                files.append((file + "-journal", " (the database's journal)"))
            } else if let suffix = sidecarSuffixes.first(where: { file.hasSuffix($0) && databases.contains(String(file.dropLast($0.count))) }) {
                files.append((file, " (the database's \(suffix.dropFirst()) file)"))
            } else {
                files.append((file, ""))
            }
        }
        return files.map { file in
            let real = resolve(file.path) ?? file.path
            // A database file is refused by its name too: a sidecar SQLite has not made yet.
            let byName = file.what.hasPrefix(" (the database")
            return Protected(path: file.path, what: file.what, file: identity(file.path),
                             place: byName ? identity(split(real).folder).map { ($0, split(real).name) } : nil)
        }
    }

    /// The files SQLite keeps beside a database (and Etude's lock).
    static let sidecarSuffixes = ["-wal", "-shm", "-journal", ".lock"]

    /// Why a name cannot be a file to write, or nil: `-` (standard output is not written to),
    /// a name of blanks, `~` the shell left unexpanded, or a name ending in `/` (a folder).
    static func nameProblem(_ path: String) -> String? {
        if path == "-" { return "writing to standard output is not supported; give a file name, e.g. out.mid" }
        if path.allSatisfy({ $0.isWhitespace }) { return "a name of blanks; give a file name, e.g. out.mid" }
        if path == "~" { return "that is your home folder, not a file; give a file name, e.g. ~/out.mid (unquoted)" }
        if path.hasSuffix("/") || split(path).name == "." || split(path).name == ".." {
            return "names a folder; give a file name in it, e.g. \(safe(path.hasSuffix("/") ? path : path + "/"))NAME"
        }
        return nil
    }

    /// The folder (`.` for a bare name) and the last part of a path, by its last `/`, without
    /// Foundation's path functions (which trap on short names such as `-` and `a`).
    package static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// (device, inode) of an existing file, following symlinks; nil when there is none.
    static func identity(_ path: String) -> [UInt64]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return [UInt64(st.st_dev), UInt64(st.st_ino)]
    }
}
