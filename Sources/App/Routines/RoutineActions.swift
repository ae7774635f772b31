import Foundation
import LessonLibrary
import Reports
import Store

/// `etude routine new|edit|list|export|import|delete`: each one change or one look at the
/// routines in the library, its output as text; the command line only parses the options.
public enum RoutineActions {
    /// A new routine from `--entry` specs; its listing.
    public static func create(name: String, entries: [String], library: Library) throws -> String {
        guard !entries.isEmpty else {
            throw EtudeFailure("give at least one --entry, e.g. etude routine new \(name) --entry \"lesson=TITLE;minutes=5\"")
        }
        return try library.withStore { s in
            if try s.routine(named: name) != nil {
                throw EtudeFailure("a routine named \(name) exists; change it with `etude routine edit`")
            }
            let routine = Routine(name: name, entries: try s.routineEntries(entries))
            try s.saveChecked(routine)
            return RoutineFile.text(routine, titles: try s.lessonTitles())
        }
    }

    /// What `etude routine edit` changes, in the order they are applied; none at all opens the
    /// routine's JSON in the learner's editor.
    public struct Changes: Sendable {
        public var rename: String?
        public var add: [String] = []
        public var remove: [Int] = []
        public var move: Int?
        public var to: Int?
        public var set: [String] = []

        public init(rename: String? = nil, add: [String] = [], remove: [Int] = [], move: Int? = nil, to: Int? = nil, set: [String] = []) {
            (self.rename, self.add, self.remove, self.move, self.to, self.set) = (rename, add, remove, move, to, set)
        }

        var isEmpty: Bool { rename == nil && add.isEmpty && remove.isEmpty && move == nil && set.isEmpty }
    }

    /// The routine changed (or edited in `$VISUAL`/`$EDITOR` when `changes` is empty) and
    /// stored; its listing. A change that does not fit leaves the routine as it was.
    public static func edit(name: String, changes: Changes, library: Library) throws -> String {
        try library.withStore { s in
            var routine = try s.existingRoutine(named: name)
            if changes.isEmpty {
                routine = try editInEditor(routine, store: s)
            } else {
                for item in changes.set {
                    guard let eq = item.firstIndex(of: "="), let n = Int(item[..<eq]),
                          routine.entries.indices.contains(n &- 1) else {
                        throw EtudeFailure("--set \(item): write N=SPEC with N from 1 to \(routine.entries.count)")
                    }
                    routine.entries[n - 1] = try s.routineEntries([String(item[item.index(after: eq)...])])[0]
                }
                for n in changes.remove.sorted(by: >) {
                    guard routine.entries.indices.contains(n &- 1) else {
                        let count = routine.entries.count
                        throw EtudeFailure("--remove \(n): the routine has " + (count == 1 ? "only entry 1" : "entries 1 to \(count)"))
                    }
                    routine.entries.remove(at: n - 1)
                }
                if let from = changes.move {
                    guard let dest = changes.to, routine.entries.indices.contains(from &- 1), (1...max(1, routine.entries.count)).contains(dest) else {
                        throw EtudeFailure("--move N --to M: both from 1 to \(routine.entries.count)")
                    }
                    let e = routine.entries.remove(at: from - 1)
                    routine.entries.insert(e, at: dest - 1)
                }
                routine.entries += try s.routineEntries(changes.add)
            }
            do {
                try s.saveChecked(routine)
            } catch let e as RoutineError {
                throw EtudeFailure("\(e.message); the routine is unchanged")
            }
            if let rename = changes.rename, rename != routine.name {
                try s.renameRoutine(routine.name, to: rename)
                routine.name = rename
            }
            return RoutineFile.text(routine, titles: try s.lessonTitles())
        }
    }

    /// The routine as JSON in the learner's editor. The text being edited is a draft beside the
    /// database: a refused edit keeps it, and the next `routine edit NAME` goes on with it
    /// instead of starting again.
    static func editInEditor(_ routine: Routine, store: Store) throws -> Routine {
        let env = ProcessInfo.processInfo.environment
        let editor = env["VISUAL"].flatMap { $0.isEmpty ? nil : $0 } ?? env["EDITOR"].flatMap { $0.isEmpty ? nil : $0 } ?? "vi"
        let draft = draftURL(for: routine.name, store: store)
        if FileManager.default.fileExists(atPath: draft.path) {
            Console.out("Going on with your unsaved edit of \(routine.name) (\(draft.path))\n")
        } else {
            try FileManager.default.createDirectory(at: draft.deletingLastPathComponent(), withIntermediateDirectories: true)
            try OutputFile.write(Array(try RoutineFile.export(routine).utf8), to: draft.path, inputs: [], option: "the routine draft")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "\(editor) \"$1\"", "etude-edit", draft.path]
        try p.run()
        p.waitUntilExit()
        let kept = "the routine is unchanged; your edit is kept: run `etude routine edit \(routine.name)` again to go on with it"
        guard p.terminationStatus == 0 else { throw EtudeFailure("the editor (\(editor)) failed; \(kept)") }
        var edited: Routine
        do {
            // The draft is read as a routine file is: its size checked first.
            let bytes = try LessonOpener.readBytes(draft.path, limit: (RoutineFile.maxBytes, "routine files"))
            edited = try RoutineFile.parse(String(decoding: bytes, as: UTF8.self))
            // The name is changed with --rename; the file's name field is ignored here.
            edited.name = routine.name
            try store.checkLessons(of: edited)
        } catch {
            let why = (error as? EtudeFailure)?.message ?? Store.message(for: error) ?? "\(error)"
            throw EtudeFailure("\(routine.name): \(why); \(kept)")
        }
        try? FileManager.default.removeItem(at: draft)
        return edited
    }

    /// Where a routine's unsaved edit is kept: `routine-drafts/NAME.json` beside the database.
    static func draftURL(for name: String, store: Store) -> URL {
        let base = store.path.map { URL(fileURLWithPath: $0).deletingLastPathComponent() } ?? FileManager.default.temporaryDirectory
        let file = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "routine"
        return base.appendingPathComponent("routine-drafts").appendingPathComponent(file + ".json")
    }

    /// One routine's entries, or every routine's name and length.
    public static func list(_ name: String?, library: Library) throws -> String {
        try library.withStore { s in
            if let name { return RoutineFile.text(try s.existingRoutine(named: name), titles: try s.lessonTitles()) }
            let all = try s.routines()
            return all.isEmpty ? "No routines yet: `etude routine new NAME --entry ...`.\n"
                : all.map { "\(safe($0.name)) (\($0.entries.count) entr\($0.entries.count == 1 ? "y" : "ies"))" }.joined(separator: "\n") + "\n"
        }
    }

    /// The routine as JSON (to hand on) or as a plain list, written to `output` (checked
    /// before the library opens) or returned for stdout (nil when written).
    public static func export(_ name: String, json: Bool, output: String?, library: Library) throws -> String? {
        if let output { try OutputFile.check(output, inputs: library.databaseFiles) }
        return try library.withStore { s in
            let routine = try s.existingRoutine(named: name)
            let text = json ? try RoutineFile.export(routine) : RoutineFile.text(routine, titles: try s.lessonTitles())
            guard let output else { return text }
            try OutputFile.write(Array(text.utf8), to: output, inputs: library.databaseFiles)
            return nil
        }
    }

    /// A routine file added (a stored one of the same name replaced only when `replace`).
    public static func importFile(_ file: String, as name: String?, replace: Bool, library: Library) throws -> String {
        let bytes = try LessonOpener.readBytes(file, limit: (RoutineFile.maxBytes, "routine files"))
        return try library.withStore { s in
            let routine: Routine
            do {
                routine = try s.importRoutine(String(decoding: bytes, as: UTF8.self), as: name) { r in
                    try s.checkLessons(of: r)
                    if !replace, try s.routine(named: r.name) != nil {
                        throw EtudeFailure("a routine named \(safe(r.name)) exists; add --replace to replace it, or --name NEW to keep both")
                    }
                }
            } catch let e as RoutineError {
                throw EtudeFailure("\(file): \(e.message)")
            }
            let n = routine.entries.count
            return "Imported \(routine.name) (\(n) entr\(n == 1 ? "y" : "ies"))\n"
        }
    }

    /// The routine deleted; the line saying so.
    public static func delete(_ name: String, library: Library) throws -> String {
        try library.withStore(scan: false) { s in
            guard try s.deleteRoutine(named: name) else { throw EtudeFailure("no routine named \(name); see `etude routine list`") }
            return "Deleted \(name)\n"
        }
    }
}
