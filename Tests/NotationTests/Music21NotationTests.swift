import Foundation
import Lesson
import MIDIFile
import MusicXML
import TestSupport
import Testing
@testable import Notation

/// Etude's staff against music21's reading of the same scores, head by head: scores music21
/// writes from streams built in `Tests/peers/music21_notation.py` (tuplets, ties over bar
/// lines and syncopations, dots, 32nds, rests, ottava lines, grace notes, ornaments, voices,
/// chords, compound time), imported by Etude and laid out. Per head (a tied note's every head):
/// type and dots and tuplet, tie, ottava and staff must agree; the agreement is printed.
@Suite(.serialized) struct Music21NotationTests {
    static let script = Repo.root.appendingPathComponent("Tests/peers/music21_notation.py").path

    struct Reading: Decodable {
        var file: String
        var heads: [[Value]]?
        var graces: Int?
        var error: String?
    }

    /// A JSON array member: number, string or null.
    enum Value: Decodable {
        case number(Double), text(String), null
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null } else if let d = try? c.decode(Double.self) { self = .number(d) } else { self = .text(try c.decode(String.self)) }
        }
        var int: Int { if case .number(let d) = self { return Int(d.rounded()) } else { return 0 } }
        var double: Double { if case .number(let d) = self { return d } else { return 0 } }
        var string: String? { if case .text(let s) = self { return s } else { return nil } }
    }

    struct Head: Equatable {
        var value: String
        var dots: Int
        var tuplet: Int
        var tie: String?
        var ottava: Int
        var staff: Int
    }

    /// Etude's heads of a score, keyed by (pitch, onset in 1/10000 quarter).
    static func etudeHeads(_ path: String) throws -> [String: [Head]] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let file = try MusicXMLImport.midiFile(fromBytes: bytes).file
        let lesson = Lesson(file: file, fileName: URL(fileURLWithPath: path).lastPathComponent)
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200, includeAccompaniment: true))
        let tpq = Double(max(1, score.ticksPerQuarter))
        var out: [String: [Head]] = [:]
        for h in score.systems.flatMap(\.heads) {
            let tie: String? = h.tiedFromPrevious ? (h.tiesToNext ? "continue" : "stop") : (h.tiesToNext ? "start" : nil)
            let key = "\(h.pitch)@\(Int((Double(h.tick) / tpq * 10_000).rounded()))"
            out[key, default: []].append(Head(value: h.duration.value.name, dots: h.duration.dots, tuplet: h.tuplet?.actual ?? 1, tie: tie,
                                              ottava: h.ottava, staff: h.staff == .treble ? 0 : 1))
        }
        return out
    }

    @Test(.enabled(if: Tools.peerPython.available, Tools.peerPython.reason), .timeLimit(.minutes(20)))
    func etudeWritesTheValuesTiesOttavasAndStavesMusic21Reads() throws {
        let python = try #require(Tools.peerPython.path)
        let dir = try TempDir("etude-m21-notation")
        let made = try ProcessRunner.run(python, [Self.script, "generate", dir.path], timeout: 600)
        #expect(made.status == 0, "\(made.stderr)")
        let files = made.stdout.split(separator: "\n").map(String.init)
        try #require(files.count >= 6, "music21 wrote \(files)")
        let r = try ProcessRunner.run(python, [Self.script, "heads"] + files, timeout: 600)
        #expect(r.status == 0, "\(r.stderr)")
        var total = 0, values = 0, ties = 0, ottavas = 0, staves = 0, unmatched = 0, graces = 0
        var lines: [String] = []
        for line in r.stdout.split(separator: "\n") {
            let reading = try JSONDecoder().decode(Reading.self, from: Data(line.utf8))
            let name = URL(fileURLWithPath: reading.file).lastPathComponent
            guard let theirs = reading.heads else {
                Issue.record("music21 could not read \(name): \(reading.error ?? "?")")
                continue
            }
            graces += reading.graces ?? 0
            var ours = try Self.etudeHeads(reading.file)
            var fileAgree = 0
            for h in theirs {
                total += 1
                let key = "\(h[0].int)@\(Int((h[1].double * 10_000).rounded()))"
                let want = Head(value: h[3].string ?? "?", dots: h[4].int, tuplet: h[5].int, tie: h[6].string, ottava: h[7].int, staff: h[2].int)
                // The head on the same staff if there is one, else the one on the other staff.
                guard var list = ours[key], !list.isEmpty else {
                    unmatched += 1
                    lines.append("\(name): music21 has \(key) \(want); Etude draws no head there")
                    continue
                }
                let k = list.firstIndex { $0.staff == want.staff } ?? 0
                let got = list.remove(at: k)
                ours[key] = list
                let valueOK = got.value == want.value && got.dots == want.dots && got.tuplet == want.tuplet
                if valueOK { values += 1 }
                if got.tie == want.tie { ties += 1 }
                if got.ottava == want.ottava { ottavas += 1 }
                if got.staff == want.staff { staves += 1 }
                if valueOK && got.tie == want.tie && got.ottava == want.ottava && got.staff == want.staff {
                    fileAgree += 1
                } else {
                    lines.append("\(name): \(key) music21 \(want), Etude \(got)")
                }
            }
            lines.append("\(name): \(fileAgree) of \(theirs.count) heads agree in every respect")
        }
        func percent(_ n: Int) -> Double { total == 0 ? 0 : (Double(n) * 1000 / Double(total)).rounded() / 10 }
        let summary = "music21 notation comparison: \(total) heads in \(files.count) scores; values (type, dots, tuplet) \(percent(values)) %, "
            + "ties \(percent(ties)) %, ottava \(percent(ottavas)) %, staff \(percent(staves)) %; \(unmatched) heads music21 has that Etude lacks; "
            + "\(graces) grace notes in the scores"
        print(summary)
        for l in lines { print("  " + l) }
        #expect(total > 100)
        #expect(percent(values) >= 98, "\(summary)")
        #expect(percent(ties) >= 98, "\(summary)")
        #expect(percent(ottavas) >= 99.9, "\(summary)")
        #expect(percent(staves) >= 99.9, "\(summary)")
    }
}
