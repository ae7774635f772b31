import Foundation

/// Finds the SoundFont to use, in a fixed, documented order, and explains failure in one line.
///
/// Order: `--soundfont PATH`, `$ETUDE_SOUNDFONT`, `SoundFonts/*.sf2|sf3` in the repository,
/// `$XDG_DATA_HOME/etude/soundfonts`, `/usr/share/sounds/sf2/default-GM.sf2`, the other
/// `/usr/share/sounds/sf2/*.sf2`, `/usr/share/soundfonts`. An explicit path (flag or variable)
/// that is missing or corrupt is an error, not silently skipped: the user asked for it.
public struct SoundFontLocator: Sendable {
    public struct Candidate: Equatable, Sendable {
        public enum Origin: String, Sendable {
            case option = "--soundfont"
            case environment = "$ETUDE_SOUNDFONT"
            case repository = "repository SoundFonts/"
            case userData = "$XDG_DATA_HOME/etude/soundfonts"
            case system = "system"
        }
        public var path: String
        public var origin: Origin
        /// nil when usable, else why not ("no such file", "not a SoundFont").
        public var problem: String?
    }

    public static let installHint = "install one with 'sudo apt-get install timgm6mb-soundfont' or pass --soundfont PATH"

    public var explicit: String?
    public var environment: [String: String]
    /// Directories holding a `SoundFonts/` folder (repository root, current directory).
    public var repositoryRoots: [String]
    public var systemDefault: String
    public var systemDirectories: [String]

    public init(explicit: String?,
                environment: [String: String] = ProcessInfo.processInfo.environment,
                repositoryRoots: [String] = SoundFontLocator.defaultRepositoryRoots(),
                systemDefault: String = "/usr/share/sounds/sf2/default-GM.sf2",
                systemDirectories: [String] = ["/usr/share/sounds/sf2", "/usr/share/soundfonts"]) {
        self.explicit = explicit
        self.environment = environment
        self.repositoryRoots = repositoryRoots
        self.systemDefault = systemDefault
        self.systemDirectories = systemDirectories
    }

    /// The current directory and the repository the running binary was built in
    /// (`<repo>/.build/<config>/etude`).
    public static func defaultRepositoryRoots() -> [String] {
        var roots = [FileManager.default.currentDirectoryPath]
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let repo = exe.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        if repo.path != "/" && !roots.contains(repo.path) { roots.append(repo.path) }
        return roots
    }

    /// Every place looked at, in order, with the reason each is unusable.
    public func candidates() -> [Candidate] {
        var out: [Candidate] = []
        func add(_ path: String, _ origin: Candidate.Origin) {
            guard !out.contains(where: { $0.path == path }) else { return }
            out.append(Candidate(path: path, origin: origin, problem: Self.problem(path)))
        }
        if let explicit { add(explicit, .option) }
        if let env = environment["ETUDE_SOUNDFONT"], !env.isEmpty { add(env, .environment) }
        for root in repositoryRoots {
            for f in Self.fonts(in: root + "/SoundFonts") { add(f, .repository) }
        }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"].map { $0 + "/.local/share" } ?? "")
        if !dataHome.isEmpty {
            for f in Self.fonts(in: dataHome + "/etude/soundfonts") { add(f, .userData) }
        }
        add(systemDefault, .system)
        for dir in systemDirectories {
            for f in Self.fonts(in: dir, recursive: true) { add(f, .system) }
        }
        return out
    }

    /// The winning SoundFont path, or one line naming everything tried and the fix.
    public func locate() throws(SynthError) -> String {
        let all = candidates()
        for c in all {
            if c.problem == nil { return c.path }
            if c.origin == .option || c.origin == .environment {
                throw SynthError("SoundFont \(c.path) (\(c.origin.rawValue)): \(c.problem ?? "unusable"); \(Self.installHint)")
            }
        }
        let tried = (all.map(\.path) + searchedDirectories()).joined(separator: ", ")
        throw SynthError("no SoundFont found (tried \(tried)); \(Self.installHint)")
    }

    /// Directories searched (for the error line when nothing is in them).
    public func searchedDirectories() -> [String] {
        var dirs = repositoryRoots.map { $0 + "/SoundFonts" }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"].map { $0 + "/.local/share" } ?? "")
        if !dataHome.isEmpty { dirs.append(dataHome + "/etude/soundfonts") }
        return dirs + systemDirectories
    }

    static func fonts(in dir: String, recursive: Bool = false) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        var out: [String] = []
        for name in names.sorted() {
            let path = dir + "/" + name
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { continue }
            if isDir.boolValue {
                if recursive { out += fonts(in: path, recursive: false) }
            } else if name.lowercased().hasSuffix(".sf2") || name.lowercased().hasSuffix(".sf3") {
                out.append(path)
            }
        }
        return out
    }

    /// Cheap validity check before FluidSynth sees the file: RIFF header with form type `sfbk`.
    public static func problem(_ path: String) -> String? {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { return "no such file" }
        if isDir.boolValue { return "is a directory" }
        guard let h = FileHandle(forReadingAtPath: path) else { return "cannot be read" }
        defer { try? h.close() }
        let head = [UInt8]((try? h.read(upToCount: 12)) ?? Data())
        guard head.count == 12, Array(head[0..<4]) == Array("RIFF".utf8), Array(head[8..<12]) == Array("sfbk".utf8) else {
            return "not a SoundFont (no RIFF sfbk header)"
        }
        return nil
    }
}
