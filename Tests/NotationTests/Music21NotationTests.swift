import Foundation
import Lesson
import MIDIFile
@testable import MusicXML
import TestSupport
import Testing
@testable import Notation

/// Etude's staff against music21's reading of the same scores, head by head: scores music21
/// writes from streams built in `Tests/peers/music21_notation.py` (tuplets, ties over bar
/// lines and syncopations, dots, 32nds, rests, ottava lines, grace notes, ornaments, voices,
/// chords, compound time), imported by Etude and laid out, and piano scores of music21's corpus
/// as written. Per head (a tied note's every head): type and dots and tuplet, tie, ottava and
/// staff; the agreement is printed.
@Suite(.serialized) struct Music21NotationTests {
    static let script = Repo.root.appendingPathComponent("Tests/peers/music21_notation.py").path

    struct Reading: Decodable {
        var file: String
        var heads: [[Value]]?
        var graces: Int?
        var grace_heads: [[Int]]?
        var rests: [[Value]]?
        var error: String?
    }

    /// A JSON array member: number, string or null.
    enum Value: Decodable {
        case number(Double), text(String), flag(Bool), null
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null } else if let d = try? c.decode(Double.self) { self = .number(d) }
            else if let b = try? c.decode(Bool.self) { self = .flag(b) } else { self = .text(try c.decode(String.self)) }
        }
        var flag: Bool? { if case .flag(let b) = self { return b } else { return nil } }
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
        /// The head's tuplet is drawn with a bracket (Etude's side only).
        var bracket: Bool? = nil
    }

    /// Agreement over a set of files: heads compared, and how many agree in each respect.
    struct Agreement {
        var total = 0, values = 0, ties = 0, ottavas = 0, staves = 0, unmatched = 0, graces = 0, files = 0
        /// Heads starting a tuplet music21 says is (or is not) bracketed, and those Etude draws alike.
        var bracketed = 0, bracketsAgree = 0
        /// Rests music21 reads inside a tuplet, and those Etude writes with the same value and tuplet.
        var tupletRests = 0, tupletRestsAgree = 0
        /// Grace notes music21 reads that Etude draws with the same key on the same staff.
        var gracesDrawn = 0
        var lines: [String] = []
        func percent(_ n: Int) -> Double { total == 0 ? 0 : (Double(n) * 1000 / Double(total)).rounded() / 10 }
        var summary: String {
            "\(total) heads in \(files) scores; values (type, dots, tuplet) \(percent(values)) %, ties \(percent(ties)) %, "
                + "ottava \(percent(ottavas)) %, staff \(percent(staves)) %; \(unmatched) heads music21 has that Etude lacks; "
                + "grace notes: \(gracesDrawn) of \(graces) drawn by Etude; tuplet brackets: \(bracketsAgree) of \(bracketed) as music21 reads them; "
                + "rests in tuplets: \(tupletRestsAgree) of \(tupletRests)"
        }
    }

    /// Etude's heads of a score as written (no repeat taken), keyed by (pitch, onset in 1/10000 quarter).
    static func etudeHeads(_ path: String) throws -> [String: [Head]] {
        try etudeReading(path).heads
    }

    /// Etude's heads, and its grace notes as "pitch/staff" keys.
    static func etudeReading(_ path: String) throws -> (heads: [String: [Head]], graces: [String], rests: [String: [Head]]) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let file = try MusicXMLImport.midiFile(fromBytes: bytes, asWritten: true).file
        let lesson = Lesson(file: file, fileName: URL(fileURLWithPath: path).lastPathComponent)
        let score = ScoreLayout.layout(lesson, options: NotationOptions(width: 200, includeAccompaniment: true))
        let tpq = Double(max(1, score.ticksPerQuarter))
        var out: [String: [Head]] = [:]
        for h in score.systems.flatMap(\.heads) {
            let tie: String? = h.tiedFromPrevious ? (h.tiesToNext ? "continue" : "stop") : (h.tiesToNext ? "start" : nil)
            let key = "\(h.pitch)@\(Int((Double(h.tick) / tpq * 10_000).rounded()))"
            out[key, default: []].append(Head(value: h.duration.value.name, dots: h.duration.dots, tuplet: h.tuplet?.actual ?? 1, tie: tie,
                                              ottava: h.ottava, staff: h.staff == .treble ? 0 : 1, bracket: h.tuplet.map { $0.bracket ?? false }))
        }
        let graces = score.systems.flatMap(\.graces).map { "\($0.pitch)/\($0.staff == .treble ? 0 : 1)" }
        var rests: [String: [Head]] = [:]
        for r in score.systems.flatMap(\.rests) {
            let staff = r.staff == .treble ? 0 : 1
            let key = "\(staff)@\(Int((Double(r.tick) / tpq * 10_000).rounded()))"
            rests[key, default: []].append(Head(value: r.wholeBar ? "whole" : r.duration.value.name, dots: r.duration.dots, tuplet: r.tuplet?.actual ?? 1,
                                                tie: nil, ottava: 0, staff: staff))
        }
        return (out, graces, rests)
    }

    /// music21's heads of these files against Etude's.
    static func compare(_ files: [String], python: String) throws -> Agreement {
        let r = try ProcessRunner.run(python, [Self.script, "heads"] + files, timeout: 900)
        #expect(r.status == 0, "\(r.stderr)")
        var a = Agreement()
        for line in r.stdout.split(separator: "\n") {
            let reading = try JSONDecoder().decode(Reading.self, from: Data(line.utf8))
            let name = URL(fileURLWithPath: reading.file).lastPathComponent
            guard let theirs = reading.heads else {
                Issue.record("music21 could not read \(name): \(reading.error ?? "?")")
                continue
            }
            a.files += 1
            a.graces += reading.graces ?? 0
            let etude = try Self.etudeReading(reading.file)
            var ours = etude.heads
            var ourGraces = etude.graces
            for g in reading.grace_heads ?? [] where g.count == 2 {
                if let k = ourGraces.firstIndex(of: "\(g[0])/\(g[1])") {
                    ourGraces.remove(at: k)
                    a.gracesDrawn += 1
                } else {
                    a.lines.append("\(name): music21 has grace note \(g[0]) on staff \(g[1]); Etude draws none")
                }
            }
            var fileAgree = 0
            for h in theirs {
                a.total += 1
                let key = "\(h[0].int)@\(Int((h[1].double * 10_000).rounded()))"
                let want = Head(value: h[3].string ?? "?", dots: h[4].int, tuplet: h[5].int, tie: h[6].string, ottava: h[7].int, staff: h[2].int)
                // The head on the same staff if there is one, else the one on the other staff.
                guard var list = ours[key], !list.isEmpty else {
                    a.unmatched += 1
                    a.lines.append("\(name): music21 has \(key) \(want); Etude draws no head there")
                    continue
                }
                let k = list.firstIndex { $0.staff == want.staff } ?? 0
                let got = list.remove(at: k)
                ours[key] = list
                if h.count > 8, let b = h[8].flag {
                    a.bracketed += 1
                    if got.bracket == b { a.bracketsAgree += 1 } else { a.lines.append("\(name): \(key) music21 tuplet bracket \(b), Etude \(got.bracket.map(String.init) ?? "none")") }
                }
                let valueOK = got.value == want.value && got.dots == want.dots && got.tuplet == want.tuplet
                if valueOK { a.values += 1 }
                if got.tie == want.tie { a.ties += 1 }
                if got.ottava == want.ottava { a.ottavas += 1 }
                if got.staff == want.staff { a.staves += 1 }
                if valueOK && got.tie == want.tie && got.ottava == want.ottava && got.staff == want.staff {
                    fileAgree += 1
                } else {
                    a.lines.append("\(name): \(key) music21 \(want), Etude \(got)")
                }
            }
            for r in reading.rests ?? [] where r.count == 5 && r[4].int != 1 {
                a.tupletRests += 1
                let key = "\(r[1].int)@\(Int((r[0].double * 10_000).rounded()))"
                let got = etude.rests[key] ?? []
                if got.contains(where: { $0.value == r[2].string && $0.dots == r[3].int && $0.tuplet == r[4].int }) {
                    a.tupletRestsAgree += 1
                } else {
                    a.lines.append("\(name): music21 has a \(r[2].string ?? "?") rest in a \(r[4].int)-tuplet at staff \(key); Etude \(got)")
                }
            }
            a.lines.append("\(name): \(fileAgree) of \(theirs.count) heads agree in every respect")
        }
        return a
    }

    @Test(.enabled(if: Tools.peerPython.available, Tools.peerPython.reason), .timeLimit(.minutes(20)))
    func etudeWritesTheValuesTiesOttavasAndStavesMusic21Reads() throws {
        let python = try #require(Tools.peerPython.path)
        let dir = try TempDir("etude-m21-notation")
        let made = try ProcessRunner.run(python, [Self.script, "generate", dir.path], timeout: 600)
        #expect(made.status == 0, "\(made.stderr)")
        let files = made.stdout.split(separator: "\n").map(String.init)
        try #require(files.count >= 6, "music21 wrote \(files)")
        let a = try Self.compare(files, python: python)
        print("music21 notation comparison (scores music21 wrote): " + a.summary)
        for l in a.lines { print("  " + l) }
        #expect(a.total > 100)
        #expect(a.percent(a.values) >= 98, "\(a.summary)")
        #expect(a.percent(a.ties) >= 98, "\(a.summary)")
        #expect(a.percent(a.ottavas) >= 99.9, "\(a.summary)")
        #expect(a.percent(a.staves) >= 99.9, "\(a.summary)")
        // No grace note is left out.
        #expect(a.graces > 0 && a.gracesDrawn == a.graces, "\(a.summary)")
        // Tuplet brackets as printed, rests inside tuplets written as the tuplet's values.
        #expect(a.bracketed >= 4 && a.bracketsAgree == a.bracketed, "\(a.summary)")
        #expect(a.tupletRests >= 4 && a.tupletRestsAgree == a.tupletRests, "\(a.summary)")
    }

    /// Piano scores of music21's corpus, as written (no repeat taken): the figures printed.
    static let corpus = ["joplin/maple_leaf_rag.mxl", "mozart/k545/movement1_exposition.mxl", "schumann_clara/polonaise_op1n1.mxl",
                         "schumann_clara/polonaise_op1n3.mxl", "schoenberg/opus19/movement2.mxl"]

    @Test(.enabled(if: Tools.peerPython.available, Tools.peerPython.reason), .timeLimit(.minutes(20)))
    func onPianoScoresOfMusic21sCorpus() throws {
        let python = try #require(Tools.peerPython.path)
        let crosscheck = Repo.root.appendingPathComponent("Tests/peers/music21_crosscheck.py").path
        let found = try ProcessRunner.run(python, [crosscheck, "corpus"] + Self.corpus, timeout: 300)
        let files = found.stdout.split(separator: "\n").map(String.init)
        try #require(files.count == Self.corpus.count, "\(found.stderr)")
        let a = try Self.compare(files, python: python)
        print("music21 notation comparison (music21 corpus piano scores): " + a.summary)
        for l in a.lines.suffix(400) { print("  " + l) }
        #expect(a.total > 1000)
        #expect(a.percent(a.values) >= 98, "\(a.summary)")
        #expect(a.percent(a.ties) >= 98, "\(a.summary)")
        // Every head music21 reads is drawn (a second voice's unison too: two voices striking
        // one key sound once in MIDI, but both heads are printed), with its ottava and staff.
        #expect(a.unmatched == 0, "\(a.summary)")
        #expect(a.percent(a.ottavas) >= 99.9 && a.percent(a.staves) >= 99.9, "\(a.summary)")
        #expect(a.bracketsAgree == a.bracketed, "\(a.summary)")
        #expect(a.gracesDrawn == a.graces, "\(a.summary)")
    }
}
