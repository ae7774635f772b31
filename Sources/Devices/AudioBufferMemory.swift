import Foundation
import LessonLibrary
import Reports
import Store
import Synth

/// The PulseAudio buffer remembered per output device: a session on a device Etude played on
/// before starts from the size it learned there (the default buffer only; `--audio-buffer` is the
/// learner's own), and every move of the buffer is stored for the next one. Without a library,
/// or with a read-only one, the buffer is found again each time, as before.
public enum AudioBufferMemory {
    /// The library's key for a PulseAudio sink.
    static func device(_ stream: PulseStream) -> String { "pulse:\(stream.device)" }

    /// Starts `live`'s PulseAudio stream from what its device taught before and remembers what
    /// it learns from now on. Returns the line `--verbose` shows (nil when nothing was resumed).
    @discardableResult
    public static func attach(_ live: FluidSynthLive, library: Library?) -> String? {
        guard let library, let stream = live.pulseStream, !stream.device.isEmpty else { return nil }
        let device = device(stream)
        let store = library.storeIfAvailable
        var said: String?
        if let known = (try? store?.audioBuffer(device: device)) ?? nil,
           stream.resume(from: BufferSteps.Learned(milliseconds: known.milliseconds, floor: known.floor)) {
            said = "audio: \(safe(stream.device)): buffer \(NumberFormat.ms(known.milliseconds)) ms, as learned there before"
        }
        guard let store, store.readOnlyReason == nil else { return said }
        stream.onLearned = { learned in
            try? store.saveAudioBuffer(LearnedAudioBuffer(milliseconds: learned.milliseconds, floor: learned.floor), device: device)
        }
        return said
    }
}
