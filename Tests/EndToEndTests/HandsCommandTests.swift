import Foundation
import Testing
import MIDIFile
import TestSupport

/// Hands as a user meets them: `etude info` says how they were found, and one hand of a
/// four-part chorale can be practised and exported.
@Suite struct HandsCommandTests {
    static let voices = Repo.root.appendingPathComponent("Tests/LessonTests/Fixtures/voices")

    @Test func aChoraleWithNamedVoicesHasBothHands() throws {
        try #require(EtudeBinary.isBuilt, "build etude first: \(EtudeBinary.path)")
        let etude = try Etude()
        let chorale = Self.voices.appendingPathComponent("bach-chorale-bwv269-satb.mid").path
        let info = try etude.run("info", chorale)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("Hands:     right 106, left 119 — voice names, soprano and alto right, tenor and bass left: "
                                     + "\"Soprano\" → right, \"Alto\" → right, \"Tenor\" → left, \"Bass\" → left"))
        let out = etude.home.file("right.mid")
        let export = try etude.run("export", chorale, "--hand", "right", "-o", out)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("right hand"))
        #expect(export.stdout.contains("106 notes"))
    }

    @Test func aOneTrackPieceSaysHowWellTheHandModelDoes() throws {
        try #require(EtudeBinary.isBuilt, "build etude first: \(EtudeBinary.path)")
        let etude = try Etude()
        // A melody over a bass line in one unnamed track.
        var events: [MIDIEvent] = []
        for (i, (high, low)) in [(72, 48), (74, 43), (76, 45), (77, 41), (79, 43), (77, 36)].enumerated() {
            for (key, length) in [(high, 480), (low, 960)] {
                events.append(MIDIEvent(tick: i * 960, .noteOn(channel: 0, key: UInt8(key), velocity: 80)))
                events.append(MIDIEvent(tick: i * 960 + length, .noteOff(channel: 0, key: UInt8(key), velocity: 0)))
            }
        }
        events.sort { $0.tick < $1.tick }
        let file = MIDIFile(format: 0, division: .ticksPerQuarter(480), tracks: [Track(events: events)])
        let path = try etude.home.write("one-track.mid", MIDIWriter.write(file))
        let info = try etude.run("info", path)
        #expect(info.status == 0, "\(info.stderr)")
        let hands = info.stdout.split(separator: "\n").first { $0.hasPrefix("Hands:") }.map(String.init) ?? ""
        #expect(hands.hasPrefix("Hands:     right 6, left 6 — track 1 channel 1 split by the hand model (about "), "\(hands)")
        #expect(hands.hasSuffix("% of notes in the wrong hand on Etude's test set; override with --split)"), "\(hands)")
        let json = try etude.run("info", path, "--json")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((doc["hands"] as? [String: Any])?["method"] as? String == "handModel", "\(json.stdout)")
    }
}
