import Foundation
import MIDIFile

/// `etude-bench gen-corpus DIR`: a deterministic corpus of real-size files (hundreds of KB to a
/// few MB each) like the ones users download, for the parse benchmark against symusic: the
/// jazz-soft files are a few KB, where fixed costs hide the per-event ones.
///
/// Kinds, each in several sizes and seeds: orchestral scores (16–24 tracks, expression and
/// volume curves, a conductor with tempo changes), pop/GM arrangements with dense pitch bends,
/// modulation and drums, karaoke files (a lyric per syllable, .kar-style text events), piano
/// scores (two hands, sustain pedal, rubato tempo changes), and format-0 files (everything
/// merged into one track). Half the files use running status, half write every status byte
/// (as notation programs do). The same seed always writes the same bytes.
enum RealSizeCorpus {
    struct Rng {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, n)))
        }
    }

    /// One track's events, appended in any order and sorted when written.
    struct Part {
        var events: [MIDIEvent] = []
        mutating func add(_ tick: Int, _ kind: MIDIEvent.Kind) { events.append(MIDIEvent(tick: tick, kind)) }
        mutating func meta(_ tick: Int, _ type: UInt8, _ data: [UInt8]) { add(tick, .meta(type: type, data: data)) }
        mutating func text(_ tick: Int, _ type: UInt8, _ s: String) { meta(tick, type, Array(s.utf8)) }
    }

    static let tpq = 480

    static func conductor(_ rng: inout Rng, bars: Int, tempoEvery: Int, title: String) -> Part {
        var c = Part()
        c.text(0, MetaType.trackName, title)
        c.text(0, MetaType.copyright, "(c) Etude benchmark corpus")
        c.meta(0, MetaType.timeSignature, [4, 2, 24, 8])
        c.meta(0, MetaType.keySignature, [UInt8(bitPattern: Int8(rng.next(7) - 3)), 0])
        var bar = 0
        while bar < bars {
            let us = 400_000 + rng.next(300_000)
            c.meta(bar * 4 * tpq, MetaType.tempo, [UInt8(us >> 16), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)])
            if bar % 16 == 0 { c.text(bar * 4 * tpq, MetaType.marker, "Section \(bar / 16 + 1)") }
            bar += max(1, tempoEvery)
        }
        return c
    }

    /// A melodic line on `channel`: notes of varied lengths, a controller curve every `curve`
    /// ticks (expression, modulation) and pitch bends when `bends`.
    static func line(_ rng: inout Rng, channel: UInt8, program: UInt8, name: String, bars: Int, low: Int, span: Int,
                     step: Int, chord: Int, curve: Int, bends: Bool) -> Part {
        var p = Part()
        p.text(0, MetaType.trackName, name)
        p.add(0, .programChange(channel: channel, program: program))
        p.add(0, .controlChange(channel: channel, controller: 7, value: UInt8(80 + rng.next(40))))
        p.add(0, .controlChange(channel: channel, controller: 10, value: UInt8(rng.next(128))))
        let end = bars * 4 * tpq
        var t = 0
        while t < end {
            let length = step * (1 + rng.next(4))
            let count = 1 + rng.next(chord)
            for _ in 0..<count {
                let key = UInt8(low + rng.next(span))
                p.add(t, .noteOn(channel: channel, key: key, velocity: UInt8(40 + rng.next(80))))
                p.add(t + length - 10, rng.next(2) == 0 ? .noteOn(channel: channel, key: key, velocity: 0) : .noteOff(channel: channel, key: key, velocity: 64))
            }
            t += length
        }
        if curve > 0 {
            var value = 64
            for c in stride(from: 0, to: end, by: curve) {
                value = min(127, max(0, value + rng.next(9) - 4))
                p.add(c, .controlChange(channel: channel, controller: rng.next(4) == 0 ? 1 : 11, value: UInt8(value)))
            }
        }
        if bends {
            var bend = 8192
            for c in stride(from: 0, to: end, by: max(10, curve)) {
                bend = min(16383, max(0, bend + rng.next(801) - 400))
                p.add(c, .pitchBend(channel: channel, value: UInt16(bend)))
            }
        }
        return p
    }

    static func drums(_ rng: inout Rng, bars: Int) -> Part {
        var p = Part()
        p.text(0, MetaType.trackName, "Drums")
        for bar in 0..<bars {
            for eighth in 0..<8 {
                let t = bar * 4 * tpq + eighth * tpq / 2
                for key: UInt8 in eighth % 4 == 0 ? [36, 42] : eighth % 2 == 0 ? [38, 42] : [42] {
                    p.add(t, .noteOn(channel: 9, key: key, velocity: UInt8(70 + rng.next(50))))
                    p.add(t + 60, .noteOn(channel: 9, key: key, velocity: 0))
                }
            }
        }
        return p
    }

    static func lyrics(_ rng: inout Rng, bars: Int) -> Part {
        var p = Part()
        p.text(0, MetaType.trackName, "Words")
        p.text(0, MetaType.text, "@KMIDI KARAOKE FILE")
        p.text(0, MetaType.text, "@TBenchmark Song")
        let syllables = ["La", "la", "love", "you", "shi", "ning", "star", "to", "night", "and", "ev", "er", "more", "my", "dar", "ling"]
        var t = 0
        let end = bars * 4 * tpq
        while t < end {
            var s = syllables[rng.next(syllables.count)]
            if rng.next(6) == 0 { s = "/" + s } else if rng.next(5) == 0 { s += " " }
            p.text(t, MetaType.lyric, s)
            p.text(t, MetaType.text, s)
            t += tpq / 2 * (1 + rng.next(2))
        }
        return p
    }

    static func piano(_ rng: inout Rng, bars: Int) -> [Part] {
        var right = line(&rng, channel: 0, program: 0, name: "Piano Right", bars: bars, low: 60, span: 24, step: 120, chord: 3, curve: 0, bends: false)
        let left = line(&rng, channel: 0, program: 0, name: "Piano Left", bars: bars, low: 33, span: 24, step: 240, chord: 2, curve: 0, bends: false)
        for bar in 0..<bars {
            right.add(bar * 4 * tpq, .controlChange(channel: 0, controller: 64, value: 127))
            right.add(bar * 4 * tpq + 4 * tpq - 20, .controlChange(channel: 0, controller: 64, value: 0))
        }
        return [right, left]
    }

    /// One file of `kind` at about `bars` bars.
    static func file(kind: String, bars: Int, seed: UInt64) -> MIDIFile {
        var rng = Rng(state: seed)
        var parts: [Part] = []
        switch kind {
        case "orchestral":
            parts.append(conductor(&rng, bars: bars, tempoEvery: 2, title: "Symphony \(seed)"))
            let sections: [(String, UInt8, Int, Int)] = [
                ("Flute", 73, 72, 20), ("Oboe", 68, 65, 20), ("Clarinet", 71, 55, 24), ("Bassoon", 70, 38, 20),
                ("Horn 1", 60, 50, 20), ("Horn 2", 60, 45, 20), ("Trumpet", 56, 60, 18), ("Trombone", 57, 40, 20),
                ("Tuba", 58, 28, 16), ("Timpani", 47, 38, 10), ("Harp", 46, 40, 40), ("Violin I", 40, 60, 28),
                ("Violin II", 40, 55, 24), ("Viola", 41, 48, 22), ("Cello", 42, 36, 24), ("Contrabass", 43, 28, 18),
            ]
            for (i, s) in sections.enumerated() {
                let channel = UInt8(i < 9 ? i : i + 1) & 0x0F
                parts.append(line(&rng, channel: channel, program: s.1, name: s.0, bars: bars, low: s.2, span: s.3,
                                  step: 120 * (1 + rng.next(2)), chord: i == 10 ? 4 : 1, curve: 30, bends: false))
            }
        case "pop":
            parts.append(conductor(&rng, bars: bars, tempoEvery: 32, title: "Song \(seed)"))
            parts.append(line(&rng, channel: 0, program: 29, name: "Lead Guitar", bars: bars, low: 55, span: 24, step: 60, chord: 1, curve: 20, bends: true))
            parts.append(line(&rng, channel: 1, program: 81, name: "Synth Lead", bars: bars, low: 60, span: 24, step: 120, chord: 1, curve: 40, bends: true))
            parts.append(line(&rng, channel: 2, program: 33, name: "Bass", bars: bars, low: 28, span: 12, step: 120, chord: 1, curve: 40, bends: true))
            parts.append(line(&rng, channel: 3, program: 4, name: "E.Piano", bars: bars, low: 48, span: 24, step: 240, chord: 4, curve: 0, bends: false))
            parts.append(line(&rng, channel: 4, program: 48, name: "Strings", bars: bars, low: 48, span: 24, step: 480, chord: 3, curve: 20, bends: false))
            parts.append(drums(&rng, bars: bars))
        case "karaoke":
            parts.append(conductor(&rng, bars: bars, tempoEvery: 64, title: "Karaoke \(seed)"))
            parts.append(lyrics(&rng, bars: bars))
            parts.append(line(&rng, channel: 0, program: 53, name: "Melody", bars: bars, low: 60, span: 14, step: 240, chord: 1, curve: 0, bends: false))
            parts.append(line(&rng, channel: 1, program: 0, name: "Piano", bars: bars, low: 48, span: 24, step: 240, chord: 3, curve: 0, bends: false))
            parts.append(line(&rng, channel: 2, program: 32, name: "Bass", bars: bars, low: 28, span: 12, step: 240, chord: 1, curve: 60, bends: true))
            parts.append(drums(&rng, bars: bars))
        default:  // piano
            var c = conductor(&rng, bars: bars, tempoEvery: 1, title: "Etude \(seed)")
            for beat in 0..<(bars * 4) where beat % 4 != 0 {  // rubato: a tempo on every beat
                let us = 450_000 + rng.next(200_000)
                c.meta(beat * tpq, MetaType.tempo, [UInt8(us >> 16), UInt8(us >> 8 & 0xFF), UInt8(us & 0xFF)])
            }
            parts.append(c)
            parts += piano(&rng, bars: bars)
        }
        return MIDIFile(format: 1, division: .ticksPerQuarter(tpq), tracks: parts.map { Track(events: $0.events) })
    }

    /// Format 0: every track's events in one track.
    static func merged(_ file: MIDIFile) -> MIDIFile {
        var all: [(Int, Int, MIDIEvent)] = []
        for (t, track) in file.tracks.enumerated() {
            for (i, e) in track.events.enumerated() where e.kind.meta != .endOfTrack { all.append((t, i, e)) }
        }
        all.sort { ($0.2.tick, $0.0, $0.1) < ($1.2.tick, $1.0, $1.1) }
        return MIDIFile(format: 0, division: file.division, tracks: [Track(events: all.map(\.2))])
    }

    /// SMF bytes with every status byte written (no running status), as notation programs do.
    static func bytesWithoutRunningStatus(_ file: MIDIFile) -> [UInt8] {
        var out: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, UInt8(file.format), UInt8(file.tracks.count >> 8), UInt8(file.tracks.count & 0xFF)]
        out += [UInt8(tpq >> 8), UInt8(tpq & 0xFF)]
        for track in file.tracks {
            let sorted = track.events.enumerated().sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }.map(\.element)
            var body: [UInt8] = []
            var last = 0
            var end = 0
            for e in sorted where e.kind.meta != .endOfTrack {
                MIDIWriter.appendVLQ(e.tick - last, to: &body)
                last = e.tick
                end = max(end, e.tick)
                switch e.kind {
                case .meta(let type, let data):
                    body += [0xFF, type]
                    MIDIWriter.appendVLQ(data.count, to: &body)
                    body += data
                case .sysex(let data):
                    body.append(0xF0)
                    MIDIWriter.appendVLQ(data.count, to: &body)
                    body += data
                default:
                    if let s = e.kind.statusByte { body.append(s) }
                    body += e.kind.data
                }
            }
            MIDIWriter.appendVLQ(end - last, to: &body)
            body += [0xFF, 0x2F, 0x00]
            out += Array("MTrk".utf8) + [UInt8(body.count >> 24 & 0xFF), UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF), UInt8(body.count & 0xFF)]
            out += body
        }
        return out
    }

    /// The corpus: (name, bytes), 32 files.
    static func files() -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        let plan: [(String, [Int])] = [
            ("orchestral", [40, 70, 100, 140, 200, 280]),
            ("pop", [50, 80, 120, 170, 240, 330]),
            ("karaoke", [100, 160, 240, 320, 500, 700]),
            ("piano", [400, 700, 1000, 1500, 2400, 3600]),
        ]
        var seed: UInt64 = 1
        for (kind, sizes) in plan {
            for (i, bars) in sizes.enumerated() {
                seed += 1
                let file = file(kind: kind, bars: bars, seed: seed)
                let running = i % 2 == 0
                let bytes = running ? MIDIWriter.write(file) : bytesWithoutRunningStatus(file)
                out.append((String(format: "%@-%02d-%dbars%@.mid", kind, i + 1, bars, running ? "" : "-status"), bytes))
            }
        }
        for (i, (kind, bars)) in [("orchestral", 80), ("pop", 100), ("karaoke", 400), ("piano", 1200),
                                   ("orchestral", 160), ("pop", 200), ("karaoke", 900), ("piano", 3000)].enumerated() {
            seed += 1
            let file = merged(file(kind: kind, bars: bars, seed: seed))
            let bytes = i % 2 == 0 ? MIDIWriter.write(file) : bytesWithoutRunningStatus(file)
            out.append((String(format: "format0-%02d-%@-%dbars.mid", i + 1, kind, bars), bytes))
        }
        return out
    }

    static func run(_ args: [String]) -> String {
        guard let dir = args.first else { return "usage: etude-bench gen-corpus DIR" }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            return "{\"error\":\"cannot make \(dir): \(error)\"}"
        }
        var total = 0
        let files = files()
        for (name, bytes) in files {
            guard FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes)) else {
                return "{\"error\":\"cannot write \(dir)/\(name)\"}"
            }
            total += bytes.count
        }
        return "{\"dir\":\"\(dir)\",\"files\":\(files.count),\"bytes\":\(total)}"
    }
}
