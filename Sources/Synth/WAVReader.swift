import Foundation

/// A WAV or RF64 file's header, every number checked before it is used: the sample rate
/// (8 kHz–384 kHz), the channels (1–64), the sample encoding and its bit depth, the block
/// alignment, and every chunk size against the file's length (a data chunk longer than the file,
/// as a recorder cut off leaves, is the part the file holds; an RF64 `ds64` size of 2⁶³ is the
/// same). Read with bounded reads (`read(offset, count)`), so a recording's samples are then
/// decoded a block at a time (`WAVSamples`) in bounded memory whatever its length.
public struct WAVHeader: Sendable, Equatable {
    /// How samples are stored.
    public enum Encoding: Sendable, Equatable {
        /// Integer PCM: 8-bit unsigned, 16/24/32-bit signed.
        case pcm(bits: Int)
        /// IEEE float, 32 or 64 bits.
        case float(bits: Int)
        /// G.711 µ-law or A-law, 8 bits.
        case muLaw, aLaw

        public var bytesPerSample: Int {
            switch self {
            case .pcm(let bits), .float(let bits): return bits / 8
            case .muLaw, .aLaw: return 1
            }
        }

        /// "16-bit PCM", "32-bit float", "µ-law".
        public var name: String {
            switch self {
            case .pcm(let bits): return "\(bits)-bit PCM"
            case .float(let bits): return "\(bits)-bit float"
            case .muLaw: return "µ-law"
            case .aLaw: return "A-law"
            }
        }
    }

    public var sampleRate: Int
    public var channels: Int
    public var encoding: Encoding
    /// Where the samples start in the file.
    public var dataOffset: Int
    /// The samples' bytes the file holds (whole frames).
    public var dataBytes: Int
    /// The samples' size the header gives when the file holds fewer (a recording cut off part
    /// way: a full disk, a crash, a copy interrupted); nil when the file holds them all.
    public var promisedDataBytes: Int?

    public var bytesPerFrame: Int { channels * encoding.bytesPerSample }
    public var frameCount: Int { dataBytes / bytesPerFrame }
    public var seconds: Double { Double(frameCount) / Double(sampleRate) }

    public static let sampleRates = 8_000...384_000
    public static let channelRange = 1...64
    /// More chunks than this before the samples is not a recording.
    static let maxChunks = 10_000

    /// Parses the header of a file of `length` bytes, reading it through `read(offset, count)`
    /// (which returns at most `count` bytes, fewer at the end). Throws one line: "not a WAV
    /// file", "unsupported: ADPCM (format 2)", "sample rate 12300000 Hz is outside 8 kHz–384 kHz"…
    public init(length: Int, read: (Int, Int) throws -> [UInt8]) throws(SynthError) {
        func bytes(_ offset: Int, _ count: Int) throws(SynthError) -> [UInt8] {
            do { return try read(offset, count) } catch { throw SynthError("cannot be read (\(error))") }
        }
        func u16(_ b: [UInt8], _ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 }
        func u32(_ b: [UInt8], _ o: Int) -> UInt64 { UInt64(u16(b, o)) | UInt64(u16(b, o + 2)) << 16 }
        func u64(_ b: [UInt8], _ o: Int) -> UInt64 { u32(b, o) | u32(b, o + 4) << 32 }
        let head = try bytes(0, 12)
        guard head.count == 12, head[0..<4].elementsEqual("RIFF".utf8) || head[0..<4].elementsEqual("RF64".utf8),
              head[8..<12].elementsEqual("WAVE".utf8) else {
            throw SynthError("not a WAV file")
        }
        var offset = 12
        var format: (tag: Int, channels: Int, rate: UInt64, align: Int, bits: Int)?
        var data: (offset: Int, bytes: UInt64)?
        var ds64Data: UInt64?
        var promised: UInt64?
        var chunks = 0
        while offset + 8 <= length, data == nil || format == nil {
            chunks += 1
            guard chunks <= Self.maxChunks else { throw SynthError("more than \(Self.maxChunks) chunks before the samples") }
            let h = try bytes(offset, 8)
            guard h.count == 8 else { break }
            let id = String(decoding: h[0..<4], as: UTF8.self)
            var size = u32(h, 4)
            let body = offset + 8
            let left = UInt64(length - body)
            switch id {
            case "ds64":
                guard size >= 24, size <= left else { throw SynthError("its ds64 chunk is cut short") }
                let b = try bytes(body, 24)
                guard b.count == 24 else { throw SynthError("its ds64 chunk is cut short") }
                ds64Data = u64(b, 8)
            case "fmt ":
                guard size >= 16, size <= left else { throw SynthError("its fmt chunk is cut short") }
                let b = try bytes(body, Int(min(size, 40)))
                guard b.count >= 16 else { throw SynthError("its fmt chunk is cut short") }
                var tag = u16(b, 0)
                if tag == 0xFFFE {
                    guard b.count >= 26 else { throw SynthError("its extensible fmt chunk is cut short") }
                    tag = u16(b, 24)
                }
                format = (tag, u16(b, 2), u32(b, 4), u16(b, 12), u16(b, 14))
            case "data":
                if size == 0xFFFF_FFFF, let big = ds64Data { size = big }
                // A recording cut off (or a size of 2⁶³) holds what the file holds; a size a
                // streaming writer leaves as a placeholder (0xFFFFFFFF) promised nothing.
                data = (body, min(size, left))
                if size > left, size < 0xFFFF_FFF0 { promised = size }
            default:
                break
            }
            guard size <= left else { break }
            offset = body + Int(size) + Int(size & 1)
        }
        guard let format else { throw SynthError("no fmt chunk (the sample format)") }
        guard let data else { throw SynthError("no data chunk (the samples)") }
        switch format.tag {
        case 1:
            guard [8, 16, 24, 32].contains(format.bits) else { throw SynthError("unsupported: \(format.bits)-bit PCM") }
            encoding = .pcm(bits: format.bits)
        case 3:
            guard format.bits == 32 || format.bits == 64 else { throw SynthError("unsupported: \(format.bits)-bit float") }
            encoding = .float(bits: format.bits)
        case 6, 7:
            guard format.bits == 8 else { throw SynthError("unsupported: \(format.bits)-bit \(format.tag == 7 ? "µ-law" : "A-law")") }
            encoding = format.tag == 7 ? .muLaw : .aLaw
        case 2: throw SynthError("unsupported: ADPCM (format 2)")
        case 0x11: throw SynthError("unsupported: IMA ADPCM (format 17)")
        case 0x55: throw SynthError("unsupported: MP3 in a WAV (format 85)")
        default: throw SynthError("unsupported: sample format \(format.tag)")
        }
        guard Self.channelRange.contains(format.channels) else {
            throw SynthError("\(format.channels) channels (a recording has \(Self.channelRange.lowerBound)–\(Self.channelRange.upperBound))")
        }
        guard format.rate >= UInt64(Self.sampleRates.lowerBound), format.rate <= UInt64(Self.sampleRates.upperBound) else {
            throw SynthError("sample rate \(format.rate) Hz is outside 8 kHz–384 kHz")
        }
        sampleRate = Int(format.rate)
        channels = format.channels
        let frame = channels * encoding.bytesPerSample
        guard format.align == frame else {
            throw SynthError("its block size \(format.align) does not match \(channels) channel\(channels == 1 ? "" : "s") of \(encoding.name)")
        }
        dataOffset = data.offset
        dataBytes = Int(data.bytes) / frame * frame
        promisedDataBytes = promised.map { Int(min($0, UInt64(Int.max))) / frame * frame }
    }

    /// The header of bytes in memory.
    public init(bytes: [UInt8]) throws(SynthError) {
        try self.init(length: bytes.count) { offset, count in
            guard offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    /// Sample `index` (frame × channels + channel) of `raw`, the samples' bytes, in -1…1.
    @inline(__always)
    func sample(_ raw: UnsafeRawBufferPointer, _ index: Int) -> Float {
        switch encoding {
        case .pcm(8):
            return (Float(raw[index]) - 128) / 128
        case .pcm(16):
            let p = index * 2
            return Float(Int16(bitPattern: UInt16(raw[p]) | UInt16(raw[p + 1]) << 8)) / 32768
        case .pcm(24):
            let p = index * 3
            let v = Int32(bitPattern: (UInt32(raw[p]) | UInt32(raw[p + 1]) << 8 | UInt32(raw[p + 2]) << 16) << 8) >> 8
            return Float(v) / 8388608
        case .pcm:
            return Float(Int32(bitPattern: Self.u32(raw, index * 4))) / 2147483648
        case .float(32):
            let v = Float(bitPattern: Self.u32(raw, index * 4))
            return v.isFinite ? max(-1, min(1, v)) : 0
        case .float:
            let p = index * 8
            let v = Double(bitPattern: UInt64(Self.u32(raw, p)) | UInt64(Self.u32(raw, p + 4)) << 32)
            return v.isFinite ? Float(max(-1, min(1, v))) : 0
        case .muLaw:
            return Self.muLaw[Int(raw[index])]
        case .aLaw:
            return Self.aLaw[Int(raw[index])]
        }
    }

    @inline(__always)
    static func u32(_ raw: UnsafeRawBufferPointer, _ p: Int) -> UInt32 {
        UInt32(raw[p]) | UInt32(raw[p + 1]) << 8 | UInt32(raw[p + 2]) << 16 | UInt32(raw[p + 3]) << 24
    }

    /// G.711 µ-law, each byte's value in -1…1.
    static let muLaw: [Float] = (0..<256).map { i in
        let u = ~UInt8(i)
        let t = ((Int(u & 0x0F) << 3) + 0x84) << Int((u & 0x70) >> 4)
        return Float((u & 0x80) != 0 ? 0x84 - t : t - 0x84) / 32768
    }

    /// G.711 A-law, each byte's value in -1…1.
    static let aLaw: [Float] = (0..<256).map { i in
        let a = UInt8(i) ^ 0x55
        var t = Int(a & 0x0F) << 4
        let seg = Int((a & 0x70) >> 4)
        switch seg {
        case 0: t += 8
        case 1: t += 0x108
        default: t = (t + 0x108) << (seg - 1)
        }
        return Float((a & 0x80) != 0 ? t : -t) / 32768
    }

    /// `frames` frames of `raw` (whole frames of samples' bytes) into `channels` arrays.
    public func decode(_ raw: [UInt8]) -> [[Float]] {
        let frames = raw.count / bytesPerFrame
        var out = [[Float]](repeating: [Float](repeating: 0, count: frames), count: channels)
        raw.withUnsafeBytes { r in
            for c in 0..<channels {
                out[c].withUnsafeMutableBufferPointer { o in
                    for f in 0..<frames { o[f] = sample(r, f * channels + c) }
                }
            }
        }
        return out
    }

    /// `raw` mixed down to one channel (the channels' mean).
    public func decodeMono(_ raw: [UInt8]) -> [Float] {
        let frames = raw.count / bytesPerFrame
        var out = [Float](repeating: 0, count: frames)
        let scale = 1 / Float(channels)
        raw.withUnsafeBytes { r in
            for f in 0..<frames {
                var sum: Float = 0
                for c in 0..<channels { sum += sample(r, f * channels + c) }
                out[f] = sum * scale
            }
        }
        return out
    }
}

/// A WAV file on disk read a block at a time: its header (`WAVHeader`) first, then the samples
/// mixed to mono in blocks, so memory stays bounded whatever the recording's length.
public final class WAVSamples {
    public let header: WAVHeader
    private let handle: FileHandle

    /// Opens and checks `path`'s header; one line when it cannot be read or is not a WAV Etude reads.
    public init(path: String) throws(SynthError) {
        guard let h = FileHandle(forReadingAtPath: path) else { throw SynthError("cannot be read") }
        handle = h
        let length: Int
        do { length = Int(try h.seekToEnd()) } catch { throw SynthError("cannot be read (\(error))") }
        header = try WAVHeader(length: length) { offset, count in
            try h.seek(toOffset: UInt64(offset))
            return [UInt8](try h.read(upToCount: count) ?? Data())
        }
    }

    deinit { try? handle.close() }

    /// Calls `body` with the recording mixed to mono, `frames` frames at a time, from the start;
    /// stops early when `body` returns false.
    public func forEachMonoBlock(frames: Int, _ body: ([Float]) -> Bool) throws(SynthError) {
        try forEachRawBlock(frames: frames) { body(header.decodeMono($0)) }
    }

    /// The same, each channel apart (a recording's check looks for a flat top on every channel).
    public func forEachBlock(frames: Int, _ body: ([[Float]]) -> Bool) throws(SynthError) {
        try forEachRawBlock(frames: frames) { body(header.decode($0)) }
    }

    /// Whole frames of the samples' bytes, `frames` at a time.
    private func forEachRawBlock(frames: Int, _ body: ([UInt8]) -> Bool) throws(SynthError) {
        let step = max(1, frames) * header.bytesPerFrame
        var at = 0
        do {
            try handle.seek(toOffset: UInt64(header.dataOffset))
            while at < header.dataBytes {
                let want = min(step, header.dataBytes - at)
                guard let chunk = try handle.read(upToCount: want), !chunk.isEmpty else { break }
                at += chunk.count
                let raw = [UInt8](chunk)
                guard body(Array(raw.prefix(raw.count / header.bytesPerFrame * header.bytesPerFrame))) else { return }
            }
        } catch {
            throw SynthError("cannot be read (\(error))")
        }
    }
}
