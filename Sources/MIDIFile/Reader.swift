import Dispatch

/// Something the reader repaired or skipped. Never silent: every recovery is one of these.
public struct MIDIWarning: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Byte offset in the file where the problem was found (nil when it concerns no single byte,
    /// e.g. a note that was never released).
    public var offset: Int?
    public var message: String

    public init(offset: Int?, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String {
        if let offset { return "byte \(offset): \(message)" }
        return message
    }
}

/// A file that cannot be read at all, or (in strict mode) any repair the reader would make.
public struct MIDIReadError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case emptyFile
        case notMIDI
        case truncatedHeader
        /// Strict mode refused a recoverable problem.
        case strict
    }

    public var kind: Kind
    public var offset: Int
    public var message: String

    public init(kind: Kind, offset: Int, message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    /// One line, without the program or file prefix: `not a MIDI file (no MThd header at byte 0)`.
    public var description: String { message }
}

/// What the reader returns: the file plus everything it had to repair.
public struct MIDIReadResult: Sendable {
    public var file: MIDIFile
    public var warnings: [MIDIWarning]

    /// For readers of other formats (ABC) that produce a MIDIFile with warnings of their own.
    public init(file: MIDIFile, warnings: [MIDIWarning]) {
        self.file = file
        self.warnings = warnings
    }
}

/// A lenient Standard MIDI File reader over a byte buffer.
///
/// Real files are often broken; the reader keeps every event it can, reports each repair as a
/// warning with its byte offset, and only fails on files with no usable header. It never
/// allocates more than the file's own size, whatever the length fields claim.
public enum MIDIReader {
    /// Where event `event` of track `track` starts in `bytes` (which a file was read from): the
    /// offset of its delta time, or the track's end for an End of Track the reader added. The
    /// reader keeps no offsets per event (it is tuned to allocate nothing per event), so this
    /// reads that one track again: for the rare warning that concerns an event found after
    /// reading, such as a note never released. Nil when there is no such event.
    public static func offset(ofEvent event: Int, inTrack track: Int, of bytes: [UInt8]) -> Int? {
        guard event >= 0, track >= 0 else { return nil }
        var parser = Parser(strict: false)
        parser.locate = (track, event)
        _ = bytes.withUnsafeBufferPointer { buffer in try? parser.parseFile(buffer) }
        return parser.located
    }

    public static func read(_ bytes: [UInt8], strict: Bool = false) throws(MIDIReadError) -> MIDIReadResult {
        try read(bytes, strict: strict, fastPath: true)
    }

    /// `fastPath: false` reads every event the general way: tests check both ways agree.
    static func read(_ bytes: [UInt8], strict: Bool, fastPath: Bool) throws(MIDIReadError) -> MIDIReadResult {
        var parser = Parser(strict: strict)
        parser.fastPath = fastPath
        let result: Result<MIDIFile, MIDIReadError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(MIDIReadError) {
                return .success(try parser.parseFile(buffer))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let file): return MIDIReadResult(file: file, warnings: parser.warnings)
        case .failure(let error): throw error
        }
    }
}

extension MIDIReader {
    /// Which parameter data byte `index` of a channel message is, for warnings.
    static func parameterName(_ status: UInt8, _ index: Int) -> String {
        switch (status & 0xF0, index) {
        case (0x80, 0): return "note-off key"
        case (0x80, _): return "note-off velocity"
        case (0x90, 0): return "note-on key"
        case (0x90, _): return "note-on velocity"
        case (0xA0, 0): return "poly pressure key"
        case (0xA0, _): return "poly pressure value"
        case (0xB0, 0): return "controller number"
        case (0xB0, _): return "controller value"
        case (0xC0, _): return "program"
        case (0xD0, _): return "channel pressure"
        case (0xE0, 0): return "pitch bend low 7 bits"
        default: return "pitch bend high 7 bits"
        }
    }
}

private func hex(_ b: UInt8) -> String {
    func digit(_ n: UInt8) -> UInt8 { n < 10 ? 0x30 + n : 0x37 + n }
    return String(decoding: [0x30, 0x78, digit(b >> 4), digit(b & 0xF)], as: UTF8.self)
}

private func fourCC(_ buf: UnsafeBufferPointer<UInt8>, _ p: Int) -> String {
    var s = ""
    for i in p..<min(p + 4, buf.count) {
        let b = buf[i]
        s.append(b >= 0x20 && b < 0x7F ? Character(Unicode.Scalar(b)) : "?")
    }
    return s
}

/// A buffer pointer handed to worker threads that each touch a disjoint part of it.
private struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

private struct Parser {
    let strict: Bool
    /// Runs of plain channel messages are read by a tight loop (see `parseBody`).
    var fastPath = true
    var warnings: [MIDIWarning] = []
    /// Set by `MIDIReader.offset(ofEvent:inTrack:of:)`: parse only this track, up to this event,
    /// and put the event's offset in `located`.
    var locate: (track: Int, event: Int)?
    var located: Int?
    /// Bytes the bad-data-byte repairs may still read ahead in this track (see `badDataByte`).
    var lookaheadBudget = 0

    init(strict: Bool) {
        self.strict = strict
    }

    mutating func warn(_ offset: Int, _ message: String) throws(MIDIReadError) {
        if strict {
            throw MIDIReadError(kind: .strict, offset: offset, message: "\(message) at byte \(offset) (strict mode)")
        }
        warnings.append(MIDIWarning(offset: offset, message: message))
    }

    /// Files at least this big, with several tracks, parse their tracks on all cores.
    static let parallelThreshold = 256 * 1024

    static func u32(_ buf: UnsafeBufferPointer<UInt8>, _ p: Int) -> Int {
        Int(buf[p]) << 24 | Int(buf[p + 1]) << 16 | Int(buf[p + 2]) << 8 | Int(buf[p + 3])
    }

    static func u32le(_ buf: UnsafeBufferPointer<UInt8>, _ p: Int) -> Int {
        Int(buf[p]) | Int(buf[p + 1]) << 8 | Int(buf[p + 2]) << 16 | Int(buf[p + 3]) << 24
    }

    /// True when the 4 bytes at `p` are printable ASCII, as chunk IDs are.
    static func printableID(_ buf: UnsafeBufferPointer<UInt8>, _ p: Int) -> Bool {
        guard p + 4 <= buf.count else { return false }
        return (0..<4).allSatisfy { buf[p + $0] >= 0x20 && buf[p + $0] < 0x7F }
    }

    static func matches(_ buf: UnsafeBufferPointer<UInt8>, _ p: Int, _ tag: StaticString) -> Bool {
        let n = tag.utf8CodeUnitCount
        guard p + n <= buf.count else { return false }
        let t = tag.utf8Start
        for i in 0..<n where buf[p + i] != t[i] { return false }
        return true
    }

    mutating func parseFile(_ buf: UnsafeBufferPointer<UInt8>) throws(MIDIReadError) -> MIDIFile {
        guard buf.count > 0 else {
            throw MIDIReadError(kind: .emptyFile, offset: 0, message: "empty file (0 bytes)")
        }
        var start = 0
        var end = buf.count
        if Self.matches(buf, 0, "RIFF") {
            guard let (dataStart, dataEnd) = try riffData(buf) else {
                throw MIDIReadError(kind: .notMIDI, offset: 0, message: "not a MIDI file (RIFF file without an RMID data chunk)")
            }
            start = dataStart
            end = dataEnd
        }
        guard Self.matches(buf, start, "MThd") else {
            throw MIDIReadError(kind: .notMIDI, offset: start, message: "not a MIDI file (no MThd header at byte \(start))")
        }
        guard end - start >= 14 else {
            throw MIDIReadError(kind: .truncatedHeader, offset: start,
                                message: "truncated header (\(end - start) bytes, a MIDI header needs 14)")
        }
        let headerLength = Self.u32(buf, start + 4)
        guard headerLength >= 6 else {
            throw MIDIReadError(kind: .truncatedHeader, offset: start + 4,
                                message: "truncated header (header length \(headerLength), needs 6)")
        }
        let format = Int(buf[start + 8]) << 8 | Int(buf[start + 9])
        let declaredTracks = Int(buf[start + 10]) << 8 | Int(buf[start + 11])
        let hi = buf[start + 12], lo = buf[start + 13]
        var division: Division
        if hi & 0x80 != 0 {
            let fps = -Int(Int8(bitPattern: hi))
            division = .smpte(fps: fps, ticksPerFrame: Int(lo))
            if ![24, 25, 29, 30].contains(fps) {
                try warn(start + 12, "unusual SMPTE frame rate \(fps) fps")
            }
            if lo == 0 { try warn(start + 13, "SMPTE division with 0 ticks per frame: timing treats it as 1") }
        } else {
            let tpq = Int(hi) << 8 | Int(lo)
            division = .ticksPerQuarter(tpq)
            if tpq == 0 { try warn(start + 12, "division of 0 ticks per quarter: timing treats it as 1") }
        }
        if format > 2 {
            try warn(start + 8, "unknown format \(format): read as format 1")
        }
        var p = start + 8 + headerLength
        if headerLength != 6 {
            try warn(start + 4, "header length \(headerLength) (expected 6): extra header bytes skipped")
            if p > end {
                try warn(start + 4, "header length \(headerLength) runs past end of file")
                p = end
            }
        }

        // First walk the chunk headers (cheap), then parse the track bodies: in parallel when
        // the file is big enough for threads to pay off. Warnings keep file order either way.
        enum Step { case warning(MIDIWarning), track(start: Int, end: Int) }
        var steps: [Step] = []
        var leadsToChunk = 0  // unprintable chunks before this offset are known to lead to a real one
        while p < end {
            let remaining = end - p
            if remaining < 8 {
                steps.append(.warning(MIDIWarning(offset: p, message: "\(remaining) trailing byte\(remaining == 1 ? "" : "s") at end of file ignored")))
                break
            }
            let isTrack = Self.matches(buf, p, "MTrk")
            let length = Self.u32(buf, p + 4)
            // A chunk whose ID is not printable text is still skipped by its length when that
            // fits the file and such chunks lead to one with a printable ID (an MTrk, usually);
            // anything else from here on is trailing garbage. The chain is walked once.
            if !isTrack && p >= leadsToChunk && !Self.printableID(buf, p) {
                var q = p
                while q + 8 <= end && !Self.printableID(buf, q) {
                    let l = Self.u32(buf, q + 4)
                    guard l <= end - q - 8 else { break }
                    q += 8 + l
                }
                guard q + 8 <= end && Self.printableID(buf, q) else {
                    steps.append(.warning(MIDIWarning(offset: p, message: "\(remaining) trailing bytes at end of file ignored")))
                    break
                }
                leadsToChunk = q
            }
            let bodyStart = p + 8
            var bodyEnd = bodyStart + length
            if bodyEnd > end {
                steps.append(.warning(MIDIWarning(offset: p + 4, message: "chunk '\(fourCC(buf, p))' length \(length) runs past end of file; clamped to \(end - bodyStart) bytes")))
                bodyEnd = end
            }
            if isTrack {
                steps.append(.track(start: bodyStart, end: bodyEnd))
            } else {
                steps.append(.warning(MIDIWarning(offset: p, message: "unknown chunk '\(fourCC(buf, p))' (\(length) bytes) skipped")))
            }
            p = bodyEnd
        }

        let ranges: [(start: Int, end: Int)] = steps.compactMap { if case .track(let s, let e) = $0 { return (s, e) } else { return nil } }
        if let (t, event) = locate {
            guard ranges.indices.contains(t) else { return MIDIFile(format: format, division: division, tracks: []) }
            var sub = Parser(strict: false)
            _ = try? sub.parseTrack(buf, from: ranges[t].start, to: ranges[t].end, index: t, locate: event)
            located = sub.located
            return MIDIFile(format: format, division: division, tracks: [])
        }
        var parsed = [Result<(Track, [MIDIWarning]), MIDIReadError>](repeating: .success((Track(), [])), count: ranges.count)
        let strict = self.strict, fastPath = self.fastPath
        let input = Unchecked(buf)
        let parseOne: @Sendable (Int) -> Result<(Track, [MIDIWarning]), MIDIReadError> = { i in
            let buf = input.value
            var sub = Parser(strict: strict)
            sub.fastPath = fastPath
            do throws(MIDIReadError) {
                let track = try sub.parseTrack(buf, from: ranges[i].start, to: ranges[i].end, index: i)
                return .success((track, sub.warnings))
            } catch {
                return .failure(error)
            }
        }
        if ranges.count > 1 && end - start >= Self.parallelThreshold {
            parsed.withUnsafeMutableBufferPointer { out in
                // Each iteration writes only its own slot.
                let slots = Unchecked(out)
                DispatchQueue.concurrentPerform(iterations: ranges.count) { i in slots.value[i] = parseOne(i) }
            }
        } else {
            for i in ranges.indices { parsed[i] = parseOne(i) }
        }

        var tracks: [Track] = []
        tracks.reserveCapacity(ranges.count)
        for step in steps {
            switch step {
            case .warning(let w):
                try warn(w.offset ?? 0, w.message)
            case .track:
                switch parsed[tracks.count] {
                case .success(let (track, trackWarnings)):
                    warnings.append(contentsOf: trackWarnings)
                    tracks.append(track)
                case .failure(let error):
                    throw error
                }
            }
        }
        if tracks.count != declaredTracks {
            let more = tracks.count > declaredTracks
            try warn(start + 10, "header declares \(declaredTracks) track\(declaredTracks == 1 ? "" : "s") but the file has \(tracks.count)\(more ? "; all were read" : "")")
        }
        if format == 0 && tracks.count > 1 {
            try warn(start + 8, "format 0 file with \(tracks.count) tracks")
        }
        return MIDIFile(format: format, division: division, tracks: tracks)
    }

    /// Finds the SMF inside a RIFF RMID wrapper.
    mutating func riffData(_ buf: UnsafeBufferPointer<UInt8>) throws(MIDIReadError) -> (Int, Int)? {
        guard buf.count >= 12, Self.matches(buf, 8, "RMID") else { return nil }
        var p = 12
        while p + 8 <= buf.count {
            let length = Self.u32le(buf, p + 4)
            if Self.matches(buf, p, "data") {
                let s = p + 8
                var e = s + length
                if e > buf.count {
                    try warn(p + 4, "RIFF data chunk length \(length) runs past end of file; clamped")
                    e = buf.count
                }
                try warn(0, "RIFF RMID wrapper: read the MIDI data at byte \(s)")
                return (s, e)
            }
            p += 8 + length + (length & 1)
        }
        return nil
    }

    /// Reads a variable-length quantity; nil if it runs off the end of the chunk.
    static func vlq(_ buf: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ end: Int) -> Int? {
        var value = 0
        var count = 0
        while p < end {
            let b = buf[p]
            p += 1
            count += 1
            value = (value << 7) | Int(b & 0x7F)
            if b & 0x80 == 0 { return value }
            if count == 4 { return value }  // a fifth byte is never valid; stop here
        }
        return nil
    }

    /// Parses one track body. With `locate`, stops once event `locate` is read and puts its
    /// offset in `located`.
    ///
    /// The events are written straight into the track's array, allocated with room for events
    /// of about three bytes each. A track of denser events fills it and is read again into room
    /// for the most it can hold: half the body's length plus the End of Track the reader may add,
    /// since every event takes at least two bytes (a delta and a data byte in running status),
    /// except one of a single status byte read after a message dropped for a status byte where
    /// a data byte was expected, and that message took at least one byte without making an event.
    mutating func parseTrack(_ buf: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, index: Int, locate: Int = Int.max) throws(MIDIReadError) -> Track {
        let length = end - start
        let warningsBefore = warnings.count
        var events: [MIDIEvent] = []
        // Room for events of three bytes (a delta and two data bytes in running status), then,
        // for the rare track of denser events, room for the most there can be.
        for capacity in [length / 3 + length / 32 + 16, length / 2 + 2] {
            var failure: MIDIReadError?
            var full = false
            events = [MIDIEvent](unsafeUninitializedCapacity: capacity) { buffer, count in
                guard let base = buffer.baseAddress else { return }
                var out = EventBuffer(base: base, capacity: buffer.count)
                do throws(MIDIReadError) {
                    try parseBody(buf, from: start, to: end, index: index, locate: locate, into: &out)
                } catch {
                    failure = error
                }
                full = out.full
                count = out.count
            }
            if let failure { throw failure }
            guard full else { break }
            warnings.removeSubrange(warningsBefore...)  // read again from the start, with room
        }
        return Track(events: events)
    }

    /// Events written in place into an array's uninitialised storage. When it is full the
    /// reading stops (`parseBody` checks `full` before each event) and starts again with more
    /// room.
    struct EventBuffer {
        let base: UnsafeMutablePointer<MIDIEvent>
        let capacity: Int
        var count = 0
        var full: Bool { count >= capacity }

        @inline(__always)
        mutating func append(_ event: MIDIEvent) {
            precondition(count < capacity, "an event past the room of a track")
            (base + count).initialize(to: event)
            count += 1
        }

        /// The events so far.
        var written: UnsafeBufferPointer<MIDIEvent> { UnsafeBufferPointer(start: base, count: count) }
    }

    mutating func parseBody(_ buf: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, index: Int, locate: Int, into events: inout EventBuffer) throws(MIDIReadError) {
        lookaheadBudget = 16 * (end - start) + (1 << 20)
        var p = start
        var tick = 0
        var running: UInt8 = 0
        var runningCancelled = false
        var sawEnd = false
        var skipDelta = false
        var eventStart = start

        let locating = locate < Int.max
        parsing: while p < end {
            // Fast path: runs of channel messages with a delta of one or two bytes, a status (or
            // running status, not after a meta or sysex event) and all their data bytes. Anything
            // else (and anything needing a warning) is read one event at a time below.
            if fastPath && !locating && !skipDelta {
                var q = p
                var t = tick
                var rs = running
                var usable = runningCancelled ? 0 : 0x80  // running status needs no warning
                fast: while end - q >= 5 && events.count < events.capacity {
                    let d0 = buf[q]
                    var r = q + 1
                    if d0 < 0x80 {
                        t &+= Int(d0)
                    } else {
                        let d1 = buf[r]
                        guard d1 < 0x80 else { break fast }
                        t &+= Int(d0 & 0x7F) << 7 | Int(d1)
                        r += 1
                    }
                    var s = buf[r]
                    if s >= 0x80 {
                        guard s < 0xF0 else { break fast }
                        r += 1
                    } else {
                        guard Int(rs) & usable != 0 else { break fast }
                        s = rs
                    }
                    let a = buf[r]
                    let channel = s & 0x0F
                    let kind: MIDIEvent.Kind
                    if s & 0xE0 == 0xC0 {
                        guard a < 0x80 else { break fast }
                        r += 1
                        kind = s < 0xD0 ? .programChange(channel: channel, program: a) : .channelPressure(channel: channel, pressure: a)
                    } else {
                        let b = buf[r + 1]
                        guard (a | b) < 0x80 else { break fast }
                        r += 2
                        // Tests in order of how common the kinds are (a jump table mispredicts).
                        if s & 0xF0 == 0x90 {
                            kind = .noteOn(channel: channel, key: a, velocity: b)
                        } else if s < 0x90 {
                            kind = .noteOff(channel: channel, key: a, velocity: b)
                        } else if s & 0xF0 == 0xB0 {
                            kind = .controlChange(channel: channel, controller: a, value: b)
                        } else if s >= 0xE0 {
                            kind = .pitchBend(channel: channel, value: UInt16(a) | UInt16(b) << 7)
                        } else {
                            kind = .polyPressure(channel: channel, key: a, pressure: b)
                        }
                    }
                    events.append(MIDIEvent(tick: t, kind))
                    rs = s
                    usable = 0x80
                    q = r
                    tick = t
                }
                if q != p {
                    p = q
                    running = rs
                    runningCancelled = false
                    continue parsing
                }
            }
            if events.count > locate { break }  // each pass adds at most one event, from eventStart
            if events.full { return }
            eventStart = p
            if !skipDelta && buf[p] < 0x80 {
                tick += Int(buf[p])  // one-byte delta: the common case
                p += 1
            } else if !skipDelta {
                guard let delta = Self.vlq(buf, &p, end) else {
                    try warn(eventStart, "track \(index + 1) ends inside a delta time")
                    break
                }
                if p - eventStart == 4 && buf[p - 1] & 0x80 != 0 {
                    tick += try overlongDelta(buf, &p, end, firstFour: delta, at: eventStart)
                } else {
                    tick += delta
                }
            }
            skipDelta = false
            guard p < end else {
                try warn(eventStart, "track \(index + 1) ends after a delta time with no event")
                break
            }
            var status = buf[p]
            if status >= 0x80 {
                p += 1
            } else {
                guard running != 0 else {
                    try skipOrphanData(buf, &p, end, index: index)
                    continue
                }
                if runningCancelled {
                    try warn(p, "running status used after a meta or sysex event (accepted)")
                    runningCancelled = false
                }
                status = running
            }

            switch status {
            case 0x80...0xEF:
                running = status
                runningCancelled = false
                let count = (status & 0xF0 == 0xC0 || status & 0xF0 == 0xD0) ? 1 : 2
                var data: (UInt8, UInt8) = (0, 0)
                var got = 0
                // Fast path: the data bytes are all there and all data bytes.
                if p + 2 <= end {
                    let b0 = buf[p], b1 = buf[p + 1]
                    if count == 2 && (b0 | b1) & 0x80 == 0 {
                        data = (b0, b1); got = 2; p += 2
                    } else if count == 1 && b0 & 0x80 == 0 {
                        data.0 = b0; got = 1; p += 1
                    }
                }
                while got < count {
                    guard p < end else {
                        try warn(eventStart, "track \(index + 1) ends inside a \(hex(status)) message")
                        break parsing
                    }
                    var b = buf[p]
                    if b >= 0x80 {
                        switch badDataByte(buf, p, end, status: status, got: got, first: data.0, events: events.written) {
                        case .clip:
                            try warn(p, "data byte \(hex(b)) in a \(hex(status)) message (\(MIDIReader.parameterName(status, got))) is not 0–127: clipped to 127")
                            b = 0x7F
                        case .skipRealtime:
                            try warn(p, "realtime byte \(hex(b)) inside a message skipped")
                            p += 1
                            continue
                        case .nextStatus:
                            try warn(p, "status byte \(hex(b)) where a data byte was expected: \(hex(status)) message dropped")
                            skipDelta = true
                            continue parsing
                        }
                    }
                    if got == 0 { data.0 = b } else { data.1 = b }
                    got += 1
                    p += 1
                }
                let channel = status & 0x0F
                let kind: MIDIEvent.Kind
                switch status & 0xF0 {
                case 0x80: kind = .noteOff(channel: channel, key: data.0, velocity: data.1)
                case 0x90: kind = .noteOn(channel: channel, key: data.0, velocity: data.1)
                case 0xA0: kind = .polyPressure(channel: channel, key: data.0, pressure: data.1)
                case 0xB0: kind = .controlChange(channel: channel, controller: data.0, value: data.1)
                case 0xC0: kind = .programChange(channel: channel, program: data.0)
                case 0xD0: kind = .channelPressure(channel: channel, pressure: data.0)
                default: kind = .pitchBend(channel: channel, value: UInt16(data.0) | UInt16(data.1) << 7)
                }
                events.append(MIDIEvent(tick: tick, kind))

            case 0xFF:
                guard p < end else {
                    try warn(eventStart, "track \(index + 1) ends inside a meta event")
                    break parsing
                }
                let type = buf[p]
                p += 1
                var data = try payload(buf, &p, end, what: "meta event \(hex(type))", at: eventStart)
                if running != 0 { runningCancelled = true }
                if type == MetaType.endOfTrack && !data.isEmpty {
                    try warn(eventStart, "End of Track with \(data.count) data byte\(data.count == 1 ? "" : "s") (should have none): data ignored")
                    data = []
                } else if let problem = Self.metaProblem(type: type, data: data) {
                    try warn(eventStart, problem)
                }
                events.append(MIDIEvent(tick: tick, .meta(type: type, data: data)))
                if type == MetaType.endOfTrack {
                    sawEnd = true
                    if p < end {
                        try warn(p, "\(end - p) byte\(end - p == 1 ? "" : "s") after End of Track in track \(index + 1) ignored")
                    }
                    break parsing
                }

            case 0xF0, 0xF7:
                let data = try payload(buf, &p, end, what: status == 0xF0 ? "sysex" : "escape", at: eventStart)
                if running != 0 { runningCancelled = true }
                events.append(MIDIEvent(tick: tick, status == 0xF0 ? .sysex(data: data) : .escape(data: data)))

            default:
                // System common (F1–F6) and realtime (F8–FE) messages do not belong in files.
                let dataCount: Int
                switch status {
                case 0xF1, 0xF3: dataCount = 1
                case 0xF2: dataCount = 2
                default: dataCount = 0
                }
                var skipped = 0
                while skipped < dataCount && p < end && buf[p] < 0x80 {
                    p += 1
                    skipped += 1
                }
                try warn(eventStart, "illegal \(status >= 0xF8 ? "realtime" : "system common") message \(hex(status)) in a file: skipped")
            }
        }
        if locate < Int.max {
            if events.count > locate { located = eventStart } else if !sawEnd && events.count == locate { located = end }
            return
        }
        if !sawEnd {
            if events.full { return }
            try warn(end, "track \(index + 1) has no End of Track; added at tick \(tick)")
            events.append(MIDIEvent(tick: tick, .meta(type: MetaType.endOfTrack, data: [])))
        }
    }

    /// How a byte ≥ 0x80 met where a channel message expects a data byte is read.
    enum DataRepair { case clip, skipRealtime, nextStatus }

    /// Reads a byte ≥ 0x80 where a channel message (status `status`, `got` data bytes read,
    /// the first of them `first`) expects a data byte. `events` is the track so far.
    ///
    /// Real files carry such bytes mostly as damaged or overflowed parameters (a velocity of
    /// 200, a transposed key past 127) in messages of the right length, which mido (`clip=True`),
    /// FluidSynth and symusic all read in step. So the default is to keep the message in its
    /// place and clip the parameter to 127 (clip, not mask: an overflowed velocity or
    /// controller value meant "as much as possible"; it is also what mido's `clip=True` gives, so
    /// the two readers agree note for note). Two other readings are kept for what they explain
    /// better: a realtime byte (F8–FE) interleaved in the message as on a MIDI cable, or a
    /// message cut short with the next event's status here (its delta time lost too).
    ///
    /// Each reading is scored by the repairs it needs: its own, plus those a dry run of the
    /// track from there needs (see `dryRun`), up to where the two readings compared meet again
    /// (the same event start with the same running status: from there on they read alike, and
    /// damage further on must not count for one and not the other), or over the next
    /// `lookahead` bytes when they do not meet. The fewest wins, ties going to clipping. (A
    /// message cut short before a delta time of two bytes or more reads exactly like one with a
    /// bad last data byte, and is read as that.) A track with very many such bytes stops looking
    /// ahead once its budget is spent, and clips.
    mutating func badDataByte(_ buf: UnsafeBufferPointer<UInt8>, _ p: Int, _ end: Int, status: UInt8, got: Int, first: UInt8, events: UnsafeBufferPointer<MIDIEvent>) -> DataRepair {
        let b = buf[p]
        guard lookaheadBudget > 0 else { return .clip }
        let limit = min(end, p + Self.lookahead)
        let recent = min(events.count, Self.lookahead)
        lookaheadBudget -= 3 * Self.lookahead + recent
        // The notes sounding now, as far as the last events tell.
        var sounding = Sounding()
        for e in events[(events.count - recent)...] {
            switch e.kind {
            case .noteOn(let c, let k, let v) where v > 0: sounding.start(c, k)
            case .noteOn(let c, let k, _), .noteOff(let c, let k, _): _ = sounding.release(c, k)
            default: break
            }
        }
        let clipped: (UInt8, UInt8, UInt8, Int, Bool) = got == 0 ? (status, 0x7F, 0, 1, true) : (status, first, 0x7F, 2, false)
        var best = DataRepair.clip
        var bestRun = Self.dryRun(buf, p + 1, end, limit: limit, running: status, current: clipped, sounding: sounding,
                                  repeated: (status & 0xF0, got), base: 1)
        func consider(_ repair: DataRepair, _ run: DryRun) {
            let (mine, theirs) = run.costs(against: bestRun)
            if mine < theirs { best = repair; bestRun = run }
        }
        if b >= 0xF8 && b != 0xFF {
            consider(.skipRealtime, Self.dryRun(buf, p + 1, end, limit: limit, running: status, current: (status, first, 0, got, false), sounding: sounding, base: 2))
        }
        consider(.nextStatus, Self.dryRun(buf, p, end, limit: limit, running: status, current: nil, sounding: sounding, base: 3))
        return best
    }

    /// A meta event of a known type with a length it can have.
    static func plausibleMeta(_ type: UInt8, _ length: Int) -> Bool {
        switch type {
        case MetaType.sequenceNumber: return length == 0 || length == 2
        case 0x01...0x0F: return true
        case MetaType.channelPrefix, MetaType.port: return length == 1
        case MetaType.endOfTrack: return length == 0
        case MetaType.tempo: return length == 3
        case MetaType.smpteOffset: return length == 5
        case MetaType.timeSignature: return length == 4
        case MetaType.keySignature: return length == 2
        case MetaType.sequencerSpecific: return true
        default: return false
        }
    }

    /// Which keys are sounding on which channels (16 × 128 bits), for the dry runs.
    struct Sounding {
        var bits = [UInt64](repeating: 0, count: 32)
        mutating func start(_ c: UInt8, _ k: UInt8) {
            let i = Int(c & 0x0F) * 128 + Int(k & 0x7F)
            bits[i >> 6] |= 1 << UInt64(i & 63)
        }
        /// False when the key was not sounding.
        mutating func release(_ c: UInt8, _ k: UInt8) -> Bool {
            let i = Int(c & 0x0F) * 128 + Int(k & 0x7F)
            let mask: UInt64 = 1 << UInt64(i & 63)
            defer { bits[i >> 6] &= ~mask }
            return bits[i >> 6] & mask != 0
        }
    }

    /// A reading of a track's next bytes: the repairs it needed by each event start it passed
    /// (with the running status there), and in all.
    struct DryRun {
        var starts: [(at: Int, running: UInt8, cost: Int)] = []
        var total = 0

        /// This reading's cost and `other`'s, up to the first event start both pass with the
        /// same running status, or in all when there is none.
        func costs(against other: DryRun) -> (Int, Int) {
            var i = 0, j = 0
            while i < starts.count && j < other.starts.count {
                let a = starts[i], b = other.starts[j]
                if a.at == b.at && a.running == b.running { return (a.cost, b.cost) }
                if a.at < b.at || (a.at == b.at && a.running < b.running) { i += 1 } else { j += 1 }
            }
            return (total, other.total)
        }
    }

    /// How far a bad data byte's readings are compared when they do not meet: far enough for a
    /// reading out of step to meet a status byte, meta event or End of Track that shows it.
    static let lookahead = 512

    /// Reads a track from `q` on, up to the first event start at or past `limit`, counting the
    /// repairs the reading needs (`base` to begin with): first the rest of the `current`
    /// message (status, data bytes so far, how many, whether its key was clipped) when there is
    /// one, else an event's status at `q`; then events, each after its delta time. Nothing is kept: this only counts.
    ///
    /// A repair is what the reader would warn about (a data byte ≥ 0x80, running status after a
    /// meta or sysex event, a system message, a meta event of the wrong length, a delta time
    /// longer than 4 bytes), and what a reading out of step shows: a note released that is not
    /// sounding (it releases keys at random), a delta time padded with a leading 0x80 or of 3
    /// bytes or more (status bytes read as a delta), and packets that are not what they claim,
    /// since their lengths let a reading out of step jump over bytes: an unknown meta event, a
    /// control byte in a text event, a byte ≥ 0x80 in a sysex or one not ending with F7, long
    /// escapes, sequencer-specific and unknown meta events (one per 16 bytes). Bad bytes of
    /// the `repeated` parameter (status kind, data byte index) count once however many there
    /// are: a writer that did not clamp velocities does it on every note. Reading that breaks
    /// off (a length past the end, data with no status, the track ending inside an event) costs
    /// 1000: it loses to any reading that goes on, however damaged the bytes it reads.
    static func dryRun(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, limit: Int, running runningStatus: UInt8,
                       current: (status: UInt8, first: UInt8, second: UInt8, got: Int, keyClipped: Bool)?, sounding initial: Sounding,
                       repeated: (kind: UInt8, index: Int)? = nil, base: Int) -> DryRun {
        var run = DryRun()
        var q = start
        var running = runningStatus
        var sounding = initial
        var bad = base
        let brokenOff = 1000
        var runningCancelled = false
        var repeats = 0
        /// Reads the rest of a channel message and plays it on `sounding` (unless its key was
        /// clipped: that note's key is unknown).
        func finish(_ s: UInt8, _ first: UInt8, _ second: UInt8, _ got: Int, keyClipped: Bool = false) -> Bool {
            let count = (s & 0xF0 == 0xC0 || s & 0xF0 == 0xD0) ? 1 : 2
            var data = (first, second)
            var n = got
            var keyClipped = keyClipped
            while n < count {
                guard q < end else { return false }
                var b = buf[q]
                if b >= 0x80 {
                    if n == 0 { keyClipped = true }
                    if let r = repeated, r.kind == s & 0xF0, r.index == n {
                        if repeats == 0 { bad += 1 }
                        repeats += 1
                    } else {
                        bad += 1
                    }
                    b = 0x7F
                }
                if n == 0 { data.0 = b } else { data.1 = b }
                q += 1
                n += 1
            }
            switch s & 0xF0 {
            case _ where keyClipped: break
            case 0x90 where data.1 > 0: sounding.start(s, data.0)
            case 0x80, 0x90: if !sounding.release(s, data.0) { bad += 1 }
            default: break
            }
            return true
        }
        func done(_ extra: Int) -> DryRun {
            run.total = bad + extra
            return run
        }
        var needDelta = true
        if let c = current {
            guard finish(c.status, c.first, c.second, c.got, keyClipped: c.keyClipped) else { return done(brokenOff) }
        } else {
            needDelta = false
        }
        while q < limit || !needDelta {
            if needDelta {
                run.starts.append((q, running, bad))
                guard q < end else { return done(1) }  // no End of Track
                if buf[q] == 0x80 { bad += 1 }
                var n = 0
                while q < end && buf[q] & 0x80 != 0 && n < 4 { q += 1; n += 1 }
                if n >= 2 { bad += 1 }
                if n == 4 { bad += 1 } else { q += 1 }
                guard q < end else { return done(brokenOff) }
            }
            needDelta = true
            var s = buf[q]
            if s < 0x80 {
                guard running != 0 else { return done(brokenOff) }
                if runningCancelled { bad += 1 }
                s = running
            } else {
                q += 1
            }
            runningCancelled = false
            switch s {
            case 0x80...0xEF:
                running = s
                guard finish(s, 0, 0, 0) else { return done(brokenOff) }
            case 0xFF, 0xF0, 0xF7:
                var type: UInt8 = 0
                if s == 0xFF {
                    guard q < end else { return done(brokenOff) }
                    type = buf[q]
                    q += 1
                }
                guard let length = vlq(buf, &q, end), length <= end - q else { return done(brokenOff) }
                if s == 0xFF {
                    if !plausibleMeta(type, length) { bad += 1 }
                    if (0x01...0x0F).contains(type) {
                        // Text: control bytes are MIDI data read as text.
                        for i in q..<(q + length) where buf[i] < 0x20 && buf[i] != 0x09 && buf[i] != 0x0A && buf[i] != 0x0D { bad += 1 }
                    } else if type == MetaType.sequencerSpecific || !plausibleMeta(type, length) {
                        bad += length / 16
                    }
                } else if s == 0xF0 {
                    // A sysex holds data bytes and ends with F7.
                    if length == 0 || buf[q + length - 1] != 0xF7 { bad += 1 }
                    for i in q..<(q + max(0, length - 1)) where buf[i] >= 0x80 { bad += 1 }
                } else {
                    bad += 1 + length / 16  // escapes are rare
                }
                q += length
                runningCancelled = true
                if s == 0xFF && type == MetaType.endOfTrack {
                    return done(q == end ? 0 : 1)
                }
            default:
                bad += 1  // a system message does not belong in a file; skipped with its data
                var skip = s == 0xF2 ? 2 : (s == 0xF1 || s == 0xF3) ? 1 : 0
                while skip > 0 && q < end && buf[q] < 0x80 { q += 1; skip -= 1 }
            }
        }
        return done(0)
    }

    /// The largest delta time (or length) a 4-byte VLQ can hold.
    static let maxVLQ = 0x0FFF_FFFF

    /// The rest of a delta time whose first 4 bytes all had the high bit set (`p` is past them).
    ///
    /// A VLQ is never longer than 4 bytes, but some writers emit 5 for values of 2^28 and up.
    /// It is read on while the high bit is set, up to 8 bytes, and its value clamped to
    /// 0x0FFFFFFF (268435455, the largest delta a file can hold): timing after it stays as far
    /// out as the file meant, and the track can be written back. When no terminating byte comes
    /// within 8 bytes, or the byte after the first 4 starts an event and the byte after the
    /// longer reading does not, only the first 4 bytes are the delta (the next byte is read as
    /// the event's status). One warning either way.
    mutating func overlongDelta(_ buf: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ end: Int, firstFour: Int, at eventStart: Int) throws(MIDIReadError) -> Int {
        var k = p
        var value = firstFour
        while k < end && k - eventStart < 8 && buf[k] & 0x80 != 0 {
            value = min(Self.maxVLQ + 1, value << 7 | Int(buf[k] & 0x7F))
            k += 1
        }
        let terminated = k < end && k - eventStart < 8
        if terminated && (!Self.startsEvent(buf, p, end) || Self.startsEvent(buf, k + 1, end)) {
            value = min(Self.maxVLQ + 1, value << 7 | Int(buf[k]))
            p = k + 1
            let n = p - eventStart
            if value > Self.maxVLQ {
                try warn(eventStart, "delta time of \(n) bytes (at most 4 are allowed): clamped to \(Self.maxVLQ) ticks")
                return Self.maxVLQ
            }
            try warn(eventStart, "delta time of \(n) bytes (at most 4 are allowed): read as \(value) ticks")
            return value
        }
        try warn(eventStart, "delta time longer than 4 bytes: the first 4 read as \(firstFour) ticks")
        return firstFour
    }

    /// True when an event could start at `j`: a channel status followed by its data bytes, a
    /// meta event (`FF` and a type byte) or a sysex/escape packet (`F0`/`F7` and a length).
    static func startsEvent(_ buf: UnsafeBufferPointer<UInt8>, _ j: Int, _ end: Int) -> Bool {
        guard j < end else { return false }
        let s = buf[j]
        switch s {
        case 0x80...0xEF:
            let n = (s & 0xF0 == 0xC0 || s & 0xF0 == 0xD0) ? 1 : 2
            guard j + n < end else { return false }
            return buf[j + 1] < 0x80 && (n == 1 || buf[j + 2] < 0x80)
        case 0xFF:
            return j + 1 < end && buf[j + 1] < 0x80
        case 0xF0, 0xF7:
            return j + 1 < end
        default:
            return false
        }
    }

    /// A data byte at `p` where an event's status was expected, with no running status to use
    /// (at the start of a track, or after sysex/meta events before any channel message).
    ///
    /// The data bytes from `p` on are a run of stray bytes followed by the next event's delta
    /// time: the reader looks for the first place where a delta (the data byte just before a
    /// status byte, or a multi-byte VLQ starting at a byte ≥ 0x80) is followed by a byte that
    /// starts an event, skips the bytes before that delta with one warning, and reads on from the
    /// delta. A lone data byte right before an event is read as a second delta time. With no
    /// such place, the rest of the track is skipped.
    mutating func skipOrphanData(_ buf: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ end: Int, index: Int) throws(MIDIReadError) {
        let q = p
        var resume = end
        var j = q + 1
        search: while j < end {
            // Only a byte ≥ 0x80 right after a data byte can end a delta or start one.
            if buf[j] < 0x80 || buf[j - 1] >= 0x80 { j += 1; continue }
            if Self.startsEvent(buf, j, end) {
                resume = j - 1  // one-byte delta
                break search
            }
            var k = j
            while k < end && k - j < 4 && buf[k] & 0x80 != 0 { k += 1 }
            if k < end && k - j < 4 && Self.startsEvent(buf, k + 1, end) {
                resume = j  // multi-byte delta
                break search
            }
            j += 1
        }
        p = resume
        let n = resume - q
        if n == 0 {
            try warn(q, "data byte \(hex(buf[q])) where an event was expected, with no running status: read as a second delta time")
        } else if resume == end {
            try warn(q, "\(n) byte\(n == 1 ? "" : "s") from data byte \(hex(buf[q])) with no running status skipped to the end of track \(index + 1)")
        } else if n == 1 {
            try warn(q, "data byte \(hex(buf[q])) with no running status: skipped")
        } else {
            try warn(q, "\(n) bytes from data byte \(hex(buf[q])) to \(hex(buf[resume - 1])) with no running status: skipped")
        }
    }

    /// What is wrong with a meta event's payload, if anything (End of Track is checked apart).
    /// The event is kept as it is either way; decoding (`MetaEvent`, the tempo map) ignores
    /// what it cannot use.
    static func metaProblem(type: UInt8, data: [UInt8]) -> String? {
        func length(_ what: String, _ expected: String) -> String {
            "\(what) with \(data.count) data byte\(data.count == 1 ? "" : "s") (should be \(expected))"
        }
        switch type {
        case MetaType.sequenceNumber:
            return data.count == 0 || data.count == 2 ? nil : length("sequence number", "0 or 2")
        case MetaType.channelPrefix:
            return data.count == 1 ? nil : length("channel prefix", "1")
        case MetaType.port:
            return data.count == 1 ? nil : length("port", "1")
        case MetaType.tempo:
            if data.count < 3 { return length("tempo", "3") + ": ignored" }
            if data.count > 3 { return length("tempo", "3") + ": the first 3 used" }
            if data[0] == 0 && data[1] == 0 && data[2] == 0 { return "tempo of 0 microseconds per quarter note: ignored" }
            return nil
        case MetaType.smpteOffset:
            return data.count == 5 ? nil : length("SMPTE offset", "5")
        case MetaType.timeSignature:
            return data.count == 4 ? nil : length("time signature", "4")
        case MetaType.keySignature:
            if data.count != 2 { return length("key signature", "2") }
            let sharps = Int(Int8(bitPattern: data[0]))
            if !(-7...7).contains(sharps) { return "key signature with \(sharps) sharps (should be -7 to 7)" }
            if data[1] > 1 { return "key signature with mode \(data[1]) (should be 0 for major or 1 for minor)" }
            return nil
        default:
            return nil
        }
    }

    /// Reads a VLQ length and that many bytes, clamping to the chunk so a bogus length
    /// never allocates beyond the file.
    /// `what` names the event in warnings (built only when there is one).
    mutating func payload(_ buf: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ end: Int, what: @autoclosure () -> String, at eventStart: Int) throws(MIDIReadError) -> [UInt8] {
        let lengthAt = p
        guard var length = Self.vlq(buf, &p, end) else {
            try warn(eventStart, "track ends inside the length of a \(what())")
            return []
        }
        if p - lengthAt == 4 && buf[p - 1] & 0x80 != 0 {
            // Longer than 4 bytes, as for delta times: read on while the high bit is set (up to
            // 8 bytes) so no byte of the length is taken for data; the value is clamped.
            var k = p
            var value = length
            while k < end && k - lengthAt < 8 && buf[k] & 0x80 != 0 {
                value = min(Self.maxVLQ + 1, value << 7 | Int(buf[k] & 0x7F))
                k += 1
            }
            if k < end && k - lengthAt < 8 {
                value = min(Self.maxVLQ, value << 7 | Int(buf[k] & 0x7F))
                p = k + 1
                length = value
                try warn(lengthAt, "\(what()) length of \(p - lengthAt) bytes (at most 4 are allowed): read as \(length)")
            } else {
                try warn(lengthAt, "\(what()) length longer than 4 bytes: the first 4 read as \(length)")
            }
        }
        if length > end - p {
            try warn(lengthAt, "\(what()) length \(length) runs past end of track; clamped to \(end - p) bytes")
            length = end - p
        }
        let data = Array(UnsafeBufferPointer(rebasing: buf[p..<(p + length)]))
        p += length
        return data
    }
}
