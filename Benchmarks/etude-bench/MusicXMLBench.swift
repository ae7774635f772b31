import Foundation
import Lesson
import MIDIFile
import MusicXML

/// `etude-bench musicxml [--notes N] [--passes N] [--write PATH]`: opening a score of N notes
/// (default 10,000) — MusicXML text → `MIDIFile` → `Lesson` — best of the passes, wall clock
/// and CPU time. The score is generated the same way every run, written as a notation program
/// writes it (layout attributes, stems, beams, fingering, dynamics, two staves, chords, ties, a
/// repeat), and saved with `--write` so music21 can be timed on the same file.
enum MusicXMLBench {
    static func score(notes target: Int) -> String {
        var out = """
        <?xml version="1.0" encoding="UTF-8" standalone="no"?>
        <!DOCTYPE score-partwise PUBLIC "-//Recordare//DTD MusicXML 4.0 Partwise//EN" "http://www.musicxml.org/dtds/partwise.dtd">
        <score-partwise version="4.0">
          <work><work-title>Benchmark Etude</work-title></work>
          <identification><creator type="composer">etude-bench</creator><encoding><software>etude-bench</software></encoding></identification>
          <part-list><score-part id="P1"><part-name>Piano</part-name><midi-instrument id="P1-I1"><midi-channel>1</midi-channel><midi-program>1</midi-program></midi-instrument></score-part></part-list>
          <part id="P1">

        """
        let steps = ["C", "D", "E", "F", "G", "A", "B"]
        var seed: UInt32 = 2024
        func next(_ n: Int) -> Int {
            seed = seed &* 1_103_515_245 &+ 12345
            return Int(seed >> 16) % n
        }
        func note(_ step: Int, _ octave: Int, _ duration: Int, type: String, staff: Int, voice: Int, chord: Bool = false,
                  finger: Int? = nil, tie: String? = nil, x: Int) -> String {
            var s = "      <note default-x=\"\(x)\" default-y=\"\(-10 - next(40))\">\n"
            if chord { s += "        <chord/>\n" }
            s += "        <pitch>\n          <step>\(steps[step])</step>\n          <octave>\(octave)</octave>\n        </pitch>\n"
            s += "        <duration>\(duration)</duration>\n"
            if let tie { s += "        <tie type=\"\(tie)\"/>\n" }
            s += "        <voice>\(voice)</voice>\n        <type>\(type)</type>\n        <stem>\(staff == 1 ? "up" : "down")</stem>\n        <staff>\(staff)</staff>\n"
            if type == "eighth" { s += "        <beam number=\"1\">\(x % 2 == 0 ? "begin" : "end")</beam>\n" }
            var notations = ""
            if let tie { notations += "          <tied type=\"\(tie)\"/>\n" }
            if let finger { notations += "          <technical>\n            <fingering>\(finger)</fingering>\n          </technical>\n" }
            if !notations.isEmpty { s += "        <notations>\n\(notations)        </notations>\n" }
            return s + "      </note>\n"
        }
        var count = 0
        var m = 0
        let dynamics = ["p", "mp", "mf", "f"]
        while count < target {
            m += 1
            out += "    <measure number=\"\(m)\" width=\"\(200 + next(100))\">\n"
            if m == 1 {
                out += """
                      <print><system-layout><system-margins><left-margin>50</left-margin><right-margin>0</right-margin></system-margins><top-system-distance>170</top-system-distance></system-layout></print>
                      <attributes>
                        <divisions>2</divisions>
                        <key><fifths>0</fifths></key>
                        <time><beats>4</beats><beat-type>4</beat-type></time>
                        <staves>2</staves>
                        <clef number="1"><sign>G</sign><line>2</line></clef>
                        <clef number="2"><sign>F</sign><line>4</line></clef>
                      </attributes>
                      <direction placement="above"><direction-type><metronome parentheses="no"><beat-unit>quarter</beat-unit><per-minute>96</per-minute></metronome></direction-type><sound tempo="96"/></direction>

                """
            }
            if m % 16 == 1 {
                out += "      <barline location=\"left\"><bar-style>heavy-light</bar-style><repeat direction=\"forward\"/></barline>\n"
            }
            if m % 4 == 1 {
                out += "      <direction placement=\"below\"><direction-type><dynamics><\(dynamics[next(4)])/></dynamics></direction-type><staff>1</staff><sound dynamics=\"\(60 + next(40))\"/></direction>\n"
            }
            // Right hand: eight eighths, the last tied into the next bar's first now and then.
            for i in 0..<8 {
                let tie: String? = i == 7 && m % 3 == 0 ? "start" : (i == 0 && m % 3 == 1 && m > 1 ? "stop" : nil)
                out += note(next(7), 4 + next(2), 1, type: "eighth", staff: 1, voice: 1, finger: 1 + next(5), tie: tie, x: 20 + i * 25)
                count += 1
            }
            out += "      <backup>\n        <duration>8</duration>\n      </backup>\n"
            // Left hand: two half-note chords of two notes.
            for i in 0..<2 {
                let root = next(7)
                out += note(root, 2, 4, type: "half", staff: 2, voice: 5, finger: 5, x: 20 + i * 100)
                out += note((root + 4) % 7, 3, 4, type: "half", staff: 2, voice: 5, chord: true, x: 20 + i * 100)
                count += 2
            }
            if m % 16 == 8 {
                out += "      <barline location=\"right\"><bar-style>light-heavy</bar-style><repeat direction=\"backward\"/></barline>\n"
            }
            out += "    </measure>\n"
        }
        return out + "  </part>\n</score-partwise>\n"
    }

    static func cpuSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func run(_ args: [String]) -> String {
        var notes = 10_000
        var passes = 10
        var write: String?
        var i = 0
        while i < args.count {
            if args[i] == "--notes", i + 1 < args.count { notes = Int(args[i + 1]) ?? notes; i += 2; continue }
            if args[i] == "--passes", i + 1 < args.count { passes = Int(args[i + 1]) ?? passes; i += 2; continue }
            if args[i] == "--write", i + 1 < args.count { write = args[i + 1]; i += 2; continue }
            i += 1
        }
        let text = score(notes: notes)
        let bytes = Array(text.utf8)
        if let write { FileManager.default.createFile(atPath: write, contents: Data(bytes)) }
        var bestWall = Double.infinity, bestCPU = Double.infinity, bestImport = Double.infinity
        var lessonNotes = 0, bars = 0
        var failure: String?
        for _ in 0..<max(1, passes) {
            let start = DispatchTime.now().uptimeNanoseconds
            let cpu = cpuSeconds()
            do {
                let file = try MusicXMLImport.midiFile(fromBytes: bytes).file
                bestImport = min(bestImport, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                let lesson = Lesson(file: file, fileName: "bench.musicxml")
                lessonNotes = lesson.notes.count
                bars = lesson.bars.bars.count
            } catch {
                failure = error.oneLine
                break
            }
            bestCPU = min(bestCPU, cpuSeconds() - cpu)
            bestWall = min(bestWall, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        if let failure { return "{\"error\":\"\(failure)\"}" }
        return "{\"writtenNotes\":\(notes),\"bytes\":\(bytes.count),\"lessonNotes\":\(lessonNotes),\"bars\":\(bars),"
            + "\"seconds\":\(ParseBench.fmt(bestWall)),\"cpuSeconds\":\(ParseBench.fmt(bestCPU)),\"importSeconds\":\(ParseBench.fmt(bestImport))}"
    }
}
