import Clocks
import Foundation
import Listening
import MIDIFile
import MIDIInput
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
        return ListeningProfile(noiseFloor: stored.noiseFloor, playedLevel: stored.playedLevel, latency: stored.latency, templates: templates)
    }

    /// The row stored for a measured profile.
    static func row(_ profile: ListeningProfile, device: String) -> AudioCalibration {
        let json = (try? JSONEncoder().encode(profile.templates ?? PartialTemplates(keys: []))).map { String(decoding: $0, as: UTF8.self) } ?? "{\"keys\":[]}"
        return AudioCalibration(device: device, noiseFloor: profile.noiseFloor, playedLevel: profile.playedLevel, latency: profile.latency,
                                templates: json, keys: profile.templates?.keys.count ?? 0)
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
    static func showLines(library: Library) throws -> [(name: String, text: String, date: Date)] {
        try library.withStore(scan: false) { try $0.audioCalibrations() }.map { c in
            (InputDevice.description(c.device),
             "room \(RoomCalibration.dBFS(c.noiseFloor)) dBFS, piano \(RoomCalibration.dBFS(c.playedLevel)) dBFS, \(c.keys) keys, latency \(Int((c.latency * 1000).rounded())) ms",
             c.calibratedAt)
        }
    }
}

/// `etude calibrate --input audio[:SOURCE]`: the one-minute set-up, on lines (a terminal or not):
/// three seconds of the room, then each key named struck once; the profile stored for the source.
struct AudioCalibrator {
    let source: String?
    let library: Library
    /// Seconds without progress before giving up.
    static let patience = 30.0

    func run() throws -> Int32 {
        try library.withStore(scan: false) { _ in }
        let stream: any AudioCaptureStream
        do { stream = try AudioInput.openCapture(source: source) } catch { throw EtudeFailure("\(error)") }
        defer { stream.close() }
        let keys = LineKeys()
        defer { keys.close() }
        let device = InputDeviceID.audio(source)
        let name = InputDevice.description(device)
        let setup = RoomCalibration(sampleRate: stream.sampleRate)
        setup.captureLatency = stream.latencySeconds
        Console.out("setting up \(name) (\(stream.sampleRate) Hz): first stay quiet for \(Int(RoomCalibration.quietSeconds)) seconds, the room's noise is measured\n")
        var samples = [Float](repeating: 0, count: stream.sampleRate / 100)
        var lastProgress = 0.0, seconds = 0.0
        while true {
            do { try stream.read(into: &samples) } catch {
                throw EtudeFailure("the microphone stopped (\(error)): nothing was saved; check it and run `etude calibrate --input \(safe(device))` again")
            }
            seconds += 0.01
            for event in setup.push(samples) {
                lastProgress = seconds
                switch event {
                case .roomMeasured(let noise):
                    Console.out("room: \(RoomCalibration.dBFS(noise)) dBFS. Now strike each key named once, firmly, and let it ring\n")
                    Console.out("play \(Self.name(setup.keys[0]))\n")
                case .roomTooLoud(let noise):
                    Console.out("the room is at \(RoomCalibration.dBFS(noise)) dBFS with nobody playing: too loud to hear a piano in; quieten it (or lower the microphone's level) and stay quiet\n")
                case .measured(let key, let level):
                    Console.out("heard \(Self.name(key)) at \(RoomCalibration.dBFS(level)) dBFS\n")
                    if case .key(let next) = setup.step { Console.out("play \(Self.name(next))\n") }
                case .otherKey(let expected, let heard):
                    Console.out("heard \(Self.name(heard)), not \(Self.name(expected)): play \(Self.name(expected))\n")
                case .clipped(let key):
                    Console.out("\(Self.name(key)) clipped the microphone: lower its level and play \(Self.name(key)) again\n")
                case .finished(let profile):
                    try library.withStore(scan: false) { try $0.saveAudioCalibration(AudioSetup.row(profile, device: device)) }
                    Console.out("stored for \(name): room \(RoomCalibration.dBFS(profile.noiseFloor)) dBFS, piano \(RoomCalibration.dBFS(profile.playedLevel)) dBFS, \(profile.templates?.keys.count ?? 0) keys, latency \(Int((profile.latency * 1000).rounded())) ms; practice with --input \(safe(device)) listens with it from now on\n")
                    return 0
                }
            }
            if seconds - lastProgress > Self.patience {
                throw EtudeFailure("nothing heard for \(Int(Self.patience)) seconds: nothing was saved; check the microphone is on and run `etude calibrate --input \(safe(device))` again")
            }
            guard let pressed = keys.read(timeoutMs: 0) else {
                Console.error("etude: calibration interrupted: nothing was saved")
                return keys.signalStatus ?? 130
            }
            for key in pressed {
                switch LineCommand(key) {
                case .quit?:
                    Console.out("Set-up stopped: nothing was saved. Run `etude calibrate --input \(safe(device))` again when the room is ready.\n")
                    return 0
                case .interrupt?:
                    Console.error("etude: calibration interrupted: nothing was saved")
                    return 130
                default: break
                }
            }
        }
    }

    /// "C4" for 60.
    static func name(_ pitch: Int) -> String { PitchName.name(pitch) }
}
