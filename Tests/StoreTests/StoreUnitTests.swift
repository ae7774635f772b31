import Foundation
import GRDB
import Judge
import Lesson
import MIDIFile
import Testing
import TestSupport
@testable import Store

@Suite struct MetadataTests {
    @Test func readsTagsTempoSignaturesAndHands() throws {
        let bytes = LessonMaker.bytes(title: "Minuet in G", composer: "J. S. Bach", level: 2, description: "Dance in 3",
                                      hands: ["Right Hand", "Left Hand"], bpm: 100, timeSignature: (3, 2), key: (1, false))
        let file = try MIDIReader.read(bytes).file
        let info = LessonMetadata.make(id: "x", file: file, fileName: "minuet.mid", now: date("2026-01-01T00:00:00Z"))
        #expect(info.title == "Minuet in G")
        #expect(info.composer == "J. S. Bach")
        #expect(info.level == 2)
        #expect(info.description == "Dance in 3")
        #expect(info.timeSignature == "3/4")
        #expect(info.keyName == KeySignature(sharps: 1, minor: false).name)
        #expect(info.tempoBPM == 100)
        #expect(info.hands == 2)
        #expect(info.noteCount == 10)
        #expect(info.durationSeconds > 2)
        #expect(info.searchText.contains("bach") && info.searchText.contains("minuet.mid"))
    }

    @Test func titleFallsBackToFileNameAndPianoTracksCountAsHands() throws {
        var bytes = LessonMaker.bytes(title: "", hands: ["Piano"])
        var info = LessonMetadata.make(id: "x", file: try MIDIReader.read(bytes).file, fileName: "scale-c.mid")
        #expect(info.title == "scale-c")
        #expect(info.hands == 1)
        bytes = LessonMaker.bytes(title: "Duet", hands: ["Upper", "Lower"])
        info = LessonMetadata.make(id: "x", file: try MIDIReader.read(bytes).file, fileName: "d.mid")
        #expect(info.hands == 2)
        bytes = LessonMaker.bytes(title: "One hand", hands: ["Left Hand"])
        info = LessonMetadata.make(id: "x", file: try MIDIReader.read(bytes).file, fileName: "d.mid")
        #expect(info.hands == 1)
    }
}

@Suite struct InMemoryStoreTests {
    func lesson(_ id: String, _ title: String, level: Int? = nil, composer: String? = nil) -> LessonInfo {
        StoreFixture.lesson(id, title, level: level, composer: composer)
    }

    func seeded() throws -> Store { try StoreFixture.seeded() }

    @Test func schemaIsCurrentAndSound() throws {
        let s = try Store.inMemory()
        #expect(try s.schemaVersion() == Schema.versions.last)
        #expect(try s.integrityCheck() == "ok")
    }

    @Test func searchRequiresEveryWordAndFilters() throws {
        let s = try seeded()
        #expect(try s.lessons().map(\.lesson.title) == ["100% Fun_Song", "C Major Scale", "Minuet in G", "Prelude in C"])
        #expect(try s.lessons(matching: "bach").count == 2)
        #expect(try s.lessons(matching: "BACH prelude").map(\.lesson.id) == ["cccc3333"])
        #expect(try s.lessons(matching: "in", level: 2).map(\.lesson.id) == ["aaaa1111"])
        #expect(try s.lessons(matching: "100%").map(\.lesson.id) == ["dddd4444"])
        #expect(try s.lessons(matching: "1_0").isEmpty)   // "_" is not a wildcard
        #expect(try s.lessons(matching: "%").map(\.lesson.id) == ["dddd4444"])
        #expect(try s.lessons(matching: "fun_").count == 1)
        // Whole words, or the start of one as it is typed: "ode" is not in "episode".
        #expect(try s.lessons(matching: "scal").map(\.lesson.id) == ["bbbb2222"])
        #expect(try s.lessons(matching: "ajor").isEmpty && s.lessons(matching: "ach").isEmpty)
        #expect(try s.lessons(matching: "song").map(\.lesson.id) == ["dddd4444"])   // after "_"
        try s.addFavourite("cccc3333")
        #expect(try s.lessons(favouritesOnly: true).map(\.lesson.id) == ["cccc3333"])
        #expect(try s.lessons(limit: 1).count == 1)
    }

    @Test func lessonsWithTheWordsInTheirTitleComeFirst() throws {
        let s = try seeded()
        // "c" is a word in two titles: the titles lead, by level. The "c" inside Bach (the
        // Minuet's composer) starts no word, so the Minuet is not found (issue 39: whole words).
        let found = try s.lessons(matching: "c").map(\.lesson.title)
        #expect(Array(found.prefix(2)) == ["C Major Scale", "Prelude in C"], "\(found)")
        #expect(!found.contains("Minuet in G"))
        // A word of the title leads one of the composer's: "bach" is only the composer's, "g" a title's.
        #expect(try s.lessons(matching: "g").map(\.lesson.title) == ["Minuet in G"])
    }

    @Test func levelsAreThoseOfListedLessonsAscending() throws {
        let s = try seeded()
        #expect(try s.levels() == [1, 2, 3])
        // A lesson whose file is gone is not listed, so its level is not offered; nor is "no level".
        try s.register(lesson("eeee5555", "Lost Sonata", level: 7))
        try s.register(lesson("ffff6666", "Unlevelled Air"))
        try s.writer.write { db in
            try LessonFileRecord(path: "/l/air.mid", lessonID: "ffff6666", size: 1, mtime: 1, source: .folder, root: "/l").insert(db)
        }
        #expect(try s.levels() == [1, 2, 3])
        #expect(try s.lessons().count == 5)
    }

    @Test func favouritesAreIdempotent() throws {
        let s = try seeded()
        try s.addFavourite("aaaa1111")
        try s.addFavourite("aaaa1111")
        #expect(try s.favourites().map(\.lesson.id) == ["aaaa1111"])
        #expect(try s.isFavourite("aaaa1111"))
        #expect(try s.removeFavourite("aaaa1111"))
        #expect(try !s.removeFavourite("aaaa1111"))
        #expect(try s.favourites().isEmpty)
    }

    @Test func resolvesPathsTitlesAndIdPrefixes() throws {
        let s = try seeded()
        #expect(try s.resolveLesson("aaaa").lesson.id == "aaaa1111")
        #expect(try s.resolveLesson("minuet in g").lesson.id == "aaaa1111")
        #expect(try s.resolveLesson("C Maj").lesson.id == "bbbb2222")
        #expect(throws: StoreError.self) { try s.resolveLesson("in") }
        #expect(throws: StoreError.self) { try s.resolveLesson("nothing like this") }
    }

    @Test func savedLoopsReplaceByNameAndValidateBars() throws {
        let s = try seeded()
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "run", firstBar: 9, lastBar: 12, hand: .right, tempoPercent: 70, otherHandMode: .play))
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "run", firstBar: 9, lastBar: 14, hand: .right, tempoPercent: 80, otherHandMode: .mute))
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "intro", firstBar: 1, lastBar: 4, hand: .both, tempoPercent: 100, otherHandMode: .play))
        let loops = try s.loops(for: "aaaa1111")
        #expect(loops.map(\.name) == ["intro", "run"])
        #expect(try s.loop(named: "run", for: "aaaa1111")?.lastBar == 14)
        #expect(try s.loop(named: "run", for: "aaaa1111")?.otherHandMode == .mute)
        #expect(throws: StoreError.self) {
            try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "bad", firstBar: 5, lastBar: 2, hand: .both, tempoPercent: 100, otherHandMode: .play))
        }
        #expect(try s.deleteLoop(named: "run", for: "aaaa1111"))
        #expect(try !s.deleteLoop(named: "run", for: "aaaa1111"))
        // A loop may start on a pickup bar (bar 0).
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "pickup", firstBar: 0, lastBar: 2, hand: .both, tempoPercent: 90, otherHandMode: .play))
        #expect(try s.loop(named: "pickup", for: "aaaa1111")?.firstBar == 0)
    }

    @Test func aRenamedLoopKeepsItsSettingsAndTheResumeStateFollows() throws {
        let s = try seeded()
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "bars 9-12 at 70%", firstBar: 9, lastBar: 12, hand: .right, tempoPercent: 70, otherHandMode: .quietDefault))
        try s.saveLoop(SavedLoop(lessonID: "aaaa1111", name: "intro", firstBar: 1, lastBar: 4, hand: .both, tempoPercent: 100, otherHandMode: .play))
        try s.saveResume(ResumeState(lessonID: "aaaa1111", path: "/l/0.mid", positionSeconds: 20, hand: .right, tempoPercent: 70,
                                     mode: .watch, loopFirstBar: 9, loopLastBar: 12, loopName: "bars 9-12 at 70%"))
        #expect(try s.renameLoop("bars 9-12 at 70%", to: " tricky run ", for: "aaaa1111"))
        let renamed = try #require(try s.loop(named: "tricky run", for: "aaaa1111"))
        #expect(renamed.firstBar == 9 && renamed.lastBar == 12 && renamed.tempoPercent == 70 && renamed.otherHandMode == .quietDefault)
        #expect(try s.loop(named: "bars 9-12 at 70%", for: "aaaa1111") == nil)
        #expect(try s.resume()?.state.loopName == "tricky run")
        #expect(throws: StoreError.self) { try s.renameLoop("tricky run", to: "intro", for: "aaaa1111") }
        #expect(throws: StoreError.self) { try s.renameLoop("tricky run", to: "  ", for: "aaaa1111") }
        #expect(try !s.renameLoop("no such loop", to: "x", for: "aaaa1111"))
        #expect(try s.loops(for: "aaaa1111").map(\.name) == ["intro", "tricky run"])
    }

    @Test func passesAreRecordedWithScoresAndListedInTimeOrder() throws {
        let s = try seeded()
        let a = try s.recordPass(lessonID: "aaaa1111", startedAt: date("2026-03-02T10:00:00Z"), mode: .play, hand: .right,
                                 tempoPercent: 80, bars: 1...8,
                                 figures: ScoreFigures(hit: 40, missed: 2, wrong: 1, extra: 0, accuracy: 0.93, timingMeanMs: 12, timingSdMs: 30, score: 88),
                                 durationSeconds: 60)
        let b = try s.recordPass(lessonID: "aaaa1111", startedAt: date("2026-03-01T10:00:00Z"), mode: .watch, hand: .both,
                                 tempoPercent: 100, durationSeconds: 30)
        #expect(b > a)
        let passes = try s.passes(lessonID: "aaaa1111")
        #expect(passes.map(\.id) == [b, a])
        #expect(passes[1].figures?.hit == 40 && passes[1].figures?.timingSdMs == 30 && passes[1].firstBar == 1 && passes[1].lastBar == 8)
        #expect(passes[0].score == nil)
        let listing = try s.listing(id: "aaaa1111")
        #expect(listing?.bestScore == 88)
        #expect(listing?.passes == 2)
        #expect(listing?.lastPractised == date("2026-03-02T10:00:00Z"))
    }

    @Test func theBestScoreIsPerModeAndAWaitModeHundredIsNotTheBestOfPlaying() throws {
        let s = try seeded()
        func figures(_ score: Double) -> ScoreFigures {
            ScoreFigures(hit: 10, missed: 0, wrong: 0, extra: 0, accuracy: score, timingMeanMs: 4, timingSdMs: 2, score: score)
        }
        try s.recordPass(lessonID: "aaaa1111", startedAt: date("2026-03-01T10:00:00Z"), mode: .wait, hand: .both, tempoPercent: 100,
                         figures: figures(100), durationSeconds: 60)
        #expect(try s.listing(id: "aaaa1111")?.bestScore == nil, "only a wait-mode pass: no best of playing")
        try s.recordPass(lessonID: "aaaa1111", startedAt: date("2026-03-02T10:00:00Z"), mode: .play, hand: .both, tempoPercent: 100,
                         figures: figures(72), durationSeconds: 60)
        try s.recordPass(lessonID: "aaaa1111", startedAt: date("2026-03-03T10:00:00Z"), mode: .judge, hand: .both, tempoPercent: 100,
                         figures: figures(80), durationSeconds: 60)
        #expect(try s.listing(id: "aaaa1111")?.bestScore == 80)
        let passes = try s.passes(lessonID: "aaaa1111")
        #expect(passes.map(\.mode) == [.wait, .play, .judge] && passes.map(\.hand) == [.both, .both, .both])
        #expect(passes.map(\.figures) == [figures(100), figures(72), figures(80)], "the figures round-trip through their coding")
        let stats = PracticeStats.compute(passes, now: date("2026-03-04T10:00:00Z"))
        #expect(stats.bestScore == 80)
        #expect(stats.bests.map(\.mode) == [.judge, .play, .wait] && stats.bests.map(\.score) == [80, 72, 100])
        // Deleting the judged pass's lesson rows recomputes the best from play mode alone.
        try s.writer.write { db in try db.execute(sql: "DELETE FROM pass WHERE mode = ?", arguments: [PassMode.judge.rawValue]) }
        #expect(try s.listing(id: "aaaa1111")?.bestScore == 72)
    }

    @Test func aModeNoCaseNamesIsKeptAsStored() {
        #expect(PassMode(rawValue: "quiz-notes") == .quiz("notes") && PassMode.quiz("notes").rawValue == "quiz-notes")
        #expect(PassMode(rawValue: "debug") == .other("debug") && !PassMode.other("debug").scoresInTime)
        for m in PracticeMode.allCases { #expect(PassMode(rawValue: m.rawValue) == .practice(m)) }
    }

    @Test func unfinishedPassesAreKeptButNotCountedAsPassesOfTheLesson() throws {
        let s = try seeded()
        try s.recordPass(PassRecord(lessonID: "aaaa1111", startedAt: date("2026-03-02T10:00:00Z"), mode: .wait, hand: .right,
                                    tempoPercent: 80, durationSeconds: 400, complete: false))
        try s.recordPass(lessonID: "aaaa1111", startedAt: date("2026-03-01T10:00:00Z"), mode: .watch, hand: .both,
                         tempoPercent: 100, durationSeconds: 30)
        let stored = try s.passes(lessonID: "aaaa1111")
        #expect(stored.map(\.complete) == [true, false])
        let listing = try s.listing(id: "aaaa1111")
        #expect(listing?.passes == 1)
        #expect(listing?.lastPractised == date("2026-03-02T10:00:00Z"))   // it was practice all the same
        let unfinished = try #require(stored.last?.id)
        _ = try s.writer.write { db in try PassRecord.deleteOne(db, key: unfinished) }
        #expect(try s.listing(id: "aaaa1111")?.passes == 1)
    }

    @Test func resumeKeepsOneStateWithItsLoop() throws {
        let s = try seeded()
        #expect(try s.resume() == nil)
        try s.saveResume(ResumeState(lessonID: "bbbb2222", path: "/l/1.mid", positionSeconds: 3, hand: .left, tempoPercent: 90, mode: .wait))
        try s.saveResume(ResumeState(lessonID: "aaaa1111", path: "/l/0.mid", positionSeconds: 12.5, hand: .right, tempoPercent: 70,
                                     mode: .play, loopFirstBar: 9, loopLastBar: 12, loopName: "run"))
        let r = try #require(try s.resume())
        #expect(r.state.lessonID == "aaaa1111" && r.state.positionSeconds == 12.5 && r.state.loopName == "run")
        #expect(r.lesson?.lesson.title == "Minuet in G")
        #expect(try s.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resumeState") } == 1)
    }

}

@Suite struct StatsTests {
    func pass(_ at: String, seconds: Double, tempo: Int = 100, score: Double? = nil) -> PassRecord {
        PassRecord(lessonID: "a", startedAt: date(at), mode: .play, hand: .both, tempoPercent: tempo, durationSeconds: seconds, score: score)
    }

    @Test func practiceTimePerDayAndWeek() {
        let now = date("2026-03-11T12:00:00Z") // a Wednesday
        let passes = [
            pass("2026-03-11T08:00:00Z", seconds: 60, tempo: 90, score: 80),
            pass("2026-03-11T09:00:00Z", seconds: 120, tempo: 100, score: 70),
            pass("2026-03-09T23:59:00Z", seconds: 30, tempo: 60),          // Monday, this week
            pass("2026-03-08T10:00:00Z", seconds: 600, tempo: 50, score: 40), // Sunday, last week
            pass("2026-01-01T10:00:00Z", seconds: 999),                     // out of range
        ]
        let st = PracticeStats.compute(passes, now: now, calendar: utc())
        #expect(st.days.count == 7 && st.weeks.count == 8)
        #expect(st.days.last?.start == date("2026-03-11T00:00:00Z"))
        #expect(st.days.last?.seconds == 180 && st.days.last?.passes == 2)
        #expect(st.days[4].seconds == 30)  // 9 March
        #expect(st.days[3].seconds == 600) // 8 March
        #expect(st.weeks.last?.start == date("2026-03-09T00:00:00Z"))
        #expect(st.weeks.last?.seconds == 210)
        #expect(st.weeks[6].seconds == 600)
        #expect(st.passCount == 5 && st.scoredPassCount == 3)
        #expect(st.bestScore == 80 && st.latestScore == 70)
        #expect(st.scores == [40, 80, 70])
        #expect(st.tempos == [100, 50, 60, 90, 100])
        #expect(st.totalSeconds == 1809)
    }

    @Test func anUnfinishedPassCountsItsTimeButIsNoPass() {
        let now = date("2026-03-11T12:00:00Z")
        var left = pass("2026-03-11T10:00:00Z", seconds: 300, tempo: 70)
        left.complete = false
        let st = PracticeStats.compute([pass("2026-03-11T08:00:00Z", seconds: 60, tempo: 90, score: 80), left], now: now, calendar: utc())
        #expect(st.days.last?.seconds == 360 && st.days.last?.passes == 1)
        #expect(st.weeks.last?.seconds == 360 && st.weeks.last?.passes == 1)
        #expect(st.passCount == 1 && st.scoredPassCount == 1 && st.totalSeconds == 360)
        #expect(st.tempos == [90])
    }

    @Test func sparklines() {
        #expect(Sparkline.render([0, 50, 100], lower: 0, upper: 100) == "▁▅█")
        #expect(Sparkline.render([1, 2, 3, 4, 5, 6, 7, 8]) == "▁▂▃▄▅▆▇█")
        #expect(Sparkline.render([5, 5]) == "▄▄")
        #expect(Sparkline.render([]) == "")
        #expect(Sparkline.render(Array(repeating: 1, count: 100), width: 40).count == 40)
    }
}
