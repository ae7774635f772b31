import Foundation
import Store
import Testing
import TestSupport

/// The instrument set up once (`etude setup`), the guide per lesson and the input a resumed
/// session was left on (issue 38.1, 38.2), stored and read back.
@Suite struct InstrumentStoreTests {
    @Test func theInstrumentIsOneRowReplacedAndForgotten() throws {
        let s = try StoreFixture.seeded()
        #expect(try s.instrumentSetup() == nil)
        try s.saveInstrumentSetup(InstrumentSetup(input: "jack:piano", sound: "instrument", midiOut: "piano:in", lights: 16, gestures: "on"))
        let first = try #require(try s.instrumentSetup())
        #expect(first.input == "jack:piano" && first.sound == "instrument" && first.midiOut == "piano:in" && first.lights == 16 && first.gestures == "on")
        try s.saveInstrumentSetup(InstrumentSetup(input: "midi"))
        let second = try #require(try s.instrumentSetup())
        #expect(second.input == "midi" && second.sound == nil && second.lights == nil)
        let rows = try s.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM instrumentSetup") }
        #expect(rows == 1)
        try s.saveInstrumentSetup(nil)
        #expect(try s.instrumentSetup() == nil)
    }

    @Test func theGuideIsRememberedPerLesson() throws {
        let s = try StoreFixture.seeded()
        #expect(try s.guide(lessonID: "aaaa1111") == nil)
        try s.saveGuide(true, lessonID: "aaaa1111")
        try s.saveGuide(false, lessonID: "bbbb2222")
        #expect(try s.guide(lessonID: "aaaa1111") == true)
        #expect(try s.guide(lessonID: "bbbb2222") == false)
        try s.saveGuide(false, lessonID: "aaaa1111")
        #expect(try s.guide(lessonID: "aaaa1111") == false)
    }

    @Test func resumeKeepsTheInput() throws {
        let s = try StoreFixture.seeded()
        try s.saveResume(ResumeState(lessonID: "aaaa1111", path: "/l/0.mid", positionSeconds: 2, hand: .right, tempoPercent: 80,
                                     mode: .wait, input: "jack:piano"))
        #expect(try s.resume()?.state.input == "jack:piano")
        try s.saveResume(ResumeState(lessonID: "aaaa1111", path: "/l/0.mid", positionSeconds: 2, hand: .right, tempoPercent: 80, mode: .wait))
        #expect(try s.resume()?.state.input == nil)
    }
}
