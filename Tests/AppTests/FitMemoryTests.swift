@testable import App
import Foundation
import Lesson
@testable import LessonLibrary
import MIDIInput
import Practice
@testable import Reports
import Store
import TestSupport
import Testing

/// What the library remembers for fitting a piece: a lesson's transposition (and a loop saved
/// in it keeps its own), and the keyboard per input device.
@Suite struct FitMemoryTests {
    @Test func aLoopSavedWhileTransposedKeepsItsKey() throws {
        let s = try StoreFixture.seeded()
        try s.saveTranspose(lessonID: "aaaa1111", "D")
        #expect(try s.transpose(lessonID: "aaaa1111") == "D")
        let history = StoreHistory(store: s, lessonID: "aaaa1111", path: "/l/0.mid")
        #expect(history.saveLoop(LoopSnapshot(bars: 1...2, hands: .right, tempoPercent: 80, otherHand: .play)).hasPrefix("saved loop"))
        let loop = try #require(try s.loops(for: "aaaa1111").first)
        #expect(loop.transpose == "D")
        #expect(LoopRecord(loop).transpose == "D")
        try s.saveTranspose(lessonID: "aaaa1111", nil)
        #expect(try s.transpose(lessonID: "aaaa1111") == nil)
        #expect(try s.loops(for: "aaaa1111").first?.transpose == "D", "the loop keeps its own")
    }

    @Test func theKeyboardIsRememberedPerDevice() throws {
        let s = try StoreFixture.seeded()
        try s.saveKeyboard(device: "keys", KeyboardSetting(device: "keys", keyRange: "61", fitOctave: true))
        try s.saveKeyboard(device: "/dev/midi1", KeyboardSetting(device: "/dev/midi1", keyRange: "C2-C7", fitOctave: false))
        #expect(try s.keyboard(device: "keys")?.keyRange == "61" && s.keyboard(device: "keys")?.fitOctave == true)
        #expect(try s.keyboard(device: "/dev/midi1")?.keyRange == "C2-C7")
        try s.saveKeyboard(device: "keys", nil)
        #expect(try s.keyboard(device: "keys") == nil)
    }

    @Test func givenKeysAreRememberedForTheInputAndEightyEightForgetsThem() throws {
        let dir = try TempDir("fit")
        let library = Library(databaseOverride: dir.file("e.sqlite"))
        var k = try LessonFit.keyboard(keys: try KeyboardKeysArgument(parsing: "61"), range: nil, fit: nil, input: .computerKeyboard, library: library)
        #expect(k.keyboard?.range == 36...96)
        k.remember()
        k = try LessonFit.keyboard(keys: nil, range: nil, fit: nil, input: .computerKeyboard, library: library)
        #expect(k.keyboard?.size == 61 && !k.fitOctave)
        #expect(try LessonFit.keyboard(keys: nil, range: nil, fit: nil, input: .byteStream(path: dir.file("other.fifo")), library: library).keyboard == nil,
                "another input has its own")
        try LessonFit.keyboard(keys: try KeyboardKeysArgument(parsing: "88"), range: nil, fit: nil, input: .computerKeyboard, library: library).remember()
        #expect(try LessonFit.keyboard(keys: nil, range: nil, fit: nil, input: .computerKeyboard, library: library).keyboard == nil)
        #expect(throws: EtudeFailure.self) { try LessonFit.keyboard(keys: try KeyboardKeysArgument(parsing: "61"), range: try KeyboardRangeArgument(parsing: "C2-C7"), fit: nil, input: .computerKeyboard, library: library) }
        #expect(throws: EtudeFailure.self) { try LessonFit.keyboard(keys: nil, range: nil, fit: .octave, input: .computerKeyboard, library: library) }
        #expect(throws: PlanError.self) { try OctaveFit(parsing: "sideways") }
    }
}
