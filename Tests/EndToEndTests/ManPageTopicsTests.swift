import Foundation
import Testing
import TestSupport

/// Issue 39.5: the man page carries the manual — every topic page of docs/ (all but the
/// developers' ARCHITECTURE and DEVELOPMENT) as a section after the generated commands, by
/// scripts/man-topics.py, which scripts/stage.sh runs on generate-manual's page. Checked on a
/// small mdoc page here (the staged page itself in InstallTests, once `make stage` has run).
@Suite struct ManPageTopicsTests {
    static let docs = Repo.root.appendingPathComponent("docs")
    static let developers: Set<String> = ["ARCHITECTURE.md", "DEVELOPMENT.md"]

    /// Every topic page: docs/*.md but the developers'.
    static func topicPages() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") && !developers.contains($0) }.sorted()
    }

    /// The `#` and `##` headings of a page, as the man page spells them.
    static func headings(_ page: String) throws -> [(level: Int, title: String)] {
        let text = try String(contentsOf: docs.appendingPathComponent(page), encoding: .utf8)
        var inCode = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            if line.hasPrefix("```") { inCode.toggle() }
            guard !inCode else { return nil }
            for (level, mark) in [(1, "# "), (2, "## ")] where line.hasPrefix(mark) {
                let title = String(line.dropFirst(mark.count)).replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "**", with: "")
                    .replacingOccurrences(of: #"\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
                return (level, title)
            }
            return nil
        }
    }

    /// A small generated page (as generate-manual writes one) with the topics inserted.
    static func page() throws -> (TempDir, String) {
        let dir = try TempDir("etude-man")
        let page = dir.file("etude.1")
        try """
        .Dd December 5, 2026
        .Dt ETUDE 1
        .Os
        .Sh NAME
        .Nm etude
        .Nd a terminal piano-lesson trainer
        .Sh SYNOPSIS
        .Nm
        .Ar subcommand
        .Sh AUTHORS
        The Etude authors.

        """.write(toFile: page, atomically: true, encoding: .utf8)
        let r = try ProcessRunner.run("python3", [Repo.root.appendingPathComponent("scripts/man-topics.py").path, page])
        #expect(r.status == 0, "\(r.output)")
        return (dir, page)
    }

    @Test func everyTopicPageIsASectionOfTheManPageWithItsSubsections() throws {
        let listed = try ProcessRunner.run("python3", [Repo.root.appendingPathComponent("scripts/man-topics.py").path, "--list"])
        #expect(Set(listed.stdout.split(separator: "\n").map(String.init)) == Set(try Self.topicPages()),
                "a topic page the README's manual table does not link is left out of the man page: \(listed.stdout)")
        let (dir, page) = try Self.page()
        defer { withExtendedLifetime(dir) {} }
        let source = try String(contentsOfFile: page, encoding: .utf8).split(separator: "\n").map(String.init)
        for topic in try Self.topicPages() {
            let heads = try Self.headings(topic)
            #expect(heads.first?.level == 1, "\(topic) starts with its # title")
            for (level, title) in heads {
                let macro = level == 1 ? ".Sh \(title.uppercased())" : ".Ss \(title)"
                #expect(source.contains(macro), "\(topic): \(macro) is not in the man page")
            }
        }
        // The generated page's own sections stay where they were: topics before AUTHORS.
        let authors = try #require(source.firstIndex(of: ".Sh AUTHORS"))
        #expect(source.firstIndex(of: ".Sh YOUR INSTRUMENT").map { $0 < authors } == true)
        #expect(source.first == ".Dd December 5, 2026" && source.contains(".Sh SYNOPSIS"))
        // No line the formatter would take as a request, no Markdown left over.
        for line in source where !line.hasPrefix(".") && !line.hasPrefix("\\&") {
            #expect(!line.hasPrefix("'") && !line.contains("](") && !line.hasPrefix("|") && !line.hasPrefix("#"), "\(line)")
        }
    }

    @Test(.enabled(if: Tools.which("man") != nil, "man is not installed: the page cannot be read as a user reads it"))
    func theManPageReadsWithoutAWarningAndCarriesTheManual() throws {
        let (dir, page) = try Self.page()
        defer { withExtendedLifetime(dir) {} }
        let man = try ProcessRunner.run("man", ["-l", page], environment: ProcessInfo.processInfo.environment.merging(
            ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat", "LANG": "C.UTF-8"]) { $1 }, timeout: 120)
        #expect(man.status == 0 && man.stderr.isEmpty, "man -l warned: \(man.stderr)")
        let lines = man.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for topic in try Self.topicPages() {
            let title = try #require(try Self.headings(topic).first?.title)
            #expect(lines.contains(title.uppercased()), "\(topic): its section \(title.uppercased()) is not on the page")
        }
        // Every command of the manual's command table is on the page, as is every option's row.
        let text = man.stdout.replacingOccurrences(of: "\n", with: " ")
        for needle in ["etude setup", "etude today", "etude sight-read", "--input", "--guide", "keyboard gone", "wait mode"] {
            #expect(text.contains(needle), "\(needle) is not in the man page")
        }
    }
}
