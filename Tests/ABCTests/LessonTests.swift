import Foundation
import Testing
import TestSupport
@testable import ABC
import MIDIFile

/// One committed lesson: its source, its compiled file and what Etude reads from it.
struct LessonCase {
    var url: URL
    var compiled: MIDIFile
    var warnings: [ABCWarning]
    var committed: [UInt8]

    init(_ url: URL) throws {
        self.url = url
        let text = try String(contentsOf: url, encoding: .utf8)
        (compiled, warnings) = try ABCImport.midiFile(fromABCText: text)
        committed = [UInt8]((try? Data(contentsOf: url.deletingPathExtension().appendingPathExtension("mid"))) ?? Data())
    }

    var name: String { url.deletingPathExtension().lastPathComponent }
    var tags: LessonTags { LessonTags(file: compiled) }
    var notes: [Note] { NotePairing.notes(in: compiled).notes }

    func track(named name: String) -> Int? { compiled.tracks.firstIndex { $0.name == name } }

    /// Ticks of every bar line, from the time signatures on the conductor track.
    var barTicks: [Int] {
        var sigs: [(tick: Int, ticksPerBar: Int)] = []
        for e in compiled.tracks[0].events {
            if case .timeSignature(let t)? = e.kind.meta {
                sigs.append((e.tick, t.numerator * 4 * ABCImport.ticksPerQuarter / t.denominator))
            }
        }
        let end = compiled.tracks.map(\.endTick).max() ?? 0
        var out: [Int] = []
        for (i, s) in sigs.enumerated() {
            let stop = i + 1 < sigs.count ? sigs[i + 1].tick : end
            var t = s.tick
            while t < stop { out.append(t); t += s.ticksPerBar }
        }
        return out
    }

    var markers: [(tick: Int, text: String)] {
        compiled.tracks[0].events.compactMap { e in
            if case .meta(MetaType.marker, let d) = e.kind { return (e.tick, TextDecoding.display(d)) }
            return nil
        }
    }
}

@Suite("Curriculum")
struct LessonTests {
    static let all: [LessonCase] = Repo.lessonSources().compactMap { try? LessonCase($0) }

    @Test func thereAreEnoughLessonsAtEveryLevel() {
        let sources = Repo.lessonSources()
        #expect(Self.all.count == sources.count, "every lesson source compiles")
        #expect(sources.count >= 60)
        var perLevel: [Int: Int] = [:]
        for l in Self.all { perLevel[l.tags.level ?? 0, default: 0] += 1 }
        #expect(perLevel[1] == 15)
        #expect(perLevel[2] == 24)
        #expect(perLevel[3] == 48)
        #expect((perLevel[4] ?? 0) + (perLevel[5] ?? 0) >= 15)
        #expect(perLevel[0] == nil, "every lesson has a level")
    }

    @Test func committedMidiEqualsAFreshCompile() {
        for l in Self.all {
            #expect(!l.committed.isEmpty, "\(l.name).mid is committed")
            #expect(MIDIWriter.write(l.compiled) == l.committed, "\(l.name).mid is stale: run swift run etude-lessons")
        }
    }

    @Test func everyMidiHasItsAbcSource() {
        let e = FileManager.default.enumerator(at: Repo.lessons, includingPropertiesForKeys: nil)
        let mids = (e?.compactMap { $0 as? URL } ?? []).filter { $0.pathExtension == "mid" }
        #expect(mids.count == Self.all.count)
        for m in mids {
            let abc = m.deletingPathExtension().appendingPathExtension("abc")
            #expect(FileManager.default.fileExists(atPath: abc.path), "\(m.lastPathComponent) has no .abc source")
        }
    }

    @Test func everyLessonReadsBackWithBothHandsTitleAndLevel() throws {
        for l in Self.all {
            #expect(l.warnings.isEmpty, "\(l.name): \(l.warnings)")
            let read = try MIDIReader.read(l.committed, strict: true)
            #expect(read.warnings.isEmpty, "\(l.name): \(read.warnings)")
            #expect(read.file == l.compiled, "\(l.name) reads back as written")
            let tags = LessonTags(file: read.file)
            #expect(tags.title?.isEmpty == false, "\(l.name) has a title")
            #expect(tags.level != nil, "\(l.name) has a level")
            #expect(tags.description?.isEmpty == false, "\(l.name) has a description")
            guard let rh = l.track(named: "Right Hand"), let lh = l.track(named: "Left Hand") else {
                Issue.record("\(l.name) lacks a Right Hand or Left Hand track: \(l.compiled.tracks.map(\.name))")
                continue
            }
            #expect(l.notes.contains { $0.track == rh }, "\(l.name): right hand plays")
            #expect(l.notes.contains { $0.track == lh }, "\(l.name): left hand plays")
        }
    }

    @Test func sectionsCoverEveryBar() {
        for l in Self.all {
            let markers = l.markers
            let bars = Set(l.barTicks)
            let end = l.compiled.tracks.map(\.endTick).max() ?? 0
            #expect(markers.count >= 2, "\(l.name) has sections")
            #expect(markers.first?.tick == 0, "\(l.name): the first section starts the piece")
            #expect(zip(markers, markers.dropFirst()).allSatisfy { $0.tick < $1.tick }, "\(l.name): sections in order")
            for m in markers {
                #expect(bars.contains(m.tick), "\(l.name): section \(m.text) starts on a bar line (tick \(m.tick))")
                #expect(m.tick < end)
            }
            // Every note falls in a section.
            if let first = markers.first { #expect(l.notes.allSatisfy { $0.startTick >= first.tick }) }
        }
    }

    /// The pitch classes of a key's scale, from its MIDI key signature.
    static func scalePitchClasses(_ key: KeySignature, harmonicMinor: Bool) -> Set<Int> {
        let majorTonic = ((key.sharps * 7) % 12 + 12) % 12
        let tonic = key.minor ? (majorTonic + 9) % 12 : majorTonic
        let offsets = harmonicMinor ? [0, 2, 3, 5, 7, 8, 11] : [0, 2, 4, 5, 7, 9, 11]
        return Set(offsets.map { (tonic + $0) % 12 })
    }

    @Test func scaleLessonsPlayTheirScaleWithFingeringOnEveryNote() {
        let scales = Self.all.filter { $0.url.path.contains("/level2/") }
        #expect(scales.count == 24)
        for l in scales {
            guard let key = l.compiled.tracks[0].events.lazy.compactMap({ e -> KeySignature? in
                if case .keySignature(let k)? = e.kind.meta { return k }
                return nil
            }).first else {
                Issue.record("\(l.name) has no key signature")
                continue
            }
            let expected = Self.scalePitchClasses(key, harmonicMinor: key.minor)
            #expect(Set(l.notes.map { Int($0.pitch) % 12 }) == expected, "\(l.name): pitch set is the scale of \(key.name)")
            let fingers = Fingering.fingers(in: l.compiled)
            #expect(l.notes.allSatisfy { Fingering.finger(for: $0, in: fingers) != nil }, "\(l.name): every note fingered")
            // Two octaves: each hand spans exactly 24 semitones, tonic to tonic.
            for hand in ["Right Hand", "Left Hand"] {
                guard let t = l.track(named: hand) else { continue }
                let p = l.notes.filter { $0.track == t }.map { Int($0.pitch) }
                #expect((p.max() ?? 0) - (p.min() ?? 0) == 24, "\(l.name) \(hand) spans two octaves")
                #expect(p.count == 29 * 2, "\(l.name) \(hand): 29 notes, twice (alone and together)")
            }
        }
    }

    @Test func scaleFingeringMatchesTheStandardTable() throws {
        // Spot checks against the published fingering, ascending from the lower tonic.
        func ascending(_ file: String, hand: String) throws -> [Int] {
            let l = try LessonCase(Repo.lessons.appendingPathComponent("level2/\(file).abc"))
            guard let t = l.track(named: hand) else { return [] }
            let fingers = Fingering.fingers(in: l.compiled)
            return l.notes.filter { $0.track == t }.prefix(15).compactMap { Fingering.finger(for: $0, in: fingers) }
        }
        #expect(try ascending("c-major-scale", hand: "Right Hand") == [1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 1, 2, 3, 4, 5])
        #expect(try ascending("c-major-scale", hand: "Left Hand") == [5, 4, 3, 2, 1, 3, 2, 1, 4, 3, 2, 1, 3, 2, 1])
        #expect(try ascending("f-major-scale", hand: "Right Hand") == [1, 2, 3, 4, 1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4])
        #expect(try ascending("b-flat-major-scale", hand: "Left Hand") == [3, 2, 1, 4, 3, 2, 1, 3, 2, 1, 4, 3, 2, 1, 3])
        #expect(try ascending("b-major-scale", hand: "Left Hand") == [4, 3, 2, 1, 4, 3, 2, 1, 3, 2, 1, 4, 3, 2, 1])
    }

    @Test func arpeggiosAndCadencesUseOnlyChordTones() {
        for l in Self.all where l.url.path.contains("/level3/") && l.name.hasSuffix("arpeggio") {
            let pcs = Set(l.notes.map { Int($0.pitch) % 12 })
            #expect(pcs.count == 3, "\(l.name): three pitch classes")
            let fingers = Fingering.fingers(in: l.compiled)
            #expect(l.notes.allSatisfy { Fingering.finger(for: $0, in: fingers) != nil }, "\(l.name): every note fingered")
        }
        for l in Self.all where l.name.hasSuffix("cadence") {
            // I, IV, V, I repeated: right-hand chords (24 notes), left-hand bass (8), then both (32).
            #expect(l.notes.count == 24 + 8 + 32, "\(l.name): \(l.notes.count) notes")
        }
    }

    @Test func fivefingerLessonsStayInFivePositions() {
        for l in Self.all where l.url.path.contains("/level1/") {
            for hand in ["Right Hand", "Left Hand"] {
                guard let t = l.track(named: hand) else { continue }
                let p = Set(l.notes.filter { $0.track == t }.map(\.pitch))
                #expect(p.count == 5, "\(l.name) \(hand): five notes")
            }
            let fingers = Fingering.fingers(in: l.compiled)
            #expect(l.notes.allSatisfy { Fingering.finger(for: $0, in: fingers) != nil }, "\(l.name): every note fingered")
        }
    }
}
