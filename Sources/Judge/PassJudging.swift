import Lesson
import MIDIFile

/// What play mode and `etude judge` share to judge a pass: the expected notes of a pass laid
/// out by a `PassSchedule` (with the dynamics the lesson marks), and the ear's notes placed in
/// the lesson's printed bars.
public enum PassJudging {
    /// A lesson whose score prints dynamics (marks or hairpins: `Lesson.markedDynamics`, the
    /// same the staff draws) is judged by them. A lesson without (a MIDI file) marks dynamics
    /// when the velocities of its notes differ by at least this many steps (one dynamic step is
    /// 12–16): its own contrasts. A lesson played at one velocity throughout has no dynamics,
    /// so no loudness verdicts.
    public static let dynamicContrast = 12

    /// True when `lesson` marks dynamics (printed, or see `dynamicContrast`).
    public static func hasDynamics(_ lesson: Lesson) -> Bool {
        if !lesson.markedDynamics.isEmpty { return true }
        var low = 127, high = 0
        for n in lesson.notes {
            let v = Int(n.velocity)
            if v < low { low = v }
            if v > high { high = v }
            if high - low >= dynamicContrast { return true }
        }
        return false
    }

    /// The practised notes of `schedule` as Judge expects them, times in pass seconds.
    public static func expected(_ schedule: PassSchedule, lesson: Lesson, dynamics: Bool) -> [ExpectedNote] {
        let printed = dynamics ? lesson.markedDynamics : nil
        return schedule.notes.filter { $0.cue.practised }.map { n in
            var marked = dynamics && lesson.notes.indices.contains(n.cue.index) ? Int(lesson.notes[n.cue.index].velocity) : nil
            // The score's marks, as drawn, when it prints any; else the lesson's own velocities.
            let at = lesson.notes.indices.contains(n.cue.index) ? printed?.at(track: lesson.notes[n.cue.index].track, tick: n.cue.startTick) : nil
            if let at { marked = at.velocity }
            return ExpectedNote(id: n.cue.index, pitch: Int(n.cue.pitch), time: n.start, duration: n.end - n.start,
                                part: n.cue.part.key, section: lesson.sectionIndex(atTick: n.cue.startTick), marked: marked, dynamic: at?.name)
        }.map { articulated($0, lesson: lesson) }
    }

    /// A note with the articulation its score prints (`etude:marks`, from MusicXML or ABC):
    /// staccato (and staccatissimo) or tenuto, which change how long it should be held. A
    /// staccato note is judged against its written value (`etude:value`, when the reader
    /// shortened its sound), so "held past 60 % of the value" means the value written.
    static func articulated(_ note: ExpectedNote, lesson: Lesson) -> ExpectedNote {
        let marksByNote = lesson.annotations.articulations
        guard !marksByNote.isEmpty, lesson.notes.indices.contains(note.id) else { return note }
        let n = lesson.notes[note.id]
        let key = Annotations.Key(track: n.track, tick: n.startTick, pitch: Int(n.pitch))
        guard let marks = marksByNote[key] else { return note }
        var out = note
        if marks.contains(.staccato) || marks.contains(.staccatissimo) {
            out.articulation = .staccato
            let sounding = n.endTick - n.startTick
            if let written = lesson.annotations.values[key]?.ticks, sounding > 0, written > sounding {
                out.duration = note.duration * Double(written) / Double(sounding)
            }
        } else if marks.contains(.tenuto) {
            out.articulation = .tenuto
        }
        return out
    }

    /// Places each note in its printed bar and beat (1 = the bar's first beat, 1.5 halfway to
    /// the second).
    public static func place(_ notes: inout [NoteVerdict], lesson: Lesson) {
        for i in notes.indices where lesson.notes.indices.contains(notes[i].id) {
            let tick = lesson.notes[notes[i].id].startTick
            let bars = lesson.bars.bars
            let index = lesson.bars.index(atTick: tick)
            guard bars.indices.contains(index) else { continue }
            let bar = bars[index]
            notes[i].bar = lesson.bars.label(of: bar)
            notes[i].barNumber = bar.number
            if bar.beatTicks > 0 {
                let beat = 1 + Double(tick - bar.downbeatTick) / Double(bar.beatTicks)
                notes[i].beat = (beat * 100).rounded() / 100
            }
        }
    }

    /// Each bar of a judged pass: (performed number, printed label, notes, faults), in bar order.
    public static func bars(of notes: [NoteVerdict]) -> [(bar: Int, label: String, notes: Int, faults: Int)] {
        var out: [Int: (label: String, notes: Int, faults: Int)] = [:]
        for n in notes {
            guard let b = n.barNumber else { continue }
            var e = out[b] ?? (n.bar, 0, 0)
            e.notes += 1
            if n.isFault { e.faults += 1 }
            out[b] = e
        }
        return out.keys.sorted().map { (bar: $0, label: out[$0]!.label, notes: out[$0]!.notes, faults: out[$0]!.faults) }
    }

    /// The section to loop from a per-bar picture across passes (performed bar → notes and
    /// faults): the one whose notes went wrong most often, nil when none did.
    public static func weakestSection(picture: [Int: (notes: Int, faults: Int)], lesson: Lesson) -> Int? {
        var best: (index: Int, rate: Double)?
        for (i, s) in lesson.sections.enumerated() {
            var notes = 0, faults = 0
            for b in s.firstBar...max(s.firstBar, s.lastBar) {
                if let p = picture[b] {
                    notes += p.notes
                    faults += p.faults
                }
            }
            guard notes > 0, faults > 0 else { continue }
            let rate = Double(faults) / Double(notes)
            if best.map({ rate > $0.rate }) ?? true { best = (i, rate) }
        }
        return best?.index
    }

    /// Section index of a judged note (its expected note's), for per-section counts.
    public static func section(of note: NoteVerdict, lesson: Lesson) -> Int {
        lesson.notes.indices.contains(note.id) ? lesson.sectionIndex(atTick: lesson.notes[note.id].startTick) : 0
    }
}

/// A pass as the `Ear` hears it, kept by Practice's Coach: every key event and pedal change in
/// pass time, and in wait mode when each chord was held.
package struct EarLog {
    package var events: [PlayedEvent] = []
    package var pedal: [(time: Double, down: Bool)] = []
    /// Wait mode: clock times at which each chord was completed.
    package var chordTimes: [Double] = []
    package var startClock = 0.0

    package init() {}
    private var lessonDynamics: Bool?

    /// Whether the lesson marks dynamics, worked out once.
    package mutating func dynamics(of lesson: Lesson) -> Bool {
        if let d = lessonDynamics { return d }
        let d = PassJudging.hasDynamics(lesson)
        lessonDynamics = d
        return d
    }

    /// A pass starts (or, after a jump, its scoring starts afresh from a bar).
    package mutating func start(at time: Double, continuing: Bool) {
        events.removeAll(keepingCapacity: true)
        pedal.removeAll(keepingCapacity: true)
        chordTimes = []
        startClock = time
    }

    /// Adds what the ear heard to `report`. Wait mode judges loudness only (the music stops
    /// for every chord, so lengths mean nothing) and reports the time per chord; onset-only
    /// input (the computer keyboard) has neither lengths nor velocities to judge.
    package func hear(into report: inout PassReport, expected: [ExpectedNote], judgements: [Judgement], mode: PracticeMode,
              onsetOnly: Bool, lesson: Lesson, endTime: Double) {
        let ear = Ear(judgesReleases: !onsetOnly && mode != .wait, judgesLoudness: !onsetOnly)
        var hearing = ear.hear(expected: expected, judgements: judgements, events: events, pedal: pedal, endTime: endTime)
        PassJudging.place(&hearing.notes, lesson: lesson)
        report.add(hearing) { PassJudging.section(of: $0, lesson: lesson) }
        if mode == .wait, let last = chordTimes.last, !chordTimes.isEmpty {
            report.secondsPerChord = ((last - startClock) / Double(chordTimes.count) * 10).rounded() / 10
        }
    }
}
