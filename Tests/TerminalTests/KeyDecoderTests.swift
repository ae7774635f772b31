import Testing
@testable import Terminal

private func decode(_ text: String, flush: Bool = true) -> [Key] {
    var d = KeyDecoder()
    var keys = d.feed(Array(text.utf8))
    if flush { keys += d.flush() }
    return keys
}

private func decode(bytes: [UInt8]) -> [Key] {
    var d = KeyDecoder()
    return d.feed(bytes) + d.flush()
}

@Suite("KeyDecoder")
struct KeyDecoderTests {
    static let esc = "\u{1B}"

    @Test(arguments: [
        ("\u{1B}[A", Key(.up)), ("\u{1B}[B", Key(.down)), ("\u{1B}[C", Key(.right)), ("\u{1B}[D", Key(.left)),
        ("\u{1B}OA", Key(.up)), ("\u{1B}OB", Key(.down)), ("\u{1B}OC", Key(.right)), ("\u{1B}OD", Key(.left)),
        ("\u{1B}[H", Key(.home)), ("\u{1B}[F", Key(.end)), ("\u{1B}OH", Key(.home)), ("\u{1B}OF", Key(.end)),
        ("\u{1B}[1~", Key(.home)), ("\u{1B}[7~", Key(.home)), ("\u{1B}[4~", Key(.end)), ("\u{1B}[8~", Key(.end)),
        ("\u{1B}[2~", Key(.insert)), ("\u{1B}[3~", Key(.delete)),
        ("\u{1B}[5~", Key(.pageUp)), ("\u{1B}[6~", Key(.pageDown)),
        ("\u{1B}[Z", Key(.tab, .shift)),
    ])
    func navigationKeys(_ input: String, _ expected: Key) {
        #expect(decode(input) == [expected])
    }

    @Test func functionKeysBothForms() {
        // ESC O P … S (xterm F1–F4), ESC [ 11~ … 24~ (vt220 style), ESC [ [ A … E (Linux console)
        #expect(decode("\u{1B}OP\u{1B}OQ\u{1B}OR\u{1B}OS") == (1...4).map { Key(.function($0)) })
        let tilde = ["11", "12", "13", "14", "15", "17", "18", "19", "20", "21", "23", "24"]
        #expect(decode(tilde.map { "\u{1B}[\($0)~" }.joined()) == (1...12).map { Key(.function($0)) })
        #expect(decode("\u{1B}[[A\u{1B}[[E") == [Key(.function(1)), Key(.function(5))])
        #expect(decode("\u{1B}[1;2P") == [Key(.function(1), .shift)])
        #expect(decode("\u{1B}[15;5~") == [Key(.function(5), .ctrl)])
    }

    @Test func modifiedArrowsAndEditingKeys() {
        #expect(decode("\u{1B}[1;5C") == [Key(.right, .ctrl)])
        #expect(decode("\u{1B}[1;3D") == [Key(.left, .alt)])
        #expect(decode("\u{1B}[1;2A") == [Key(.up, .shift)])
        #expect(decode("\u{1B}[1;7B") == [Key(.down, [.ctrl, .alt])])
        #expect(decode("\u{1B}[3;5~") == [Key(.delete, .ctrl)])
        #expect(decode("\u{1B}[5;3~") == [Key(.pageUp, .alt)])
    }

    @Test func controlCombinations() {
        #expect(decode(bytes: [0x01, 0x03, 0x1A, 0x00]) == [.ctrl("a"), .ctrl("c"), .ctrl("z"), .ctrl(" ")])
        #expect(decode(bytes: [0x1C, 0x1D, 0x1E, 0x1F]) == [.ctrl("\\"), .ctrl("]"), .ctrl("^"), .ctrl("_")])
        #expect(decode(bytes: [0x0D, 0x0A, 0x09, 0x7F, 0x08]) == [Key(.enter), Key(.enter), Key(.tab), Key(.backspace), Key(.backspace)])
    }

    @Test func altCombinations() {
        #expect(decode("\u{1B}x") == [.alt("x")])
        #expect(decode("\u{1B}Q") == [.alt("Q")])
        #expect(decode(bytes: [0x1B, 0x01]) == [Key("a", [.ctrl, .alt])])
        #expect(decode(bytes: [0x1B, 0x7F]) == [Key(.backspace, .alt)])
        #expect(decode("\u{1B}é") == [.alt("é")])
        #expect(decode(bytes: [0x1B, 0x0D]) == [Key(.enter, .alt)])
    }

    @Test func escapeAloneWaitsForTimeoutThenIsEscape() {
        var d = KeyDecoder()
        #expect(d.feed([0x1B]).isEmpty, "a lone ESC might start a sequence")
        #expect(d.hasPending)
        #expect(d.flush() == [Key(.escape)], "after the timeout it is the Esc key")
        #expect(!d.hasPending)
    }

    @Test func sequenceSplitAcrossReadsIsJoined() {
        var d = KeyDecoder()
        #expect(d.feed([0x1B]).isEmpty)
        #expect(d.feed([0x5B]).isEmpty)
        #expect(d.feed([0x31, 0x3B]).isEmpty)
        #expect(d.feed([0x35, 0x41]) == [Key(.up, .ctrl)])
        #expect(!d.hasPending)
        #expect(d.feed(Array("\u{1B}O".utf8)).isEmpty)
        #expect(d.feed(Array("P".utf8)) == [Key(.function(1))])
    }

    @Test func escapeThenSequenceAndDoubleEscape() {
        #expect(decode("\u{1B}\u{1B}[A") == [Key(.escape), Key(.up)])
        #expect(decode("\u{1B}\u{1B}") == [Key(.escape), Key(.escape)])
        // A truncated CSI flushed by the timeout: nothing is lost or misread as a bar move.
        #expect(decode("\u{1B}[") == [.alt("[")])
        #expect(decode("\u{1B}[1;") == [Key(.escape), Key("["), Key("1"), Key(";")])
        #expect(decode("\u{1B}O") == [.alt("O")])
    }

    @Test func utf8Characters() {
        #expect(decode("é中🎹a") == [Key("é"), Key("中"), Key("🎹"), Key("a")])
        var d = KeyDecoder()
        let bytes = Array("中".utf8)
        #expect(d.feed(bytes[0..<1]).isEmpty, "half a character waits")
        #expect(d.feed(bytes[1..<3]) == [Key("中")])
        #expect(decode(bytes: [0xFF, 0x61]) == [Key("\u{FFFD}"), Key("a")], "an invalid byte is U+FFFD, the next key survives")
        #expect(decode(bytes: [0xE4, 0x61]) == [Key("\u{FFFD}"), Key("a")])
    }

    @Test func bracketedPasteIsOneKey() {
        let keys = decode("x\u{1B}[200~q [ ]\u{1B}[A\r\u{1B}[201~y")
        #expect(keys == [Key("x"), Key(.paste("q [ ]\u{1B}[A\r")), Key("y")], "pasted text never acts as keys")
        var d = KeyDecoder()
        #expect(d.feed(Array("\u{1B}[200~abc".utf8)).isEmpty)
        #expect(d.isInPaste)
        #expect(d.flush().isEmpty, "an unfinished paste survives the escape timeout")
        #expect(d.feed(Array("def\u{1B}[201~".utf8)) == [Key(.paste("abcdef"))])
    }

    @Test func plainKeysUsedByThePracticeScreen() {
        let keys = decode(" []lhomn?+-qawsedftgyhujkzx")
        #expect(keys.count == 27)
        #expect(keys.first == Key(" "))
        #expect(keys.allSatisfy { $0.modifiers.isEmpty })
    }

    @Test func unknownSequencesAreReportedNotMisread() {
        #expect(decode("\u{1B}[99~") == [Key(.unknown(Array("\u{1B}[99~".utf8)))])
        #expect(decode("\u{1B}[?1;2ca") == [Key(.unknown(Array("\u{1B}[?1;2c".utf8))), Key("a")])
    }
}
