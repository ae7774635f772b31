import Store

/// A small in-memory catalogue the Store and routine tests share: four lessons, each with a
/// file row (lessons appear in lists only with a file).
public enum StoreFixture {
    public static func lesson(_ id: String, _ title: String, level: Int? = nil, composer: String? = nil) -> LessonInfo {
        LessonInfo(id: id, title: title, composer: composer, level: level,
                   searchText: [title, composer].compactMap { $0 }.joined(separator: " ").lowercased())
    }

    /// Minuet in G (aaaa1111, level 2, Bach), C Major Scale (bbbb2222, 1), Prelude in C
    /// (cccc3333, 3, Bach), 100% Fun_Song (dddd4444, 1).
    public static func seeded() throws -> Store {
        let s = try Store.inMemory()
        for (i, l) in [lesson("aaaa1111", "Minuet in G", level: 2, composer: "Bach"),
                       lesson("bbbb2222", "C Major Scale", level: 1),
                       lesson("cccc3333", "Prelude in C", level: 3, composer: "Bach"),
                       lesson("dddd4444", "100% Fun_Song", level: 1)].enumerated() {
            try s.register(l)
            try s.writer.write { db in
                try LessonFileRecord(path: "/l/\(i).mid", lessonID: l.id, size: 1, mtime: 1, source: .folder, root: "/l").insert(db)
            }
        }
        return s
    }
}
