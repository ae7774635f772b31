import Foundation
import Lesson
import MIDIFile
import MIDIInput
import Reports
import Store

/// Fitting a lesson to the player, for every command that opens one: the transposition
/// (`--transpose`, remembered per lesson) and the learner's keyboard (`--keys`, `--range`,
/// `--fit octave`, remembered per input device). The moves themselves are pure (`Transposition`,
/// `KeyboardFit` in Lesson); this is where the options, the library and the messages meet.
public enum LessonFit {
    /// The lesson at `path` in the transposition asked for: `transpose` as given, else (with
    /// `library`) the one remembered for the lesson. With `library` a given one is remembered,
    /// and `0` forgets it. Without `library` (export, render, score) only what is given counts,
    /// so a file written never changes key unasked.
    public static func open(_ path: String, split: Int? = nil, transpose: Transposition.Request?, library: Library? = nil) throws -> OpenedLesson {
        let opened = try LessonOpener.open(path, split: split)
        let (request, remember) = try library.map { try remembered(transpose, path: path, library: $0) } ?? (transpose, {})
        guard let request else { return opened }
        let out = try transposed(opened, request)  // one that cannot be made is refused before it is remembered
        remember()
        if transpose == nil, out.lesson.title != opened.lesson.title {
            Console.error("etude: \(safe(out.lesson.title)) as last time (--transpose \(safe(request.text))); --transpose 0 plays it as written")
        }
        return out
    }

    /// A transposition as stored (the lesson's remembered one, a saved loop's), read once.
    package static func stored(_ text: String) throws -> Transposition.Request {
        do { return try Transposition.Request.parse(text) } catch {
            throw EtudeFailure(error.worded { "--\($0.rawValue) \($1)" })
        }
    }

    /// `opened` moved by `request` (`+2`, `D`, `C:D`); one line naming the fix when it cannot be.
    public static func transposed(_ opened: OpenedLesson, _ request: Transposition.Request) throws -> OpenedLesson {
        do {
            let t = try Transposition.resolve(request, key: opened.lesson.keySignatures.first?.value)
            var out = opened
            out.lesson = opened.lesson.transposed(t)
            if !t.isIdentity { out.lesson.title += " " + label(t, lesson: out.lesson) }
            return out
        } catch {
            throw EtudeFailure(error.worded { "--\($0.rawValue) \($1)" })
        }
    }

    /// The file at `path` moved by `request`, for what plays a file as it is (`render`).
    public static func file(_ read: MIDIReadResult, path: String, transpose request: Transposition.Request?) throws -> MIDIFile {
        guard let request else { return read.file }
        let lesson = Lesson(file: read.file, fileName: path)
        do {
            let t = try Transposition.resolve(request, key: lesson.keySignatures.first?.value)
            return read.file.transposed(t)
        } catch {
            throw EtudeFailure(error.worded { "--\($0.rawValue) \($1)" })
        }
    }

    /// What the header shows after the title: `(in D major, +2)`, or `(+2)` for a lesson that
    /// names no key.
    public static func label(_ t: Transposition, lesson: Lesson) -> String {
        guard let key = lesson.keySignatures.first?.value else { return "(\(t))" }
        return "(in \(key.name.replacingOccurrences(of: "#", with: "♯").replacingOccurrences(of: "b ", with: "♭ ")), \(t))"
    }

    /// The transposition to use: the one given (then remembered; `0` forgets), else the one
    /// remembered. A library that cannot be opened remembers nothing and stops nothing.
    package static func remembered(_ given: Transposition.Request?, path: String, library: Library) throws -> (request: Transposition.Request?, remember: () -> Void) {
        guard let store = library.storeIfAvailable else { return (given, {}) }
        guard let id = try? store.catalogue(fileAt: path).id else { return (given, {}) }
        guard let given else { return (try ((try? store.transpose(lessonID: id)) ?? nil).map(stored), {}) }
        let forget = given == .semitones(0)
        return (given, { try? store.saveTranspose(lessonID: id, forget ? nil : given.text) })
    }

    /// The learner's keyboard on `input`: `--keys`/`--range` (and `--fit octave`) as given, then
    /// remembered for the device; else the one remembered for it; else none (every key).
    /// `remember` stores what was given for the device (called once the plan has been checked).
    public static func keyboard(keys: KeyboardKeysArgument?, range: KeyboardRangeArgument?, fit: OctaveFit?, input: InputSpec,
                                library: Library?) throws -> (keyboard: KeyboardRange?, fitOctave: Bool, remember: () -> Void) {
        if let keys, let range { throw EtudeFailure("--keys \(keys) and --range \(range) both given: use one of them") }
        let fitOctave = fit.map { $0 == .octave }
        let given = keys?.keyboard ?? range?.keyboard
        let device = input.deviceID
        let store = library?.storeIfAvailable
        let stored = device.flatMap { d in try? store?.keyboard(device: d) }
        let keyboard = given ?? stored.flatMap { KeyboardRange(text: $0.keyRange) }
        if fitOctave == true && keyboard == nil {
            throw EtudeFailure("--fit octave: give your keyboard too, e.g. --keys 61 or --range C2-C7")
        }
        let fitting = fitOctave ?? stored?.fitOctave ?? false
        let remember = {
            guard let device, let store, given != nil || fitOctave != nil, let keyboard else { return }
            let full = keyboard.size == 88 && !fitting
            try? store.saveKeyboard(device: device, full ? nil : KeyboardSetting(device: device, keyRange: keyboard.text, fitOctave: fitting))
        }
        return (keyboard, fitting, remember)
    }

    /// The keyboard put on the plan, and with `fitOctave` each hand that fits by octaves moved
    /// onto it; the lines to tell the learner (Etude plays notes off the keys; a hand that fits).
    public static func apply(_ keyboard: KeyboardRange?, fitOctave: Bool, to opened: inout OpenedLesson, plan: inout PracticePlan) -> [String] {
        guard let keyboard else { return [] }
        plan.keyboard = keyboard
        guard let fit = KeyboardFit.check(opened.lesson, plan: plan) else { return [] }
        guard fitOctave else { return fit.notices(fitOption: "--fit octave") }
        let (lesson, moved) = fit.fitted(opened.lesson)
        opened.lesson = lesson
        let left = KeyboardFit.check(lesson, plan: plan)?.notices(fitOption: "--fit octave") ?? []
        return moved + left
    }
}
