import Foundation
import GRDB
import Lesson
import Testing
import TestSupport
@testable import Store

/// Issue 36 step 5: a saved loop's hand and other hand, the resume state's hand, mode and other
/// hand, and a lesson's last choice are typed columns stored as their raw values; a value that
/// does not read leaves its row out (reported once with the other damaged rows), never guessed.
@Suite struct TypedSettingsColumnsTests {
    func write(_ s: Store, _ sql: String) throws {
        try s.writer.write { db in try db.execute(sql: sql) }
    }

    @Test func savedLoopsKeepTheirTypedSettingsAndStoreRawValues() throws {
        let s = try StoreFixture.seeded()
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "run", firstBar: 9, lastBar: 12, hand: .left, tempoPercent: 70,
                                 otherHandMode: .quietDefault))
        let loop = try #require(try s.loop(named: "run", for: "aaaa1111"))
        #expect(loop.hand == .left && loop.otherHandMode == .quietDefault)
        let raw = try s.writer.read { db in try Row.fetchOne(db, sql: "SELECT hand, otherHandMode FROM savedLoop WHERE name = 'run'") }
        #expect(raw?["hand"] as String? == "left" && raw?["otherHandMode"] as String? == "quiet")
    }

    @Test func theOldHideWordReadsAsMute() throws {
        let s = try StoreFixture.seeded()
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "old", firstBar: 1, lastBar: 2, hand: .right, tempoPercent: 80, otherHandMode: .play))
        try write(s, "UPDATE savedLoop SET otherHandMode = 'HIDE' WHERE name = 'old'")
        #expect(try s.loop(named: "old", for: "aaaa1111")?.otherHandMode == .mute)
    }

    @Test func aLoopWhoseSettingsDoNotReadIsLeftOutAndCanBeSavedAgain() throws {
        let s = try StoreFixture.seeded()
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "bad", firstBar: 1, lastBar: 2, hand: .right, tempoPercent: 80, otherHandMode: .play))
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "good", firstBar: 3, lastBar: 4, hand: .both, tempoPercent: 90, otherHandMode: .mute))
        try write(s, "UPDATE savedLoop SET hand = 'sideways' WHERE name = 'bad'")
        #expect(try s.loops(for: "aaaa1111").map(\.name) == ["good"], "the damaged loop is left out, the other kept")
        #expect(try s.loop(named: "bad", for: "aaaa1111") == nil)
        try write(s, "UPDATE savedLoop SET otherHandMode = 'loud' WHERE name = 'good'")
        #expect(try s.loops(for: "aaaa1111").isEmpty)
        // Saving a loop of the damaged one's name replaces it.
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "bad", firstBar: 5, lastBar: 6, hand: .left, tempoPercent: 60, otherHandMode: .play))
        let again = try #require(try s.loop(named: "bad", for: "aaaa1111"))
        #expect(again.firstBar == 5 && again.hand == .left)
    }

    @Test func theResumeStateIsTypedAndADamagedOneIsNone() throws {
        let s = try StoreFixture.seeded()
        try s.saveResume(ResumeState(lessonID: "aaaa1111", path: "/l/0.mid", positionSeconds: 2, hand: .right, tempoPercent: 80,
                                     mode: .memory, otherHand: .mute, metronome: true))
        let state = try #require(try s.resume()?.state)
        #expect(state.hand == .right && state.mode == .memory && state.otherHand == .mute)
        let raw = try s.writer.read { db in try Row.fetchOne(db, sql: "SELECT hand, mode, otherHand FROM resumeState") }
        #expect(raw?["hand"] as String? == "right" && raw?["mode"] as String? == "memory" && raw?["otherHand"] as String? == "mute")
        // Saved before v9: no other hand (play).
        try write(s, "UPDATE resumeState SET otherHand = NULL")
        #expect(try s.resume()?.state.otherHand == nil)
        for damage in ["mode = 'dance'", "hand = ''", "otherHand = 'loud'"] {
            try s.saveResume(ResumeState(lessonID: "aaaa1111", path: "/l/0.mid", positionSeconds: 2, hand: .right, tempoPercent: 80, mode: .wait))
            try write(s, "UPDATE resumeState SET \(damage)")
            #expect(try s.resume() == nil, "\(damage): not guessed")
        }
    }

    @Test func aLessonsLastChoiceIsTyped() throws {
        let s = try StoreFixture.seeded()
        try s.saveLessonChoice(LessonChoice(lessonID: "aaaa1111", mode: .play, hand: .left))
        let choice = try #require(try s.lessonChoice(for: "aaaa1111"))
        #expect(choice.mode == .play && choice.hand == .left)
        try write(s, "UPDATE lessonChoice SET mode = 'dance'")
        #expect(try s.lessonChoice(for: "aaaa1111") == nil)
    }
}
