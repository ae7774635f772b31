import Foundation
import Lesson
import LessonLibrary
import Recording
import RecordingAudio
import Reports

/// `etude render LESSON --recording RECORDING [--bars A-B] [--tempo P%] -o out.wav`: a passage of
/// the recording as practice plays it — found by its aligned bars, stretched to the tempo by
/// Rubber Band without a change of pitch, looped once (two passes), joined and ended by 10 ms
/// crossfades — so it can be heard and checked offline.
public struct RecordingRender {
    public var job: RecordingAlign.Job
    public var output: String
    public var bars: BarsArgument?
    public var tempo: TempoPercent = .full
    /// Files the output must not be besides the lesson and the recording (the database).
    public var protected: [String] = []
    public var verbose = false

    /// Passes written: the passage and its one loop.
    public static let passes = 2
    public static let crossfadeSeconds = 0.010

    public init(job: RecordingAlign.Job, output: String) {
        self.job = job
        self.output = output
    }

    /// Renders; the summary line for stdout.
    public func run(library: Library) throws -> String {
        try RecordingPractice.checkTempo(tempo.value, as: "\(tempo)")
        try OutputFile.check(output, inputs: [job.lessonPath, job.recordingPath] + protected)
        let recording = try RecordingAlign.openRecording(job.recordingPath)
        let (alignment, _) = try RecordingAlign.align(job, library: library)
        if alignment.isUnsure && alignment.method == .audio {
            Console.error("etude: the alignment is unsure (confidence \(String(format: "%.2f", alignment.confidence))); the passage may be cut in the wrong place: etude align \(RecordingAlign.shellWord(job.lessonPath)) \(RecordingAlign.shellWord(job.recordingPath)) --tap")
        }
        let section = try self.section(alignment)
        let from = Int((section.start * Double(recording.sampleRate)).rounded())
        let to = Int((section.end * Double(recording.sampleRate)).rounded())
        guard to > from else { throw EtudeFailure("--bars \(bars?.text ?? ""): the passage is empty in the recording") }
        let passage: (left: [Float], right: [Float])
        do {
            passage = try recording.stereo(from: from, to: to)
        } catch {
            throw EtudeFailure("\(safe(job.recordingPath)): \(safe((error as? RecordingError)?.message ?? "\(error)")); nothing was written")
        }
        let (stretched, engine) = TimeStretch.stretch([passage.left, passage.right], sampleRate: recording.sampleRate, tempo: tempo.value / 100)
        let looped = LoopJoin.loop(stretched, passes: Self.passes, fade: Int(Self.crossfadeSeconds * Double(recording.sampleRate)))
        try OutputFile.write(to: output, inputs: [job.lessonPath, job.recordingPath] + protected + library.databaseFiles) { handle in
            do {
                try AudioWriter.writeWAV(fd: handle.fileDescriptor, channels: looped, sampleRate: recording.sampleRate)
            } catch {
                throw EtudeFailure("-o \(safe(output)): \((error as? RecordingError)?.message ?? "\(error)"); nothing was written")
            }
        }
        let seconds = Double(looped.first?.count ?? 0) / Double(recording.sampleRate)
        if verbose { Console.error("etude: stretched by \(engine.rawValue)") }
        return "wrote \(safe(output)): \(section.label) of \(safe(job.recordingPath)) (\(String(format: "%.3f", section.start))–\(String(format: "%.3f", section.end)) s) at \(tempo), "
            + "\(Self.passes) passes, \(String(format: "%.3f", seconds)) s, \(recording.sampleRate) Hz, stretched by \(engine.rawValue)\n"
    }

    /// The passage's start and end in the recording: the bars asked for (all when none are),
    /// through the aligned bars as the recording plays them.
    func section(_ alignment: RecordingAlignment) throws -> (start: Double, end: Double, label: String) {
        guard let first = alignment.bars.first, let last = alignment.bars.last else {
            throw EtudeFailure("\(safe(job.recordingPath)): no bars were found in it")
        }
        guard let bars else { return (first.start, last.end, "the whole piece") }
        let lesson = try LessonOpener.open(job.lessonPath).lesson
        let range: ClosedRange<Int>
        do {
            range = try PracticePlan.bars(bars, in: lesson)
        } catch {
            throw EtudeFailure(error.worded { "--\($0.rawValue) \($1)" })
        }
        let inside = alignment.bars.filter { range.contains($0.number) }
        guard let a = inside.first, let b = inside.last else {
            throw EtudeFailure("--bars \(bars.text): the recording does not play these bars (it skips the repeat they are in); choose bars it plays (etude align shows them)")
        }
        return (a.start, b.end, "bars \(bars.text)")
    }
}
