import Clocks
import Foundation
import MIDIFile
import TestSupport
@testable import Lesson

/// `Build` (TestSupport) makes the MIDI files; here it makes lessons of them.
extension Build {
    static func lesson(_ file: MIDIFile, split: Int? = nil) -> Lesson {
        Lesson(file: file, fileName: "test.mid", split: split)
    }
}

/// Runs a transport to the end on a virtual clock, jumping from event to event.
func runToEnd(_ transport: inout Transport, clock: VirtualClock, limit: Int = 1_000_000) -> [TimedEvent] {
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
