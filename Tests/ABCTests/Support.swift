import Foundation
import Testing
import TestSupport
@testable import ABC
import MIDIFile

extension Repo {
    static let fixtures = root.appendingPathComponent("Tests/ABCTests/Fixtures")

    /// Every .abc under Lessons/, sorted.
    static func lessonSources() -> [URL] {
        guard let e = FileManager.default.enumerator(at: lessons, includingPropertiesForKeys: nil) else { return [] }
        return e.compactMap { $0 as? URL }.filter { $0.pathExtension == "abc" }.sorted { $0.path < $1.path }
    }
}

/// A compiled tune seen as notes: per track, (pitch, start in quarter beats, length in beats).
struct Compiled {
    var file: MIDIFile
    var warnings: [ABCWarning]

    init(_ abc: String, tune: Int? = nil) throws {
        (file, warnings) = try ABCImport.midiFile(fromABCText: abc, tune: tune)
    }

    var notes: [Note] { NotePairing.notes(in: file).notes }

    /// Notes of voice track `v` (0 = first voice) as (pitch, onset beats, duration beats).
    func voice(_ v: Int = 0) -> [(Int, Double, Double)] {
        let tpq = Double(ABCImport.ticksPerQuarter)
        return notes.filter { $0.track == v + 1 }
            .sorted { ($0.startTick, $0.pitch) < ($1.startTick, $1.pitch) }
            .map { (Int($0.pitch), Double($0.startTick) / tpq, Double($0.durationTicks) / tpq) }
    }

    func pitches(_ v: Int = 0) -> [Int] { voice(v).map(\.0) }
    func onsets(_ v: Int = 0) -> [Double] { voice(v).map(\.1) }
    func lengths(_ v: Int = 0) -> [Double] { voice(v).map(\.2) }

    var markers: [(tick: Int, text: String)] {
        file.tracks[0].events.compactMap { e in
            if case .meta(MetaType.marker, let d) = e.kind { return (e.tick, TextDecoding.display(d)) }
            return nil
        }
    }

    var trackNames: [String] { file.tracks.dropFirst().map { $0.name ?? "" } }
}

func tune(_ body: String, header: String = "M:4/4\nL:1/4\nK:C") -> String {
    "X:1\nT:Test\n\(header)\n\(body)\n"
}
