import Foundation
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
