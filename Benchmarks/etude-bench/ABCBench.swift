import ABC
import Foundation
import MIDIFile

/// `etude-bench abc [--kb N] [--notes N] [--one-part] [--out FILE]`: ABC import time on one big tune (1 MB by
/// default), the target of issue 16 (a 1 MB tune in under a second: import must be linear in
/// the tune's size). The tune is generated: two voices in bars of eighths with accidentals,
/// fingering, chords, ties, triplets, broken rhythm, dynamics, key changes and repeats with
/// endings, in parts `P:A` `P:B` `P:C` of 16 lines (`--one-part`: all in one), so every part
/// of the reader does its share. `--out` also writes it.
enum ABCBench {
    /// A tune of at least `kb` kilobytes, or of at least `notes` written notes.
    static func tune(kb: Int? = nil, notes: Int? = nil, parts: Bool = true) -> (text: String, notes: Int) {
        var out = """
        X:1
        T:Benchmark tune
        C:etude-bench
        M:4/4
        L:1/8
        Q:1/4=100
        V:RH name="Right Hand" clef=treble
        V:LH name="Left Hand" clef=bass
        K:D

        """
        var written = 0
        var rng: UInt64 = 42
        func next(_ n: Int) -> Int {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((rng >> 33) % UInt64(n))
        }
        let letters = ["C", "D", "E", "F", "G", "A", "B", "c", "d", "e", "f", "g", "a", "b"]
        let accidentals = ["", "", "", "", "^", "_", "="]
        let keys = ["D", "Bb", "A", "Eb", "G", "F", "C", "Am"]
        var line = 0
        while (kb.map { out.utf8.count < $0 * 1024 } ?? false) || (notes.map { written < $0 } ?? false) {
            line += 1
            if parts && line % 16 == 1 { out += "P:\(["A", "B", "C"][line / 16 % 3])\n" }
            // Four bars a line; every fourth line is a repeat whose last two bars are endings:
            // |: b1 | b2 |[1 b3 :|[2 b4 |]
            let repeatLine = line % 4 == 1
            var rhBars: [String] = []
            var lhBars: [String] = []
            for _ in 0..<4 {
                var rh = ""
                var beats = 0
                while beats < 8 {
                    switch next(10) {
                    case 0 where beats <= 5:
                        rh += "(3" + (0..<3).map { _ in letters[next(14)] }.joined() + " "
                        written += 3
                        beats += 2
                    case 1 where beats <= 6:
                        rh += "!\(1 + next(5))!" + letters[next(14)] + ">" + letters[next(14)] + " "
                        written += 2
                        beats += 2
                    case 2 where beats <= 6:
                        rh += "[" + letters[next(7)] + letters[7 + next(7)] + "]2 "
                        written += 2
                        beats += 2
                    case 3 where beats <= 6:
                        let l = letters[next(14)]
                        rh += l + "-" + l + " "
                        written += 2
                        beats += 2
                    case 4:
                        rh += "!" + ["p", "mf", "f"][next(3)] + "!" + accidentals[next(7)] + letters[next(14)]
                        written += 1
                        beats += 1
                    default:
                        rh += accidentals[next(7)] + letters[next(14)] + (next(2) == 0 ? "'" : "")
                        written += 1
                        beats += 1
                    }
                }
                rhBars.append(rh)
                lhBars.append(letters[next(7)] + ",2 " + letters[next(7)] + ",2 [" + letters[next(7)] + "," + letters[next(7)] + "]4")
                written += 4
            }
            func join(_ bars: [String]) -> String {
                var key = ""
                if line % 12 == 0 { key = "[K:\(keys[line / 12 % keys.count])]" }
                if repeatLine { return key + "|:" + bars[0] + "|" + bars[1] + "|[1 " + bars[2] + ":|[2 " + bars[3] + "|]" }
                return key + bars.joined(separator: "|") + "|"
            }
            let rh = join(rhBars)
            let lh = join(lhBars)
            out += "V:RH\n" + rh + "\nV:LH\n" + lh + "\n"
        }
        return (out, written)
    }

    static func run(_ args: [String]) -> String {
        var kb: Int? = 1024
        var notes: Int?
        var outPath: String?
        var passes = 3
        var parts = true
        var i = 0
        while i < args.count {
            if args[i] == "--one-part" { parts = false; i += 1; continue }
            guard i + 1 < args.count else { break }
            switch args[i] {
            case "--kb": kb = Int(args[i + 1]) ?? 1024
            case "--notes": notes = Int(args[i + 1]); kb = nil
            case "--out": outPath = args[i + 1]
            case "--passes": passes = max(1, Int(args[i + 1]) ?? 3)
            default: break
            }
            i += 2
        }
        let (text, written) = tune(kb: kb, notes: notes, parts: parts)
        if let outPath { FileManager.default.createFile(atPath: outPath, contents: Data(text.utf8)) }
        var best = Double.infinity
        var played = 0
        var warnings = 0
        for _ in 0..<passes {
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                let (file, w) = try ABCImport.midiFile(fromABCText: text)
                played = NotePairing.notes(in: file).notes.count
                warnings = w.count
            } catch {
                return "{\"error\":\"\(error)\"}"
            }
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return "{\"bytes\":\(text.utf8.count),\"notesWritten\":\(written),\"notesPlayed\":\(played),\"warnings\":\(warnings),\"seconds\":\(String(format: "%.4f", best))}"
    }
}
