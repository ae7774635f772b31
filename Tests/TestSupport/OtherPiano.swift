import Foundation
import MIDIFile

/// The learner at "another piano" in a room, for the listening tests: notes rendered by a
/// SoundFont Etude does not use (`Tools.otherPiano`, FluidR3) through fluidsynth, with room
/// reverb (sox) and, when asked, pink noise under it — what a microphone hears. One way to make
/// it, so every listening test hears the same room.
public enum OtherPiano {
    /// One note: its key, where it starts and how long it is held (480 ticks a beat, 120 BPM:
    /// 960 ticks a second), how hard.
    public struct Note: Sendable {
        public var key: UInt8
        public var tick: Int
        public var length: Int
        public var velocity: UInt8

        public init(key: UInt8, tick: Int, length: Int, velocity: UInt8) {
            self.key = key
            self.tick = tick
            self.length = length
            self.velocity = velocity
        }
    }

    /// Renders `notes` at 48 kHz into `dir` as `<name>.wav` (mono, with reverb); with `noise`,
    /// pink noise at that volume under the whole of it, cut to `seconds`. nil when fluidsynth,
    /// sox or the other piano is missing here, or a tool failed.
    /// `soundFont` is another piano's (default: `Tools.otherPiano`); `pedal` the sustain pedal's
    /// presses and releases (ticks).
    public static func recording(_ notes: [Note], endTick: Int? = nil, in dir: TempDir, name: String,
                                 noise: (volume: Double, seconds: Int)? = nil, soundFont: String? = nil,
                                 pedal: [(tick: Int, down: Bool)] = []) throws -> String? {
        guard let fluidsynth = Tools.fluidsynth.path, let sox = Tools.sox.path, let piano = soundFont ?? Tools.otherPiano.path else { return nil }
        var events = [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))]
        for p in pedal { events.append(MIDIEvent(tick: p.tick, .controlChange(channel: 0, controller: 64, value: p.down ? 127 : 0))) }
        for n in notes {
            events.append(MIDIEvent(tick: n.tick, .noteOn(channel: 0, key: n.key, velocity: n.velocity)))
            events.append(MIDIEvent(tick: n.tick + n.length, .noteOff(channel: 0, key: n.key, velocity: 0)))
        }
        events.sort { $0.tick < $1.tick }
        events.append(MIDIEvent(tick: endTick ?? ((events.last?.tick ?? 0) + 960), .meta(type: 0x2F, data: [])))
        let mid = try dir.write("\(name).mid", MIDIWriter.write(MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)])))
        let dry = dir.file("\(name)-dry.wav"), wet = dir.file("\(name)-wet.wav"), out = dir.file("\(name).wav")
        guard try ProcessRunner.run(fluidsynth, ["-ni", "-q", "-r", "48000", "-T", "wav", "-F", dry, piano, mid], timeout: 120).status == 0,
              try ProcessRunner.run(sox, ["-R", dry, "-c", "1", wet, "reverb", "40", "50", "60"], timeout: 60).status == 0 else { return nil }
        guard let noise else {
            try FileManager.default.moveItem(atPath: wet, toPath: out)
            return out
        }
        let hiss = dir.file("\(name)-noise.wav")
        guard try ProcessRunner.run(sox, ["-R", "-n", "-r", "48000", "-c", "1", hiss, "synth", String(noise.seconds + 1), "pinknoise", "vol", String(noise.volume)],
                                    timeout: 60).status == 0,
              try ProcessRunner.run(sox, ["-R", "-m", wet, hiss, out, "trim", "0", String(noise.seconds)], timeout: 60).status == 0 else { return nil }
        return out
    }

    /// The samples of a mono WAV `path` (as sox reads it: any format), or nil when sox is missing
    /// or fails.
    public static func samples(_ path: String, in dir: TempDir) throws -> [Float]? {
        guard let sox = Tools.sox.path else { return nil }
        let raw = dir.file((path as NSString).lastPathComponent + ".f32")
        guard try ProcessRunner.run(sox, [path, "-t", "f32", "-c", "1", raw], timeout: 60).status == 0,
              let data = FileManager.default.contents(atPath: raw) else { return nil }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
