import App
import Clocks
import Devices
import Foundation
import Lesson
import LessonLibrary
import Listening
import MIDIFile
import MIDIInput
import Practice
import Recording
import RecordingAudio
import Reports
import Synchronization
import Synth

/// `etude align LESSON RECORDING --tap`: the recording plays and the learner taps each counted
/// beat — space on the terminal, or any key of a MIDI instrument (`--input`) — and the taps are
/// the alignment (`TapAligner`), kept in the library as a found one is. The study player's way
/// when the sound cannot be aligned with confidence.
public struct TapAlign {
    public var job: RecordingAlign.Job
    /// The computer keyboard (space on the terminal) or a MIDI input as `--input` names it (a device, a FIFO).
    public var input: InputSpec = .computerKeyboard
    /// `--offset MS`: the input offset instead of the calibrated one.
    public var offsetMs: Double?

    public init(job: RecordingAlign.Job) { self.job = job }

    /// Plays and takes taps until the recording ends, q, or the input ends; prints as `align` does.
    public func run(json: Bool, library: Library) throws -> Int32 {
        let read = try LessonOpener.read(job.lessonPath)
        let lesson = Lesson(file: read.file, fileName: job.lessonPath)
        guard !lesson.notes.isEmpty else { throw EtudeFailure("\(safe(job.lessonPath)): no notes to align a recording with") }
        let recording = try RecordingAlign.openRecording(job.recordingPath)
        let keys = try RecordingAlign.identity(recording: job.recordingPath, lesson: job.lessonPath)
        let fromTerminal = input == .computerKeyboard
        if !fromTerminal { do { try input.check() } catch { throw EtudeFailure(error.message) } }
        let line = LineKeys()
        defer { line.close() }
        if fromTerminal && !line.isTerminal {
            throw EtudeFailure("nothing to tap with: stdin is not a terminal; tap on a terminal (space), or pass --input with a MIDI device or FIFO")
        }
        let audio: (left: [Float], right: [Float])
        do {
            audio = try recording.stereo(from: 0, to: recording.frames)
        } catch {
            throw EtudeFailure("\(safe(job.recordingPath)): \(safe((error as? RecordingError)?.message ?? "\(error)")); nothing was aligned")
        }
        let clock = MonotonicClock()
        let taps = TapList()
        let messages = MessageQueue()
        var hookup: InputHookup?
        if !fromTerminal {
            do {
                hookup = try InputHookup(spec: input, output: nil, clock: clock,
                                         onNote: { if $0.isOn && $0.velocity > 0 { taps.add($0.time) } }, onStatus: { messages.post($0) })
            } catch {
                throw EtudeFailure(error.message)
            }
        }
        let offset = (hookup.map { InputTiming.lookUp(hookup: $0, override: offsetMs, library: library).offsetMs } ?? offsetMs ?? 0) / 1000
        let player = RecordingPlayback(left: audio.left, right: audio.right, sampleRate: recording.sampleRate)
        let start = clock.now
        if player.driver == nil {
            Console.error("etude: no audio device to play the recording on: tap along as it would play (the clock runs from now)")
        }
        let status = StatusLine()
        var exitCode: Int32 = 0
        loop: while clock.now - start < recording.seconds + 0.5 {
            for m in messages.take() where m != hookup?.failure {
                status.clear()
                Console.error("etude: \(safe(m))")
            }
            if let hookup, hookup.failure != nil || (hookup.ended && !line.isTerminal) { break }
            guard let pressed = line.read(timeoutMs: 10) else {
                exitCode = line.signalStatus ?? 0
                break
            }
            for key in pressed {
                switch LineCommand(key) {
                case .quit?: break loop
                case .interrupt?: exitCode = 130; break loop
                case .character(" ")?: taps.add(clock.now)
                default: break
                }
            }
            let elapsed = clock.now - start
            status.show("♪ \(StatusLine.clock(elapsed)) / \(StatusLine.clock(recording.seconds))  \(taps.count) taps  [space tap · q stop]")
        }
        hookup?.stop()
        player.close()
        status.clear()
        if let failure = hookup?.failure { throw EtudeFailure(failure) }
        let times = taps.all.map { $0 - start - offset }.filter { $0 >= 0 }
        let bars = RecordingAlign.scoreBars(lesson, lead: 0)
        guard times.count >= 2, let alignment = TapAligner.align(taps: times, bars: bars) else {
            Console.out("no beats were tapped: nothing was stored\n")
            return exitCode
        }
        RecordingAlign.save(alignment, keys: keys, library: library)
        RecordingAlign.show(alignment, job: job, json: json, stored: false, seconds: clock.now - start)
        return exitCode
    }
}

/// The taps, added from the input's thread and the main loop.
final class TapList: Sendable {
    private let times = Mutex<[Double]>([])
    func add(_ t: Double) { times.withLock { $0.append(t) } }
    var count: Int { times.withLock { $0.count } }
    var all: [Double] { times.withLock { $0.sorted() } }
}
