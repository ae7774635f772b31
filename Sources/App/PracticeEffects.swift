import Foundation
import Judge
import LessonLibrary
import Practice
import Reports
import Store
import Synchronization

/// Performs a practice session's effects (`PracticeEffect`, its one outbox) on a thread of its
/// own, off the screen's frames and off the runner (issue 36 step 4, issue 40 point 5): the
/// `--report` line and a pass's .mid file at once; the library's writes — passes, saved loops,
/// the guide, where the learner stopped — in the order they came, each once. A library locked
/// by another program is tried again every quarter second (one short wait each, never the
/// store's 15 s), while the screen goes on; a pass still waiting when the session ends is kept
/// in the spool beside the database (`PassSpool`) and stored by the next run, with one line.
public final class PracticeEffects: @unchecked Sendable {
    private let session: PracticeSession
    /// Where the effects come from: the session's outbox, or one of the caller's (a routine's entry).
    private let source: EffectOutbox
    private let history: StoreHistory?
    private let report: PassReportAppender?
    private let rememberGuide: (@Sendable (Bool) -> Void)?
    private let rememberHint: (@Sendable () -> Void)?
    /// How long one write waits for another program's lock.
    public static let tryTimeout: TimeInterval = 0.25
    /// How long `finish` goes on trying before the passes left go to the spool.
    public static let closingGrace: TimeInterval = 2

    private struct Control {
        var started = false
        /// When the session ended: try until then, then keep what is left.
        var closingDeadline: Date?
        /// Lines for stderr once the screen is gone.
        var lines: [String] = []
        /// Effects performed (for tests and the final count).
        var performed = 0
    }
    private let control = Mutex(Control())
    private let exited = DispatchSemaphore(value: 0)

    // The thread's own (touched only by `loop`).
    private var pending: [PracticeEffect] = []
    private var lockedSince: Date?

    public init(session: PracticeSession, source: EffectOutbox? = nil, history: StoreHistory?, report: PassReportAppender?,
                rememberGuide: (@Sendable (Bool) -> Void)? = nil, rememberHint: (@Sendable () -> Void)? = nil) {
        self.rememberHint = rememberHint
        self.session = session
        self.source = source ?? session.effects
        self.history = history
        self.report = report
        self.rememberGuide = rememberGuide
    }

    /// Routes what the screen's keys would write — `r`'s .mid, `G`'s choice, `s`'s loop — into
    /// `emit` (the session's outbox or a routine entry's), for this thread to perform, and lets
    /// `L` and `W` read what it last read from `history`: no key waits for a disk or the library.
    /// Call it after making the effects (which keep the controller's own `onGuide` to perform).
    public static func route(_ controller: PracticeController, history: StoreHistory?,
                             emit: @escaping @Sendable (PracticeEffect) -> Void) {
        controller.onSavePass = { bytes, directory, now in
            emit(.savePass(bytes: bytes, directory: directory, at: now))
            return ""  // the effects thread says where it went
        }
        controller.onGuide = { on in emit(.guide(on)) }
        guard let history else { return }
        controller.onSaveLoop = { loop in
            emit(.saveLoop(loop))
            return ""  // the effects thread says "saved loop …" (or why not)
        }
        controller.onRecallLoops = { history.savedLoops() }
        controller.onBarPicture = { history.barPicture() }
    }

    /// Starts the effects thread (once).
    public func start() {
        let first = control.withLock { c -> Bool in
            defer { c.started = true }
            return !c.started
        }
        guard first else { return }
        let thread = Thread { [self] in loop() }
        thread.name = "etude-effects"
        thread.start()
    }

    /// Ends the thread after what the session emitted is performed, trying a locked library for
    /// `grace` seconds more; returns the lines to say (a pass kept in the spool, one not stored).
    /// Call it after the session stopped and the screen is gone.
    @discardableResult
    public func finish(grace: TimeInterval = closingGrace) -> [String] {
        let started = control.withLock { c -> Bool in
            c.closingDeadline = Date(timeIntervalSinceNow: grace)
            return c.started
        }
        if !started { start() }
        // Bounded: a write waits `tryTimeout` at most, a saved loop the store's own timeout.
        _ = exited.wait(timeout: .now() + grace + Store.busyTimeout + 1)
        return control.withLock { c in
            defer { c.lines = [] }
            return c.lines
        }
    }

    private func loop() {
        // What `L` and `W` show, read here and not on a frame.
        history?.refreshReads()
        while true {
            let deadline = control.withLock { $0.closingDeadline }
            let batch = source.wait(timeout: pending.isEmpty ? 0.1 : Self.tryTimeout)
            for effect in batch { accept(effect) }
            drainPending()
            guard let deadline else { continue }
            // Closing: what the session emitted last (its unfinished pass, where it stopped) too.
            for effect in source.take() { accept(effect) }
            drainPending()
            if pending.isEmpty { break }
            if Date() >= deadline {
                keepWhatIsLeft()
                break
            }
        }
        exited.signal()
    }

    /// An effect as it arrives: files at once, the library's writes queued in order.
    private func accept(_ effect: PracticeEffect) {
        switch effect {
        case .pass(let result):
            if result.info.complete, let r = result.report { report?.append(r) }
            if history != nil { pending.append(effect) } else { count() }
        case .savePass(let bytes, let directory, let at):
            session.show(message: PassFile.save(bytes, in: directory, now: at))
            count()
        case .saveLoop:
            if history != nil { pending.append(effect) } else {
                session.show(message: "saving loops needs the library (it could not be opened)")
                count()
            }
        case .guide:
            if rememberGuide != nil { pending.append(effect) } else { count() }
        case .calibrateHintShown:
            if rememberHint != nil { pending.append(effect) } else { count() }
        case .resume:
            if history != nil { pending.append(effect) } else { count() }
        }
    }

    private enum Outcome { case done, locked }

    /// The library's writes in order, until one finds it locked.
    private func drainPending() {
        while let first = pending.first {
            switch perform(first) {
            case .locked:
                if lockedSince == nil {
                    lockedSince = Date()
                    session.show(message: "the library is locked by another program: your passes are kept and stored when it is free")
                }
                return
            case .done:
                let stored = pending.removeFirst()
                count()
                switch stored {
                case .pass, .saveLoop: history?.refreshReads()
                default: break
                }
            }
        }
        if lockedSince != nil {
            lockedSince = nil
            session.show(message: "the library is free again: the passes kept are stored")
        }
    }

    private func perform(_ effect: PracticeEffect) -> Outcome {
        if case .calibrateHintShown = effect {
            if lockedSince != nil { return .locked }
            rememberHint?()
            return .done
        }
        guard let history else { return .done }
        switch effect {
        case .pass(let result):
            do {
                try history.store(history.rows(for: result), busyTimeout: Self.tryTimeout)
            } catch where Store.isLocked(error) {
                return .locked
            } catch {
                session.show(message: "the pass was not stored: \(Store.message(for: error) ?? "\(error)")")
            }
        case .saveLoop(let loop):
            // Behind a lock, a loop waits its turn with the passes.
            if lockedSince != nil { return .locked }
            session.show(message: history.saveLoop(loop))
        case .guide(let on):
            if lockedSince != nil { return .locked }
            rememberGuide?(on)
        case .resume(let point, let mode, let loopName):
            do {
                try history.saveResume(point, mode: mode, loopName: loopName, busyTimeout: Self.tryTimeout)
            } catch where Store.isLocked(error) {
                return .locked
            } catch {
                // Where the learner stopped is a convenience: not worth a line of its own.
            }
        case .savePass, .calibrateHintShown:
            break
        }
        return .done
    }

    /// The session is over and the library still locked: the passes to the spool, one line.
    private func keepWhatIsLeft() {
        guard !pending.isEmpty, let history else { return }
        let passes = pending.compactMap { e -> SpooledPass? in
            if case .pass(let r) = e { return history.rows(for: r) } else { return nil }
        }
        let others = pending.count - passes.count
        pending.removeAll()
        guard let database = history.databasePath else { return }
        var line = passes.isEmpty ? "\(safe(database)) stayed locked by another program" : PassSpool.keep(passes, database: database)
        if others > 0 { line += "; where you stopped (or a loop or setting) was not saved" }
        control.withLock { $0.lines.append(line) }
    }

    private func count() {
        control.withLock { $0.performed += 1 }
    }

    /// Effects performed so far (each once).
    public var performedCount: Int { control.withLock { $0.performed } }
}
