import Foundation
import Testing
import TestSupport

/// `make install`, `make uninstall` and `make deb` as a user runs them: the installed `etude`
/// finds its lessons with the checkout and the Swift toolchain out of reach, the man page reads,
/// the completions load, uninstall leaves only what was there before, and the .deb carries the
/// right control fields and files. They copy the release build `make test` stages before the
/// tests run (`make stage`): a test cannot build it, as the test run holds the build folder.
@Suite struct InstallTests {
    @Test(.enabled(if: Staged.current, Staged.reason))
    func installedEtudeListsEveryLessonFromAnywhereWithoutSwift() throws {
        let root = try TempDir("etude-install")
        let prefix = root.path + "/usr/local"
        let make = try Staged.make(["install", "DESTDIR=\(root.path)"])
        #expect(make.status == 0, "\(make.output)")

        let etude = prefix + "/bin/etude"
        #expect(FileManager.default.isExecutableFile(atPath: etude))
        let ldd = try ProcessRunner.run("ldd", [etude])
        #expect(ldd.status == 0, "\(ldd.output)")
        for lib in ["libswift", "libFoundation", "libdispatch", "not found"] {
            #expect(!ldd.stdout.contains(lib), "the installed etude needs \(lib): \(ldd.stdout)")
        }

        // From /, in a user's environment whose PATH has no Swift, with no ETUDE_LESSONS.
        let home = try TempDir("etude-install-home")
        let env = Etude.silentEnvironment(home: home.path)
        #expect(!(env["PATH"] ?? "").contains(Staged.toolchain ?? "/opt/swift"))
        let list = try ProcessRunner.run(etude, ["list", "--json"], environment: env, directory: "/", timeout: 120)
        #expect(list.status == 0, "\(list.stderr)")
        let lessons = try Staged.lessonCount(list.stdout)
        #expect(lessons >= 100)
        #expect(lessons == Staged.builtinLessonCount, "etude list shows \(lessons) of \(Staged.builtinLessonCount) built-in lessons")
        // A built-in lesson by its title, as the README's examples name them.
        let export = try ProcessRunner.run(etude, ["export", "Ode to Joy", "-o", home.file("ode.mid")], environment: env,
                                           directory: "/", timeout: 120)
        #expect(export.status == 0, "\(export.output)")
        #expect(FileManager.default.fileExists(atPath: home.file("ode.mid")))

        // The lessons folder holds lessons only.
        let installedLessons = prefix + "/share/etude/Lessons"
        let files = try Staged.files(under: installedLessons)
        #expect(files.filter(Staged.isLesson).count == Staged.builtinLessonCount)
        #expect(files.allSatisfy { Staged.isLesson($0) || $0.hasSuffix(".abc") || $0.hasSuffix("README.md") }, "\(files)")
        #expect(files.contains { $0.hasSuffix(".musicxml") }, "no MusicXML score installed: \(files)")
        #expect(files.contains("level4/ode-to-joy.abc") && files.contains("README.md"))

        // The man page reads without a warning.
        let page = prefix + "/share/man/man1/etude.1"
        let man = try ProcessRunner.run("man", ["-l", page], environment: env.merging(["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"]) { $1 },
                                        timeout: 120)
        #expect(man.status == 0, "\(man.stderr)")
        #expect(man.stdout.contains("NAME") && man.stdout.contains("SYNOPSIS") && man.stdout.contains("practice"), "\(man.stdout.prefix(400))")
        #expect(man.stderr.isEmpty, "man -l warned: \(man.stderr)")
        // The manual's topics follow the commands (scripts/man-topics.py; ManPageTopicsTests).
        for section in ["YOUR INSTRUMENT", "PRACTISING", "THE EAR: WHAT IS JUDGED AND HOW", "RELIABILITY: DAMAGED FILES, HOSTILE INPUT, FUZZING"] {
            #expect(man.stdout.contains("\n" + section + "\n"), "the installed man page has no \(section)")
        }

        // The completions load in their shells' standard places.
        let bash = try ProcessRunner.run("/bin/bash", ["-c", "source \"$1\" && complete -p etude", "bash",
                                                       prefix + "/share/bash-completion/completions/etude"], environment: env)
        #expect(bash.status == 0 && bash.stdout.contains("_etude etude"), "\(bash.output)")
        let zsh = prefix + "/share/zsh/site-functions/_etude", fish = prefix + "/share/fish/vendor_completions.d/etude.fish"
        #expect(try String(contentsOfFile: zsh, encoding: .utf8).hasPrefix("#compdef etude"))
        #expect(try String(contentsOfFile: fish, encoding: .utf8).contains("complete -c 'etude'"))
        // Where the shell is installed, it parses its script.
        for (shell, script) in [("zsh", zsh), ("fish", fish)] {
            guard let path = Tools.which(shell) else { continue }
            let parsed = try ProcessRunner.run(path, ["-n", script], environment: env)
            #expect(parsed.status == 0, "\(shell) -n \(script): \(parsed.output)")
        }
    }

    @Test(.enabled(if: Staged.current, Staged.reason))
    func uninstallRemovesExactlyWhatInstallPut() throws {
        let root = try TempDir("etude-uninstall")
        // Someone else's files in the same folders stay, and so do their folders.
        try root.write("opt/etude/bin/other-tool", "#!/bin/sh\n")
        try root.write("opt/etude/share/man/man1/other.1", ".TH OTHER 1\n")
        let before = try Staged.files(under: root.path)
        let settings = ["DESTDIR=\(root.path)", "PREFIX=/opt/etude"]

        let install = try Staged.make(["install"] + settings)
        #expect(install.status == 0, "\(install.output)")
        let manifest = root.file("opt/etude/share/etude/install-manifest")
        let listed = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("f ") }
        let installed = try Staged.files(under: root.path)
        // The manifest names every file install added, and only those.
        #expect(Set(listed.map { "opt/etude/" + $0.dropFirst("f /opt/etude/".count) }).union(["opt/etude/share/etude/install-manifest"])
                == Set(installed).subtracting(before))
        #expect(installed.contains("opt/etude/bin/etude") && installed.contains("opt/etude/share/man/man1/etude.1"))

        // Installing again over it changes nothing in what uninstall will remove.
        let again = try Staged.make(["install"] + settings)
        #expect(again.status == 0, "\(again.output)")
        #expect(try Staged.files(under: root.path) == installed)

        let uninstall = try Staged.make(["uninstall"] + settings)
        #expect(uninstall.status == 0, "\(uninstall.output)")
        #expect(try Staged.files(under: root.path) == before)
        let dirs = try Staged.directories(under: root.path)
        #expect(dirs == ["opt", "opt/etude", "opt/etude/bin", "opt/etude/share", "opt/etude/share/man", "opt/etude/share/man/man1"],
                "uninstall left folders install created: \(dirs)")

        // A second uninstall has nothing to remove and says so.
        let twice = try Staged.make(["uninstall"] + settings)
        #expect(twice.status != 0 && twice.stderr.contains("no install manifest"), "\(twice.output)")
    }

    @Test(.enabled(if: Staged.current, Staged.reason), .enabled(if: Staged.canHideToolchain, Staged.hideReason))
    func installedEtudeRunsWithTheToolchainUnreadable() throws {
        let root = try TempDir("etude-install-noswift")
        let make = try Staged.make(["install", "DESTDIR=\(root.path)"])
        #expect(make.status == 0, "\(make.output)")
        let home = try TempDir("etude-install-home")
        let toolchain = try #require(Staged.toolchain)
        // A private mount namespace where an empty tmpfs covers the toolchain for this one process.
        let r = try ProcessRunner.run("unshare", ["--mount", "/bin/sh", "-c",
                                                  "mount -t tmpfs tmpfs \"$1\" && [ -z \"$(ls -A \"$1\")\" ] && exec \"$2\" list --json",
                                                  "sh", toolchain, root.path + "/usr/local/bin/etude"],
                                      environment: Etude.silentEnvironment(home: home.path), directory: "/", timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Staged.lessonCount(r.stdout) == Staged.builtinLessonCount)
    }

    @Test(.enabled(if: Staged.current, Staged.reason), .enabled(if: Tools.dpkgDeb.available, Tools.dpkgDeb.reason))
    func debianPackageHasItsControlFieldsAndFiles() throws {
        let out = try TempDir("etude-deb")
        // gzip rather than the default xz: the same package, built in a fifth of the time.
        let make = try Staged.make(["deb", "DEB_DIR=\(out.path)", "DEB_COMPRESSION=gzip"])
        #expect(make.status == 0, "\(make.output)")
        let version = try String(contentsOfFile: Repo.root.appendingPathComponent("VERSION").path, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let arch = try ProcessRunner.run("dpkg", ["--print-architecture"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let deb = out.file("etude_\(version)_\(arch).deb")
        #expect(make.stdout.hasSuffix(deb + "\n"), "\(make.stdout)")

        let control = try ProcessRunner.run("dpkg-deb", ["-f", deb])
        #expect(control.status == 0, "\(control.stderr)")
        let fields = Staged.controlFields(control.stdout)
        #expect(fields["Package"] == "etude")
        #expect(fields["Version"] == version)
        #expect(fields["Architecture"] == arch)
        #expect(fields["Maintainer"]?.contains("<") == true)
        #expect(fields["Description"]?.hasPrefix("piano-lesson trainer for the terminal") == true)
        #expect(Int(fields["Installed-Size"] ?? "") ?? 0 > 1000)
        let depends = (fields["Depends"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let names = Set(depends.filter { !$0.contains("|") }.map { String($0.prefix { $0 != " " }) })
        #expect(names.isSuperset(of: ["libfluidsynth3", "libsqlite3-0", "libasound2"]), "Depends: \(depends)")
        #expect(depends.contains("timgm6mb-soundfont | fluid-soundfont-gm"), "Depends: \(depends)")

        let contents = try ProcessRunner.run("dpkg-deb", ["-c", deb])
        #expect(contents.status == 0, "\(contents.stderr)")
        // Lines: mode owner/group size date time ./path
        let entries = contents.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        let paths = entries.compactMap { $0.last.map(String.init) }
        #expect(entries.allSatisfy { $0.count >= 6 && $0[1] == "root/root" }, "files not owned by root")
        #expect(paths.allSatisfy { $0 == "./" || $0.hasPrefix("./usr/") }, "\(paths.filter { !$0.hasPrefix("./usr/") })")
        for path in ["./usr/bin/etude", "./usr/share/man/man1/etude.1.gz", "./usr/share/bash-completion/completions/etude",
                     "./usr/share/zsh/vendor-completions/_etude", "./usr/share/fish/vendor_completions.d/etude.fish",
                     "./usr/share/etude/Lessons/README.md", "./usr/share/etude/Lessons/level4/ode-to-joy.mid"] {
            #expect(paths.contains(path), "\(path) is not in the package")
        }
        #expect(entries.contains { $0.last == "./usr/bin/etude" && $0[0] == "-rwxr-xr-x" })
        let lessons = paths.filter { $0.hasPrefix("./usr/share/etude/Lessons/") && !$0.hasSuffix("/") }
        #expect(lessons.filter(Staged.isLesson).count == Staged.builtinLessonCount)
        #expect(lessons.allSatisfy { Staged.isLesson($0) || $0.hasSuffix(".abc") || $0.hasSuffix("README.md") }, "\(lessons)")
        #expect(!paths.contains { $0.contains("install-manifest") })
    }
}

/// The release build that `make stage` leaves for these tests, and what they compare against.
enum Staged {
    /// Whether `make stage` is up to date: install and deb then copy it without building.
    static let current: Bool = (try? ProcessRunner.run("make", ["-C", Repo.root.path, "-q", "stage"], timeout: 120).status) == 0
    static let reason: Comment = "the release build is not staged or is older than the sources: run `make stage` first (make test does)"

    /// `make ARGS…` in the checkout, in this process's environment.
    static func make(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run("make", ["-C", Repo.root.path, "--no-print-directory"] + arguments, timeout: 600)
    }

    /// The Swift toolchain this test run uses (the folder holding usr/bin/swift), nil when none is found.
    static let toolchain: String? = Tools.which("swift").map {
        URL(fileURLWithPath: $0).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// Hiding the toolchain needs a private mount namespace: root and `unshare`.
    static let canHideToolchain: Bool = {
        guard getuid() == 0, toolchain != nil, Tools.which("unshare") != nil else { return false }
        return (try? ProcessRunner.run("unshare", ["--mount", "true"], timeout: 30).status) == 0
    }()
    static let hideReason: Comment = "hiding the Swift toolchain needs root and unshare --mount (util-linux)"

    /// The built-in lessons of the checkout: one catalogue entry per .mid and per score (an .abc
    /// source is played from the .mid rendered beside it).
    static let builtinLessonCount: Int = ((try? files(under: Repo.lessons.path)) ?? []).filter(isLesson).count

    static func isLesson(_ path: String) -> Bool {
        [".mid", ".musicxml", ".mxl"].contains { path.hasSuffix($0) }
    }

    static func lessonCount(_ json: String) throws -> Int {
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8))
        return (value as? [Any])?.count ?? -1
    }

    /// Regular files under a folder, as sorted relative paths.
    static func files(under folder: String) throws -> [String] { try entries(under: folder, directories: false) }
    static func directories(under folder: String) throws -> [String] { try entries(under: folder, directories: true) }

    private static func entries(under folder: String, directories: Bool) throws -> [String] {
        let base = URL(fileURLWithPath: folder)
        guard let walk = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isDirectoryKey]) else { return [] }
        var found: [String] = []
        for case let url as URL in walk {
            let isDirectory = (try url.resourceValues(forKeys: [.isDirectoryKey])).isDirectory ?? false
            if isDirectory == directories { found.append(String(url.path.dropFirst(base.path.count + 1))) }
        }
        return found.sorted()
    }

    /// `Field: value` lines of a control file; continuation lines are left out.
    static func controlFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix(" ") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }
}
