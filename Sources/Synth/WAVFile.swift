import Foundation

/// Sample format of a rendered WAV.
public enum WAVSampleFormat: String, Sendable, CaseIterable {
    /// 16-bit PCM, clipped, no dither (so renders are reproducible bit for bit).
    case s16
    /// 32-bit IEEE float, exactly what FluidSynth produced.
    case float

    var bytesPerSample: Int { self == .s16 ? 2 : 4 }
}

/// Streams interleaved stereo frames into a RIFF/WAVE file, patching the sizes on close.
final class WAVWriter {
    private let file: UnsafeMutablePointer<FILE>
    private let format: WAVSampleFormat
    private let sampleRate: Int
    private(set) var frames = 0
    private var scratch: [UInt8] = []

    init(path: String, sampleRate: Int, format: WAVSampleFormat) throws(SynthError) {
        guard let f = fopen(path, "wb") else {
            throw SynthError("\(path): cannot be written (\(String(cString: strerror(errno))))")
        }
        file = f
        self.format = format
        self.sampleRate = sampleRate
        writeHeader(dataBytes: 0)
    }

    deinit { fclose(file) }

    private func writeHeader(dataBytes: Int) {
        var h: [UInt8] = []
        func u32(_ v: Int) { h += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        func u16(_ v: Int) { h += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        let isFloat = format == .float
        let fmtSize = isFloat ? 18 : 16
        let headerRest = 4 + (8 + fmtSize) + (isFloat ? 12 : 0) + 8
        h += Array("RIFF".utf8); u32(headerRest + dataBytes)
        h += Array("WAVE".utf8)
        h += Array("fmt ".utf8); u32(fmtSize)
        u16(isFloat ? 3 : 1); u16(2); u32(sampleRate)
        u32(sampleRate * 2 * format.bytesPerSample); u16(2 * format.bytesPerSample); u16(8 * format.bytesPerSample)
        if isFloat {
            u16(0)
            h += Array("fact".utf8); u32(4); u32(dataBytes / (2 * format.bytesPerSample))
        }
        h += Array("data".utf8); u32(dataBytes)
        fwrite(h, 1, h.count, file)
    }

    func append(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) {
        let bytes = count * 2 * format.bytesPerSample
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
        _ = scratch.withUnsafeBytes { fwrite($0.baseAddress, 1, bytes, file) }
        frames += count
    }

    @inline(__always) static func toS16(_ x: Float) -> Int16 {
        let v = (min(max(x, -1), 1) * 32767).rounded()
        return Int16(v)
    }

    func finish() throws(SynthError) {
        fflush(file)
        fseek(file, 0, SEEK_SET)
        writeHeader(dataBytes: frames * 2 * format.bytesPerSample)
        if fflush(file) != 0 || ferror(file) != 0 {
            throw SynthError("writing the WAV failed (\(String(cString: strerror(errno))))")
        }
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

    /// Parses PCM 16-bit or float 32-bit WAV (incl. WAVE_FORMAT_EXTENSIBLE), any chunk order.
    public init(bytes: [UInt8]) throws(SynthError) {
        func u32(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24 }
        func u16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 }
        guard bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WAVE".utf8) else {
            throw SynthError("not a WAV file")
        }
        var o = 12
        var fmt: (tag: Int, ch: Int, rate: Int, bits: Int)?
        var data: Range<Int>?
        while o + 8 <= bytes.count {
            let id = String(decoding: bytes[o..<o + 4], as: UTF8.self)
            let size = u32(o + 4)
            let body = o + 8
            if id == "fmt ", body + 16 <= bytes.count {
                var tag = u16(body)
                if tag == 0xFFFE, body + 26 <= bytes.count { tag = u16(body + 24) }
                fmt = (tag, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                data = body..<min(bytes.count, body + size)
            }
            o = body + size + (size & 1)
        }
        guard let fmt, let data, fmt.ch > 0 else { throw SynthError("WAV without fmt/data chunk") }
        sampleRate = fmt.rate
        channels = fmt.ch
        bitsPerSample = fmt.bits
        isFloat = fmt.tag == 3
        let bps = fmt.bits / 8
        guard bps > 0 else { throw SynthError("WAV with 0 bits per sample") }
        let frames = data.count / (bps * fmt.ch)
        var out = [[Float]](repeating: [Float](repeating: 0, count: frames), count: fmt.ch)
        for f in 0..<frames {
            for c in 0..<fmt.ch {
                let p = data.lowerBound + (f * fmt.ch + c) * bps
                if isFloat && bps == 4 {
                    out[c][f] = Float(bitPattern: UInt32(u32(p)))
                } else if bps == 2 {
                    out[c][f] = Float(Int16(bitPattern: UInt16(u16(p)))) / 32768
                } else if bps == 4 {
                    out[c][f] = Float(Int32(bitPattern: UInt32(u32(p)))) / 2147483648
                } else if bps == 3 {
                    let raw = UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16
                    let v = Int32(bitPattern: raw << 8) >> 8
                    out[c][f] = Float(v) / 8388608
                }
            }
        }
        samples = out
    }

    public init(path: String) throws(SynthError) {
        guard let d = FileManager.default.contents(atPath: path) else { throw SynthError("\(path): cannot be read") }
        try self.init(bytes: [UInt8](d))
    }
}
