import Foundation
import MIDIFile
import Store

/// `etude-bench store`: a generated 10,000-lesson catalogue (with 20,000 passes of history).
/// Targets: a search under 20 ms, a rescan of unchanged files under 1 s. Prints one JSON object.
enum StoreBench {
    static let words = ["minuet", "sonata", "prelude", "waltz", "etude", "scale", "nocturne", "march", "air", "gigue",
                        "bourree", "rondo", "polka", "lullaby", "chorale", "fugue", "invention", "study", "dance", "song"]
    static let composers = ["Bach", "Mozart", "Clementi", "Czerny", "Burgmuller", "Schumann", "Chopin", "Satie", "Diabelli", "Anon"]

    static func lessonBytes(_ i: Int) -> [UInt8] {
        let title = "\(words[i % words.count].capitalized) \(words[(i / 20) % words.count]) no. \(i)"
        var tags = LessonTags(title: title, composer: composers[i % composers.count], level: 1 + i % 8,
                              description: "Generated lesson \(i)")
        tags.title = title
        var meta = tags.events
        meta.append(MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [0x07, 0xA1, 0x20])))
        meta.append(MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: [3, 2, 24, 8])))
        var notes: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array("Right Hand".utf8)))]
        for n in 0..<16 {
            let key = UInt8(60 + (i + n * 7) % 24)
            notes.append(MIDIEvent(tick: n * 240, .noteOn(channel: 0, key: key, velocity: 80)))
            notes.append(MIDIEvent(tick: n * 240 + 200, .noteOff(channel: 0, key: key, velocity: 0)))
        }
        return MIDIWriter.write(MIDIFile(format: 1, division: .ticksPerQuarter(480),
                                         tracks: [Track(events: meta), Track(events: notes)]))
    }

    static func time<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let t0 = DispatchTime.now().uptimeNanoseconds
        let r = try body()
        return (r, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
    }

    /// CPU time of the whole process (GRDB reads run on its own queue), in ms: robust to other
    /// work on a shared machine, unlike wall time.
    static func cpuMs() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }

    static func loadAverage() -> Double {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return Double(text.split(separator: " ").first ?? "") ?? -1
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.isEmpty ? 0 : s[s.count / 2]
    }

    static func run(lessons count: Int = 10_000) throws {
        let dir = NSTemporaryDirectory() + "etude-store-bench-\(getpid())"
        let keep = ProcessInfo.processInfo.environment["ETUDE_BENCH_KEEP"] != nil
        defer { if !keep { try? FileManager.default.removeItem(atPath: dir) } }
        let lib = dir + "/lib"
        for i in 0..<count {
            let sub = lib + "/set\(i / 500)"
            if i % 500 == 0 { try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true) }
            try Data(lessonBytes(i)).write(to: URL(fileURLWithPath: sub + "/lesson-\(i).mid"))
        }
        let store = try Store.open(path: dir + "/etude.sqlite")
        let (first, firstMs) = try time { try store.addFolder(lib) }
        let ids = try store.lessons().map(\.lesson.id)
        for (n, id) in ids.enumerated() where n % 50 == 0 { try store.addFavourite(id) }
        // History: 20,000 passes in one transaction.
        try store.writer.write { db in
            for n in 0..<20_000 {
                var p = PassRecord(lessonID: ids[n % ids.count], startedAt: Date(timeIntervalSinceNow: Double(-n * 60)), mode: .play,
                                   hand: .both, tempoPercent: 60 + n % 40, durationSeconds: 60, score: Double(n % 100))
                try p.insert(db)
            }
        }
        let (rescan, rescanMs) = try time { try store.rescan(builtinDirectory: nil) }
        var rescans: [Double] = [rescanMs]
        for _ in 0..<2 { rescans.append(try time { try store.rescan(builtinDirectory: nil) }.1) }

        let queries: [(String, String, Int?, Bool)] = [
            ("word", "sonata", nil, false), ("two words", "bach minuet", nil, false), ("level", "", 3, false),
            ("word and level", "waltz", 5, false), ("favourites", "", nil, true), ("no match", "zzzz", nil, false),
            ("everything", "", nil, false),
        ]
        var searches: [(name: String, results: Int, median: Double, best: Double, cpu: Double)] = []
        for (name, q, level, fav) in queries {
            var times: [Double] = []
            var cpu: [Double] = []
            var n = 0
            for _ in 0..<15 {
                let c0 = cpuMs()
                let (rows, ms) = try time { try store.lessons(matching: q, level: level, favouritesOnly: fav) }
                cpu.append(cpuMs() - c0)
                n = rows.count
                times.append(ms)
            }
            searches.append((name, n, median(times), times.min() ?? 0, median(cpu)))
        }
        // The target is for searches. The full listing (no words, no filter: what the browser
        // opens on) is no search; it is printed beside them as fullListingMs, with no target.
        let realSearches = searches.filter { $0.name != "everything" }
        let searchMax = realSearches.map(\.median).max() ?? 0
        let searchBestMax = realSearches.map(\.best).max() ?? 0
        let fullListing = searches.first { $0.name == "everything" }?.median ?? 0
        var out = "{\"benchmark\":\"store\",\"lessons\":\(count),\"passes\":20000"
        out += ",\"initialScanMs\":\(Int(firstMs)),\"initialScanAdded\":\(first.added)"
        out += ",\"rescanUnchangedMs\":\(String(format: "%.1f", median(rescans))),\"rescanUnchanged\":\(rescan.unchanged)"
        out += ",\"rescanTargetMs\":1000,\"rescanOK\":\(median(rescans) < 1000)"
        out += ",\"searches\":[" + searches.map {
            "{\"query\":\"\($0.name)\",\"results\":\($0.results),\"medianMs\":\(String(format: "%.2f", $0.median)),"
                + "\"bestMs\":\(String(format: "%.2f", $0.best)),\"medianCpuMs\":\(String(format: "%.2f", $0.cpu))}"
        }.joined(separator: ",") + "]"
        out += ",\"fullListingMs\":\(String(format: "%.2f", fullListing))"
        out += ",\"searchMaxMedianMs\":\(String(format: "%.2f", searchMax)),\"searchMaxBestMs\":\(String(format: "%.2f", searchBestMax))"
        // Wall time on a shared machine includes other processes' load: both the median and the
        // best of 15 runs are judged, and the load average is printed beside them.
        out += ",\"searchTargetMs\":20,\"searchOK\":\(searchMax < 20),\"searchBestOK\":\(searchBestMax < 20),\"loadAverage\":\(loadAverage())}"
        print(out)
    }
}
