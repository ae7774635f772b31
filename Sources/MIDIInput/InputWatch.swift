import Foundation
import Jack
import MIDIFile

/// More MIDI than any keyboard sends, as one rule for every input: more than `maxEvents`
/// messages within `window` seconds (the FIFO's 2 KB a quarter second, as 3-byte messages).
/// Pure state over the event's own times, so the rule is tested on virtual clocks; the JACK
/// callback applies the same numbers in C (`JackClient.setFloodLimit`).
public struct FloodGuard: Sendable, Equatable {
    /// Messages within `window` beyond which an input is flooding.
    public static let maxEvents = ByteStreamInput.maxBurstBytes / 3
    public static let window = ByteStreamInput.burstSeconds
    /// Windows in a row at a keyboard's rate that end a flood (one second).
    public static let calmWindows = 4

    private var windowStart: Double?
    private var count = 0
    private var calm = 0
    /// True while the input is flooding: its events are dropped, not delivered.
    public private(set) var flooding = false

    public init() {}

    /// What an event at `time` does to the guard.
    public enum Step: Equatable, Sendable {
        /// Deliver it.
        case pass
        /// Drop it: the flood started with it (say so once).
        case started
        /// Drop it: the flood goes on.
        case dropped
        /// The flood ended before it (say so once); deliver it.
        case ended
    }

    /// One event at `time` (seconds, nondecreasing).
    public mutating func step(at time: Double) -> Step {
        var ended = false
        var start = windowStart ?? time
        if time - start >= Self.window * Double(Self.calmWindows + 1) {
            // Long quiet: every window since was calm.
            if flooding { flooding = false; ended = true }
            calm = 0
            start = time
            count = 0
        }
        while time - start >= Self.window {
            if flooding {
                calm = count <= Self.maxEvents ? calm + 1 : 0
                if calm >= Self.calmWindows { flooding = false; calm = 0; ended = true }
            }
            start += Self.window
            count = 0
        }
        windowStart = start
        count += 1
        if !flooding && count > Self.maxEvents {
            flooding = true
            calm = 0
            return .started
        }
        if flooding { return .dropped }
        return ended ? .ended : .pass
    }

    /// The line said when a flood starts on `name`.
    public static func startedLine(_ name: String) -> String {
        "MIDI flood on \(InputWatchText.short(name)) (>\(maxEvents * Int(1 / window))/s): ignored"
    }

    /// The line said when it ends.
    public static func endedLine(_ name: String) -> String {
        "\(InputWatchText.short(name)) is calm again: its notes count"
    }
}

/// The JACK ports feeding `etude:midi_in`, followed through unplug and replug (as
/// `ReconnectWatch` follows an ALSA keyboard): a connected port that disappears from the server
/// is said at once; when a port of the same name is registered again it is reconnected and
/// that is said too. A port the learner merely disconnected is forgotten after `grace` seconds
/// (a client that exits is disconnected a moment before its ports go). Pure state over what
/// the server reports, so the rules are tested without a server.
public struct JackPortWatch: Sendable, Equatable {
    /// Seconds a disconnected port that still exists is remembered.
    public static let grace = 2.0
    /// Ports connected to `midi_in`, with the last time they were seen connected.
    public private(set) var connected: [String: Double] = [:]
    /// Ports that disappeared while connected, awaited by name.
    public private(set) var missing: [String] = []

    public init(connected: [String] = [], at time: Double = 0) {
        for port in connected { self.connected[port] = time }
    }

    /// What changed, in the order to say it.
    public enum Change: Equatable, Sendable {
        case gone(String)
        case back(String)
    }

    /// True while an instrument the learner played on is gone.
    public var isWaiting: Bool { !missing.isEmpty }

    /// A look at the server at `time`: the ports connected to `midi_in` now and which ports
    /// exist. Returns what to say; the caller reconnects the ports that are `back`.
    public mutating func observe(connections now: [String], exists: (String) -> Bool, at time: Double) -> [Change] {
        var changes: [Change] = []
        for port in now { connected[port] = time }
        for port in connected.keys.sorted() where !exists(port) {
            connected[port] = nil
            if !missing.contains(port) {
                missing.append(port)
                changes.append(.gone(port))
            }
        }
        for (port, seen) in connected where seen < time - Self.grace && !now.contains(port) { connected[port] = nil }
        for port in missing where exists(port) { changes.append(.back(port)) }
        missing.removeAll { exists($0) }
        return changes
    }

    /// Records a reconnected port as connected again.
    public mutating func reconnected(_ port: String, at time: Double) { connected[port] = time }

    /// The status line for a change: one line that fits 80 columns.
    public static func line(_ change: Change) -> String {
        switch change {
        case .gone(let port): return "Keyboard \(InputWatchText.short(port)) is gone: plug it back in"
        case .back(let port): return "Keyboard \(InputWatchText.short(port)) is back: reconnected"
        }
    }
}

/// Port and device names shortened for a line that fits 80 columns: the practice screen's
/// status line leaves `budget` of them beside its `? help · q quit`.
public enum InputWatchText {
    /// Columns a status line may take on an 80-column practice screen.
    public static let budget = JackStopLine.budget

    /// At most `limit` characters (control bytes replaced), cut in the middle with `…`.
    public static func short(_ name: String, limit: Int = 20) -> String {
        let clean = TextDecoding.sanitize(name)
        guard clean.count > limit else { return clean }
        let head = (limit - 1) / 2, tail = limit - 1 - head
        return String(clean.prefix(head)) + "…" + String(clean.suffix(tail))
    }
}
