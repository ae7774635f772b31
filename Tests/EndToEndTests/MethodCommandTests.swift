import Foundation
import Judge
import MIDIFile
import Store
import Testing
import TestSupport

/// The method through the built binary: the curriculum listed, `etude next`, `etude today`,
/// `etude sight-read` (export, seeds, a played exercise in the history and in `etude stats`).
@Suite(.serialized) struct MethodCommandTests {
    let etude: Etude
    init() throws { etude = try Etude() }

    @Test func theCurriculumListsAtLeast200LessonsWithClementisSonatina() throws {
        let r = try etude.run("list", "--json")
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count >= 200, "\(rows.count) lessons")
        let titles = Set(rows.compactMap { $0["title"] as? String })
        for m in ["I. Spiritoso", "II. Andante", "III. Vivace"] {
            #expect(titles.contains("Sonatina in C major, Op. 36 No. 1: \(m)"))
        }
    }

    @Test func nextNamesTheFirstLessonThenMovesOnOnceItIsMastered() throws {
        let first = try etude.run("next")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("Next: C major five-finger position") && first.stdout.contains("(level 1)"), "\(first.stdout)")
        #expect(first.stdout.contains("Why: it opens the method"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try etude.run("next", "--json").stdout.utf8)) as? [String: Any])
        let id = try #require(json["id"] as? String)
        #expect(json["status"] as? String == "new")
        // Two mastering passes on different days.
        let s = try Store.open(path: etude.database)
        for daysAgo in [2.0, 1.0] {
            try s.recordPass(lessonID: id, startedAt: Date().addingTimeInterval(-daysAgo * 86_400), mode: .play, hand: .both,
                             tempoPercent: 100, bars: 1...5,
                             figures: ScoreFigures(hit: 40, missed: 0, wrong: 0, extra: 0, accuracy: 100, score: 96), durationSeconds: 20)
        }
        let after = try #require(try JSONSerialization.jsonObject(with: Data(try etude.run("next", "--json").stdout.utf8)) as? [String: Any])
        #expect(after["id"] as? String != id, "the mastered lesson is no longer next")
        #expect((after["reason"] as? String)?.contains("every lesson before it on the path is mastered") == true, "\(after)")
    }

    /// One try of a level-4 piece is a side trip: `next` and `today` keep the level-1 path until
    /// the piece is chosen with `next --set`; `next --path` goes back (issue 39).
    @Test func aSideTripDoesNotThrowThePathOff() throws {
        func next() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(try etude.run("next", "--json").stdout.utf8)) as? [String: Any])
        }
        let first = try next()
        let list = try #require(try JSONSerialization.jsonObject(with: Data(try etude.run("list", "--json").stdout.utf8)) as? [[String: Any]])
        let ode = try #require(list.first { $0["title"] as? String == "Ode to Joy" }?["id"] as? String)
        let s = try Store.open(path: etude.database)
        try s.recordPass(lessonID: ode, startedAt: Date(), mode: .play, hand: .both, tempoPercent: 80, bars: 1...16,
                         figures: ScoreFigures(hit: 30, missed: 30, wrong: 0, extra: 0, accuracy: 50, score: 45), durationSeconds: 60)
        #expect(try next()["id"] as? String == first["id"] as? String, "one try of Ode to Joy leaves the path where it was")
        let text = try etude.run("next").stdout
        #expect(text.contains("Side trips: Ode to Joy (level 4)"), "\(text)")
        let today = try #require(try JSONSerialization.jsonObject(with: Data(try etude.run("today", "--json").stdout.utf8)) as? [String: Any])
        let piece = (today["entries"] as? [[String: Any]])?.last
        #expect(piece?["lessonID"] as? String == first["id"] as? String, "\(String(describing: piece))")
        // Chosen, it is the current piece in next and today.
        let set = try etude.run("next", "--set", "Ode to Joy")
        #expect(set.status == 0 && set.stdout.hasPrefix("Next: Ode to Joy (level 4)") && set.stdout.contains("you chose it"), "\(set.stdout)\(set.stderr)")
        #expect(try next()["id"] as? String == ode)
        let chosenToday = try #require(try JSONSerialization.jsonObject(with: Data(try etude.run("today", "--json").stdout.utf8)) as? [String: Any])
        #expect((chosenToday["entries"] as? [[String: Any]])?.last?["lessonID"] as? String == ode)
        // Back to the path.
        #expect(try etude.run("next", "--path").stdout.contains("Side trips: Ode to Joy"))
        #expect(try next()["id"] as? String == first["id"] as? String)
        // A lesson with no level is not on the path: one line naming the fix.
        let dir = try TempDir("etude-unleveled")
        try LessonMaker.write(dir.file("free.mid"), title: "Free Piece")
        let bad = try etude.run("next", "--set", dir.file("free.mid"))
        #expect(bad.status == 1 && bad.stderr.hasPrefix("etude: --set Free Piece: it has no level") && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
    }

    @Test func todayPlansTwentyMinutesOfSeveralKindsOfWork() throws {
        let r = try etude.run("today", "--minutes", "20", "--json")
        #expect(r.status == 0, "\(r.stderr)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let entries = try #require(plan["entries"] as? [[String: Any]])
        let seconds = entries.compactMap { $0["seconds"] as? Int }.reduce(0, +)
        #expect(seconds >= 1080 && seconds <= 1320, "\(seconds) s")
        #expect(Set(entries.compactMap { $0["kind"] as? String }).count > 1)
        for key in ["kind", "lesson", "tempo", "seconds"] { #expect(entries.allSatisfy { $0[key] != nil }, "\(key)") }
        let text = try etude.run("today")
        #expect(text.status == 0 && text.stdout.hasPrefix("Today: 20 min") && text.stdout.contains("warm-up: C major five-finger position"), "\(text.stdout)")
        let bad = try etude.run("today", "--minutes", "1")
        #expect(bad.status == 1 && bad.stderr == "etude: --minutes 1: plan 5–180 minutes (e.g. 20)\n", "\(bad.stderr)")
    }

    @Test func sightReadGivesTheSameExerciseForTheSameSeedAndAnotherForAnother() throws {
        let dir = try TempDir("etude-sight")
        var files: [String: [UInt8]] = [:]
        for (name, seed) in [("a", "7"), ("b", "7"), ("c", "8")] {
            let r = try etude.run(["sight-read", "--level", "2", "--seed", seed, "--export", dir.file("\(name).mid")])
            #expect(r.status == 0 && r.stdout.contains("Sight-reading, level 2, seed \(seed)"), "\(r.stdout)\(r.stderr)")
            files[name] = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: dir.file("\(name).mid")))) ?? Data())
        }
        #expect(files["a"]?.isEmpty == false && files["a"] == files["b"])
        #expect(files["a"] != files["c"])
        // The exported exercise judged against itself (as `etude judge F.mid F.mid` will): every note hit.
        let read = try MIDIReader.read(files["a"] ?? [], strict: true)
        let expected = try SightReadingExercise(level: 2, seed: 7).expectedNotes
        #expect(NotePairing.notes(in: read.file).notes.count == expected.count)
        var matcher = PlayMatcher(expected: expected)
        for n in expected { _ = matcher.play(PlayedEvent(pitch: n.pitch, time: n.time)) }
        #expect(matcher.finish().figures.hit == expected.count)
        let bad = try etude.run("sight-read", "--level", "9", "--seed", "1", "--export", dir.file("x.mid"))
        #expect(bad.status == 1 && bad.stderr == "etude: --level 9: sight-reading has levels 1–8\n", "\(bad.stderr)")
    }

    @Test func aPlayedExerciseGoesToTheHistoryAndTheStats() throws {
        let dir = try TempDir("etude-sight-fifo")
        let fifo = dir.file("keys")
        #expect(mkfifo(fifo, 0o600) == 0)
        let exercise = try SightReadingExercise(level: 1, seed: 3)
        let r = try MIDIBytes.run(etude, ["sight-read", "--level", "1", "--seed", "3", "--input", fifo], fifo: fifo) { fd in
            // A bar of count-in at 72 BPM, then the notes as written.
            let start = Date().addingTimeInterval(60.0 / 72 * 4)
            for n in exercise.expectedNotes.sorted(by: { $0.time < $1.time }) {
                let wait = start.addingTimeInterval(n.time).timeIntervalSinceNow
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                MIDIBytes.send(fd, [0x90, UInt8(n.pitch), 90])
                usleep(200_000)
                MIDIBytes.send(fd, [0x80, UInt8(n.pitch), 0])
            }
            // The input stays open past the exercise's end (a pass cut by the input ending is not scored).
            let end = start.addingTimeInterval((exercise.expectedNotes.map { $0.time + $0.duration }.max() ?? 0) + 4)
            let left = end.timeIntervalSinceNow
            if left > 0 { usleep(UInt32(left * 1_000_000)) }
        }
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("Sight-reading, level 1, seed 3"), "\(r.stdout)")
        let s = try Store.open(path: etude.database)
        let kept = try s.sightReadings()
        #expect(kept.count == 1 && kept.first?.level == 1 && kept.first?.seed == 3 && kept.first?.score != nil, "\(kept) \(r.stdout)")
        let stats = try etude.run("stats")
        #expect(stats.status == 0 && stats.stdout.contains("Sight-reading: 1 exercise") && stats.stdout.contains("Sight-reading score:"), "\(stats.stdout)")
        #expect(try etude.run("list", "sight-reading").stdout == "No lesson matches.\n", "exercises stay out of the lesson list")
    }
}
