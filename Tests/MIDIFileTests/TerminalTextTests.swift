import Testing
@testable import MIDIFile

/// The one rule for text on its way to a terminal, and numbers from outside as whole numbers.
@Suite struct TerminalTextTests {
    @Test func controlsAndBidiMarksAreWhatATerminalWouldActOn() {
        for v: UInt32 in [0x00, 0x07, 0x1B, 0x7F, 0x80, 0x9B, 0x9F, 0x202A, 0x202E, 0x2066, 0x2069, 0x061C, 0x200E, 0x200F] {
            #expect(TextDecoding.isTerminalControl(Unicode.Scalar(v)!), "U+\(String(v, radix: 16))")
        }
        for v: UInt32 in [0x20, 0x41, 0x7E, 0xA0, 0xE9, 0x2013, 0x266A, 0x1F3B9] {
            #expect(!TextDecoding.isTerminalControl(Unicode.Scalar(v)!), "U+\(String(v, radix: 16))")
        }
    }

    @Test func sanitizeKeepsNewlinesOnlyWhenAsked() {
        let text = "a\u{1B}]0;x\u{07}\nb\u{9B}2J\u{202E}c\td"
        #expect(TextDecoding.sanitize(text) == "a]0;x b2Jc d")
        #expect(TextDecoding.sanitize(text, keepingLineBreaks: true) == "a]0;x\nb2Jc d")
    }

    @Test func isCleanAgreesWithSanitize() {
        let samples = ["plain ascii", "two\nlines", "tab\there", "é ♪ — 🎹", "esc\u{1B}", "del\u{7F}", "c1\u{9B}", "rlo\u{202E}", "", "\n"]
        for s in samples {
            #expect(TextDecoding.isClean(s, allowingLineBreaks: true) == (TextDecoding.sanitize(s, keepingLineBreaks: true) == s), "\(s.debugDescription)")
            #expect(TextDecoding.isClean(s) == (TextDecoding.sanitize(s) == s), "\(s.debugDescription)")
        }
    }

    @Test func saturatingConversionNeverTraps() {
        #expect(Int(saturating: 1e308) == 9_007_199_254_740_992)
        #expect(Int(saturating: -Double.infinity) == -9_007_199_254_740_992)
        #expect(Int(saturating: .nan) == 0)
        #expect(Int(saturating: 41.9) == 41)
        #expect(Int(saturating: -2.5) == -2)
    }
}
