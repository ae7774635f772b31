import Foundation
import LessonLibrary
import Reports
import Store

/// Routines in the library: the Store keeps each routine's entries as JSON text; these turn
/// them into the routine model and back, and import routine files.
extension Store {
    /// Creates or replaces the routine of that name.
    public func saveRoutine(_ routine: Routine, now: Date = Date()) throws {
        let data = try JSONEncoder().encode(routine.entries)
        try saveStoredRoutine(StoredRoutine(name: routine.name, entries: String(decoding: data, as: UTF8.self)), now: now)
    }

    public func routine(named name: String) throws -> Routine? {
        try storedRoutine(named: name).map(Self.routine)
    }

    public func routines() throws -> [Routine] {
        try storedRoutines().map(Self.routine)
    }

    /// Imports a routine file; a lesson id unknown here is matched by its title when possible.
    /// `check` sees the routine before it is saved (the command line checks bars against the
    /// lessons' files); when it or the file's own checks throw, nothing is saved.
    public func importRoutine(_ text: String, as name: String? = nil, check: (Routine) throws -> Void = { _ in }) throws -> Routine {
        var routine = try RoutineFile.parse(text)
        if let name { routine.name = name }
        for i in routine.entries.indices {
            guard case .lesson(let id, let title) = routine.entries[i].source else { continue }
            if try listing(id: id) == nil, let title,
               let match = try lessons().first(where: { $0.lesson.title.lowercased() == title.lowercased() }) {
                routine.entries[i].source = .lesson(id: match.lesson.id, title: title)
            }
        }
        try check(routine)
        try saveRoutine(routine)
        return routine
    }

    /// A stored routine as the model: entries that no longer read are reported, not lost.
    static func routine(_ stored: StoredRoutine) throws -> Routine {
        do {
            return Routine(name: stored.name, entries: try JSONDecoder().decode([RoutineEntry].self, from: Data(stored.entries.utf8)))
        } catch {
            throw RoutineError("routine \(safe(stored.name)) is damaged in the library (\(error.localizedDescription)); delete it with `etude routine delete \(safe(stored.name))` and import it again")
        }
    }
}

extension Store {
    /// Resolves `--entry` specs against the catalogue (a lesson by title, id or path).
    public func routineEntries(_ specs: [String]) throws -> [RoutineEntry] {
        try specs.map { spec in
            var (entry, reference) = try RoutineEntry.parseSpec(spec)
            if let reference {
                let l = try resolveLesson(reference)
                entry.source = .lesson(id: l.lesson.id, title: l.lesson.title)
            }
            return entry
        }
    }

    /// Checks entries of fixed lessons against the lessons' files, as practice checks its
    /// options (`PracticePlan.validate`: the bars exist, the hand has a part), so a saved routine
    /// plays what it says. A lesson whose file is missing or unreadable is left to `run`, which
    /// says so; random entries are checked when they are picked. Throws "entry N: …".
    public func checkLessons(of routine: Routine) throws {
        for (i, entry) in routine.entries.enumerated() {
            guard case .lesson(let id, _) = entry.source, entry.bars != nil || entry.hand != nil,
                  let path = try listing(id: id)?.path, FileManager.default.fileExists(atPath: path),
                  let opened = try? LessonOpener.open(path) else { continue }
            let plan = RoutinePlan.practicePlan(hand: entry.hand, tempoPercent: entry.tempoPercent ?? 100, bars: entry.bars,
                                                  length: entry.length)
            do {
                try plan.validate(for: opened.lesson)
            } catch {
                throw RoutineError("entry \(i + 1): \(RoutineEntry.words(error))")
            }
        }
    }

    /// Saves a routine made or changed on the command line, after the checks a file gets.
    public func saveChecked(_ routine: Routine) throws {
        guard !routine.entries.isEmpty else {
            throw EtudeFailure("\(safe(routine.name)) would have no entries; keep at least one, or delete it with `etude routine delete \(safe(routine.name))`")
        }
        try checkLessons(of: routine)
        try saveRoutine(routine)
    }

    /// The routine of that name, or one line saying there is none.
    public func existingRoutine(named name: String) throws -> Routine {
        guard let r = try routine(named: name) else {
            throw EtudeFailure("no routine named \(safe(name)); see `etude routine list`")
        }
        return r
    }

    /// Every lesson's title by id (routine lists name their lessons).
    public func lessonTitles() throws -> [String: String] {
        var t: [String: String] = [:]
        for l in try lessons() { t[l.lesson.id] = l.lesson.title }
        return t
    }
}
