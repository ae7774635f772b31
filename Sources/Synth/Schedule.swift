import MIDIFile

/// A whole MIDI file flattened into time-ordered messages (seconds via the tempo map), the
/// input of both the offline renderer and live playback.
public struct MessageSchedule: Sendable {
    /// Channel messages and sysex, sorted by time (file order kept at equal times).
    public private(set) var messages: [TimedMessage]
    /// Time of the last event of any track (End of Track included), in seconds.
    public let duration: Double
    public let tempoMap: TempoMap

    /// Merges every track of a format 0/1 file; format 2 sequences are merged too (each with
    /// its own tempo map), which is how a player without song selection sounds them.
    public init(file: MIDIFile) {
        var all: [(seconds: Double, track: Int, index: Int, kind: MIDIEvent.Kind)] = []
        let shared = TempoMap(file: file)
        for (t, track) in file.tracks.enumerated() {
            let map = file.format == 2 ? TempoMap(file: file, track: t) : shared
            for (i, event) in track.events.enumerated() {
                switch event.kind {
                case .meta, .escape: continue
                default: all.append((map.seconds(atTick: event.tick), t, i, event.kind))
                }
            }
        }
        all.sort { a, b in
            if a.seconds != b.seconds { return a.seconds < b.seconds }
            if a.track != b.track { return a.track < b.track }
            return a.index < b.index
        }
        messages = all.map { TimedMessage(seconds: $0.seconds, message: $0.kind) }
        tempoMap = shared
        duration = max(file.durationSeconds, all.last?.seconds ?? 0)
    }

    /// A schedule from explicit messages (sorted here), e.g. for tests or a practice plan.
    public init(messages: [TimedMessage], duration: Double? = nil, tempoMap: TempoMap = TempoMap(division: .ticksPerQuarter(480), changes: [])) {
        self.messages = messages.enumerated().sorted { a, b in
            a.element.seconds != b.element.seconds ? a.element.seconds < b.element.seconds : a.offset < b.offset
        }.map(\.element)
        self.duration = max(duration ?? 0, self.messages.last?.seconds ?? 0)
        self.tempoMap = tempoMap
    }

    /// Index of the first message at or after `seconds`.
    public func firstIndex(atOrAfter seconds: Double) -> Int {
        var lo = 0, hi = messages.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if messages[mid].seconds < seconds { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Controller, program, bend and sysex state in force at `seconds` (no notes), so a seek
    /// sounds with the right instruments, pedal and volume.
    public func chase(to seconds: Double) -> [MIDIEvent.Kind] {
        var out: [MIDIEvent.Kind] = []
        for m in messages[0..<firstIndex(atOrAfter: seconds)] {
            switch m.message {
            case .noteOn, .noteOff, .polyPressure: continue
            default: out.append(m.message)
            }
        }
        return out
    }

    /// Quarter-note BPM in force at a time.
    public func bpm(atSeconds seconds: Double) -> Double {
        tempoMap.bpm(atTick: Int(tempoMap.tick(atSeconds: max(0, seconds))))
    }
}
