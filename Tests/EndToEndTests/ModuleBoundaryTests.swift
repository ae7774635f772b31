import Foundation
import Testing
import TestSupport

/// The layers stay apart, read from the sources: only the executable parses command lines
/// (ArgumentParser), and the practice engine neither draws nor reads the terminal itself.
@Suite struct ModuleBoundaryTests {
    struct Import: CustomStringConvertible {
        var module: String
        var file: String
        var line: Int
        var imported: String
        var description: String { "\(file):\(line) imports \(imported)" }
    }

    /// Every `import` line of every Swift file under Sources/, with the module it belongs to
    /// (the folder under Sources/). Attributes (`@testable`, `@preconcurrency`…) and kinds
    /// (`import struct X.Y`) are read through.
    static func imports() throws -> [Import] {
        let sources = Repo.root.appendingPathComponent("Sources")
        let pattern = try Regex(#"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#)
        var found: [Import] = []
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else { return [] }
        for case let url as URL in walker where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(sources.path.count + 1))
            guard let module = relative.split(separator: "/").first.map(String.init) else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let m = try pattern.firstMatch(in: String(line)), let name = m.output[1].substring else { continue }
                found.append(Import(module: module, file: "Sources/" + relative, line: n + 1, imported: String(name)))
            }
        }
        return found
    }

    @Test func onlyTheExecutableImportsArgumentParser() throws {
        let all = try Self.imports()
        #expect(all.contains { $0.module == "etude" && $0.imported == "ArgumentParser" }, "the scan sees the executable's own imports")
        let elsewhere = all.filter { $0.imported == "ArgumentParser" && $0.module != "etude" }
        #expect(elsewhere.isEmpty, "command-line parsing belongs to Sources/etude: \(elsewhere)")
    }

    @Test func practiceImportsNeitherScreenNorTerminal() throws {
        let all = try Self.imports()
        #expect(all.contains { $0.module == "Practice" }, "the scan sees Sources/Practice")
        let drawing = all.filter { $0.module == "Practice" && ["Screen", "Terminal"].contains($0.imported) }
        #expect(drawing.isEmpty, "Practice must not draw or read the terminal: \(drawing)")
    }
}
