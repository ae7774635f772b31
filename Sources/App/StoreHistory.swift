import Foundation
import Judge
import Lesson
import LessonLibrary
import Practice
import Reports
import Store
import Synchronization

/// The library's side of a practice session: `PracticeHistory` implemented on the Store for one
/// lesson. Opening it never stops practice: when the library cannot be opened, one line says
/// why and practice goes on without a history (`open` returns nil).
public final class StoreHistory: PracticeHistory, @unchecked Sendable {
    private let store: Store
    private let lessonID: String
    private let path: String
    private let lock = NSLock()
    /// The input the session is played on (`--input` as typed), kept with the resume point so
    /// `etude resume` comes back to it. Set before the session starts.
    public var input: String?

    /// The history of a lesson already in the catalogue of an open store (`routine run`).
    public init(store: Store, lessonID: String, path: String) {
        self.store = store
        self.lessonID = lessonID
        self.path = path
    }

    /// Opens the library and catalogues the file; nil (with one line on stderr) when it cannot.
    public static func open(_ library: Library, path: String) -> StoreHistory? {
        let absolute = path.hasPrefix("/") ? URL(fileURLWithPath: path).standardizedFileURL.path
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path).standardizedFileURL.path
        do {
            let s = try library.openStore()  // its notices said as it opened
            // Saved loops still read; passes and the resume point cannot be kept: said first.
            if let reason = s.readOnlyReason {
                Console.error("etude: practice history is off: \(library.databasePath) cannot be written (\(reason)); make it writable or choose another database with --db PATH or ETUDE_DB")
            }
            let id = try s.catalogue(fileAt: path).id
            return StoreHistory(store: s, lessonID: id, path: absolute)
        } catch let e as EtudeFailure {
            Console.error("etude: practice history is off: \(e.message)")
        } catch {
            Console.error("etude: practice history is off: \(Store.message(for: error) ?? "\(error)")")
        }
        return nil
    }

    public func record(_ passes: [FinishedPassInfo], mode: PracticeMode, figures: (FinishedPassInfo) -> ScoreFigures?) {
        record(passes, mode: mode, figures: figures, reports: { _ in nil })
    }

    /// The database this history writes to (its spool is beside it).
    public var databasePath: String? { store.path }

    /// A finished pass as the rows it is stored as: the pass and, judged, its bars (the same
    /// rules as `record`: a judged pass in which nothing was played keeps no score).
    public func rows(for result: PassResult) -> SpooledPass {
        let p = result.info
        var f = p.complete ? result.figures : nil
        if let played = f, !played.somethingPlayed { f = nil }
        let record = PassRecord(lessonID: lessonID, startedAt: p.startedAt, mode: .practice(result.mode), hand: p.hands,
                                tempoPercent: Int(p.tempoPercent.rounded()), firstBar: p.bars.lowerBound, lastBar: p.bars.upperBound,
                                durationSeconds: p.durationSeconds, figures: f, complete: p.complete)
        let bars = f != nil ? result.report.map(PerformanceJudge.bars(of:)) ?? [] : []
        return SpooledPass(record: record, bars: bars)
    }

    /// Stores one pass's rows, waiting at most `busyTimeout` for another program's lock; a
    /// lock that lasts throws (`Store.isLocked`), for the caller to try again or spool it.
    public func store(_ rows: SpooledPass, busyTimeout: TimeInterval) throws {
        try lock.withLock { _ = try store.recordPass(rows.record, bars: rows.bars, busyTimeout: busyTimeout) }
    }

    /// `saveResume` waiting at most `busyTimeout` for another program's lock (it throws then).
    public func saveResume(_ point: ResumePoint, mode: PracticeMode, loopName: String?, busyTimeout: TimeInterval) throws {
        try store.saveResume(resumeState(point, mode: mode, loopName: loopName), busyTimeout: busyTimeout)
    }

    /// Stores the passes with their figures and, for a judged pass, its bars (notes and faults).
    public func record(_ passes: [FinishedPassInfo], mode: PracticeMode, figures: (FinishedPassInfo) -> ScoreFigures?,
                       reports: (FinishedPassInfo) -> PassReport?) {
        lock.lock()
        defer { lock.unlock() }
        for p in passes {
            var f = p.complete ? figures(p) : nil
            let complete = p.complete
            // A judged pass in which nothing was played counts as a pass (`etude stats`), but
            // its 0 is no score: the progress line shows what was played.
            if let played = f, !played.somethingPlayed { f = nil }
            let record = PassRecord(lessonID: lessonID, startedAt: p.startedAt, mode: .practice(mode), hand: p.hands,
                                    tempoPercent: Int(p.tempoPercent.rounded()), firstBar: p.bars.lowerBound, lastBar: p.bars.upperBound,
                                    durationSeconds: p.durationSeconds, figures: f, complete: complete)
            guard let id = try? store.recordPass(record) else { continue }
            if f != nil, let report = reports(p) { try? store.recordBars(passID: id, PerformanceJudge.bars(of: report)) }
        }
    }

    /// The lesson's per-bar picture over its recent judged passes (performed bar → notes and
    /// faults), for `W`: as last read by `refreshReads` (empty before, or when none stored bars
    /// or the library cannot be read), so the key never waits for the database.
    public func barPicture() -> [Int: (notes: Int, faults: Int)] { reads.withLock { $0.picture } }

    /// What `L` and `W` show, read again from the library: called by the effects thread when a
    /// session starts and after each pass or loop it stores, never on a frame.
    public func refreshReads() {
        let loops = ((try? store.loops(for: lessonID)) ?? []).map { l in
            NamedLoop(name: l.name, loop: LoopSnapshot(bars: l.firstBar...l.lastBar, hands: l.hand,
                                                       tempoPercent: Double(l.tempoPercent), otherHand: l.otherHandMode))
        }
        let bars = (try? store.barPicture(lessonID: lessonID)) ?? []
        let picture = Dictionary(bars.map { ($0.bar, (notes: $0.notes, faults: $0.faults)) }, uniquingKeysWith: { a, _ in a })
        reads.withLock { $0 = Reads(loops: loops, picture: picture) }
    }

    /// The saved loops and the per-bar picture as last read (`refreshReads`).
    private struct Reads {
        var loops: [NamedLoop] = []
        var picture: [Int: (notes: Int, faults: Int)] = [:]
    }
    private let reads = Mutex(Reads())

    public func saveResume(_ point: ResumePoint, mode: PracticeMode, loopName: String?) {
        try? store.saveResume(resumeState(point, mode: mode, loopName: loopName))
    }

    private func resumeState(_ point: ResumePoint, mode: PracticeMode, loopName: String?) -> ResumeState {
        ResumeState(lessonID: lessonID, path: path, positionSeconds: point.positionSeconds, hand: point.hands,
                    tempoPercent: Int(point.tempoPercent.rounded()), mode: mode,
                    loopFirstBar: point.loop?.lowerBound, loopLastBar: point.loop?.upperBound, loopName: loopName,
                    otherHand: point.otherHand, metronome: point.metronome, input: input)
    }

    public func saveLoop(_ loop: LoopSnapshot) -> String {
        let name = loop.autoName
        do {
            try store.saveLoop(SavedLoop(lessonID: lessonID, name: name, firstBar: loop.bars.lowerBound, lastBar: loop.bars.upperBound,
                                         hand: loop.hands, tempoPercent: Int(loop.tempoPercent.rounded()),
                                         otherHandMode: loop.otherHand, transpose: try? store.transpose(lessonID: lessonID)))
            return "saved loop \"\(name)\""
        } catch {
            return "could not save the loop: \(Store.message(for: error) ?? "\(error)")"
        }
    }

    /// The lesson's saved loops, for `L`, as last read by `refreshReads` (one whose stored hand
    /// or other-hand mode no longer reads was left out by the store, and said once).
    public func savedLoops() -> [NamedLoop] { reads.withLock { $0.loops } }

    /// A saved loop of this lesson by name (`--saved`), or one line naming the loops there are.
    public func savedLoop(named name: String) throws -> SavedLoop {
        guard let loop = try store.loop(named: name, for: lessonID) else {
            let names = ((try? store.loops(for: lessonID)) ?? []).map { "\"\(safe($0.name))\"" }
            throw EtudeFailure("--saved \(safe(name)): no saved loop of that name for this lesson" +
                               (names.isEmpty ? "; save one with `s` on the practice screen" : " (saved: \(names.joined(separator: ", ")))"))
        }
        return loop
    }
}

