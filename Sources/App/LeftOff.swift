import Foundation
import Lesson
import MIDIFile
import LessonLibrary
import Reports
import Store

/// Where the learner left off, as `etude resume` and the browser's resume line start again
/// from it: the stored row read once and turned into the practice it asks for (lesson, bar,
/// hand, other hand, tempo, metronome, loop and its name, mode, input).
public struct LeftOff: Sendable {
    /// The lesson file (where the catalogue found it last, else where it was practised).
    public let path: String
    private let state: ResumeState

    /// The stored point; one line when nothing was practised yet or its lesson is gone.
    public static func load(_ library: Library) throws -> LeftOff {
        let point = try library.withStore(scan: false) { s -> LeftOff in
            let (state, listing) = try stored(in: s)
            return LeftOff(path: listing?.path ?? state.path, state: state)
        }
        guard FileManager.default.fileExists(atPath: point.path) else {
            throw EtudeFailure("\(safe(point.path)): the lesson you practised last is gone; open another with `etude practice`")
        }
        return point
    }

    /// The input it was played on (as `--input` names it), nil for a point saved before inputs were kept.
    public var input: String? { state.input }
    public var mode: PracticeMode { state.mode }
    public var loopName: String? { state.loopName }

    /// The setup request that practises it again: its plan rebuilt from what was stored.
    public func request(keyboard: PracticeSetup.Keyboard, library: Library) -> PracticeSetup.Request {
        let state = self.state
        var request = PracticeSetup.Request(path: path, keyboard: keyboard, library: library) { lesson throws(PlanError) in
            var plan = PracticePlan(repeatMode: .forever)
            plan.hands = state.hand
            plan.tempo = .percent(TempoPercent.clamped(Double(state.tempoPercent)).value)
            if let a = state.loopFirstBar, let b = state.loopLastBar { plan.bars = a...b }
            if let other = state.otherHand { plan.otherHand = other }
            plan.metronome.enabled = state.metronome ?? false
            return plan
        }
        let path = self.path
        request.words = { "the saved state no longer fits \(safe(path)) (\($0.message)); start it with `etude practice`" }
        return request
    }

    /// The bar it stopped in; a position from an older or damaged database is clamped to the lesson.
    public func bar(in lesson: Lesson) -> Int {
        let seconds = state.positionSeconds.isFinite ? max(0, state.positionSeconds) : 0
        let tick = lesson.tempoMap.tick(atSeconds: seconds)
        return lesson.bars.position(atTick: tick.isFinite ? Int(min(max(0, tick), Double(lesson.endTick))) : 0).bar
    }

    /// The stored row and its lesson; one line when nothing was practised yet.
    private static func stored(in store: Store) throws -> (ResumeState, LessonListing?) {
        guard let found = try store.resume() else {
            throw EtudeFailure("nothing to resume yet: practise a lesson first (see `etude list`)")
        }
        return found
    }

    /// `etude resume --show` (or `--json`): where the learner left off, as lines or one JSON object.
    public static func shown(json: Bool, library: Library) throws -> String {
        try library.withStore(scan: false) { s in
            let (state, listing) = try stored(in: s)
            if json { return JSONOutput.line(ResumeRecord(state, listing: listing)) }
            let path = listing?.path ?? state.path
            let position = Listing.duration(state.positionSeconds)
            var out = "Lesson:   \(TextDecoding.sanitize(listing?.lesson.title ?? "?"))\n"
            out += "File:     \(TextDecoding.sanitize(path))\n"
            out += "Position: \(ResumePlace.bar(seconds: state.positionSeconds, path: path).map { "bar \($0) (\(position))" } ?? position)\n"
            out += "Hand:     \(state.hand.rawValue)\(state.hand == .both ? "" : " (other hand: \((state.otherHand ?? .play).name))")\n"
            out += "Tempo:    \(state.tempoPercent)%\(state.metronome == true ? ", metronome on" : "")\nMode:     \(state.mode.rawValue)\n"
            if let input = state.input { out += "Input:    \(TextDecoding.sanitize(input))\n" }
            if let a = state.loopFirstBar, let b = state.loopLastBar {
                out += "Loop:     bars \(ResumePlace.bars(a, b, path: path))\(state.loopName.map { " (\($0))" } ?? "")\n"
            }
            return out + "Saved:    \(Listing.date(state.updatedAt))\n"
        }
    }
}
