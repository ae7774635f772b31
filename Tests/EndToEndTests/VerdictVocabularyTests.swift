import Foundation
import Testing
import TestSupport

/// One verdict vocabulary (Judge's `OnsetVerdict`, `VerdictMark`, `Verdict`): no source matches
/// a verdict by its word. The words live in the enums' raw values (the JSON coding) and their
/// `word`s; a quoted verdict word anywhere in code outside comments is a string match waiting to
/// fall through as "ok" when a verdict is added.
@Suite struct VerdictVocabularyTests {
    @Test func noSourceMatchesAVerdictByItsWord() throws {
        let sources = Repo.root.appendingPathComponent("Sources")
        let words = ["wrong", "missed", "hit", "wrongPitch", "early", "late", "onTime"].map { "\"\($0)\"" }
        var found: [String] = []
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            Issue.record("no Sources folder at \(sources.path)")
            return
        }
        var files = 0
        for case let url as URL in walker where url.pathExtension == "swift" {
            files += 1
            let text = try String(contentsOf: url, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                for w in words where code.contains(w) {
                    found.append("\(url.path.dropFirst(sources.path.count + 1)):\(n + 1): \(w) in \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(files > 100, "the sources were read")
        #expect(found.isEmpty, "verdict words matched as strings:\n\(found.joined(separator: "\n"))")
    }
}
