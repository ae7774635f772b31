import ABC
import Foundation
import Lesson
import MIDIFile

/// `etude-bench recording-material OUT LESSON.mid… [--minutes M]`: the performances `make bench`
/// aligns. Each lesson is written again with a tempo of its own for every beat — a curve of
/// ±25 % around the lesson's tempo and a ritardando to 60 % over its last eight beats — as
/// `NAME-performance.mid`, with the bar starts that tempo map gives (plus `--lead` seconds,
/// the silence the script pads the recording with) in `NAME-truth.json`, beside the bar starts
/// in the lesson's own render (`score`, for the peer, which aligns audio to audio). With `--minutes`, the
/// lesson is first repeated until it lasts that long (`NAME-lesson.mid` is then the long one).
/// The script renders them with a SoundFont Etude does not ship, through sox's reverb and noise.
enum RecordingBench {
    static func run(_ args: [String]) -> Int32 {
        guard args.count >= 2 else {
            FileHandle.standardError.write(Data("usage: etude-bench recording-material OUT LESSON.mid… [--minutes M] [--lead S]\n".utf8))
            return 2
        }
        let out = args[0]
        var minutes: Double?
        var lead = 1.0
        var files: [String] = []
        var i = 1
        while i < args.count {
            switch args[i] {
            case "--minutes": minutes = Double(args[safe: i + 1] ?? ""); i += 2
            case "--lead": lead = Double(args[safe: i + 1] ?? "") ?? 1; i += 2
            default: files.append(args[i]); i += 1
            }
        }
        try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        var written: [String] = []
        for path in files {
            guard let data = FileManager.default.contents(atPath: path),
                  var file = path.hasSuffix(".abc") ? try? ABCImport.midiFile(fromABCText: String(decoding: data, as: UTF8.self)).file
                                                    : try? MIDIReader.read(Array(data)).file else {
                FileHandle.standardError.write(Data("etude-bench: \(path): not a MIDI file\n".utf8))
                return 1
            }
            var name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            if let minutes {
                file = repeated(file, toSeconds: minutes * 60)
                name += "-\(Int(minutes))min"
            }
            let lesson = Lesson(file: file, fileName: path)
            let performance = curved(file, lesson: lesson)
            let warped = TempoMap(file: performance)
            let truth = lesson.bars.bars.map { lead + warped.seconds(atTick: $0.startTick) }
            let base = (out as NSString).appendingPathComponent(name)
            do {
                try Data(MIDIWriter.write(file)).write(to: URL(fileURLWithPath: base + "-lesson.mid"))
                try Data(MIDIWriter.write(evenTicks(performance, map: warped))).write(to: URL(fileURLWithPath: base + "-performance.mid"))
                let labels = lesson.bars.bars.map { lesson.bars.label(of: $0) }
                let json = try JSONSerialization.data(withJSONObject: ["bars": labels, "starts": truth,
                                                                     "score": lesson.bars.bars.map { lesson.tempoMap.seconds(atTick: $0.startTick) },
                                                                     "seconds": warped.seconds(atTick: lesson.bars.bars.last?.endTick ?? 0) + lead])
                try json.write(to: URL(fileURLWithPath: base + "-truth.json"))
            } catch {
                FileHandle.standardError.write(Data("etude-bench: \(base): \(error)\n".utf8))
                return 1
            }
            written.append(name)
        }
        print(String(decoding: (try? JSONSerialization.data(withJSONObject: ["written": written])) ?? Data(), as: UTF8.self))
        return 0
    }

    /// The file with every tempo event replaced by one a beat: the lesson's own tempo there,
    /// times 1 + 0.25 sin(k/4) for beat k, times a ritardando to 0.6 over the last 8 beats.
    static func curved(_ file: MIDIFile, lesson: Lesson) -> MIDIFile {
        var out = file
        for t in out.tracks.indices {
            out.tracks[t].events.removeAll { if case .meta(MetaType.tempo, _) = $0.kind { return true } else { return false } }
        }
        let beats = lesson.bars.bars.flatMap { $0.beats.map(\.tick) }
        var tempos: [MIDIEvent] = []
        for (k, tick) in beats.enumerated() {
            var factor = 1 + 0.25 * sin(Double(k) / 4)
            let left = beats.count - k
            if left <= 8 { factor *= 0.6 + 0.4 * Double(left) / 8 }
            let us = max(1, min(0xFF_FFFF, Int(Double(lesson.tempoMap.microsecondsPerQuarter(atTick: tick)) / factor)))
            tempos.append(MIDIEvent(tick: tick, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xFF), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)])))
        }
        if out.tracks.isEmpty { out.tracks.append(Track(events: [])) }
        out.tracks[0].events += tempos
        out.tracks[0].events.sort { $0.tick < $1.tick }
        return out
    }

    /// The curved performance written again at one tempo, a tick a millisecond, each event at
    /// its time in the curved file: the same music, but with a tempo change every beat
    /// FluidSynth's player drifted steadily from the truth (54 ms after 5 minutes, measured
    /// through both aligners alike: the bench's truth was off, not they); at one tempo it does not.
    static func evenTicks(_ file: MIDIFile, map: TempoMap) -> MIDIFile {
        var out = file
        out.division = .ticksPerQuarter(1000)
        for t in out.tracks.indices {
            out.tracks[t].events = file.tracks[t].events.compactMap { e in
                if case .meta(MetaType.tempo, _) = e.kind { return nil }
                var e = e
                e.tick = Int((map.seconds(atTick: e.tick) * 1000).rounded())
                return e
            }
        }
        if out.tracks.isEmpty { out.tracks.append(Track(events: [])) }
        let second = 1_000_000  // µs a quarter: 1000 ticks a second
        out.tracks[0].events.insert(MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [UInt8(second >> 16 & 0xFF), UInt8(second >> 8 & 0xFF), UInt8(second & 0xFF)])), at: 0)
        return out
    }

    /// The file played over and over (each track's events shifted by the file's length) until it lasts `seconds`.
    static func repeated(_ file: MIDIFile, toSeconds seconds: Double) -> MIDIFile {
        let map = TempoMap(file: file)
        let length = file.tracks.map { $0.events.last?.tick ?? 0 }.max() ?? 0
        let once = map.seconds(atTick: length)
        guard length > 0, once > 0 else { return file }
        let times = max(1, Int((seconds / once).rounded(.up)))
        var out = file
        for t in out.tracks.indices {
            let events = file.tracks[t].events.filter { if case .meta(MetaType.endOfTrack, _) = $0.kind { return false } else { return true } }
            var all: [MIDIEvent] = []
            for k in 0..<times {
                // Tempo, signatures and annotations once: the copies carry the notes.
                all += events.compactMap { e in
                    if k > 0, case .meta = e.kind { return nil }
                    var e = e
                    e.tick += k * length
                    return e
                }
            }
            all.append(MIDIEvent(tick: times * length, .meta(type: MetaType.endOfTrack, data: [])))
            out.tracks[t].events = all
        }
        return out
    }
}

private extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
