import Foundation
import Reports
import Store

/// Shell completion for a LESSON argument: lesson files beside the cursor's path and the titles
/// of the catalogue that start as typed. Fast and quiet: a database that cannot be read gives
/// files only, never an error on the learner's prompt.
public enum LessonCompletion {
    /// The completions for `prefix` (`words` is the command line so far, for `--db`).
    public static func candidates(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        files(prefix) + titles(prefix, database: database(in: words))
    }

    static func database(in words: [String]) -> String? {
        for (i, w) in words.enumerated() {
            if w == "--db", i + 1 < words.count { return words[i + 1] }
            if w.hasPrefix("--db=") { return String(w.dropFirst(5)) }
        }
        return nil
    }

    /// Lesson files and folders whose path starts with `prefix`.
    static func files(_ prefix: String) -> [String] {
        let expanded = (prefix as NSString).expandingTildeInPath
        let folder = prefix.hasSuffix("/") ? expanded : (expanded as NSString).deletingLastPathComponent
        let start = prefix.hasSuffix("/") ? "" : (expanded as NSString).lastPathComponent
        let shownFolder = prefix.hasSuffix("/") ? prefix : (prefix as NSString).deletingLastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return [] }
        var out: [String] = []
        for name in names.sorted() where name.hasPrefix(start) && !name.hasPrefix(".") {
            let full = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(name)
            let shown = shownFolder.isEmpty ? name : (shownFolder as NSString).appendingPathComponent(name)
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: full, isDirectory: &isDir)
            if isDir.boolValue {
                out.append(shown + "/")
            } else if let dot = name.lastIndex(of: "."), LessonFormats.pathExtensions.contains(name[name.index(after: dot)...].lowercased()) {
                out.append(shown)
            }
        }
        return out
    }

    /// Catalogue titles starting with `prefix` (any case).
    static func titles(_ prefix: String, database: String?) -> [String] {
        guard !prefix.contains("/") else { return [] }
        let path = Store.defaultPath(override: database)
        guard FileManager.default.fileExists(atPath: path),
              let store = try? Store.open(path: path, formats: LessonFormats.all, chosen: true),
              let lessons = try? store.lessons() else { return [] }
        let lower = prefix.lowercased()
        return lessons.map { safe($0.lesson.title) }.filter { $0.lowercased().hasPrefix(lower) }.sorted()
    }
}
