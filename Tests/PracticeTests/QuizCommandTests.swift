import Foundation
import Judge
import MIDIFile
import Store
import Testing

@Suite("etude quiz", .serialized)
struct QuizCommandTests {
    @Test func notesQuizScoresTheAnswersPlayedThroughTheFifoAndKeepsTheResult() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/in.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // The same seed asks the same questions: answer two right and the third a semitone off.
        let quiz = try Quiz(kind: .notes, count: 3, range: PitchRange.parse("C4-C5"), seed: 42)
        let answers = quiz.questions.enumerated().map { i, q in UInt8(q.pitches[0] + (i == 2 ? 1 : 0)) }
        let r = try CLI.run(["quiz", "notes", "--questions", "3", "--range", "C4-C5", "--seed", "42", "--input", fifo],
                            dir: dir, fifo: fifo) { fd in
            for a in answers { CLI.send(fd, [0x90, a, 90, 0x80, a, 0]) }
        }
        #expect(r.status == 0, "\(r.err)")
        for q in quiz.questions { #expect(r.out.contains(q.prompt)) }
        #expect(r.out.contains("the answer is \(quiz.questions[2].answerText)"))
        #expect(r.out.contains("you played \(PitchName.name(Int(answers[2])))"))
        #expect(r.out.contains("Score: 2/3 (66.7%)"))
        let store = try Store.open(path: dir + "/etude.sqlite")
        let passes = try store.passes()
        #expect(passes.count == 1)
        #expect(passes.first?.mode == "quiz-notes")
        #expect(passes.first?.accuracy == 66.67)
        #expect(passes.first?.hit == 2 && passes.first?.wrong == 1)
    }

    @Test func chordsAcceptAnyVoicingAndTheInputEndingStopsTheQuiz() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/in.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let quiz = try Quiz(kind: .chords, count: 4, range: PitchRange.parse("C3-C6"), seed: 7)
        // First chord voiced an octave up with the root on top; then the FIFO closes.
        let q = quiz.questions[0]
        let voiced = q.pitches.dropFirst().map { $0 + 12 } + [q.pitches[0] + 24]
        let r = try CLI.run(["quiz", "chords", "--questions", "4", "--seed", "7", "--input", fifo], dir: dir, fifo: fifo) { fd in
            for p in voiced { CLI.send(fd, [0x90, UInt8(p), 90]) }
        }
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("✓ right"))
        #expect(r.out.contains("stopped after 1 of 4 questions"))
        #expect(r.out.contains("Score: 1/1 (100%)"))
        #expect(r.err.contains("closed the FIFO"))
    }

    @Test func badRangeIsAOneLineError() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLI.run(["quiz", "notes", "--range", "C6-C3", "--input", dir + "/none"], dir: dir, fifo: "/nonexistent") { _ in }
        #expect(r.status == 1)
        #expect(r.err.contains("etude: range \"C6-C3\" goes downwards"))
    }
}
