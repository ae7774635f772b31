import Foundation

/// Sample format of a rendered WAV.
public enum WAVSampleFormat: String, Sendable, CaseIterable {
    /// 16-bit PCM, clipped, no dither (so renders are reproducible bit for bit).
    case s16
    /// 32-bit IEEE float, exactly what FluidSynth produced.
    case float

    public var bytesPerSample: Int { self == .s16 ? 2 : 4 }
}

/// Streams interleaved stereo frames into a WAV file, the header written right on `finish`.
///
/// A file that may pass 4 GiB (the most a RIFF size field holds) is laid out for RF64 (EBU
/// Tech 3306) from the start: a 28-byte `JUNK` chunk after `WAVE` keeps room for the `ds64`
/// chunk. On `finish` it becomes RF64 (`ds64` with the 64-bit sizes, the 32-bit fields
/// 0xFFFFFFFF) when the data did pass the limit, and stays a plain RIFF WAV (with the JUNK
/// chunk every reader skips) when it did not. A file that cannot pass the limit gets the
/// classic 44-byte header. Every write is checked: a failure is a `SynthError`, never a file
/// whose header disagrees with its data.
final class WAVWriter {
    private let handle: FileHandle
    private let format: WAVSampleFormat
    private let sampleRate: Int
    /// Room for ds64 was kept (the data may pass `riffLimit`).
    let roomForRF64: Bool
    /// The largest RIFF size (bytes after the first 8) a plain WAV can state.
    private let riffLimit: UInt64
    private(set) var frames = 0
    private var scratch: [UInt8] = []

    static let riffMaximum: UInt64 = 0xFFFF_FFFF
    static let ds64BodySize = 28

    /// - Parameters:
    ///   - maxDataBytes: the most sample bytes the caller may append (decides the layout).
    ///   - riffLimit: the RIFF size limit (tests lower it to see RF64 without writing 4 GiB).
    init(handle: FileHandle, sampleRate: Int, format: WAVSampleFormat, maxDataBytes: UInt64,
         riffLimit: UInt64 = WAVWriter.riffMaximum) throws(SynthError) {
        self.handle = handle
        self.format = format
        self.sampleRate = sampleRate
        self.riffLimit = riffLimit
        let plainHeader = UInt64(WAVWriter.headerSize(format: format, roomForRF64: false))
        roomForRF64 = plainHeader - 8 + maxDataBytes > riffLimit
        try put(header(dataBytes: 0, rf64: false))
    }

    static func headerSize(format: WAVSampleFormat, roomForRF64: Bool) -> Int {
        12 + (roomForRF64 ? 8 + ds64BodySize : 0) + 8 + (format == .float ? 18 : 16) + (format == .float ? 12 : 0) + 8
    }

    private func header(dataBytes: UInt64, rf64: Bool) -> [UInt8] {
        var h: [UInt8] = []
        func u32(_ v: UInt64) { for i in 0..<4 { h.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        func u64(_ v: UInt64) { for i in 0..<8 { h.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        func u16(_ v: Int) { h += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        let isFloat = format == .float
        let fmtSize = isFloat ? 18 : 16
        let riffSize = UInt64(WAVWriter.headerSize(format: format, roomForRF64: roomForRF64) - 8) + dataBytes
        let sampleFrames = dataBytes / UInt64(2 * format.bytesPerSample)
        h += Array((rf64 ? "RF64" : "RIFF").utf8); u32(rf64 ? WAVWriter.riffMaximum : riffSize)
        h += Array("WAVE".utf8)
        if roomForRF64 {
            h += Array((rf64 ? "ds64" : "JUNK").utf8); u32(UInt64(WAVWriter.ds64BodySize))
            if rf64 {
                u64(riffSize); u64(dataBytes); u64(sampleFrames); u32(0)
            } else {
                h += [UInt8](repeating: 0, count: WAVWriter.ds64BodySize)
            }
        }
        h += Array("fmt ".utf8); u32(UInt64(fmtSize))
        u16(isFloat ? 3 : 1); u16(2); u32(UInt64(sampleRate))
        u32(UInt64(sampleRate * 2 * format.bytesPerSample)); u16(2 * format.bytesPerSample); u16(8 * format.bytesPerSample)
        if isFloat {
            u16(0)
            h += Array("fact".utf8); u32(4); u32(rf64 ? WAVWriter.riffMaximum : sampleFrames)
        }
        h += Array("data".utf8); u32(rf64 ? WAVWriter.riffMaximum : dataBytes)
        return h
    }

    private func put(_ bytes: [UInt8]) throws(SynthError) {
        do {
            try handle.write(contentsOf: Data(bytes))
        } catch {
            throw SynthError("writing the WAV failed (\(Self.reason(error))); check the disk space")
        }
    }

    private static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let posix = ns.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        return ns.localizedDescription
    }

    /// The data bytes written so far.
    var dataBytes: UInt64 { UInt64(frames) * UInt64(2 * format.bytesPerSample) }

    func append(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws(SynthError) {
        let bytes = count * 2 * format.bytesPerSample
        if !roomForRF64 {
            let headerRest = UInt64(WAVWriter.headerSize(format: format, roomForRF64: false) - 8)
            guard headerRest + dataBytes + UInt64(bytes) <= riffLimit else {
                throw SynthError("the WAV would pass the 4 GiB a WAV header can state; render a shorter part (--max-minutes)")
            }
        }
        if scratch.count < bytes { scratch = [UInt8](repeating: 0, count: bytes) }
        scratch.withUnsafeMutableBytes { raw in
            switch format {
            case .s16:
                let out = raw.bindMemory(to: Int16.self)
                for i in 0..<count {
                    out[2 * i] = Self.toS16(left[i]).littleEndian
                    out[2 * i + 1] = Self.toS16(right[i]).littleEndian
                }
            case .float:
                let out = raw.bindMemory(to: UInt32.self)
                for i in 0..<count {
                    out[2 * i] = left[i].bitPattern.littleEndian
                    out[2 * i + 1] = right[i].bitPattern.littleEndian
                }
            }
        }
        try put(Array(scratch[0..<bytes]))
        frames += count
    }

    @inline(__always) static func toS16(_ x: Float) -> Int16 {
        let v = (min(max(x.isNaN ? 0 : x, -1), 1) * 32767).rounded()
        return Int16(v)
    }

    /// Writes the header for what was written: RF64 past the limit, else plain RIFF.
    func finish() throws(SynthError) {
        let data = dataBytes
        let riffSize = UInt64(WAVWriter.headerSize(format: format, roomForRF64: roomForRF64) - 8) + data
        let rf64 = riffSize > riffLimit
        do {
            try handle.seek(toOffset: 0)
        } catch {
            throw SynthError("writing the WAV failed (\(Self.reason(error)))")
        }
        try put(header(dataBytes: data, rf64: rf64))
    }
}

/// A WAV read back (tests, benchmarks): interleaved → per-channel floats.
public struct WAVData: Sendable {
    public var sampleRate: Int
    public var channels: Int
    public var bitsPerSample: Int
    public var isFloat: Bool
    /// Per channel, in -1…1.
    public var samples: [[Float]]

    public var frameCount: Int { samples.first?.count ?? 0 }

    /// Parses a WAV or RF64 file (`WAVHeader`: every header number checked; 8/16/24/32-bit
    /// PCM, 32/64-bit float, µ-law and A-law; WAVE_FORMAT_EXTENSIBLE; any chunk order).
    public init(bytes: [UInt8]) throws(SynthError) {
        let header = try WAVHeader(bytes: bytes)
        sampleRate = header.sampleRate
        channels = header.channels
        bitsPerSample = header.encoding.bytesPerSample * 8
        if case .float = header.encoding { isFloat = true } else { isFloat = false }
        samples = header.decode(Array(bytes[header.dataOffset..<header.dataOffset + header.dataBytes]))
    }

    public init(path: String) throws(SynthError) {
        guard let d = FileManager.default.contents(atPath: path) else { throw SynthError("\(path): cannot be read") }
        try self.init(bytes: [UInt8](d))
    }
}
