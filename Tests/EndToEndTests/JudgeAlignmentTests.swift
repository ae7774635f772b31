import Foundation
import MIDIFile
import Testing
import TestSupport

/// `etude judge` aligns a recorded performance to the lesson (the score follower), as a user runs
/// it: performances of the shipped lessons made from their own notes, with a stray key first, a
/// missed first note, a restart, planted wrong keys in chords.
@Suite struct JudgeAlignmentTests {
    /// A performance note: key, press and release in seconds.
    struct Key {
        var pitch: Int
        var on: Double
        var off: Double
    }

    /// The lesson's notes as played exactly (both hands), starting `start` seconds in.
    static func notes(of lesson: String, start: Double = 1) throws -> [Key] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Repo.lesson(lesson))))
        let file = try MIDIReader.read(bytes).file
        let tempo = TempoMap(file: file)
        let notes = NotePairing.notes(in: file).notes.filter { $0.channel != 9 }
        let first = notes.map(\.startTick).min() ?? 0
        let zero = tempo.seconds(atTick: first)
        return notes.map { n in
            Key(pitch: Int(n.pitch), on: start + tempo.seconds(atTick: n.startTick) - zero,
                off: start + tempo.seconds(atTick: n.endTick) - zero - 0.02)
        }.sorted { $0.on != $1.on ? $0.on < $1.on : $0.pitch < $1.pitch }
    }

    /// A .mid of `keys` (♩=120, 480 ticks a quarter: 960 ticks a second).
    static func midi(_ keys: [Key]) -> [UInt8] {
        var events: [MIDIEvent] = []
        for k in keys {
            events.append(MIDIEvent(tick: Int((k.on * 960).rounded()), .noteOn(channel: 0, key: UInt8(k.pitch), velocity: 80)))
            events.append(MIDIEvent(tick: Int((max(k.off, k.on + 0.05) * 960).rounded()), .noteOff(channel: 0, key: UInt8(k.pitch), velocity: 0)))
        }
        events.sort { $0.tick < $1.tick }
        events.append(MIDIEvent(tick: (events.last?.tick ?? 0) + 10, .meta(type: MetaType.endOfTrack, data: [])))
        return MIDIWriter.write(MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)]))
    }

    static func json(_ out: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
    }

    /// Each note's onset verdict with its timing, by note id.
    static func onsets(_ json: [String: Any]) -> [Int: String] {
        var out: [Int: String] = [:]
        for n in json["notes"] as? [[String: Any]] ?? [] {
            guard let id = n["id"] as? Int else { continue }
            out[id] = "\(n["onset"] as? String ?? "?") \((n["timingMs"] as? Double).map { Int($0.rounded()) } ?? 0)"
        }
        return out
    }

    @Test func aStrayKeyFirstOrAMissedFirstNoteChangesNoOtherVerdictOnOdeToJoy() throws {
        let etude = try Etude()
        let lesson = Repo.lesson("level4/ode-to-joy.abc")
        var clean = try Self.notes(of: "level4/ode-to-joy.mid")
        // A little human unevenness, the same every run.
        for i in clean.indices where i % 5 == 2 { clean[i].on += 0.03 }
        let base = try Self.json(etude.run(["judge", lesson, etude.home.write("clean.mid", Self.midi(clean)), "--json"]).stdout)
        let all = (base["notes"] as? [[String: Any]])?.count ?? 0
        #expect(base["hit"] as? Int == all && all > 62 && base["extra"] as? Int == 0, "\(base["hit"] ?? "?") of \(all)")
        let reference = Self.onsets(base)

        let stray = [Key(pitch: 71, on: 0.4, off: 0.6)] + clean
        let r1 = try etude.run(["judge", lesson, etude.home.write("stray.mid", Self.midi(stray)), "--json"])
        #expect(r1.status == 0, "\(r1.stderr)")
        let j1 = try Self.json(r1.stdout)
        #expect(j1["hit"] as? Int == all && j1["extra"] as? Int == 1 && j1["wrong"] as? Int == 0, "\(r1.stdout.prefix(300))")
        #expect(Self.onsets(j1) == reference)
        #expect((j1["extraKeys"] as? [[String: Any]])?.first?["pitch"] as? Int == 71)

        // The first melody note (E4, the highest key at the start) left out.
        let firstTime = clean[0].on
        let top = try #require(clean.indices.filter { clean[$0].on == firstTime }.max { clean[$0].pitch < clean[$1].pitch })
        var missed = clean
        missed.remove(at: top)
        let r2 = try etude.run(["judge", lesson, etude.home.write("missed.mid", Self.midi(missed)), "--json"])
        let j2 = try Self.json(r2.stdout)
        #expect(j2["hit"] as? Int == all - 1 && j2["missed"] as? Int == 1 && j2["wrong"] as? Int == 0 && j2["extra"] as? Int == 0,
                "\(r2.stdout.prefix(300))")
        let o2 = Self.onsets(j2)
        #expect(o2.filter { reference[$0.key] != $0.value }.count == 1)
        // The alignment per note: the key that played it and where it was due.
        let alignment = try #require(j2["alignment"] as? [[String: Any]])
        #expect(alignment.count == all)
        #expect(alignment.filter { $0["key"] == nil }.count == 1)
    }

    @Test func aDriftingTempoAndExtraKeysMoveNoNoteOffItsKey() throws {
        let etude = try Etude()
        let lesson = Repo.lesson("level4/ode-to-joy.abc")
        let clean = try Self.notes(of: "level4/ode-to-joy.mid")
        // Slowing to 80 % by the end, a 2 s stop halfway, and an extra key after every tenth note.
        let start = clean[0].on, end = clean.last!.on
        func warp(_ t: Double) -> Double {
            let x = t - start
            return start + x + 0.25 * x * x / (2 * (end - start)) + (x > (end - start) / 2 ? 2 : 0)
        }
        var keys = clean.map { Key(pitch: $0.pitch, on: warp($0.on), off: warp($0.off)) }
        let extras = stride(from: 5, to: clean.count, by: 10).map { Key(pitch: 90 - $0 % 7, on: warp(clean[$0].on) + 0.2, off: warp(clean[$0].on) + 0.3) }
        keys += extras
        keys.sort { $0.on < $1.on }
        let r = try etude.run(["judge", lesson, etude.home.write("drift.mid", Self.midi(keys)), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let j = try Self.json(r.stdout)
        let all = (j["notes"] as? [[String: Any]])?.count ?? 0
        let hits = (j["hit"] as? Int ?? 0)
        #expect(hits == all && j["missed"] as? Int == 0 && j["wrong"] as? Int == 0 && j["extra"] as? Int == extras.count, "\(r.stdout.prefix(300))")
        #expect((j["restarts"] as? [Any])?.isEmpty == true)
    }

    @Test func aPerformanceTooLongToAlignIsOneLine() throws {
        let etude = try Etude()
        let keys = (0..<50_001).map { Key(pitch: 60 + $0 % 12, on: Double($0) * 0.05, off: Double($0) * 0.05 + 0.04) }
        let r = try etude.run(["judge", Repo.lesson("level4/ode-to-joy.abc"), etude.home.write("long.mid", Self.midi(keys))])
        #expect(r.status == 1 && r.stdout.isEmpty)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("50001 key presses"), "\(r.stderr)")
    }

    @Test func aRestartIsNamedAndJudgedOnce() throws {
        let etude = try Etude()
        let lesson = Repo.lesson("level4/ode-to-joy.abc")
        let clean = try Self.notes(of: "level4/ode-to-joy.mid")
        // Bars 1–6 (a bar is 2.4 s at ♩=100), then from bar 5 again to the end.
        let bar = 2.4, start = clean[0].on
        var keys = clean.filter { $0.on < start + 6 * bar - 0.01 }
        // A wrong key in bar 6 of the first attempt: judged no more once the bars are played again.
        if let i = keys.indices.last { keys[i].pitch += 1 }
        let restart = start + 6 * bar + 1.0
        for k in clean where k.on >= start + 4 * bar - 0.01 {
            keys.append(Key(pitch: k.pitch, on: restart + k.on - (start + 4 * bar), off: restart + k.off - (start + 4 * bar)))
        }
        let r = try etude.run(["judge", lesson, etude.home.write("restart.mid", Self.midi(keys)), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let j = try Self.json(r.stdout)
        let all = (j["notes"] as? [[String: Any]])?.count ?? 0
        #expect(j["hit"] as? Int == all && j["wrong"] as? Int == 0 && j["extra"] as? Int == 0 && j["missed"] as? Int == 0, "\(r.stdout.prefix(300))")
        let restarts = j["restarts"] as? [[String: Any]] ?? []
        #expect(restarts.count == 1 && restarts.first?["bars"] as? String == "5–6" && restarts.first?["times"] as? Int == 2, "\(restarts)")
        let text = try etude.run(["judge", lesson, etude.home.file("restart.mid")])
        #expect(text.stdout.contains("Bars 5–6 played twice: the last time is judged"), "\(text.stdout)")
    }

    @Test func plantedWrongKeysInChordsAreNamedOnTheNoteTheyReplaced() throws {
        let etude = try Etude()
        var right = 0, planted = 0
        for lesson in ["level3/c-major-cadence", "level3/g-major-cadence", "level3/c-major-inversions", "level3/f-major-inversions"] {
            let path = try #require(["level3", "level6", "level4", "level5"].lazy.map { lesson.replacingOccurrences(of: "level3", with: $0) }
                .first { FileManager.default.fileExists(atPath: Repo.lesson($0 + ".mid")) })
            var keys = try Self.notes(of: path + ".mid")
            // One key of every second chord (of three notes or more) moved a semitone off, where that key is not in the chord.
            let chords = Dictionary(grouping: keys.indices, by: { (keys[$0].on * 100).rounded() }).filter { $0.value.count >= 3 }
            var plantedHere: [(pitch: Int, was: Int, at: Double)] = []
            for (n, time) in chords.keys.sorted().enumerated() where n % 2 == 0 {
                let members = chords[time]!.sorted { keys[$0].pitch < keys[$1].pitch }
                let pick = members[(n / 2) % members.count]
                let pitches = Set(members.map { keys[$0].pitch })
                var key = keys[pick].pitch + (n % 4 == 0 ? 1 : -1)
                if pitches.contains(key) { key = keys[pick].pitch + (n % 4 == 0 ? -1 : 1) }
                plantedHere.append((key, keys[pick].pitch, keys[pick].on))
                keys[pick].pitch = key
            }
            let r = try etude.run(["judge", Repo.lesson(path + ".abc"), etude.home.write("planted.mid", Self.midi(keys)), "--json"])
            #expect(r.status == 0, "\(path): \(r.stderr)")
            let j = try Self.json(r.stdout)
            let alignment = j["alignment"] as? [[String: Any]] ?? []
            for p in plantedHere {
                planted += 1
                if alignment.contains(where: { $0["pitch"] as? Int == p.was && $0["wrongPitch"] as? Int == p.pitch && $0["onset"] as? String == "wrong" }) {
                    right += 1
                }
            }
            // The chords' other notes are hits; no review line without a verdict.
            #expect(j["wrong"] as? Int == plantedHere.count && j["extra"] as? Int == 0, "\(path): \(r.stdout.prefix(300))")
            let text = try etude.run(["judge", Repo.lesson(path + ".abc"), etude.home.file("planted.mid")])
            for line in text.stdout.split(separator: "\n") where line.hasPrefix("  bar ") {
                #expect(line.split(separator: " ", omittingEmptySubsequences: true).count > 5, "\(line)")
            }
        }
        #expect(planted >= 20)
        #expect(Double(right) >= 0.95 * Double(planted), "\(right) of \(planted) charged to the key they replaced")
    }
}
