import Clocks
import Foundation
import LessonLibrary
import Listening
import MIDIFile
import MIDIInput
import Reports
import Store
import Terminal

/// A microphone's set-up per source (`etude calibrate --input audio[:SOURCE]`): measured once
/// per piano and room, stored like the MIDI offsets, and listened with whenever that source is
/// the input (`profile(input:library:)`).
public enum AudioSetup {
    /// The profile stored for `--input TEXT` (nil: not a microphone, never calibrated, or the
    /// library cannot be read — then the listener's defaults apply).
    public static func profile(input: InputSpec, library: Library?) -> ListeningProfile? {
        guard case .audio(let source) = input, let store = library?.storeIfAvailable,
              let stored = try? store.audioCalibration(device: InputDeviceID.audio(source)) else { return nil }
        return profile(stored)
    }

    /// The set-up `etude judge --calibration SOURCE` listens to a recording with: the one
    /// `etude calibrate --input audio:SOURCE` stored (a recording made through that microphone,
    /// in that room). Throws one line naming the fix when there is none.
    public static func judgeProfile(source: String, library: Library) throws -> ListeningProfile {
        // SOURCE as `--input audio:SOURCE` names it; `audio` (or `audio:SOURCE`) as given.
        let name = InputDeviceID.audio(naming: source)
        let stored: AudioCalibration?
        do {
            stored = try library.withStore(scan: false) { try $0.audioCalibration(device: name) }
        } catch {
            throw EtudeFailure("--calibration \(safe(source)): the library cannot be read (\((error as? EtudeFailure)?.message ?? "\(error)")); leave --calibration out")
        }
        guard let stored else {
            throw EtudeFailure("--calibration \(safe(source)): no microphone set-up stored for it; run `etude calibrate --input \(safe(name))` first, or leave --calibration out")
        }
        return profile(stored)
    }

    /// The listener's profile from a stored row (templates the listener cannot read are left
    /// out: the defaults cancel then).
    static func profile(_ stored: AudioCalibration) -> ListeningProfile {
        let templates = try? JSONDecoder().decode(PartialTemplates.self, from: Data(stored.templates.utf8))
        let room = stored.roomSpectrum.flatMap { data in stored.roomSampleRate.flatMap { RoomSpectrum(sampleRate: $0, magnitudes: floats(data)) } }
        return ListeningProfile(noiseFloor: stored.noiseFloor, playedLevel: stored.playedLevel, latency: stored.latency, templates: templates,
                                roomSpectrum: room)
    }

    /// A room's magnitudes as stored: little-endian 32-bit floats (a bin's noise needs no more).
    static func bytes(_ magnitudes: [Double]) -> Data {
        var data = Data(capacity: magnitudes.count * 4)
        for m in magnitudes { withUnsafeBytes(of: Float(m).bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// The magnitudes of `bytes` (whole 4-byte floats; a trailing part is ignored).
    static func floats(_ data: Data) -> [Double] {
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count - bytes.count % 4, by: 4).map { i in
            let bits = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
            return Double(Float(bitPattern: bits))
        }
    }

    /// The row stored for a measured profile.
    static func row(_ profile: ListeningProfile, device: String) -> AudioCalibration {
        let json = (try? JSONEncoder().encode(profile.templates ?? PartialTemplates(keys: []))).map { String(decoding: $0, as: UTF8.self) } ?? "{\"keys\":[]}"
        return AudioCalibration(device: device, noiseFloor: profile.noiseFloor, playedLevel: profile.playedLevel, latency: profile.latency,
                                templates: json, keys: profile.templates?.keys.count ?? 0,
                                roomSpectrum: profile.roomSpectrum.map { bytes($0.magnitudes) }, roomSampleRate: profile.roomSpectrum?.sampleRate)
    }

    /// The line practice shows when the microphone opens: which set-up it listens with.
    public static func notice(input: InputSpec, profile: ListeningProfile?) -> String? {
        guard case .audio(let source) = input else { return nil }
        guard let profile else {
            return "microphone not set up: `etude calibrate --input \(safe(InputDeviceID.audio(source)))` measures this piano and room in a minute"
        }
        return "microphone: listening with its set-up (room \(RoomCalibration.dBFS(profile.noiseFloor)) dBFS, piano \(RoomCalibration.dBFS(profile.playedLevel)) dBFS, \(profile.templates?.keys.count ?? 0) keys)"
    }

    /// What the header says of a signal the listener cannot trust (nil when it can).
    public static func headerWords(_ signal: SignalState?) -> String? {
        switch signal {
        case .tooQuiet?: return "mic too quiet"
        case .clipped?: return "mic clipped"
        case .noisy?: return "mic too noisy"
        default: return nil
        }
    }

    /// `calibrate --show`'s lines for the stored set-ups.
    /// Opens the library before the room is measured, so a database that cannot be written is
    /// said before the learner spends a minute on the set-up.
    public static func checkWritable(_ library: Library) throws { try library.withStore(scan: false) { _ in } }

    /// Keeps a finished set-up for `device`: what the listener uses from then on.
    public static func save(_ profile: ListeningProfile, device: String, library: Library) throws {
        try library.withStore(scan: false) { try $0.saveAudioCalibration(row(profile, device: device)) }
    }

    static func showLines(library: Library) throws -> [(name: String, text: String, date: Date)] {
        try library.withStore(scan: false) { try $0.audioCalibrations() }.map { c in
            (InputDevice.description(c.device),
             "room \(RoomCalibration.dBFS(c.noiseFloor)) dBFS\(c.roomSpectrum == nil ? "" : " bin by bin"), piano \(RoomCalibration.dBFS(c.playedLevel)) dBFS, \(c.keys) keys, latency \(Int((c.latency * 1000).rounded())) ms",
             c.calibratedAt)
        }
    }
}
