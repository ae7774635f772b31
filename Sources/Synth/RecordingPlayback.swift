import CFluidSynth
import Foundation

/// A recording heard through the same audio drivers the live synth opens (FluidSynth's:
/// PipeWire, PulseAudio, ALSA, JACK), for `etude align --tap`. The driver's callback (C) copies
/// the next frames and advances an atomic position; nothing else runs in it.
public final class RecordingPlayback {
    private let left: UnsafeMutablePointer<Float>
    private let right: UnsafeMutablePointer<Float>
    private var player: OpaquePointer?
    public let sampleRate: Int
    public let frames: Int
    /// The driver that plays it, nil when none opened (then nothing is heard).
    public let driver: String?

    /// The drivers tried: FluidSynth's own JACK driver would play at the server's rate, not the
    /// recording's, so JACK users hear it through PipeWire or PulseAudio's bridge.
    public static let drivers = ["pipewire", "pulseaudio", "alsa"]

    /// Starts playing at once; silent (`driver` nil) when no driver opens.
    public init(left: [Float], right: [Float], sampleRate: Int, drivers: [String] = RecordingPlayback.drivers) {
        let count = min(left.count, right.count)
        let l = UnsafeMutablePointer<Float>.allocate(capacity: max(1, count))
        let r = UnsafeMutablePointer<Float>.allocate(capacity: max(1, count))
        left.withUnsafeBufferPointer { if let b = $0.baseAddress, count > 0 { l.update(from: b, count: count) } }
        right.withUnsafeBufferPointer { if let b = $0.baseAddress, count > 0 { r.update(from: b, count: count) } }
        FluidSynthLog.capture()
        var opened: Int32 = -1
        var names = drivers.map { strdup($0) }
        defer { names.forEach { free($0) } }
        let p = names.withUnsafeMutableBufferPointer { buf in
            buf.withMemoryRebound(to: UnsafePointer<CChar>?.self) {
                etude_playback_open($0.baseAddress, Int32($0.count), Double(sampleRate), l, r, count, &opened)
            }
        }
        frames = count
        self.sampleRate = sampleRate
        self.left = l
        self.right = r
        player = p
        driver = p != nil && opened >= 0 && Int(opened) < drivers.count ? drivers[Int(opened)] : nil
    }

    /// Seconds the driver has pulled (ahead of what is heard by its buffer).
    public var pulledSeconds: Double { Double(etude_playback_position(player)) / Double(sampleRate) }

    public var seconds: Double { Double(frames) / Double(sampleRate) }

    /// Stops the sound and frees the driver (the samples after it).
    public func close() {
        if let p = player { etude_playback_close(p) }
        player = nil
    }

    deinit {
        close()
        left.deallocate()
        right.deallocate()
    }
}
