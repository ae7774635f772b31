import Testing
@testable import ABC
import MIDIFile

/// ABC staccato (`.` before a note, `!staccato!`) and tenuto (`!tenuto!`) reach the lesson as the
/// MusicXML reader gives them: `etude:marks` on the note, which the staff draws and the ear
/// judges the release by. The sound keeps its written length.
@Suite struct ArticulationTests {
    static func marks(_ c: Compiled) -> [String] {
        Annotations(file: c.file).articulations.sorted { ($0.key.tick, $0.key.pitch) < ($1.key.tick, $1.key.pitch) }
            .map { "\($0.key.pitch)@\($0.key.tick):" + $0.value.map(\.rawValue).joined(separator: "+") }
    }

    @Test func dotAndDecorationsMarkTheNextNote() throws {
        let c = try Compiled(tune(".C !staccato!D !tenuto!E F | +tenuto+G .!tenuto!A B2 |"))
        #expect(c.warnings.isEmpty, "\(c.warnings)")
        #expect(Self.marks(c) == ["60@0:staccato", "62@480:staccato", "64@960:tenuto", "67@1920:tenuto", "69@2400:staccato+tenuto"])
        // The written lengths sound as written (the ear judges staccato against the value).
        #expect(c.lengths() == [1, 1, 1, 1, 1, 1, 2])
        #expect(c.pitches() == [60, 62, 64, 65, 67, 69, 71])
    }

    @Test func aChordsMarksGoOnEveryNoteAndARestTakesNone() throws {
        let c = try Compiled(tune(".[CEG] [.c e] .z D |"))
        #expect(Self.marks(c) == ["60@0:staccato", "64@0:staccato", "67@0:staccato", "72@480:staccato", "76@480:staccato"])
    }

    @Test func aDottedBarLineIsNotStaccato() throws {
        let c = try Compiled(tune("C D E F .| G A B c |"))
        #expect(Self.marks(c).isEmpty)
        #expect(c.pitches() == [60, 62, 64, 65, 67, 69, 71, 72])
    }

    /// The same marks a MusicXML score carries: the names are MIDIFile's one `Articulation`.
    @Test func theMarksRoundTripThroughTheAnnotationText() throws {
        let c = try Compiled(tune("!tenuto!C .D |"))
        let texts = c.file.tracks[1].events.compactMap { e -> String? in
            if case .meta(MetaType.text, let d) = e.kind { let t = String(decoding: d, as: UTF8.self); return t.hasPrefix("etude:marks") ? t : nil }
            return nil
        }
        #expect(texts.count == 2, "\(texts)")
    }
}
