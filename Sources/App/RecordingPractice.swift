import Clocks
import Foundation
import Lesson
import LessonLibrary
import MIDIFile
import Practice
import Recording
import RecordingAudio
import Reports
import Store
import Synth

/// `etude practice LESSON --recording RECORDING`: the lesson practised with a recording of it.
/// The recording is heard instead of the synth's lesson (the learner's own notes still sound on
/// the synth, the metronome still clicks), and the lesson's clock follows the recording through
/// its alignment (`RecordingPace`), so the falling notes, the staff's cursor, the bar counter,
/// the metronome and the judge all move with the performance, rubato and all, at the practice
/// tempo (50–150 %, Rubber Band's real-time stretcher: no change of pitch).
public final class RecordingPractice: Sendable {
    /// The alignment read back from the library, or found now (and kept).
    public let alignment: RecordingAlignment
    public let timeline: RecordingTimeline
    /// The header's words: whose recording (its title tag, else its file name).
    public let name: String
    public let path: String
    private let file: RecordingFile.Box

    /// The tempo range a recording is practised and rendered in (Rubber Band's stretch stays
    /// clean there; the practice screen's `+`/`-` stop at its ends).
    public static let tempoRange: ClosedRange<Double> = 50...150

    /// Refuses a tempo outside `tempoRange`, in one line naming it as typed.
    public static func checkTempo(_ percent: Double, as typed: String) throws {
        guard tempoRange.contains(percent) else {
            throw EtudeFailure("--tempo \(typed): a recording plays from \(Int(tempoRange.lowerBound))% to \(Int(tempoRange.upperBound))% of its speed; choose a tempo in that range")
        }
    }

    /// Opens the recording and its alignment to `lesson` (aligning first when none is stored,
    /// saying so on stderr): every refusal one line naming the file.
    public init(path: String, lessonPath: String, lesson: Lesson, plan: PracticePlan, soundfont: String?, library: Library?) throws {
        let tempoPercent: Double
        do {
            tempoPercent = try Transport(lesson: lesson, plan: plan, clock: VirtualClock()).tempoPercent
        } catch {
            throw EtudeFailure(error.message)
        }
        try Self.checkTempo(tempoPercent, as: "\(PracticePlan.format(tempoPercent))%")
        let recording = try RecordingAlign.openRecording(path)
        var job = RecordingAlign.Job(lesson: lessonPath, recording: path)
        job.soundfont = soundfont
        let started = MonotonicClock.seconds()
        let (alignment, stored) = try RecordingAlign.align(job, library: library)
        if !stored {
            Console.error("etude: \(safe(path)) had no alignment to this lesson: aligned now in \(String(format: "%.1f", MonotonicClock.seconds() - started)) s (etude align; kept for the next time)")
        }
        if alignment.isUnsure && alignment.method == .audio {
            Console.error("etude: the alignment is unsure (confidence \(String(format: "%.2f", alignment.confidence))); the score may not move with the recording: etude align \(RecordingAlign.shellWord(lessonPath)) \(RecordingAlign.shellWord(path)) --tap")
        }
        guard let timeline = Self.timeline(alignment, lesson: lesson) else {
            throw EtudeFailure("\(safe(path)): too few of the lesson's bars were found in it to follow; etude align \(RecordingAlign.shellWord(lessonPath)) \(RecordingAlign.shellWord(path)) --tap")
        }
        self.alignment = alignment
        self.timeline = timeline
        self.path = path
        name = safe(recording.title ?? (path as NSString).lastPathComponent)
        file = RecordingFile.Box(recording)
    }

    /// The lesson's bar and beat ticks paired with where the alignment found them.
    public static func timeline(_ alignment: RecordingAlignment, lesson: Lesson) -> RecordingTimeline? {
        var points: [RecordingTimeline.Point] = []
        for aligned in alignment.bars {
            guard let bar = lesson.bars.bars.first(where: { $0.number == aligned.number }) else { continue }
            let ticks = bar.beats.map(\.tick)
            if ticks.count == aligned.beats.count, !ticks.isEmpty {
                for (tick, second) in zip(ticks, aligned.beats) { points.append(.init(tick: Double(tick), seconds: second)) }
            } else {
                points.append(.init(tick: Double(bar.startTick), seconds: aligned.start))
            }
            points.append(.init(tick: Double(bar.endTick), seconds: aligned.end))
        }
        return RecordingTimeline(points: points)
    }

    /// The pace of a recording the library already aligned to the lesson (nil: none kept, or
    /// the file cannot be read): a routine's plan is timed by it without aligning anything.
    public static func storedPace(recording: String, lessonPath: String, lesson: Lesson, store: Store) -> RecordingPace? {
        guard let keys = try? RecordingAlign.identity(recording: recording, lesson: lessonPath),
              let stored = try? store.alignment(recording: keys.recording, lesson: keys.lesson),
              let alignment = try? JSONDecoder().decode(RecordingAlignment.self, from: Data(stored.bars.utf8)),
              let timeline = timeline(alignment, lesson: lesson) else { return nil }
        return RecordingPace(timeline: timeline, tempoMap: lesson.tempoMap)
    }

    /// The pace the session's clock keeps with the recording.
    public func pace(for lesson: Lesson) -> RecordingPace { RecordingPace(timeline: timeline, tempoMap: lesson.tempoMap) }

    /// The title the header shows: whose recording it is, then the lesson's title. A narrow
    /// header shortens a title from its end (`CellBuffer.cut`: trailing clauses, then words), so
    /// the recording's name comes first and is one clause: the lesson's title gives way, never it.
    public func title(for lesson: Lesson) -> String { Self.title(recording: name, lesson: lesson.title) }

    /// `title(for:)` on plain text: "take.flac: Minuet in G" (a separator in the name that the cut
    /// would take for the end of a clause is written as a dash).
    public static func title(recording: String, lesson: String) -> String {
        var name = recording
        for separator in [" · ", " — ", "; "] { name = name.replacingOccurrences(of: separator, with: " - ") }
        return "\(name): \(lesson)"
    }

    /// The voice heard through `live` (its synth's rate and buffer), following `session`.
    public func voice(live: FluidSynthLive, session: PracticeSession) -> RecordingVoice {
        voice(live: live) { [weak session] in session.map { ($0.transport, $0.clock.now) } }
    }

    /// The voice following whatever plays the lesson: `music` gives its transport and the
    /// music's clock now (nil: nothing plays) — a session's, or a routine step player's.
    public func voice(live: FluidSynthLive, following music: @escaping @Sendable () -> (transport: Transport, clockNow: Double)?) -> RecordingVoice {
        let rate = live.jack.map { Int($0.sampleRate) } ?? Int(live.engine.sampleRate)
        let timeline = self.timeline
        return RecordingVoice(file: file.file, outputRate: rate, outputLatency: live.outputLatency) {
            guard let (transport, now) = music() else { return .silent }
            return Self.target(transport, clockNow: now, wall: MonotonicClock.seconds(), timeline: timeline)
        }
    }

    /// What `--verbose` says of the recording heard: the engine, and what the worker counted.
    public static func summary(_ voice: RecordingVoice) -> String {
        let f = voice.figures
        return "recording stretched live by \(voice.engine.rawValue) at \(voice.outputRate) Hz: \(f.underruns) underrun\(f.underruns == 1 ? "" : "s"), "
            + "\(f.jumps) jump\(f.jumps == 1 ? "" : "s"), \(f.loopJoins) loop join\(f.loopJoins == 1 ? "" : "s")"
    }

    /// Where the recording should be for a transport: pure, so tests check it on virtual clocks.
    public static func target(_ t: Transport, clockNow: Double, wall: Double, timeline: RecordingTimeline) -> RecordingVoice.Target {
        let bars = t.bars
        let first = t.lesson.bars.bar(number: bars.lowerBound), last = t.lesson.bars.bar(number: bars.upperBound)
        let start = timeline.seconds(atTick: Double(first?.startTick ?? 0))
        let end = timeline.seconds(atTick: Double(last?.endTick ?? t.lesson.endTick))
        let wraps = !t.holdBetweenPasses && !t.stopsAtEnd
        let playing = t.state == .playing && t.countIn(at: clockNow) == nil
        return RecordingVoice.Target(playing: playing, position: timeline.seconds(atTick: t.tick(at: clockNow)), wall: wall,
                                     speed: t.tempoPercent / 100, loop: wraps && end > start ? start...end : nil, end: end)
    }
}

/// The lesson's own notes kept off the synth while a recording plays them: the metronome's
/// clicks and everything that is not a note go through.
public final class RecordingLessonFilter: SoundOutput, Sendable {
    private let inner: any SoundOutput
    public init(_ inner: any SoundOutput) { self.inner = inner }

    private func passes(_ message: MIDIEvent.Kind) -> Bool {
        if case .noteOn(let channel, _, let velocity) = message, velocity > 0 { return channel == Metronome.channel }
        return true
    }

    public func send(_ message: MIDIEvent.Kind) { if passes(message) { inner.send(message) } }
    public func send(_ message: MIDIEvent.Kind, at seconds: Double) { if passes(message) { inner.send(message, at: seconds) } }
    public func sendGuide(_ message: MIDIEvent.Kind) { if passes(message) { inner.sendGuide(message) } }
    public func allNotesOff() { inner.allNotesOff() }
}

extension RecordingFile {
    /// A recording handed to the one thread that reads it (the voice's worker).
    public final class Box: @unchecked Sendable {
        public let file: RecordingFile
        public init(_ file: RecordingFile) { self.file = file }
    }
}
