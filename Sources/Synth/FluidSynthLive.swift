import Clocks
import CFluidSynth
import Foundation
import MIDIFile

/// Live sound through FluidSynth's own audio driver, or silence when no device opens.
///
/// Silence is a normal outcome (SSH, containers, CI): visual practice must keep working, so
/// construction only fails for SoundFont problems, never for audio ones.
public final class FluidSynthLive: SoundOutput, @unchecked Sendable {
    public static let defaultDrivers = ["pipewire", "pulseaudio", "alsa"]

    public struct Options: Sendable {
        /// Tried in order; `--audio-driver NAME` makes this a single name.
        public var drivers: [String] = FluidSynthLive.defaultDrivers
        /// nil = the device's rate: the PulseAudio/PipeWire server's default when one answers
        /// (no resampling), else 48 kHz.
        public var sampleRate: Double?
        /// Frames per period and number of periods: 128 × 3 at 48 kHz = 8 ms of buffer.
        public var periodSize = 128
        public var periods = 3
        public var reverb = true
        public var chorus = true
        public init() {}

        /// Output buffer length in milliseconds (period size × periods).
        public func bufferMilliseconds(at rate: Double) -> Double { Double(periodSize * periods) / rate * 1000 }
    }

    public let engine: FluidSynthEngine
    /// The driver that opened, or nil when playing silently.
    public let driver: String?
    public let options: Options

    public init(soundFont: String, options: Options = Options(), onSlowLoad: (@Sendable (Double) -> Void)? = nil) throws(SynthError) {
        self.options = options
        let rate = options.sampleRate ?? Self.deviceSampleRate(drivers: options.drivers) ?? 48_000
        engine = try FluidSynthEngine(sampleRate: rate, settings: [
            "audio.period-size": .int(options.periodSize),
            "audio.periods": .int(max(2, options.periods)),
            "synth.reverb.active": .int(options.reverb ? 1 : 0),
            "synth.chorus.active": .int(options.chorus ? 1 : 0),
            "audio.pulseaudio.adjust-latency": .int(1),
            "audio.pulseaudio.media-role": .string("music"),
        ])
        try engine.loadSoundFont(soundFont, onSlow: onSlowLoad)
        driver = engine.startAudio(drivers: options.drivers)
        if driver != nil { waitForAudioToFlow() }
    }

    /// A freshly opened stream (PulseAudio especially) can take a moment before it pulls the
    /// first period; notes dispatched before that would be shortened. Wait until FluidSynth has
    /// rendered a few periods (at most 2 s — a stuck device must not hang Etude).
    private func waitForAudioToFlow() {
        let start = engine.renderedFrames
        let target = UInt32(options.periodSize * max(2, options.periods) * 2)
        let deadline = MonotonicClock.seconds() + 2
        while engine.renderedFrames &- start < target && MonotonicClock.seconds() < deadline {
            usleep(2_000)
        }
        audioStartup = MonotonicClock.seconds() - (deadline - 2)
    }

    /// Seconds between opening the driver and the first periods being rendered.
    public private(set) var audioStartup: Double = 0

    /// The sound server's own rate when a PulseAudio-compatible driver is in the list and a
    /// server answers within 300 ms; nil otherwise (ALSA's default device resamples itself).
    public static func deviceSampleRate(drivers: [String]) -> Double? {
        guard drivers.contains(where: { $0 == "pulseaudio" || $0 == "pipewire" }) else { return nil }
        let rate = etude_pulse_default_rate(300)
        return (8_000...384_000).contains(rate) ? Double(rate) : nil
    }

    /// The one warning line shown when no driver opened (nil when sound works).
    public var warning: String? {
        driver == nil ? Self.noDeviceWarning(tried: options.drivers) : nil
    }

    public static func noDeviceWarning(tried: [String]) -> String {
        "no audio device (tried \(tried.joined(separator: ", "))): continuing silently; use 'etude render' to hear it as a WAV"
    }

    public func send(_ message: MIDIEvent.Kind) {
        guard driver != nil else { return }
        engine.send(message)
    }

    public func allNotesOff() { engine.allNotesOff() }

    /// All notes off, then the driver is stopped (joins its thread; never hangs on exit).
    public func close() {
        engine.allNotesOff()
        engine.stopAudio()
    }
}
