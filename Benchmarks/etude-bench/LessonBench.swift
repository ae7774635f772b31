import Foundation
import Lesson
import MIDIFile

/// `etude-bench lesson [--notes N] [--passes N]`: building a lesson (`Lesson(bytes:)`: read,
/// pair, split the hands, bars) from files made to be slow — N notes struck at once and
/// released one by one, N notes never released, and the 1,000-bar two-hand piece merged into
/// one track so the hands are split by pitch continuity.
enum LessonBench {
    static func stack(_ n: Int) -> MIDIFile {
        var t = Track()
        for _ in 0..<n { t.events.append(MIDIEvent(tick: 0, .noteOn(channel: 0, key: 60, velocity: 64))) }
        for i in 0..<n { t.events.append(MIDIEvent(tick: i + 1, .noteOff(channel: 0, key: 60, velocity: 0))) }
        return MIDIFile(format: 0, division: .ticksPerQuarter(96), tracks: [t])
    }

    static func unreleased(_ n: Int) -> MIDIFile {
        var t = Track()
        var seed: UInt32 = 12345
        for _ in 0..<n {
            seed = seed &* 1_103_515_245 &+ 12345
            t.events.append(MIDIEvent(tick: 0, .noteOn(channel: 0, key: UInt8(21 + Int(seed >> 16) % 88), velocity: 64)))
        }
        return MIDIFile(format: 0, division: .ticksPerQuarter(96), tracks: [t])
    }

    /// Two hands in one unnamed track: a moving melody over a bass line, 8 notes a bar.
    static func oneTrackPiece(_ n: Int) -> MIDIFile {
        var events: [MIDIEvent] = []
        var seed: UInt32 = 777
        var right = 72, left = 48
        for i in 0..<(n / 2) {
            seed = seed &* 1_103_515_245 &+ 12345
            right = max(62, min(88, right + Int(seed >> 16) % 7 - 3))
            left = max(33, min(57, left + Int(seed >> 20) % 5 - 2))
            let tick = i * 240
            for (k, len) in [(right, 240), (left, 480)] {
                events.append(MIDIEvent(tick: tick, .noteOn(channel: 0, key: UInt8(k), velocity: 64)))
                events.append(MIDIEvent(tick: tick + len, .noteOff(channel: 0, key: UInt8(k), velocity: 0)))
            }
        }
        events = events.enumerated().sorted { a, b in
            a.element.tick != b.element.tick ? a.element.tick < b.element.tick : a.offset < b.offset
        }.map(\.element)
        return MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)])
    }

    static func run(_ args: [String]) -> String {
        var notes = 20_000
        var passes = 3
        var i = 0
        while i < args.count {
            if args[i] == "--notes", i + 1 < args.count { notes = Int(args[i + 1]) ?? notes; i += 2; continue }
            if args[i] == "--passes", i + 1 < args.count { passes = Int(args[i + 1]) ?? passes; i += 2; continue }
            i += 1
        }
        var fields: [String] = ["\"notes\":\(notes)"]
        for (name, file) in [("stack", stack(notes)), ("unreleased", unreleased(notes)), ("oneTrackPiece", oneTrackPiece(notes))] {
            let bytes = MIDIWriter.write(file)
            var best = Double.infinity
            var method = ""
            for _ in 0..<max(1, passes) {
                let start = DispatchTime.now().uptimeNanoseconds
                guard let lesson = try? Lesson(bytes: bytes, fileName: "\(name).mid") else { break }
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                method = lesson.handAssignment.method.rawValue
            }
            fields.append("\"\(name)Seconds\":\(ParseBench.fmt(best)),\"\(name)Split\":\"\(method)\"")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
