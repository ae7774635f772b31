import Foundation
import MIDIFile
@testable import Store

/// Makes small real lesson files (via MIDIWriter) so the catalogue reads genuine bytes.
enum LessonMaker {
    static func bytes(title: String, composer: String? = nil, level: Int? = nil, description: String? = nil,
                      pitches: [Int] = [60, 62, 64, 65, 67], hands: [String] = ["Right Hand"],
                      bpm: Int = 120, timeSignature: (Int, Int) = (4, 2), key: (Int, Bool)? = (0, false),
                      salt: String = "") -> [UInt8] {
        var meta: [MIDIEvent] = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(title.utf8)))]
        var tags = LessonTags(title: nil, composer: composer, level: level, description: description)
        tags.title = nil
        meta += tags.events
        let us = 60_000_000 / bpm
        meta.append(MIDIEvent(tick: 0, .meta(type: MetaType.tempo, data: [UInt8(us >> 16 & 0xff), UInt8(us >> 8 & 0xff), UInt8(us & 0xff)])))
        meta.append(MIDIEvent(tick: 0, .meta(type: MetaType.timeSignature, data: [UInt8(timeSignature.0), UInt8(timeSignature.1), 24, 8])))
        if let key { meta.append(MIDIEvent(tick: 0, .meta(type: MetaType.keySignature, data: KeySignature(sharps: key.0, minor: key.1).bytes))) }
        if !salt.isEmpty { meta.append(MIDIEvent(tick: 0, .meta(type: MetaType.text, data: Array(salt.utf8)))) }
        var tracks = [Track(events: meta)]
        for (h, name) in hands.enumerated() {
            var ev = [MIDIEvent(tick: 0, .meta(type: MetaType.trackName, data: Array(name.utf8)))]
            for (i, p) in pitches.enumerated() {
                let key = UInt8(max(0, min(127, p - 12 * h)))
                ev.append(MIDIEvent(tick: i * 480, .noteOn(channel: UInt8(h), key: key, velocity: 80)))
                ev.append(MIDIEvent(tick: i * 480 + 400, .noteOff(channel: UInt8(h), key: key, velocity: 0)))
            }
            tracks.append(Track(events: ev))
        }
        return MIDIWriter.write(MIDIFile(format: 1, division: .ticksPerQuarter(480), tracks: tracks))
    }

    @discardableResult
    static func write(_ path: String, title: String, level: Int? = nil, salt: String = "") throws -> [UInt8] {
        let b = bytes(title: title, level: level, salt: salt)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(b).write(to: URL(fileURLWithPath: path))
        return b
    }
}

/// A fresh temporary folder per test, removed at the end.
final class TempDir {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "etude-store-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The repository and the `etude` binary that CLI tests run (`make test` builds it first).
enum Repo {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var etude: String { root.appendingPathComponent(".build/debug/etude").path }

    /// Runs etude to completion and returns (status, stdout, stderr).
    static func run(_ args: [String], environment: [String: String] = [:]) throws -> (Int32, String, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: etude)
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["ETUDE_LESSONS"] = "/nonexistent-etude-lessons"
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
}

func utc() -> Calendar {
    var c = Calendar(identifier: .gregorian)
    c.timeZone = TimeZone(identifier: "UTC") ?? c.timeZone
    return c
}

func date(_ s: String) -> Date {
    let f = ISO8601DateFormatter()
    return f.date(from: s) ?? Date(timeIntervalSince1970: 0)
}
