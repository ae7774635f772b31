import Foundation
import Judge
import Lesson
import MIDIFile
import Notation
import Practice
import Screen

/// The practice screen as a pure function of the session's state: what falls, what is lit, the
/// status bar, the timeline, the panels. Nothing here reads a clock or a device, so every frame
/// is a value a test can check.
public enum PracticeView {
    /// Display choices that are not part of the practice plan.
    public struct Options: Sendable, Equatable {
        public var noteNaming: NoteNaming = .scientific
        /// Finger numbers on the falling notes (lessons with fingering).
        public var showFingers = false
        /// No audio device opened: the header says the lesson is silent.
        public var silent = false
        /// `echo on` / `echo off` for a MIDI instrument (nil: the computer keyboard).
        public var echo: String?
        /// Seconds from a note's dispatch until its sound leaves the speakers (the output's
        /// latency): the falling notes reach the keyboard line then, not before.
        public var outputLatency: Double = 0
        /// `--gestures`: their keys in the help, in place of the computer keyboard's piano keys
        /// (the learner plays an instrument).
        public var gestureHelp: PracticeKeys.Entry?
        public init(noteNaming: NoteNaming = .scientific, showFingers: Bool = false, silent: Bool = false) {
            self.noteNaming = noteNaming
            self.showFingers = showFingers
            self.silent = silent
        }
    }

    /// The frame for `state` of `lesson` with the screen's own `view` (help, names, message,
    /// loop marks); `verdicts` (after a pass, by index into `Lesson.notes`) mark the falling
    /// notes with how they were judged.
    public static func model(_ state: SessionState, view: PracticeViewState = PracticeViewState(), lesson: Lesson,
                             options: Options = Options(), verdicts: [Int: VerdictMark] = [:]) -> ScreenModel {
        var model = ScreenModel()
        model.lookaheadSeconds = state.lookaheadSeconds
        model.noteNaming = options.noteNaming
        model.showNoteNames = view.showNoteNames
        model.showFingers = options.showFingers || view.showNoteNames
        model.message = view.message ?? state.feedback.advice
        if let gestures = options.gestureHelp { model.helpEntries = PracticeKeys.controls + [gestures] + PracticeKeys.modes }

        let hidden = state.mode.hidesFallingNotes
        let hintsHidden = state.mode.hidesKeyHints
        var keyboard = KeyboardState()
        var notes: [FallingNote] = []
        notes.reserveCapacity(state.notes.count)
        for n in state.notes {
            let role = role(n)
            let practisedRole = role == .rightHand || role == .leftHand
            if hidden && practisedRole { continue }
            let finger = model.showFingers && lesson.notes.indices.contains(n.index) ? lesson.finger(of: lesson.notes[n.index]) : nil
            let start = n.start + options.outputLatency, end = n.end + options.outputLatency
            notes.append(FallingNote(pitch: n.pitch, start: start, end: end, role: role, finger: finger, verdict: verdicts[n.index]))
            if start <= 0 && end > 0 && state.transport == .playing && !(hintsHidden && practisedRole) {
                keyboard.light(n.pitch, role)
            }
        }
        for w in state.feedback.waitingFor {
            keyboard.light(w.pitch, w.hand == .left ? .leftHand : .rightHand)
            // The first key to type: `z`/`x` while the octave must move, then the note's letter.
            if let keys = state.feedback.waitingKeys[w.pitch], let first = keys.first { keyboard.letters[w.pitch] = first }
        }
        for p in state.feedback.held { keyboard.light(p, state.feedback.wrong.contains(p) ? .wrong : .learner) }
        for p in state.feedback.flashes { keyboard.light(p, .wrong) }
        model.notes = notes
        model.keyboard = keyboard
        let printed = lesson.bars.isPrinted  // a score's bars go by their printed numbers
        model.barLines = state.barLines.map { BarLine(seconds: $0.seconds, bar: $0.bar, label: printed ? lesson.bars.label(number: $0.bar) : nil) }

        let loopBars = state.plan.bars
        if let loopBars {
            if let wrap = state.barLines.first(where: { $0.bar == loopBars.lowerBound && $0.seconds > 0.01 }) {
                model.loopEndSeconds = wrap.seconds
            }
            if let first = state.barLines.first(where: { $0.bar == loopBars.lowerBound && $0.seconds >= 0 }) {
                model.loopStartSeconds = first.seconds
            }
        }

        var status = StatusInfo()
        status.title = TextDecoding.sanitize(state.title)
        status.playing = state.transport == .playing
        status.bar = state.position.bar
        status.beat = state.position.beat
        status.bars = lesson.bars.lastNumber
        if printed {
            status.barLabel = lesson.bars.label(number: state.position.bar)
            status.barsLabel = lesson.bars.bars.last.map { String($0.printed) }
        }
        status.countIn = state.countIn.map { "count-in \($0.beat)/\($0.beats)" }
        let mark = lesson.tempoMark(quarterBPM: state.bpm, atBar: state.position.bar)
        status.bpm = mark.perMinute
        status.beatSymbol = mark.symbol
        status.tempoPercent = Int(state.tempoPercent.rounded())
        status.hand = state.plan.hands.rawValue
        status.otherHand = state.plan.otherHand.name
        if let loopBars {
            status.loop = LoopStatus(startBar: loopBars.lowerBound, endBar: loopBars.upperBound, enabled: state.loop.enabled,
                                     pass: state.loop.passes, label: lesson.bars.label(ofRange: loopBars))
        } else if let a = view.loopMarkStart, let b = view.loopMarkEnd {
            status.loop = LoopStatus(startBar: a, endBar: b, enabled: false, pass: 0, label: lesson.bars.label(ofRange: a...max(a, b)))
        }
        status.metronome = state.plan.metronome.enabled
        status.mode = state.mode.rawValue
        status.following = state.following
        status.followingByEarMs = state.followingByEarMs
        status.pass = state.pass
        status.silent = options.silent
        status.waiting = waitingText(state, naming: options.noteNaming)
        if view.message == nil, let waiting = status.waiting { model.message = "play \(waiting)" }
        status.echo = options.echo
        model.status = status
        model.hints = state.pianoKeys ? Footer.pianoKeys : Footer.controls

        let barList = lesson.bars.bars
        let index = lesson.bars.index(atTick: Int(state.tick))
        var fraction = 0.0
        if barList.indices.contains(index) {
            let bar = barList[index]
            fraction = bar.lengthTicks > 0 ? min(1, max(0, (state.tick - Double(bar.startTick)) / Double(bar.lengthTicks))) : 0
        }
        var timeline = TimelineInfo(position: Double(index) + fraction, length: Double(max(1, barList.count)))
        let marks: ClosedRange<Int>? = loopBars ?? view.loopMarkStart.flatMap { a in view.loopMarkEnd.map { b in a...max(a, b) } }
        if let marks, let first = barList.firstIndex(where: { $0.number == marks.lowerBound }),
           let last = barList.firstIndex(where: { $0.number == marks.upperBound }) {
            timeline.loopStart = Double(first)
            timeline.loopEnd = Double(last + 1)
            timeline.loopEnabled = loopBars != nil
        }
        model.timeline = timeline

        model.pitchRange = lesson.pitchRange
        if let keys = state.plan.keyboard?.range {
            // The learner's own keyboard is drawn (the lesson's notes off it still fall, greyed).
            model.learnerKeys = keys
            model.pitchRange = lesson.pitchRange.map { min($0.lowerBound, keys.lowerBound)...max($0.upperBound, keys.upperBound) } ?? keys
        }
        if view.showHelp {
            model.overlay = .help
        } else if let r = view.results {
            var info = ResultsInfo(title: r.title, figures: r.figures, offsetMs: r.offsetMs, timingHint: r.timingHint,
                                   speedTrainer: r.speedTrainer, secondsPerChord: r.secondsPerChord, earLine: r.earLine, review: r.review)
            info.tempoLine = r.tempoLine
            model.overlay = .results(info)
        }
        return model
    }

    /// What the staff marks this frame: the cursor, the notes sounding (by the hands
    /// practised), each judged note's colour, memory mode's hidden notes, the loop's bars.
    public static func staffMarks(_ state: SessionState, sounding: SoundingNotes) -> StaffMarks {
        let tick = Int(state.tick.isFinite ? max(0, state.tick) : 0)
        let hands: Set<Hand>? = switch state.plan.hands {
        case .both: nil
        case .right: [.right]
        case .left: [.left]
        }
        var judgements: [Int: VerdictMark] = [:]
        for (index, verdict) in state.judged {
            if let mark = VerdictMark(live: verdict) { judgements[index] = mark }
        }
        // After a pass, the ear's faults on notes struck right: after a wrong key, held or played off.
        for (index, mark) in state.heardOff where judgements[index]?.isStruckRight ?? false { judgements[index] = mark }
        return StaffMarks(cursorTick: tick, sounding: state.transport == .playing ? sounding.at(tick: tick, hands: hands) : [],
                          judgements: judgements, hideNotesAfterTick: state.mode.hidesFallingNotes ? tick : nil,
                          loopBars: state.plan.bars)
    }

    /// Wait mode, while the music stands still for a chord: its keys not yet held, named, with
    /// the computer keys that play them ("E4 [d]  G3 [z g]"); nil otherwise.
    static func waitingText(_ state: SessionState, naming: NoteNaming) -> String? {
        guard state.mode == .wait, state.transport != .playing || !state.feedback.waitingFor.isEmpty,
              !state.feedback.waitingFor.isEmpty else { return nil }
        let names = state.feedback.waitingFor.sorted { $0.pitch < $1.pitch }.map { w -> String in
            let name = PitchName.name(w.pitch, octaveOfMiddleC: naming.octaveOfMiddleC)
            return state.feedback.waitingKeys[w.pitch].map { "\(name) [\($0)]" } ?? name
        }
        return names.joined(separator: "  ")
    }

    static func role(_ note: SessionState.Note) -> NoteRole {
        guard note.practised else { return .accompaniment }
        switch note.part.hand {
        case .right?: return .rightHand
        case .left?: return .leftHand
        case nil: return .accompaniment
        }
    }
}
