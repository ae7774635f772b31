import Clocks
import Foundation
import MIDIFile
@testable import Lesson

/// Builds test MIDI files in code: every test states the music it feeds in.
enum Build {
    static let tpq = 480
    static let bar = 1920  // a 4/4 bar at 480 ticks per quarter

    static func note(_ pitch: Int, at tick: Int, length: Int, channel: UInt8 = 0, velocity: UInt8 = 80) -> [MIDIEvent] {
        [MIDIEvent(tick: tick, .noteOn(channel: channel, key: UInt8(pitch), velocity: velocity)),
         MIDIEvent(tick: tick + length, .noteOff(channel: channel, key: UInt8(pitch), velocity: 0))]
    }

    static func name(_ text: String) -> MIDIEvent {
        MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(text.utf8)))
    }

    static func timeSignature(_ n: Int, _ d: Int, at tick: Int = 0) -> MIDIEvent {
        var power = 0
        while 1 << power < d { power += 1 }
        return MIDIEvent(tick: tick, .meta(type: MetaType.timeSignature, data: [UInt8(n), UInt8(power), 24, 8]))
    }

    static func tempo(bpm: Double, at tick: Int = 0) -> MIDIEvent {
        let us = Int((60_000_000 / bpm).rounded())
        return MIDIEvent(tick: tick, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xFF), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)]))
    }

    static func marker(_ text: String, at tick: Int) -> MIDIEvent {
        MIDIEvent(tick: tick, .meta(type: MetaType.marker, data: Array(text.utf8)))
    }

    static func keySignature(sharps: Int, minor: Bool = false, at tick: Int = 0) -> MIDIEvent {
        MIDIEvent(tick: tick, .meta(type: MetaType.keySignature, data: KeySignature(sharps: sharps, minor: minor).bytes))
    }

    static func track(_ events: [MIDIEvent]) -> Track {
        Track(events: events.enumerated().sorted { a, b in
            a.element.tick != b.element.tick ? a.element.tick < b.element.tick : a.offset < b.offset
        }.map(\.element))
    }

    /// Writes the file to bytes and reads it back, so every test goes through real SMF bytes.
    static func file(_ tracks: [[MIDIEvent]], format: Int = 1, tpq: Int = tpq) throws -> MIDIFile {
        let f = MIDIFile(format: format, division: .ticksPerQuarter(tpq), tracks: tracks.map(track))
        return try MIDIReader.read(MIDIWriter.write(f)).file
    }

    /// Twelve 4/4 bars at 120 BPM (one bar = 2 s). Right hand ("RH"): four quarter notes per
    /// bar, pitch 60 + bar − 1 (so a pitch names its bar), except a half note at bar 4 beat 3
    /// held four beats into bar 5 (pitch 90) and a note at bar 8 beat 4 held two beats into
    /// bar 9 (pitch 91). Left hand ("LH"): one whole note per bar, pitch 36 + bar − 1.
    static func twelveBars(rightName: String = "RH", leftName: String = "LH", extraConductor: [MIDIEvent] = [],
                           extraRight: [MIDIEvent] = []) throws -> MIDIFile {
        var conductor = [name("Twelve Bars"), timeSignature(4, 4), tempo(bpm: 120), keySignature(sharps: 1)]
        conductor += extraConductor
        var right = [name(rightName)]
        var left = [name(leftName)]
        for b in 1...12 {
            let start = (b - 1) * bar
            for beat in 0..<4 {
                if b == 4 && beat >= 2 { continue }
                if b == 8 && beat == 3 { continue }
                right += note(60 + b - 1, at: start + beat * tpq, length: tpq)
            }
            left += note(36 + b - 1, at: start, length: bar)
        }
        right += note(90, at: 3 * bar + 2 * tpq, length: 4 * tpq)   // bar 4 beat 3 → bar 5 beat 3
        right += note(91, at: 7 * bar + 3 * tpq, length: 2 * tpq)   // bar 8 beat 4 → bar 9 beat 2
        right += extraRight
        return try file([conductor, right, left])
    }

    static func lesson(_ file: MIDIFile, split: Int? = nil) -> Lesson {
        Lesson(file: file, fileName: "test.mid", split: split)
    }
}

/// Runs a transport to the end on a virtual clock, jumping from event to event.
func runToEnd(_ transport: Transport, clock: VirtualClock, limit: Int = 1_000_000) -> [TimedEvent] {
    var out = transport.play()
    var steps = 0
    while let t = transport.nextEventTime(), steps < limit {
        clock.set(t)
        out += transport.advance(to: clock.now)
        steps += 1
    }
    return out
}

extension Array where Element == TimedEvent {
    /// Sounding note-ons: (pitch, channel, velocity, time).
    var noteOns: [(pitch: Int, channel: Int, velocity: Int, time: Double)] {
        compactMap {
            if case .synth(.noteOn(let c, let k, let v)) = $0.event, v > 0 { return (Int(k), Int(c), Int(v), $0.time) }
            return nil
        }
    }

    var noteOffs: [(pitch: Int, channel: Int, time: Double)] {
        compactMap {
            switch $0.event {
            case .synth(.noteOff(let c, let k, _)), .synth(.noteOn(let c, let k, 0)): return (Int(k), Int(c), $0.time)
            default: return nil
            }
        }
    }

    /// Events split by pass: the events between each passStarted and its passFinished.
    var passes: [[TimedEvent]] {
        var out: [[TimedEvent]] = []
        var current: [TimedEvent]?
        for e in self {
            switch e.event {
            case .passStarted: current = [e]
            case .passFinished:
                if var c = current { c.append(e); out.append(c) }
                current = nil
            default: current?.append(e)
            }
        }
        return out
    }

    var passTempos: [Double] {
        compactMap { if case .passStarted(_, let p) = $0.event { return p } else { return nil } }
    }
}

func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-6) -> Bool {
    abs(a - b) <= tolerance
}

enum Peer {
    /// The Python with mido, or nil (with the reason printed) when it is not configured.
    static func python() -> String? {
        guard let p = ProcessInfo.processInfo.environment["ETUDE_PEER_PYTHON"], !p.isEmpty else {
            print("skipping mido check: ETUDE_PEER_PYTHON is not set")
            return nil
        }
        guard FileManager.default.isExecutableFile(atPath: p) else {
            print("skipping mido check: ETUDE_PEER_PYTHON=\(p) is not executable")
            return nil
        }
        return p
    }

    static func run(_ python: String, _ args: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
