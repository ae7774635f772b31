import App
import ArgumentParser
import Devices
import Foundation
import FrontEnd
import Judge
import Lesson
import LessonLibrary
import MIDIFile
import Reports
import Store

struct RoutineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routine",
        abstract: "Practice routines: named, ordered lists of lessons with tempo, hand, bars and length.",
        discussion: """
        \(RoutineEntry.specHelp)

        Examples:
          etude routine new warm-up --entry "lesson=Ode to Joy;tempo=80;minutes=5"
          etude routine edit warm-up --add "random=favourite;reps=2;pause=10"
          etude routine export warm-up --output warm-up.json
          etude routine export warm-up --format text
          etude routine import warm-up.json --name warm-up-copy
          etude routine run warm-up --plan
        """,
        subcommands: [New.self, Edit.self, List.self, Run.self, Export.self, Import.self, Delete.self]
    )

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a routine from --entry specs.",
            discussion: """
            \(RoutineEntry.specHelp)

            Example:
              etude routine new evening --entry "lesson=Ode to Joy;tempo=80;minutes=5" --entry "random=favourite;reps=2;pause=10"
            """
        )
        @Argument(help: "The routine's name.") var name: String
        @Option(name: .customLong("entry"), help: "An entry (repeat for each, in order).") var entries: [String] = []
        @OptionGroup var store: StoreOptions
        func run() throws {
            guard !entries.isEmpty else {
                throw EtudeFailure("give at least one --entry, e.g. etude routine new \(name) --entry \"lesson=TITLE;minutes=5\"")
            }
            try store.library.withStore { s in
                if try s.routine(named: name) != nil {
                    throw EtudeFailure("a routine named \(name) exists; change it with `etude routine edit`")
                }
                let routine = Routine(name: name, entries: try s.routineEntries(entries))
                try s.saveChecked(routine)
                Console.out(RoutineFile.text(routine, titles: try s.lessonTitles()))
            }
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a routine: add, remove, move or replace entries, or rename it.",
            discussion: "With no options, opens the routine's JSON in $VISUAL or $EDITOR.\n\n\(RoutineEntry.specHelp)"
        )
        @Argument(help: "The routine's name.") var name: String
        @Option(help: "A new name.") var rename: String?
        @Option(help: "Append an entry.") var add: [String] = []
        @Option(help: "Remove entry N (1-based).") var remove: [Int] = []
        @Option(help: "Move entry N ...") var move: Int?
        @Option(help: "... to position M.") var to: Int?
        @Option(help: "Replace entry N: N=SPEC, e.g. 2=random=favourite;reps=2.") var set: [String] = []
        @OptionGroup var store: StoreOptions

        func run() throws {
            try store.library.withStore { s in
                var routine = try s.existingRoutine(named: name)
                let noOptions = rename == nil && add.isEmpty && remove.isEmpty && move == nil && set.isEmpty
                if noOptions {
                    routine = try editInEditor(routine, store: s)
                } else {
                    for item in set {
                        guard let eq = item.firstIndex(of: "="), let n = Int(item[..<eq]),
                              routine.entries.indices.contains(n &- 1) else {
                            throw EtudeFailure("--set \(item): write N=SPEC with N from 1 to \(routine.entries.count)")
                        }
                        routine.entries[n - 1] = try s.routineEntries([String(item[item.index(after: eq)...])])[0]
                    }
                    for n in remove.sorted(by: >) {
                        guard routine.entries.indices.contains(n &- 1) else {
                            let count = routine.entries.count
                            throw EtudeFailure("--remove \(n): the routine has " + (count == 1 ? "only entry 1" : "entries 1 to \(count)"))
                        }
                        routine.entries.remove(at: n - 1)
                    }
                    if let from = move {
                        guard let dest = to, routine.entries.indices.contains(from &- 1), (1...max(1, routine.entries.count)).contains(dest) else {
                            throw EtudeFailure("--move N --to M: both from 1 to \(routine.entries.count)")
                        }
                        let e = routine.entries.remove(at: from - 1)
                        routine.entries.insert(e, at: dest - 1)
                    }
                    routine.entries += try s.routineEntries(add)
                }
                do {
                    try s.saveChecked(routine)
                } catch let e as RoutineError {
                    throw EtudeFailure("\(e.message); the routine is unchanged")
                }
                if let rename, rename != routine.name {
                    try s.renameRoutine(routine.name, to: rename)
                    routine.name = rename
                }
                Console.out(RoutineFile.text(routine, titles: try s.lessonTitles()))
            }
        }

        func editInEditor(_ routine: Routine, store: Store) throws -> Routine {
            let env = ProcessInfo.processInfo.environment
            let editor = env["VISUAL"].flatMap { $0.isEmpty ? nil : $0 } ?? env["EDITOR"].flatMap { $0.isEmpty ? nil : $0} ?? "vi"
            // The text being edited is a draft beside the database: a refused edit keeps it, and
            // the next `routine edit NAME` goes on with it instead of starting again.
            let draft = Self.draftURL(for: routine.name, store: store)
            let resuming = FileManager.default.fileExists(atPath: draft.path)
            if resuming {
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
            let text = try String(contentsOf: draft, encoding: .utf8)
            var edited: Routine
            do {
                edited = try RoutineFile.parse(text)
                // The name is changed with --rename; the file's name field is ignored here.
                edited.name = routine.name
                try store.checkLessons(of: edited)
            } catch {
                throw EtudeFailure("\(routine.name): \(Store.message(for: error) ?? "\(error)"); \(kept)")
            }
            try? FileManager.default.removeItem(at: draft)
            return edited
        }

        /// `<database folder>/routine-drafts/<name>.json` (the name percent-encoded), so two
        /// databases never share a draft; the temporary folder for an in-memory store.
        static func draftURL(for name: String, store: Store) -> URL {
            let base = store.path.map { URL(fileURLWithPath: $0).deletingLastPathComponent() } ?? FileManager.default.temporaryDirectory
            let file = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "routine"
            return base.appendingPathComponent("routine-drafts").appendingPathComponent(file + ".json")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List routines (or one routine's entries).")
        @Argument(help: "A routine to show.") var name: String?
        @OptionGroup var store: StoreOptions
        func run() throws {
            try store.library.withStore { s in
                if let name {
                    Console.out(RoutineFile.text(try s.existingRoutine(named: name), titles: try s.lessonTitles()))
                    return
                }
                let all = try s.routines()
                Console.out(all.isEmpty ? "No routines yet: `etude routine new NAME --entry ...`.\n"
                            : all.map { "\(safe($0.name)) (\($0.entries.count) entr\($0.entries.count == 1 ? "y" : "ies"))" }.joined(separator: "\n") + "\n")
            }
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a routine: each entry in order, a countdown in the pauses, a fade at a time limit.",
            discussion: """
            Keys (on a terminal): → skips the current entry or countdown, q or Esc ends the routine.

            An entry without a mode (or mode=watch) plays for you to listen and watch, and is stored in the history as a watch pass.

            An entry with mode=wait, play or memory is yours to play on --input (the computer keyboard by default, a MIDI keyboard, or a FIFO), on the full practice screen, judged as by `etude practice --mode`: wait stops at each chord, play and memory run in real time. Its repetitions are judged passes; a time limit ends it even while wait mode stands at a chord. Each finished pass is stored with its mode and score. Without a terminal such entries need a MIDI input or FIFO (or are skipped).

            Without an audio device it runs silently (one warning line). --plan only prints the schedule.
            """
        )
        @Argument(help: "The routine's name.") var name: String
        @Option(help: "Seed for the random picks (same seed, same lessons).") var seed: UInt64?
        @Flag(help: "Only print the schedule; play nothing.") var plan = false
        @OptionGroup var synth: SynthOptions
        @OptionGroup var instrument: InstrumentOptions
        @OptionGroup var playingOptions: PlayingOptions
        @OptionGroup var audioBuffer: AudioBufferOption
        @OptionGroup var store: StoreOptions
        func run() throws {
            // Checked before the library or the synth opens: one line per mistake.
            var playing = try playingOptions.playing(mode: .watch)
            var sound = try instrument.applied(to: audioBuffer.applied(to: synth.sound))
            sound.library = store.library  // the audio buffer learned per device
            MyInstrument.use(sound: &sound, playing: &playing, library: store.library)  // `etude setup`'s, unless given
            // --keys/--range/--fit: remembered for the input, where each entry you play finds them.
            try LessonFit.keyboard(keys: playingOptions.keys, range: playingOptions.range, fit: playingOptions.fit, input: playing.input, library: store.library).remember()
            let status = try Actions.runRoutine(name: name, library: store.library, seed: seed, planOnly: plan, sound: sound, playing: playing)
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a routine as JSON (to hand on) or as a plain list.")
        enum Format: String, ExpressibleByArgument { case json, text }
        @Argument(help: "The routine's name.") var name: String
        @Option(help: "json or text.") var format: Format = .json
        @Option(name: [.short, .long], help: "Write to this file instead of standard output.") var output: String?
        @OptionGroup var store: StoreOptions
        func run() throws {
            if let output { try OutputFile.check(output, inputs: store.library.databaseFiles) }
            try store.library.withStore { s in
                let routine = try s.existingRoutine(named: name)
                let text = format == .json ? try RoutineFile.export(routine)
                    : RoutineFile.text(routine, titles: try s.lessonTitles())
                if let output {
                    try OutputFile.write(Array(text.utf8), to: output, inputs: store.library.databaseFiles)
                } else {
                    Console.out(text)
                }
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a routine from a JSON file (one of the same name is replaced only with --replace).")
        @Argument(help: "The routine file.") var file: String
        @Option(help: "Store it under this name.") var name: String?
        @Flag(help: "Replace a stored routine of the same name (without it, importing over one is refused).") var replace = false
        @OptionGroup var store: StoreOptions
        func run() throws {
            let bytes = try LessonOpener.readBytes(file, limit: (RoutineFile.maxBytes, "routine files"))
            try store.library.withStore { s in
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
                Console.out("Imported \(routine.name) (\(n) entr\(n == 1 ? "y" : "ies"))\n")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a routine.")
        @Argument(help: "The routine's name.") var name: String
        @OptionGroup var store: StoreOptions
        func run() throws {
            try store.library.withStore(scan: false) { s in
                guard try s.deleteRoutine(named: name) else { throw EtudeFailure("no routine named \(name); see `etude routine list`") }
                Console.out("Deleted \(name)\n")
            }
        }
    }
}
