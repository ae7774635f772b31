import Foundation
import MIDIFile

/// `etude-bench parse PATH…`: in-process parsing throughput, the figure compared with symusic
/// and mido. Each pass does what opening a lesson does: read, time every event through the
/// tempo map, pair notes.
enum ParseBench {
    static func midiFiles(_ paths: [String]) -> [String] {
        var out: [String] = []
        for p in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else { continue }
            if isDir.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: p)) ?? []
                out += names.filter { $0.lowercased().hasSuffix(".mid") || $0.lowercased().hasSuffix(".midi") }.sorted().map { p + "/" + $0 }
            } else {
                out.append(p)
            }
        }
        return out
    }

    static func run(_ args: [String]) -> String {
        var passes = 5
        var paths: [String] = []
        var i = 0
        while i < args.count {
            if args[i] == "--passes", i + 1 < args.count { passes = Int(args[i + 1]) ?? 5; i += 2; continue }
            paths.append(args[i]); i += 1
        }
        let files = midiFiles(paths).compactMap { path in FileManager.default.contents(atPath: path).map { [UInt8]($0) } }
        let bytes = files.reduce(0) { $0 + $1.count }
        var best = Double.infinity
        var notes = 0
        var events = 0
        var checksum = 0.0
        for _ in 0..<max(1, passes) {
            let start = DispatchTime.now().uptimeNanoseconds
            notes = 0
            events = 0
            for data in files {
                guard let result = try? MIDIReader.read(data) else { continue }
                let file = result.file
                let map = TempoMap(file: file)
                for track in file.tracks {
                    events += track.events.count
                    var cursor = map.cursor()
                    for e in track.events { checksum += cursor.seconds(atTick: e.tick) }
                }
                notes += NotePairing.notes(in: file).notes.count
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            best = min(best, seconds)
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let peakMB = Double(usage.ru_maxrss) / 1024
        let mbps = Double(bytes) / 1_000_000 / best
        _ = checksum
        return "{\"files\":\(files.count),\"bytes\":\(bytes),\"notes\":\(notes),\"events\":\(events),\"seconds\":\(fmt(best)),\"mbPerSecond\":\(fmt(mbps)),\"peakRSSMB\":\(fmt(peakMB))}"
    }

    static func fmt(_ d: Double) -> String { String(format: "%.6g", d) }
}

/// `etude-bench gen-stress OUT [--notes N]`: a format-1 file with N notes over two hand tracks
/// and a tempo change every 64 bars, for the 1,000,000-note target.
enum StressFile {
    static func make(notes: Int) -> MIDIFile {
        let tpq = 480
        var conductor = Track(events: [
            MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: [4, 2, 24, 8])),
        ])
        var right = Track(events: [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("Right Hand".utf8)))])
        var left = Track(events: [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("Left Hand".utf8)))])
        right.events.reserveCapacity(notes + 2)
        left.events.reserveCapacity(notes + 2)
        let step = tpq / 4
        var seed: UInt32 = 12345
        for n in 0..<notes {
            seed = seed &* 1_103_515_245 &+ 12345
            let tick = (n / 2) * step
            let isRight = n % 2 == 0
            let pitch = UInt8(isRight ? 60 + Int(seed >> 16) % 24 : 36 + Int(seed >> 16) % 24)
            let on = MIDIEvent(tick: tick, .noteOn(channel: 0, key: pitch, velocity: UInt8(40 + Int(seed >> 8) % 80)))
            let off = MIDIEvent(tick: tick + step, .noteOn(channel: 0, key: pitch, velocity: 0))
            if isRight { right.events += [on, off] } else { left.events += [on, off] }
            if n % (64 * 32) == 0 {
                let us = 400_000 + Int(seed >> 20) % 300_000
                conductor.events.append(MIDIEvent(tick: tick, .meta(type: MetaType.tempo, data: [UInt8(us >> 16), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)])))
            }
        }
        return MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: [conductor, right, left])
    }

    static func run(_ args: [String]) -> String {
        guard let out = args.first else { return "usage: etude-bench gen-stress OUT.mid [--notes N]" }
        var notes = 1_000_000
        if let i = args.firstIndex(of: "--notes"), i + 1 < args.count { notes = Int(args[i + 1]) ?? notes }
        let bytes = MIDIWriter.write(make(notes: notes))
        guard FileManager.default.createFile(atPath: out, contents: Data(bytes)) else { return "{\"error\":\"cannot write \(out)\"}" }
        return "{\"file\":\"\(out)\",\"notes\":\(notes),\"bytes\":\(bytes.count)}"
    }
}
