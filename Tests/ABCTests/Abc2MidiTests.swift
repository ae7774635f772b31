import Foundation
import Testing
import TestSupport
@testable import ABC
import MIDIFile
import Lesson

/// Runs the reference converter `abc2midi` (Debian package abcmidi) and compares, voice by
/// voice, the pitches and onsets it plays with ours. Onsets are compared in quarter-note beats:
/// abc2midi starts every note one tick late and keeps its own tempo, so seconds would differ.
/// Its dynamics are left out (`-NFNP`): the comparison is of notes, and abc2midi's diminuendo
/// lowers the velocity by a step a note until it reaches 0 — notes it then writes as note-offs
/// (Schumann's Melody, p with two diminuendos, loses its last 29 right-hand notes that way).
enum Abc2Midi {
    /// (pitch, onset in beats) per voice track that has notes, from abc2midi.
    static func voices(abc: String, tune: Int) throws -> [[NoteKey]] {
        let path = try #require(Tools.abc2midi.path)
        let dir = try TempDir("etude-abc")
        let input = try dir.write("in.abc", abc)
        let output = dir.file("out.mid")
        _ = try ProcessRunner.run(path, [input, String(tune), "-NFNP", "-o", output])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        let file = try MIDIReader.read(bytes, strict: false).file
        return keys(file)
    }

    struct NoteKey: Hashable, CustomStringConvertible {
        var pitch: Int
        /// Onset in quarter-note beats.
        var onset: Double
        var description: String { "\(PitchName.name(pitch))@\((onset * 1000).rounded() / 1000)" }
    }

    static func keys(_ file: MIDIFile) -> [[NoteKey]] {
        let tpq = Double(file.ticksPerQuarter ?? 480)
        let notes = NotePairing.notes(in: file).notes
        var out: [[NoteKey]] = []
        for t in file.tracks.indices {
            let k = notes.filter { $0.track == t }.map { NoteKey(pitch: Int($0.pitch), onset: Double($0.startTick) / tpq) }
            if !k.isEmpty { out.append(k.sorted { ($0.onset, $0.pitch) < ($1.onset, $1.pitch) }) }
        }
        return out
    }

    /// abc2midi starts notes a tick late, and staggers chord notes by ~10 ticks each, so a
    /// note matches when the pitch is equal and the onsets are within 1/12 beat (40 ticks) —
    /// far below any note length the lessons use.
    static let tolerance = 1.0 / 12

    /// Notes of `a` with no partner in `b`, and of `b` with none in `a`.
    static func unmatched(_ a: [NoteKey], _ b: [NoteKey]) -> (onlyA: [NoteKey], onlyB: [NoteKey]) {
        var pool: [Int: [NoteKey]] = [:]
        for k in b { pool[k.pitch, default: []].append(k) }
        var onlyA: [NoteKey] = []
        for k in a {
            if let i = pool[k.pitch]?.firstIndex(where: { abs($0.onset - k.onset) <= tolerance }) {
                pool[k.pitch]?.remove(at: i)
            } else {
                onlyA.append(k)
            }
        }
        let onlyB = pool.values.flatMap { $0 }.sorted { ($0.onset, $0.pitch) < ($1.onset, $1.pitch) }
        return (onlyA, onlyB)
    }

    /// Compares our conversion of tune `tune` with abc2midi's; returns problems as text.
    static func compare(abc: String, tune: Int, name: String) throws -> [String] {
        let ours = keys(try ABCImport.midiFile(fromABCText: abc, tune: tune).file)
        let theirs = try voices(abc: abc, tune: tune)
        guard ours.count == theirs.count else {
            return ["\(name): \(ours.count) voices with notes, abc2midi has \(theirs.count)"]
        }
        var problems: [String] = []
        for (v, (a, b)) in zip(ours, theirs).enumerated() {
            let (onlyA, onlyB) = unmatched(a, b)
            if !onlyA.isEmpty || !onlyB.isEmpty {
                problems.append("\(name) voice \(v + 1): \(a.count) vs \(b.count) notes; only ours: \(onlyA.prefix(6)); only abc2midi: \(onlyB.prefix(6))")
            }
        }
        return problems
    }
}

@Suite("Cross-check with abc2midi")
struct Abc2MidiTests {
    @Test(.enabled(if: Tools.abc2midi.available, Tools.abc2midi.reason))
    func fixtureTunesAgree() throws {
        let text = try String(contentsOf: Repo.fixtures.appendingPathComponent("constructs.abc"), encoding: .utf8)
        let tunes = ABCImport.tunes(inABCText: text)
        #expect(tunes.count == 9)
        // The peer really produced notes, and a wrong note would be caught.
        let peer = try Abc2Midi.voices(abc: text, tune: 3)
        #expect(peer.count == 2)
        if let first = peer.first {
            var wrong = first
            wrong[0].pitch += 1
            #expect(Abc2Midi.unmatched(wrong, first).onlyA.count == 1)
        }
        for t in tunes {
            let problems = try Abc2Midi.compare(abc: text, tune: t.number, name: "X:\(t.number) \(t.title)")
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    @Test(.enabled(if: Tools.abc2midi.available, Tools.abc2midi.reason))
    func everyLessonAgrees() throws {
        let sources = Repo.lessonSources()
        #expect(sources.count >= 60)
        for url in sources {
            let text = try String(contentsOf: url, encoding: .utf8)
            let problems = try Abc2Midi.compare(abc: text, tune: ABCImport.tunes(inABCText: text).first?.number ?? 1, name: url.lastPathComponent)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    /// abc2midi does not play abcm2ps's two-note tremolos (it warns "instruction !trem2!
    /// ignored" and plays the written notes): ours play them out, and the notes they judge
    /// are exactly abc2midi's notes.
    @Test(.enabled(if: Tools.abc2midi.available, Tools.abc2midi.reason))
    func twoNoteTremolosJudgeAbc2midisNotes() throws {
        let abc = "X:1\nT:Tremolo\nM:4/4\nL:1/4\nK:C\nC2!trem2!E2 | [CE]!trem1![GB] D/!trem3!F/ G |\n"
        let file = try ABCImport.midiFile(fromABCText: abc, tune: 1).file
        let lesson = Lesson(file: file, fileName: "trem.abc")
        #expect(lesson.notes.count > 20, "the tremolos are played out")
        let tpq = Double(file.ticksPerQuarter ?? 480)
        let judged = lesson.notes.filter { !lesson.isAccepted($0) }
            .map { Abc2Midi.NoteKey(pitch: Int($0.pitch), onset: Double($0.startTick) / tpq) }
        let theirs = try Abc2Midi.voices(abc: abc, tune: 1)
        #expect(theirs.count == 1)
        let (onlyOurs, onlyTheirs) = Abc2Midi.unmatched(judged, theirs.first ?? [])
        #expect(onlyOurs.isEmpty && onlyTheirs.isEmpty, "only ours: \(onlyOurs); only abc2midi: \(onlyTheirs)")
    }
}
