import Foundation
import Judge
import Lesson
import MIDIFile

/// The Coach as last published by the runner: a value any thread may read (the screen draws
/// from it, a microphone asks it which keys are due, the front end saves its last pass), while
/// the Coach itself stays on the runner's thread.
public struct CoachSnapshot: Sendable {
    /// A wrong key flashed red until a clock time.
    public struct Flash: Sendable, Equatable {
        public var pitch: Int
        public var until: Double
    }

    /// A judged pass's report with its number and tempo.
    public struct Reported: Sendable {
        public var pass: Int
        public var percent: Double
        public var report: PassReport
    }

    public let lesson: Lesson
    /// The plan the coach judges (hands, bars) as of the snapshot.
    public let plan: PracticePlan
    public let mode: PracticeMode
    let inputOffset: Double
    let anchor: Double
    let expected: [ExpectedNote]
    /// Wait mode: the chord waited for and the keys of it already struck.
    let waiting: (chord: [ExpectedNote], struck: Set<Int>)?
    let held: Set<Int>
    let wrongHeld: Set<Int>
    let flashes: [Flash]
    /// The weakest section named after the last full run (nil before, or when all was right).
    public let weakest: (section: SectionReport, name: String)?
    /// How each note of the pass under way was judged so far, by index into `Lesson.notes`
    /// (the staff colours them): hits, wrong pitches (on the note that was due), misses.
    public let judgedNotes: [Int: Verdict]
    /// Notes of the last finished pass struck right but after a wrong key, released short, held
    /// long, or played loud or soft, with their marks: the staff shows them until the next pass.
    public let notesHeardOff: [Int: VerdictMark]
    let reports: [Reported]
    let finishedPasses: [Int: PassReport]
    /// The last finished pass as played (nil before the first pass ends), to save as .mid.
    public let lastPassRecording: PerformanceRecorder?
    let lastRecordingEnd: Double?

    /// The weakest section named after the last full run (nil before, or when all was right).
    public var weakestSection: (section: SectionReport, name: String)? { weakest }

    /// The report of finished pass `number` (the history stores its bars), nil when not judged.
    public func report(forPass number: Int) -> PassReport? { finishedPasses[number] }

    /// Reports of every finished pass so far, in order.
    public var passReports: [PassReport] { reports.map(\.report) }
    public var lastReport: PassReport? { reports.last?.report }

    /// The results panel's figures for the last pass.
    public var lastResults: SessionState.Results? {
        reports.last.map { SessionState.Results(pass: $0.pass, tempoPercent: $0.percent, figures: $0.report.figures, offsetMs: $0.report.offsetMs) }
    }

    /// Keys the learner holds now and which of them are wrong.
    public var learnerKeys: (held: Set<Int>, wrong: Set<Int>) { (held, wrongHeld) }

    /// Wait mode: the pitches still to press for the chord waited for (key hints).
    public var waitingFor: Set<Int> {
        guard let waiting else { return [] }
        return Set(waiting.chord.map(\.pitch)).subtracting(waiting.struck)
    }

    /// What the learner sees of the judging at `now`: held and wrong keys, wrong-note flashes,
    /// in wait mode the notes of the chord waited for, and after a full run the advice.
    public func feedback(now: Double) -> SessionState.Feedback {
        var f = SessionState.Feedback()
        f.held = held
        f.wrong = wrongHeld
        f.flashes = Set(flashes.filter { $0.until > now }.map(\.pitch))
        if let waiting {
            f.waitingFor = waiting.chord.filter { !waiting.struck.contains($0.pitch) }
                .map { ($0.pitch, $0.part == "left" ? Hand.left : $0.part == "right" ? Hand.right : nil) }
        }
        if let w = weakest {
            f.advice = "Work on \(w.name): \(QuizFormat.percent(w.section.accuracy))% accuracy"
        }
        return f
    }

    /// The keys the learner is due to play around a clock time: in wait mode the chord waited
    /// for, in play and memory modes the expected notes within `margin` seconds of it. A
    /// microphone listens for these first (score-informed detection, `--input audio`).
    public func expectedPitches(near time: Double, margin: Double = 0.3) -> Set<Int> {
        mode == .wait ? waiting.map { Set($0.chord.map(\.pitch)) } ?? [] : Set(expectedDue(near: time, margin: margin).keys)
    }

    /// The same keys, each with the seconds from `time` to its nearest due time (play and memory
    /// modes; empty in wait mode, where only the chord waited for is expected, whenever it
    /// comes): a microphone counts a key due now more than one due 300 ms later
    /// (`NoteListener.dueAt`).
    public func expectedDue(near time: Double, margin: Double = 0.3) -> [Int: Double] {
        guard mode == .play || mode == .memory else { return [:] }
        let local = time - inputOffset - anchor
        var lo = 0, hi = expected.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if expected[mid].time < local - margin { lo = mid + 1 } else { hi = mid }
        }
        var out: [Int: Double] = [:]
        for e in expected[lo...].prefix(while: { $0.time <= local + margin }) where abs(e.time - local) < abs(out[e.pitch] ?? .infinity) {
            out[e.pitch] = e.time - local
        }
        return out
    }

    /// The last finished pass as .mid bytes.
    public func lastPassMIDI() -> [UInt8]? { lastPassRecording.map { $0.bytes(endTime: lastRecordingEnd) } }

    /// What the learner sees for a section index, e.g. "Bars 5–8".
    public func sectionName(_ index: Int) -> String { Coach.sectionName(index, in: lesson) }

    /// The plan that loops a section at 70 % with the speed trainer on, keeping the hands
    /// practised (`Coach.weakSectionPlan`).
    public func weakSectionPlan(section index: Int) -> PracticePlan? {
        Coach.weakSectionPlan(section: index, lesson: lesson, plan: plan, mode: mode)
    }
}
