import Foundation
import MIDIFile
import Testing
import TestSupport

/// `etude judge` with the fit options: a performance on a 61-key keyboard, and one in another key.
@Suite struct JudgeFitTests {
    /// One note a beat (120 bpm, 480 ticks a quarter) on channel 0.
    static func file(_ pitches: [UInt8]) -> MIDIFile {
        var events = [MIDIEvent(tick: 0, .programChange(channel: 0, program: 0))]
        for (i, p) in pitches.enumerated() {
            events.append(MIDIEvent(tick: 480 * i, .noteOn(channel: 0, key: p, velocity: 80)))
            events.append(MIDIEvent(tick: 480 * i + 400, .noteOff(channel: 0, key: p, velocity: 0)))
        }
        events.sort { $0.tick < $1.tick }
        events.append(MIDIEvent(tick: 480 * pitches.count, .meta(type: 0x2F, data: [])))
        return MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)])
    }

    @Test func aPerformanceWithoutTheNotesAboveC7JudgedOn61KeysMissesNothing() throws {
        let dir = try TempDir("etude-judge-fit")
        // C7 is 96, the top of a 61-key keyboard (C2–C7): E7 and C8 are not on it.
        let lesson = try dir.write("high.mid", MIDIWriter.write(Self.file([60, 64, 67, 72, 100, 76, 108, 79])))
        let user = try Etude()
        // The played notes keep their time: the two gaps are where the high notes were.
        let gapped = try dir.write("gapped.mid", MIDIWriter.write({
            var f = Self.file([60, 64, 67, 72, 100, 76, 108, 79])
            f.tracks[0].events.removeAll { e in
                if case .noteOn(_, let k, _) = e.kind { return k > 96 }
                if case .noteOff(_, let k, _) = e.kind { return k > 96 }
                return false
            }
            return f
        }()))
        let on61 = try user.run(["judge", lesson, gapped, "--keys", "61", "--json"])
        #expect(on61.status == 0, "\(on61.stderr)")
        let r61 = try #require(try JSONSerialization.jsonObject(with: Data(on61.stdout.utf8)) as? [String: Any])
        #expect(r61["missed"] as? Int == 0, "\(on61.stdout.prefix(200))")
        #expect(r61["hit"] as? Int == 6)
        let on88 = try user.run(["judge", lesson, gapped, "--json"])
        let r88 = try #require(try JSONSerialization.jsonObject(with: Data(on88.stdout.utf8)) as? [String: Any])
        #expect(r88["missed"] as? Int == 2, "\(on88.stdout.prefix(200))")
    }

    @Test func aPerformanceInAnotherKeyIsJudgedInThatKey() throws {
        let dir = try TempDir("etude-judge-fit")
        let lesson = try dir.write("c.mid", MIDIWriter.write(Self.file([60, 62, 64, 65, 67])))
        let inD = try dir.write("d.mid", MIDIWriter.write(Self.file([62, 64, 66, 67, 69])))
        let user = try Etude()
        let moved = try user.run(["judge", lesson, inD, "--transpose", "+2", "--json"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let r = try #require(try JSONSerialization.jsonObject(with: Data(moved.stdout.utf8)) as? [String: Any])
        #expect(r["hit"] as? Int == 5 && r["wrong"] as? Int == 0, "\(moved.stdout.prefix(200))")
        let bad = try user.run(["judge", lesson, inD, "--keys", "62"])
        #expect(bad.status == 1 && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
    }
}

/// `etude calibrate` checks its input before the synth says anything: one line, as practice does.
@Suite struct CalibrateInputFirstTests {
    @Test func calibrateWithNoJackServerIsOneLine() throws {
        let user = try Etude()
        let r = try user.run(["calibrate", "--input", "jack"], extra: ["JACK_DEFAULT_SERVER": "etude-no-such-server-\(getpid())"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && !r.stderr.contains("no audio device"), "\(r.stderr)")
    }
}
