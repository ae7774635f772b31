import Foundation
import MIDIFile
import Store
import Testing
import TestSupport

/// A crescendo (ABC `!<(!` … `!<)!`) judged by the ear through `etude judge`, and the hairpin
/// and slur of the same lesson in `etude score --json`.
@Suite struct HairpinEarTests {
    /// Eight quarter notes at ♩=120 under a slur: p, a crescendo over the first seven, f on the last.
    static let lesson = "X:1\nT:Hairpin Test\nM:4/4\nL:1/4\nQ:1/4=120\nK:C\n!p!!<(!(C D E F | G A B !<)!!f!c) |]\n"
    static let pitches: [UInt8] = [60, 62, 64, 65, 67, 69, 71, 72]

    /// A performance of the lesson starting 1 s in, each note held 95 % of its value, at the
    /// velocities given.
    static func midi(velocities: [UInt8]) -> [UInt8] {
        var track: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20]))]
        for (i, p) in pitches.enumerated() {
            let on = Int(((Double(i) * 0.5 + 1) * 960).rounded())
            track.append(MIDIEvent(tick: on, .noteOn(channel: 0, key: p, velocity: velocities[i])))
            track.append(MIDIEvent(tick: on + Int(0.5 * 0.95 * 960), .noteOff(channel: 0, key: p, velocity: 0)))
        }
        track.append(MIDIEvent(tick: (track.last?.tick ?? 0) + 10, .meta(type: MetaType.endOfTrack, data: [])))
        return MIDIWriter.write(MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: track)]))
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aCrescendoPlayedRisingIsRightAndPlayedFallingIsNamed() throws {
        let etude = try Etude()
        let lesson = try etude.home.write("hairpin.abc", Self.lesson)
        let rising = try etude.home.write("rising.mid", Self.midi(velocities: [40, 50, 60, 70, 80, 90, 100, 110]))
        let falling = try etude.home.write("falling.mid", Self.midi(velocities: [110, 100, 90, 80, 70, 60, 50, 40]))

        let up = try etude.run(["judge", lesson, rising, "--json"])
        #expect(up.status == 0, "\(up.stderr)")
        let upJSON = try Self.object(up.stdout)
        #expect(upJSON["hit"] as? Int == 8 && upJSON["loud"] as? Int == 0 && upJSON["soft"] as? Int == 0, "\(up.stdout.prefix(500))")
        #expect(upJSON["dynamics"] as? Bool == true)
        let notes = try #require(upJSON["notes"] as? [[String: Any]])
        // The dynamic marked at each note, as the staff draws it: under the hairpin, then f.
        #expect(notes.map { $0["dynamic"] as? String ?? "-" } == ["cresc", "cresc", "cresc", "cresc", "cresc", "cresc", "cresc", "f"])

        // Falling across a crescendo: the loud start and the soft end are named (3 each).
        let down = try etude.run(["judge", lesson, falling, "--json"])
        #expect(down.status == 0, "\(down.stderr)")
        let downJSON = try Self.object(down.stdout)
        #expect(downJSON["loud"] as? Int == 3 && downJSON["soft"] as? Int == 3, "\(down.stdout.prefix(500))")
        let downNotes = try #require(downJSON["notes"] as? [[String: Any]])
        #expect(downNotes.map { $0["loudness"] as? String ?? "-" } == ["loud", "loud", "loud", "ok", "ok", "soft", "soft", "soft"])
        // The text panel names the dynamic marked where a note went against it; the history counts them.
        let text = try etude.run(["judge", lesson, falling])
        #expect(text.status == 0 && text.stdout.contains("bar 1 beat 1  C4  RH  loud (velocity 110, marked cresc)"), "\(text.stdout)")
        #expect(text.stdout.contains("bar 2 beat 4  C5  RH  soft (velocity 40, marked f)"), "\(text.stdout)")
        let passes = try Store.open(path: etude.database).passes()
        // The falling recording judged twice the same way (--json, then text) is one pass:
        // a recording is stored once, by its content (issue 39).
        #expect(passes.compactMap(\.figures).map(\.soft) == [0, 3])
    }

    @Test func hairpinAndSlurAreInScoreJSON() throws {
        let etude = try Etude()
        let lesson = try etude.home.write("hairpin.abc", Self.lesson)
        let r = try etude.run(["score", lesson, "--json", "--width", "80"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try Self.object(r.stdout)
        let spans = try #require(json["spans"] as? [[String: Any]])
        let described = spans.map { "\($0["kind"] as? String ?? "?")@\($0["bar"] as? Int ?? 0):\($0["beat"] as? Double ?? -1)-\($0["endBar"] as? Int ?? 0):\($0["endBeat"] as? Double ?? -1)" }
        #expect(described == ["crescendo@1:0.0-2:3.0", "slur@1:0.0-2:3.0"], "\(r.stdout.suffix(600))")
        let dynamics = try #require(json["dynamics"] as? [[String: Any]])
        #expect(dynamics.compactMap { $0["mark"] as? String } == ["p", "f"])
        // Drawn: the text staff shows the hairpin's opening and the slur's ends.
        let text = try etude.run(["score", lesson, "--width", "80"])
        #expect(text.status == 0 && text.stdout.contains("<─") && text.stdout.contains("╭") && text.stdout.contains("╮"), "\(text.stdout)")
    }
}

/// The crescendo played falling in play mode on a FIFO, in real time: the pass report names
/// the same notes as `etude judge` does, each with the dynamic marked.
@Suite(.serialized) struct PlayModeHairpinTests {
    @Test(.enabled(if: Tools.tmux.available, Tools.tmux.reason))
    func aCrescendoPlayedFallingIsNamedInPlayMode() throws {
        let etude = try Etude()
        let lesson = try etude.home.write("hairpin.abc", HairpinEarTests.lesson)
        let fifo = etude.home.file("notes.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let fd = open(fifo, O_RDWR | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        let pane = try PracticeScreenTests.practice(etude, [lesson, "--repeat", "1", "--mode", "play", "--input", fifo,
                                                            "--report", etude.home.file("passes.jsonl"), "--window", "400"])
        #expect(eventually { pane.screen().contains("count-in 1/4") }, "\(pane.screen())")
        let start = Date(timeIntervalSinceNow: 2.0)
        var events: [(time: Double, bytes: [UInt8])] = []
        for (i, p) in HairpinEarTests.pitches.enumerated() {
            events.append((Double(i) * 0.5, [0x90, p, UInt8(110 - 10 * i)]))
            events.append((Double(i) * 0.5 + 0.475, [0x80, p, 0]))
        }
        for e in events.sorted(by: { $0.time < $1.time }) {
            let wait = start.timeIntervalSinceNow + e.time
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
            MIDIBytes.send(fd, e.bytes)
        }
        #expect(eventually(30) { etude.home.read("passes.jsonl").hasSuffix("\n") }, "\(pane.screen())")
        let json = try HairpinEarTests.object(String(etude.home.read("passes.jsonl").split(separator: "\n").first ?? ""))
        #expect(json["hit"] as? Int == 8 && json["loud"] as? Int == 3 && json["soft"] as? Int == 3, "\(etude.home.read("passes.jsonl").prefix(600))")
        let notes = try #require(json["notes"] as? [[String: Any]])
        #expect(notes.map { $0["dynamic"] as? String ?? "-" } == ["cresc", "cresc", "cresc", "cresc", "cresc", "cresc", "cresc", "f"])
        try pane.keys("q")
        #expect(pane.exitStatus() == 0, "\(pane.stderr)")
    }
}
