import Testing
@testable import Terminal

/// Text meeting an edge is shortened by one rule, never cut inside a word (issue 39: `Esc ba…`,
/// `Ode to Joy (i…`): asides first, then trailing clauses, then words; only one long word is cut.
@Suite struct ShortenTests {
    @Test func asidesGoFirstThenClausesThenWords() {
        #expect(CellBuffer.cut("Ode to Joy (in G major)", width: 40) == "Ode to Joy (in G major)")
        #expect(CellBuffer.cut("Ode to Joy (in G major)", width: 14) == "Ode to Joy")
        #expect(CellBuffer.cut("pass 3 done: 92%; Enter the review, Esc back", width: 30) == "pass 3 done: 92%…")
        #expect(CellBuffer.cut("the left hand plays an octave higher than written", width: 20) == "the left hand plays…")
        #expect(CellBuffer.cut("Supercalifragilistic", width: 8) == "Superca…")
        #expect(CellBuffer.cut("anything", width: 0) == "")
        // A line of parts loses whole parts, its spacing kept (the review's line).
        #expect(CellBuffer.cut("bar 1: 1 wrong, 1 missed, 2 late  ·  1 of 2  ·  ←/→ bar · Esc back", width: 58)
                == "bar 1: 1 wrong, 1 missed, 2 late  ·  1 of 2  ·  ←/→ bar…")
    }

    @Test func noResultEndsInsideAWordOrPastTheWidth() {
        let texts = ["Sonatina in C major, Op. 36 No. 1: I. Spiritoso (level 8)", "space play/pause  ·  ←/→ bar  ·  [ ] loop",
                     "no MIDI input: play with the computer keyboard — press ` to switch; Esc back", "Für Elise (WoO 59) — Beethoven"]
        for text in texts {
            let words = Set(text.split(separator: " ").map(String.init))
            for width in 1...CellBuffer.width(of: text) {
                let out = CellBuffer.cut(text, width: width)
                #expect(CellBuffer.width(of: out) <= width, "\(text) at \(width): \(out)")
                guard out.hasSuffix("…"), out.contains(" ") else { continue }
                // Every word kept whole (a clause's or aside's punctuation aside).
                let kept = out.dropLast().split(separator: " ").map(String.init)
                for w in kept.dropLast() { #expect(words.contains(w) || words.contains(where: { $0.hasPrefix(w) && "),;:".contains($0.last ?? " ") }), "\(out)") }
                let last = kept.last ?? ""
                #expect(words.contains(where: { $0 == last || ($0.hasPrefix(last) && !$0.dropFirst(last.count).contains(where: \.isLetter)) }), "\(text) at \(width): \(out)")
            }
        }
    }
}
