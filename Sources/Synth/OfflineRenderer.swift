import Foundation
import MIDIFile

/// Renders a schedule to a WAV with no sound card, every event placed at its own sample.
///
/// Render calls are split at each event's sample position; FluidSynth then applies the event
/// at its next internal 64-sample block, so an onset is at most 63 samples late — that block
/// is the floor of what its public API allows.
public final class OfflineRenderer {
    public struct Options: Sendable {
        public var sampleRate: Int = 44_100
        public var format: WAVSampleFormat = .s16
        /// Seconds rendered after the end of the file; nil = until the release has decayed.
        public var tail: Double?
        public var reverb = true
        public var chorus = true
        /// Peak below which the auto tail counts as silent (≈ −80 dBFS).
        public var silenceThreshold: Float = 1e-4
        /// Longest auto tail before hanging voices are cut.
        public var maxTail: Double = 30
        public init() {}
    }

    public struct Result: Sendable {
        public var frames: Int
        public var sampleRate: Int
        public var seconds: Double { Double(frames) / Double(sampleRate) }
    }

    public let engine: FluidSynthEngine
    public let options: Options

    /// Creates the synth for offline use and loads the SoundFont.
    public init(soundFont: String, options: Options = Options(), onSlowLoad: (@Sendable (Double) -> Void)? = nil) throws(SynthError) {
        self.options = options
        engine = try FluidSynthEngine(sampleRate: Double(options.sampleRate), settings: [
            "synth.reverb.active": .int(options.reverb ? 1 : 0),
            "synth.chorus.active": .int(options.chorus ? 1 : 0),
            // Offline: no CPU-dependent voice stealing or dynamic sample loading.
            "synth.cpu-cores": .int(1),
        ])
        try engine.loadSoundFont(soundFont, onSlow: onSlowLoad)
    }

    /// Renders the schedule into `path` (created or truncated; `etude render` writes through
    /// a temporary file with `render(_:into:)` instead). `progress` gets 0…1 of the file part.
    @discardableResult
    public func render(_ schedule: MessageSchedule, to path: String, progress: ((Double) -> Void)? = nil) throws(SynthError) -> Result {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw SynthError("\(path): cannot be written (\(String(cString: strerror(errno))))")
        }
        defer { try? handle.close() }
        return try render(schedule, into: handle, progress: progress)
    }

    /// Renders the schedule as a WAV into an open, empty file: RF64 when it passes 4 GiB.
    @discardableResult
    public func render(_ schedule: MessageSchedule, into handle: FileHandle, progress: ((Double) -> Void)? = nil) throws(SynthError) -> Result {
        let writer = try WAVWriter(handle: handle, sampleRate: options.sampleRate, format: options.format,
                                   maxDataBytes: maxFrames(schedule) * UInt64(2 * options.format.bytesPerSample))
        try renderFrames(schedule, progress: progress) { l, r, n throws(SynthError) in try writer.append(left: l, right: r, count: n) }
        try writer.finish()
        return Result(frames: writer.frames, sampleRate: options.sampleRate)
    }

    /// The most frames a render of `schedule` can write: the file, then the tail (given, or
    /// the longest auto tail), with a block of slack.
    public func maxFrames(_ schedule: MessageSchedule) -> UInt64 {
        let seconds = max(0, schedule.duration) + max(0, options.tail ?? options.maxTail) + 1
        guard seconds.isFinite, seconds * Double(options.sampleRate) < 9e18 else { return UInt64.max / 16 }
        return UInt64((seconds * Double(options.sampleRate)).rounded(.up)) + 4096
    }

    /// Renders into memory (tests, benchmarks): left and right channels.
    public func renderSamples(_ schedule: MessageSchedule) throws(SynthError) -> (left: [Float], right: [Float]) {
        var left: [Float] = [], right: [Float] = []
        try renderFrames(schedule, progress: nil) { l, r, n in
            left.append(contentsOf: UnsafeBufferPointer(start: l, count: n))
            right.append(contentsOf: UnsafeBufferPointer(start: r, count: n))
        }
        return (left, right)
    }

    /// The sample an event at `seconds` is meant to land on.
    public func samplePosition(_ seconds: Double) -> Int {
        let frames = (seconds * Double(options.sampleRate)).rounded()
        // A schedule is checked against a length limit before rendering; this only keeps a
        // bad value from trapping.
        return frames.isFinite ? Int(max(0, min(frames, 1e15))) : 0
    }

    private func renderFrames(_ schedule: MessageSchedule, progress: ((Double) -> Void)?,
                              sink: (UnsafePointer<Float>, UnsafePointer<Float>, Int) throws(SynthError) -> Void) throws(SynthError) {
        let chunk = 4096
        let left = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
        let right = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
        defer { left.deallocate(); right.deallocate() }
        var position = 0
        var lastPeak: Float = 0

        func advance(to target: Int) throws(SynthError) {
            while position < target {
                let n = min(chunk, target - position)
                engine.render(frames: n, left: left, right: right)
                var peak: Float = 0
                for i in 0..<n { peak = max(peak, abs(left[i]), abs(right[i])) }
                lastPeak = peak
                try sink(left, right, n)
                position += n
            }
        }

        let endFrame = samplePosition(schedule.duration)
        var lastReport = -1.0
        for m in schedule.messages {
            try advance(to: samplePosition(m.seconds))
            engine.send(m.message)
            if let progress, endFrame > 0 {
                let p = Double(position) / Double(endFrame)
                if p - lastReport >= 0.01 { progress(p); lastReport = p }
            }
        }
        try advance(to: endFrame)
        progress?(1)

        let rate = options.sampleRate
        if let tail = options.tail {
            try advance(to: position + Int((min(max(0, tail), 3600) * Double(rate)).rounded()))
            return
        }
        // Auto tail: render 64-frame blocks until no voice is left and the last block (reverb
        // included) is below the silence threshold — the point where `fluidsynth -F` stops too.
        engine.allNotesOff()
        let limit = position + Int(options.maxTail * Double(rate))
        while position < limit {
            if engine.activeVoices == 0 && lastPeak < options.silenceThreshold { break }
            try advance(to: position + 64)
            if position >= limit - rate { engine.allSoundsOff() }
        }
    }
}
