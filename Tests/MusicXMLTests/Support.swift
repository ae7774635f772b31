import Foundation
import MIDIFile
import Lesson
@testable import MusicXML

/// Small MusicXML texts for the tests: a score-partwise document around measures.
enum Score {
    /// One part ("Piano" unless named) with these measures' inner XML; `attributes` goes into
    /// the first measure.
    static func partwise(_ measures: [String], parts: String? = nil, header: String = "", numbers: [String]? = nil,
                         divisions: Int = 1, staves: Int = 1, time: String = "<time><beats>4</beats><beat-type>4</beat-type></time>",
                         extraAttributes: String = "") -> String {
        var body = ""
        for (i, m) in measures.enumerated() {
            let number = numbers?[i] ?? String(i + 1)
            body += "<measure number=\"\(number)\">"
            if i == 0 {
                body += "<attributes><divisions>\(divisions)</divisions><key><fifths>0</fifths></key>\(time)"
                if staves > 1 { body += "<staves>\(staves)</staves>" }
                body += "\(extraAttributes)</attributes>"
            }
            body += m + "</measure>\n"
        }
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE score-partwise PUBLIC "-//Recordare//DTD MusicXML 4.0 Partwise//EN" "http://www.musicxml.org/dtds/partwise.dtd">
        <score-partwise version="4.0">\(header)
        <part-list>\(parts ?? "<score-part id=\"P1\"><part-name>Piano</part-name></score-part>")</part-list>
        <part id="P1">
        \(body)</part>
        </score-partwise>
        """
    }

    /// `<note>` for a pitch like "C4", "F#5", "Bb3" lasting `duration` divisions.
    static func note(_ name: String, _ duration: Int = 1, chord: Bool = false, staff: Int? = nil, voice: Int? = nil,
                     extra: String = "", notations: String = "", type: String? = nil) -> String {
        var chars = Array(name)
        let step = String(chars.removeFirst())
        var alter = 0
        while let c = chars.first, c == "#" || c == "b" { alter += c == "#" ? 1 : -1; chars.removeFirst() }
        let octave = String(chars)
        var s = "<note>"
        if chord { s += "<chord/>" }
        s += "<pitch><step>\(step)</step>"
        if alter != 0 { s += "<alter>\(alter)</alter>" }
        s += "<octave>\(octave)</octave></pitch><duration>\(duration)</duration>"
        s += extra
        if let voice { s += "<voice>\(voice)</voice>" }
        if let type { s += "<type>\(type)</type>" }
        if let staff { s += "<staff>\(staff)</staff>" }
        if !notations.isEmpty { s += "<notations>\(notations)</notations>" }
        return s + "</note>"
    }

    static func rest(_ duration: Int = 1, staff: Int? = nil) -> String {
        "<note><rest/><duration>\(duration)</duration>\(staff.map { "<staff>\($0)</staff>" } ?? "")</note>"
    }

    static func backup(_ d: Int) -> String { "<backup><duration>\(d)</duration></backup>" }
    static func forward(_ d: Int) -> String { "<forward><duration>\(d)</duration></forward>" }

    /// Four quarter notes: the pitches given.
    static func bar(_ a: String, _ b: String, _ c: String, _ d: String) -> String {
        note(a) + note(b) + note(c) + note(d)
    }
}

/// Reading helpers.
enum Read {
    static func file(_ xml: String, strict: Bool = false) throws -> (file: MIDIFile, warnings: [MusicXMLWarning]) {
        try MusicXMLImport.midiFile(fromXML: Array(xml.utf8), strict: strict)
    }

    static func lesson(_ xml: String) throws -> Lesson {
        Lesson(file: try file(xml).file, fileName: "test.musicxml")
    }

    /// (pitch, onset in quarters, track) of every note, in time order.
    static func notes(_ xml: String) throws -> [(pitch: Int, onset: Double, track: Int)] {
        let f = try file(xml).file
        let tpq = Double(f.ticksPerQuarter ?? 480)
        return NotePairing.notes(in: f).notes
            .sorted { ($0.startTick, $0.pitch, $0.track) < ($1.startTick, $1.pitch, $1.track) }
            .map { (Int($0.pitch), Double($0.startTick) / tpq, $0.track) }
    }

    static func onsets(_ xml: String) throws -> [Double] { try notes(xml).map(\.onset) }
    static func pitches(_ xml: String) throws -> [Int] { try notes(xml).map(\.pitch) }

    /// The texts of every text event (annotations included) on a track.
    static func texts(_ f: MIDIFile, track: Int) -> [String] {
        f.tracks[track].events.compactMap { e in
            if case .meta(let type, let data) = e.kind, type == MetaType.text { return String(decoding: data, as: UTF8.self) }
            return nil
        }
    }
}
