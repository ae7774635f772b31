import Foundation
import Lesson
import MIDIFile

/// `etude-bench lesson [--notes N] [--passes N] [--hand-set DIR] [--lessons DIR]`: building a
/// lesson (`Lesson(bytes:)`: read, pair, split the hands, bars) from files made to be slow — N
/// notes struck at once and released one by one, N and 10 × N notes never released, and a
/// two-hand piece merged into one track so the hand model splits it — and the hand split on
/// Etude's test set (the curriculum and the two-staff scores of `Tests/LessonTests/Fixtures/hands`,
/// each merged into one track): notes in the wrong hand, and the time to split them.
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

    /// The test set: (name, style, file) for every curriculum lesson and fixture score found.
    static func handSet(scores: String, lessons: String) -> [(name: String, style: String, file: MIDIFile)] {
        var out: [(name: String, style: String, file: MIDIFile)] = []
        let fm = FileManager.default
        if let e = fm.enumerator(atPath: lessons) {
            for case let path as String in e where path.hasSuffix(".mid") {
                if let data = fm.contents(atPath: lessons + "/" + path), let file = try? MIDIReader.read([UInt8](data)).file {
                    out.append((path, "curriculum", file))
                }
            }
        }
        if let index = try? String(contentsOfFile: scores + "/index.tsv", encoding: .utf8) {
            for line in index.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: "\t").map(String.init)
                guard fields.count >= 2, let data = fm.contents(atPath: scores + "/" + fields[0] + ".mid"),
                      let file = try? MIDIReader.read([UInt8](data)).file else { continue }
                out.append((fields[0], fields[1], file))
            }
        }
        return out
    }

    /// Wrong-hand figures on the test set, and the best time over `passes` to build every
    /// merged piece's lesson (split included).
    static func handSetFields(scores: String, lessons: String, passes: Int) -> [String] {
        let set = handSet(scores: scores, lessons: lessons)
        guard !set.isEmpty else { return ["\"handSetPieces\":0"] }
        var byStyle: [String: (notes: Int, wrong: Int)] = [:]
        for p in set {
            let o = HandSplitCheck.check(p.file)
            byStyle[p.style, default: (0, 0)].notes += o.notes
            byStyle[p.style, default: (0, 0)].wrong += o.wrong
        }
        let merged = set.map { MIDIWriter.write(HandSplitCheck.merged($0.file)) }
        var best = Double.infinity
        for _ in 0..<max(1, passes) {
            let start = DispatchTime.now().uptimeNanoseconds
            for bytes in merged { _ = try? Lesson(bytes: bytes) }
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let all = byStyle.values.reduce((notes: 0, wrong: 0)) { ($0.notes + $1.notes, $0.wrong + $1.wrong) }
        let real = byStyle.filter { $0.key != "curriculum" }.values.reduce((notes: 0, wrong: 0)) { ($0.notes + $1.notes, $0.wrong + $1.wrong) }
        func pct(_ w: Int, _ n: Int) -> String { ParseBench.fmt(100 * Double(w) / Double(max(1, n))) }
        let styles = byStyle.sorted { $0.key < $1.key }.map { "\"\($0.key)\":{\"notes\":\($0.value.notes),\"wrongPercent\":\(pct($0.value.wrong, $0.value.notes))}" }
        return ["\"handSetPieces\":\(set.count),\"handSetNotes\":\(all.notes),\"handSetWrong\":\(all.wrong)",
                "\"handSetWrongPercent\":\(pct(all.wrong, all.notes)),\"handSetScoresWrongPercent\":\(pct(real.wrong, real.notes))",
                "\"handSetSeconds\":\(ParseBench.fmt(best)),\"handSetStyles\":{" + styles.joined(separator: ",") + "}"]
    }

    static func run(_ args: [String]) -> String {
        var notes = 20_000
        var passes = 3
        var scores = "Tests/LessonTests/Fixtures/hands"
        var lessons = "Lessons"
        var i = 0
        while i < args.count {
            if args[i] == "--notes", i + 1 < args.count { notes = Int(args[i + 1]) ?? notes; i += 2; continue }
            if args[i] == "--passes", i + 1 < args.count { passes = Int(args[i + 1]) ?? passes; i += 2; continue }
            if args[i] == "--hand-set", i + 1 < args.count { scores = args[i + 1]; i += 2; continue }
            if args[i] == "--lessons", i + 1 < args.count { lessons = args[i + 1]; i += 2; continue }
            i += 1
        }
        var fields: [String] = ["\"notes\":\(notes)"]
        let files = [("stack", stack(notes)), ("unreleased", unreleased(notes)), ("unreleasedTenfold", unreleased(10 * notes)),
                     ("oneTrackPiece", oneTrackPiece(notes))]
        for (name, file) in files {
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
        fields += handSetFields(scores: scores, lessons: lessons, passes: passes)
        return "{" + fields.joined(separator: ",") + "}"
    }
}
