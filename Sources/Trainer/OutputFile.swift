import Foundation

/// Every file a command writes goes through here: it is never one of the command's inputs
/// (compared by device and inode, so `./o.mid`, a hard link or a symlink to the input is caught,
/// not only the same string), its folder is checked before work starts, and the bytes go to a
/// temporary file in the same folder renamed into place, so a failure leaves the old file whole
/// and no empty or partial file behind.
public enum OutputFile {
    /// Checks before any work: `path` is not an input, names a file (not a folder or device),
    /// and its folder exists and can be written. `option` names the flag in messages (`-o`).
    public static func check(_ path: String, inputs: [String], option: String = "-o") throws {
        guard !path.isEmpty else { throw EtudeFailure("\(option) needs a file name") }
        let shown = safe(path)
        if let problem = nameProblem(path) { throw EtudeFailure("\(option) \(shown): \(problem)") }
        if let out = identity(path) {
            for input in inputs {
                if let inp = identity(input), inp == out {
                    throw EtudeFailure("\(option) \(shown): that is the input file \(safe(input)); write to another file")
                }
            }
            var st = stat()
            if stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
                throw EtudeFailure("\(option) \(shown): is a directory; give a file name in it, e.g. \(shown)/NAME")
            }
            if stat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
                throw EtudeFailure("\(option) \(shown): not a regular file; give a file name to write")
            }
        }
        let folder = split(path).folder
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDir), isDir.boolValue else {
            throw EtudeFailure("\(option) \(shown): the folder \(safe(folder)) does not exist; create it first")
        }
        guard access(folder, W_OK) == 0 else {
            throw EtudeFailure("\(option) \(shown): cannot write in \(safe(folder)) (check its permissions)")
        }
    }

    /// Writes `bytes` to `path` through a temporary file renamed into place.
    public static func write(_ bytes: [UInt8], to path: String, option: String = "-o") throws {
        try write(to: path, option: option) { handle in
            try handle.write(contentsOf: Data(bytes))
        }
    }

    /// Writes through a temporary file (the caller streams into `body`); renamed into place only
    /// when `body` returns, removed when it throws.
    public static func write(to path: String, option: String = "-o", _ body: (FileHandle) throws -> Void) throws {
        if let problem = nameProblem(path) { throw EtudeFailure("\(option) \(safe(path)): \(problem)") }
        let (folder, name) = split(path)
        let temp = (folder.hasSuffix("/") ? folder : folder + "/") + ".\(name).etude-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        guard FileManager.default.createFile(atPath: temp, contents: nil, attributes: [.posixPermissions: 0o644]),
              let handle = FileHandle(forWritingAtPath: temp) else {
            throw EtudeFailure("\(option) \(safe(path)): cannot write in \(safe(folder)) (check its permissions)")
        }
        // A file written again keeps its permissions.
        var old = stat()
        if stat(path, &old) == 0 { _ = chmod(temp, old.st_mode & 0o7777) }
        do {
            try body(handle)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            unlink(temp)
            if let e = error as? EtudeFailure { throw e }
            throw EtudeFailure("\(option) \(safe(path)): cannot write it: \(error.localizedDescription); the old file (if any) is untouched")
        }
        guard rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw EtudeFailure("\(option) \(safe(path)): cannot write it: \(reason)")
        }
    }

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
    static func split(_ path: String) -> (folder: String, name: String) {
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
