import Devices
import Foundation
import Judge
import Lesson
import LessonLibrary
import MIDIFile
import MIDIInput
import Practice
import Reports
import Store

/// `etude judge LESSON PERFORMANCE.mid`: a recorded performance (from `etude record`, a DAW, a
/// digital piano's recorder) aligned to the lesson by the score follower (`AlignedPass`: which
/// key played which note, whatever came before, restarts judged once), then heard by the same
/// `Ear` as play mode for releases and loudness.
public enum PerformanceJudge {
    /// A recording's key events and sustain pedal, in seconds from its start.
    public struct Performance: Equatable, Sendable {
        public var events: [PlayedEvent]
        public var pedal: [PedalChange]
        /// Heard through a microphone: only onsets mean something (no releases, no loudness).
        public var onsetOnly = false
        /// A recording's length in seconds (nil for a MIDI file): the most its pass can last.
        public var recordingSeconds: Double?
        /// What a recording says of itself (clipped, too quiet…), said before the verdicts.
        public var notice: String?

        public struct PedalChange: Equatable, Sendable {
            public var time: Double
            public var down: Bool
        }

        /// The key presses' count.
        public var presses: Int { events.filter { $0.isOn }.count }
    }

    /// `etude judge`: reads the lesson (a path) and the performance, judges, stores the pass in
    /// the library's history (a failure there is one line, the judgement is still printed) and
    /// prints the panel or, with `json`, the report object.
    public static func run(lesson path: String, performance: String, hand: PracticePlan.Hands, bars: BarsArgument?, tempo: TempoPercent?,
                           fit: (transpose: Transposition.Request?, keys: KeyboardKeysArgument?, range: KeyboardRangeArgument?) = (nil, nil, nil),
                           calibration: String? = nil, json: Bool, library: Library) throws {
        // As played: in its key (`--transpose`), on its keyboard (`--keys`/`--range`: notes off
        // it are not expected, as in practice); neither is remembered by a judgement.
        let opened = try LessonFit.open(path, transpose: fit.transpose)
        var plan = PracticePlan()
        plan.keyboard = try LessonFit.keyboard(keys: fit.keys, range: fit.range, fit: nil, input: .computerKeyboard, library: nil).keyboard
        do {
            plan.hands = hand
            if let bars { plan.bars = try PracticePlan.bars(bars, in: opened.lesson) }
            if let tempo { plan.tempo = .percent(tempo.value) }
        } catch {
            throw EtudeFailure(error.worded { setting, value in "--\(setting.rawValue) \(value)" })
        }
        guard FileManager.default.fileExists(atPath: performance) else {
            let recording = HeardPerformance.isRecording(path: performance)
            throw EtudeFailure("\(safe(performance)): no such file; give \(recording ? "the recording you made" : "the .mid you recorded")")
        }
        // A recording is read from its file a block at a time (its header checked first), never whole.
        let isRecording = HeardPerformance.isRecording(path: performance)
        if calibration != nil && !isRecording {
            throw EtudeFailure("--calibration is for a recording of an acoustic piano; \(safe(performance)) is MIDI: leave --calibration out")
        }
        let played: Performance
        // What the judged pass is stored once by: a MIDI file's bytes, a recording's SHA-256 (streamed).
        let content: [UInt8]
        if isRecording {
            played = try HeardPerformance.performance(path: performance, name: safe(performance), lesson: opened.lesson, plan: plan,
                                                      calibration: try calibration.map { try AudioSetup.judgeProfile(source: $0, library: library) })
            content = HeardPerformance.digest(path: performance)
        } else {
            let bytes = try LessonOpener.readBytes(performance, limit: (LessonFormat.midi.maxBytes, "MIDI files"))
            played = try Self.performance(bytes: bytes, name: safe(performance))
            content = bytes
        }
        let judged = try judge(played, lesson: opened.lesson, plan: plan, onsetOnly: played.onsetOnly)
        let (report, percent) = (judged.report, judged.percent)
        // Before the verdicts: what is wrong with the recording itself.
        if let notice = played.notice { Console.error(notice) }
        do {
            try library.withStore(scan: false) { s in
                let id = try s.catalogue(fileAt: path).id
                // The same recording judged the same way is stored once (by its content).
                let settings = "\(id) \(plan.hands.rawValue) \(plan.barRange(in: opened.lesson)) \(Int(percent.rounded())) \(plan.keyboard?.text ?? "all") \(fit.transpose?.text ?? "")"
                    + (calibration.map { " calibration:\($0)" } ?? "")
                let key = Store.judgedRecordingKey(bytes: content, settings: settings)
                guard try s.judgedPass(key: key) == nil else { return }
                let passID = try store(report, lessonID: id, plan: plan, lesson: opened.lesson, percent: percent,
                                       seconds: playedSeconds(played, lesson: opened.lesson, plan: plan, percent: percent), in: s)
                try s.rememberJudged(key: key, passID: passID)
            }
        } catch {
            Console.error("etude: the judged pass is not in the history: \((error as? EtudeFailure)?.message ?? "\(error)")")
        }
        Console.out((json ? JSONOutput.text(JudgedRecord(judged)) : text(report, title: safe(opened.lesson.title), percent: percent,
                                                                       lesson: opened.lesson, restarts: restartLines(judged))) + "\n")
    }

    /// Reads a performance from .mid bytes: every note-on/off (any channel, any track) and the
    /// sustain pedal (controller 64, down from 64), timed by the file's own tempo map. `name`
    /// words the one-line errors (not MIDI, no notes).
    public static func performance(bytes: [UInt8], name: String) throws -> Performance {
        let file: MIDIFile
        do {
            file = try MIDIReader.read(bytes).file
        } catch {
            throw EtudeFailure("\(name) is not a MIDI file (\(error.kind == .emptyFile ? "it is empty" : "no MThd header")); give the .mid a recorder wrote, e.g. by etude record")
        }
        let tempo = TempoMap(file: file)
        var events: [PlayedEvent] = []
        var pedal: [Performance.PedalChange] = []
        for track in file.tracks {
            for e in track.events {
                let t = tempo.seconds(atTick: e.tick)
                switch e.kind {
                case .noteOn(let c, let k, let v):
                    events.append(PlayedEvent(pitch: Int(k), velocity: Int(v), time: t, isOn: v > 0, channel: Int(c)))
                case .noteOff(let c, let k, _):
                    events.append(PlayedEvent(pitch: Int(k), velocity: 0, time: t, isOn: false, channel: Int(c)))
                case .controlChange(_, 64, let v):
                    pedal.append(.init(time: t, down: v >= 64))
                default:
                    break
                }
            }
        }
        // Releases before presses at the same instant: a re-struck key ends first.
        events.sort { $0.time != $1.time ? $0.time < $1.time : (!$0.isOn && $1.isOn) }
        pedal.sort { $0.time < $1.time }
        guard events.contains(where: { $0.isOn }) else {
            throw EtudeFailure("\(name) has no notes to judge; record a performance with etude record and give that file")
        }
        return Performance(events: events, pedal: pedal, onsetOnly: false)
    }

    /// A judged recording: the report, the tempo it was judged at, and the alignment behind it
    /// (which key played which note, the extra keys, the passages played again).
    public struct Judged: Sendable {
        public var report: PassReport
        public var percent: Double
        public var aligned: AlignedPass
        /// The performance's key presses, in time order (what `aligned`'s key indices count).
        public var presses: [PlayedEvent]
    }

    /// Judges `performance` against the pass `plan` describes (hands, bars, tempo) of `lesson`.
    /// The keys are aligned to the expected notes by the score follower (`AlignedPass`): a
    /// stray key, a missed first note, a stop or a restart moves no other verdict, and keys far
    /// past the last note (a longer recording: the bars that follow) are not judged. The report
    /// carries the ear's notes list. Throws one line when the hand practised has no notes there.
    public static func judge(_ performance: Performance, lesson: Lesson, plan: PracticePlan,
                             window: TimingWindow = TimingWindow(), onsetOnly: Bool = false) throws -> Judged {
        let factor: Double
        do {
            try plan.validate(for: lesson)
            factor = try plan.tempoFactor(for: lesson)
        } catch {
            throw EtudeFailure(error.worded { setting, value in "--\(setting.rawValue) \(value)" })
        }
        let percent = factor * 100
        let expected = Self.expected(lesson: lesson, plan: plan, percent: percent)
        guard let firstExpected = expected.map(\.time).min() else {
            let hand = plan.hands == .both ? "the lesson" : "the \(plan.hands.rawValue) hand"
            throw EtudeFailure("\(hand) has no notes to judge in these bars; choose another --hand or --bars")
        }
        let presses = performance.events.filter(\.isOn)
        guard presses.count <= AlignedPass.maxPresses else {
            throw EtudeFailure("the performance has \(presses.count) key presses; etude judge aligns up to \(AlignedPass.maxPresses) (about two hours of playing); give a shorter recording")
        }
        let aligned = AlignedPass.judge(expected: expected, presses: presses, window: window)
        var report = PassReport(judgements: aligned.judgements, window: window, sections: Set(expected.map(\.section)))
        let end = performance.events.last?.time ?? firstExpected
        var hearing = Ear(judgesReleases: !onsetOnly, judgesLoudness: !onsetOnly).hear(expected: expected, judgements: aligned.judgements,
                                                                                     events: performance.events,
                                                                                     pedal: performance.pedal.map { ($0.time, $0.down) }, endTime: end)
        PassJudging.place(&hearing.notes, lesson: lesson)
        report.add(hearing) { PassJudging.section(of: $0, lesson: lesson) }
        return Judged(report: report, percent: percent, aligned: aligned, presses: presses)
    }

    /// How long the judged pass was played, as the history keeps it (F6: never the span of keys
    /// far past the lesson): from the first key pressed to the last event within the judged bars'
    /// span (plus the timing window and time to let the last notes go), at most the recording.
    public static func playedSeconds(_ performance: Performance, lesson: Lesson, plan: PracticePlan, percent: Double,
                                     window: TimingWindow = TimingWindow()) -> Double {
        let times = expected(lesson: lesson, plan: plan, percent: percent).map(\.time)
        guard let first = performance.events.first(where: { $0.isOn })?.time, let lo = times.min(), let hi = times.max() else { return 0 }
        let judgedEnd = first + (hi - lo) + window.window + releaseSeconds
        let last = performance.events.last(where: { $0.time <= judgedEnd })?.time ?? first
        var span = max(0, last - first)
        if let length = performance.recordingSeconds { span = min(span, max(0, length)) }
        return span.isFinite ? span : 0
    }

    /// Time after the last note for its keys to be let go.
    static let releaseSeconds = 10.0

    /// The notes the pass `plan` describes expects, timed at `percent` of the lesson's tempo.
    static func expected(lesson: Lesson, plan: PracticePlan, percent: Double) -> [ExpectedNote] {
        let range = plan.tickRange(in: lesson)
        let schedule = PassSchedule(lesson: lesson, plan: plan, from: range.lowerBound, to: range.upperBound, percent: percent,
                                    options: .init(pass: 1, countIn: false))
        return PassJudging.expected(schedule, lesson: lesson, dynamics: PassJudging.hasDynamics(lesson))
    }

    /// The panel printed for a judged recording: the summary lines, then each note that went
    /// wrong ("bar 9 beat 2  D4 right  short (held 40%)", "… soft (velocity 40, marked cresc)").
    public static func text(_ report: PassReport, title: String, percent: Double, lesson: Lesson, restarts: [String] = []) -> String {
        var lines = ["\(title) at \(TempoPercent.text(percent))%, judged"]
        lines += restarts
        lines += report.summaryLines { index in
            lesson.sections.indices.contains(index) ? lesson.sections[index].name : "section \(index + 1)"
        }
        let faults = report.notes.filter(\.isFault)
        if !faults.isEmpty {
            lines.append("Where it went wrong:")
            for n in faults.prefix(40) { lines.append("  " + line(n)) }
            if faults.count > 40 { lines.append("  … and \(faults.count - 40) more (--json lists every note)") }
        }
        return lines.joined(separator: "\n")
    }

    /// One note as the text panel lists it, always with its verdict, the hand as RH/LH so it
    /// never reads as one: "bar 7 beat 2  C4  RH  missed", "bar 9 beat 1  D4 → D#4  LH  wrong",
    /// "bar 3 beat 2  E4  RH  late 80 ms, short (held 40%)".
    public static func line(_ n: NoteVerdict) -> String {
        var verdicts: [String] = []
        for mark in n.marks {
            switch mark {
            case .early, .late: verdicts.append(mark.word + (n.timingMs.map { " \(Int($0.rounded())) ms" } ?? ""))
            case .wrongKeyFirst: verdicts.append(mark.word + (n.played.map { " (\(PitchName.name($0)))" } ?? ""))
            case .short, .long: verdicts.append("\(mark.word) (held \(Int(((n.heldRatio ?? 0) * 100).rounded()))%)")
            case .loud, .soft: verdicts.append("\(mark.word) (velocity \(n.velocity ?? 0)\(n.dynamic.map { ", marked \($0)" } ?? ""))")
            case .ok, .wrong, .missed: verdicts.append(mark.word)
            }
        }
        if verdicts.isEmpty { verdicts.append(VerdictMark.ok.word) }
        return ["bar \(n.bar) beat \(NumberText.short(n.beat))", n.pitchText, HandLabel.short(n.hand), verdicts.joined(separator: ", ")]
            .joined(separator: "  ")
    }

    /// Stores the judged pass in the history (mode `judge`), with its figures; its id.
    @discardableResult
    public static func store(_ report: PassReport, lessonID: String, plan: PracticePlan, lesson: Lesson, percent: Double,
                             seconds: Double, in store: Store) throws -> Int64 {
        let bars = plan.barRange(in: lesson)
        let id = try store.recordPass(PassRecord(lessonID: lessonID, startedAt: Date(), mode: .judge, hand: plan.hands,
                                                 tempoPercent: Int(percent.rounded()), firstBar: bars.lowerBound, lastBar: bars.upperBound,
                                                 durationSeconds: max(0, seconds), figures: report.figures))
        try store.recordBars(passID: id, Self.bars(of: report))
        return id
    }

    /// A judged pass's bars as the history keeps them.
    public static func bars(of report: PassReport) -> [BarFaults] {
        PassJudging.bars(of: report.notes).map { BarFaults(bar: $0.bar, label: $0.label, notes: $0.notes, faults: $0.faults) }
    }

    /// The per-bar picture as `etude stats LESSON` prints it: one cell per bar (the share of
    /// its notes that went wrong, ` ▁▂▃▄▅▆▇█`), then the bars that fail most.
    public static func barPictureText(_ bars: [BarFaults]) -> String? {
        guard !bars.isEmpty else { return nil }
        // Printed after the stats: one line each, ending with a newline.
        let cells: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        let strip = String(bars.map { b -> Character in
            b.faults == 0 ? "·" : cells[max(1, min(8, Int((b.faultRate * 8).rounded(.up))))]
        })
        let passes = bars.map(\.passes).max() ?? 0
        var lines = ["Bars (last \(passes) judged pass\(passes == 1 ? "" : "es"), · = no faults): \(bars.first?.label ?? "")–\(bars.last?.label ?? "") \(strip)"]
        let worst = bars.filter { $0.faults > 0 }.sorted { $0.faultRate != $1.faultRate ? $0.faultRate > $1.faultRate : $0.bar < $1.bar }
        if worst.isEmpty {
            lines.append("No bar went wrong.")
        } else {
            lines.append("Fail most: " + worst.prefix(3).map { "bar \($0.label) (\($0.faults) of \($0.notes) notes)" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
