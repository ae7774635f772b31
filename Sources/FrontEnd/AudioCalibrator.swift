import Devices
import Foundation
import LessonLibrary
import Listening
import MIDIFile
import MIDIInput
import Reports

/// `etude calibrate --input audio[:SOURCE]`: the one-minute set-up, on lines (a terminal or not):
/// three seconds of the room, then each key named struck once; the profile stored for the source.
struct AudioCalibrator {
    let source: String?
    let library: Library
    /// Seconds without progress before giving up.
    static let patience = 30.0

    func run() throws -> Int32 {
        try AudioSetup.checkWritable(library)
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
                    try AudioSetup.save(profile, device: device, library: library)
                    Console.out("stored for \(name): room \(RoomCalibration.dBFS(profile.noiseFloor)) dBFS\(profile.roomSpectrum == nil ? "" : " bin by bin"), piano \(RoomCalibration.dBFS(profile.playedLevel)) dBFS, \(profile.templates?.keys.count ?? 0) keys, latency \(Int((profile.latency * 1000).rounded())) ms; practice with --input \(safe(device)) listens with it from now on\n")
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
