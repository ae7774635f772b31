import Foundation
import Testing
import TestSupport

/// An ABC lesson's ornaments and tremolos as `etude score` prints them at 80 columns, with and
/// without colour: the signs above the notes, the strokes on a stem and between a two-note
/// tremolo's notes; abcm2ps's `!trem2!` read without a warning.
@Suite struct OrnamentScoreTests {
    /// Bar 1: a trill (T), a mordent, an inverted mordent, a turn; bar 2: a half C5 in 16ths
    /// (`!//!`), then C5–E5 as a two-note tremolo of two quarters (`!trem2!`, drawn as halves).
    static let lesson = "X:1\nT:Ornament Test\nM:4/4\nL:1/4\nK:C\nTc !mordent!d !uppermordent!e !turn!f | !//!c2 c!trem2!e |]\n"

    @Test func ornamentsAndTremolosArePrintedOnTheStaff() throws {
        let etude = try Etude()
        let lesson = try etude.home.write("ornaments.abc", Self.lesson)
        let info = try etude.run(["info", lesson])
        #expect(info.status == 0 && info.stdout.contains("Warnings:  none"), "\(info.stdout)")
        for (flags, env) in [(["--color", "never"], [String: String]()), ([], ["NO_COLOR": "1"])] {
            let r = try etude.run(["score", lesson, "--width", "80"] + flags, extra: env)
            #expect(r.status == 0, "\(r.stderr)")
            for mark in ["tr", "≁", "∿", "∽", "⫽"] { #expect(r.stdout.contains(mark), "\(mark) in \(r.stdout)") }
            #expect(r.stdout.components(separatedBy: "⫽").count - 1 == 2, "one on the stem, one between the pair: \(r.stdout)")
            #expect(r.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 })
        }
    }
}
