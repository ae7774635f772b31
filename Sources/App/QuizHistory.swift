import Foundation
import Judge
import LessonLibrary
import MIDIFile
import Reports
import Store

/// Quiz results in the practice history: each quiz kind is a small generated lesson file
/// beside the database (the history table refers to lessons), and each quiz one pass with
/// mode `quiz-notes` / `quiz-intervals` / `quiz-chords`. Quiz lessons are not practice
/// lessons: the catalogue keeps them out of `etude list`.
public enum QuizHistory {
    public static func save(quiz: Quiz, startedAt: Date, duration: Double, library: Library) throws {
        let folder = ((library.databasePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("quiz")
        let file = (folder as NSString).appendingPathComponent("quiz-\(quiz.kind.rawValue).mid")
        let answered = quiz.results.count
        let correct = quiz.correctCount
        let percent = quiz.percentage
        // The database first: it checks its folder (and creates nothing else) before the
        // quiz's lesson file is written beside it, whole or not at all.
        try library.withStore(scan: false) { store in
            do {
                var isDir: ObjCBool = false
                if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
                }
                if !FileManager.default.fileExists(atPath: file) {
                    try OutputFile.write(lessonBytes(kind: quiz.kind), to: file, inputs: library.databaseFiles, option: "the quiz lesson")
                }
            } catch {
                let why = (error as? EtudeFailure)?.message ?? error.localizedDescription
                throw EtudeFailure("cannot keep the quiz result: cannot write \(safe(file)) (\(why)); check the folder is writable or pass --db")
            }
            let info = try store.catalogue(fileAt: file)
            try store.markQuiz(info.id)
            _ = try store.recordPass(lessonID: info.id, startedAt: startedAt, mode: .quiz(quiz.kind.rawValue), hand: .both,
                                     tempoPercent: 100,
                                     figures: ScoreFigures(hit: correct, missed: 0, wrong: answered - correct, extra: 0,
                                                           accuracy: percent, score: percent),
                                     durationSeconds: duration)
        }
    }

    /// A one-bar lesson named after the quiz, so the history lists it by name.
    static func lessonBytes(kind: QuizKind) -> [UInt8] {
        let title = "Etude quiz: \(kind.rawValue)"
        let events: [MIDIEvent] = [
            MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(title.utf8))),
            MIDIEvent(tick: 0, .noteOn(channel: 0, key: 60, velocity: 80)),
            MIDIEvent(tick: 1920, .noteOff(channel: 0, key: 60, velocity: 0)),
            MIDIEvent(tick: 1920, .meta(type: MetaType.endOfTrack, data: [])),
        ]
        return MIDIWriter.write(MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)]))
    }
}
