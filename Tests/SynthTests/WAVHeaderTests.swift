import Foundation
import Testing
import TestSupport
@testable import Synth

/// Issue 16, point 5: a render past 4 GiB wrote a RIFF size that had wrapped. The writer now
/// keeps room for an RF64 `ds64` chunk whenever the data may pass the limit and writes the
/// header that fits what was written. The limit is lowered here so RF64 is seen without
/// writing 4 GiB; the layout is the one EBU Tech 3306 gives.
@Suite struct WAVHeaderTests {
    static func u32(_ b: [UInt8], _ o: Int) -> UInt64 { (0..<4).reduce(0) { $0 | UInt64(b[o + $1]) << (8 * UInt64($1)) } }
    static func u64(_ b: [UInt8], _ o: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[o + $1]) << (8 * UInt64($1)) } }

    /// Writes `frames` stereo frames of a ramp with the given limit; the file's bytes.
    static func write(frames: Int, format: WAVSampleFormat, maxDataBytes: UInt64, riffLimit: UInt64) throws -> [UInt8] {
        let dir = try TempDir()
        let path = dir.file("out.wav")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let writer = try WAVWriter(handle: handle, sampleRate: 48_000, format: format, maxDataBytes: maxDataBytes, riffLimit: riffLimit)
        let left = (0..<frames).map { Float($0) / Float(frames) }
        let right = left.map { -$0 }
        try left.withUnsafeBufferPointer { l in
            try right.withUnsafeBufferPointer { r in
                // In two blocks, as a render appends them.
                let half = frames / 2
                try writer.append(left: l.baseAddress!, right: r.baseAddress!, count: half)
                try writer.append(left: l.baseAddress! + half, right: r.baseAddress! + half, count: frames - half)
            }
        }
        try writer.finish()
        try handle.close()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(arguments: [WAVSampleFormat.s16, .float])
    func pastTheLimitTheFileIsRF64WithItsSizesInDs64(_ format: WAVSampleFormat) throws {
        let frames = 1000
        let dataBytes = UInt64(frames * 2 * format.bytesPerSample)
        let b = try Self.write(frames: frames, format: format, maxDataBytes: dataBytes, riffLimit: 1000)
        #expect(Array(b[0..<4]) == Array("RF64".utf8))
        #expect(Self.u32(b, 4) == 0xFFFF_FFFF)
        #expect(Array(b[8..<12]) == Array("WAVE".utf8))
        #expect(Array(b[12..<16]) == Array("ds64".utf8))
        #expect(Self.u32(b, 16) == 28)
        #expect(Self.u64(b, 20) == UInt64(b.count - 8), "RIFF size in ds64")
        #expect(Self.u64(b, 28) == dataBytes, "data size in ds64")
        #expect(Self.u64(b, 36) == UInt64(frames), "sample count in ds64")
        // The data chunk's own size field says "see ds64".
        let dataAt = try #require((12..<(b.count - 4)).first { Array(b[$0..<($0 + 4)]) == Array("data".utf8) })
        #expect(Self.u32(b, dataAt + 4) == 0xFFFF_FFFF)
        #expect(b.count == dataAt + 8 + Int(dataBytes))
        let read = try WAVData(bytes: b)
        #expect(read.frameCount == frames)
        #expect(read.isFloat == (format == .float))
        #expect(abs(read.samples[0][frames - 1] - Float(frames - 1) / Float(frames)) < 1e-3)
    }

    /// A file that may pass the limit but did not stays a plain RIFF WAV (its room kept as a
    /// JUNK chunk every reader skips), sizes exact.
    @Test func roomKeptButNotNeededIsAPlainRIFFWithAJunkChunk() throws {
        let b = try Self.write(frames: 100, format: .s16, maxDataBytes: 1_000_000, riffLimit: 10_000)
        #expect(Array(b[0..<4]) == Array("RIFF".utf8))
        #expect(Self.u32(b, 4) == UInt64(b.count - 8))
        #expect(Array(b[12..<16]) == Array("JUNK".utf8))
        #expect(try WAVData(bytes: b).frameCount == 100)
    }

    /// The classic 44-byte header when the file can never pass the limit, sizes exact.
    @Test func aSmallFileHasTheClassicHeader() throws {
        let b = try Self.write(frames: 100, format: .s16, maxDataBytes: 400, riffLimit: WAVWriter.riffMaximum)
        #expect(b.count == 44 + 400)
        #expect(Array(b[0..<4]) == Array("RIFF".utf8) && Self.u32(b, 4) == 436 && Self.u32(b, 40) == 400)
    }

    /// Laid out small but fed more: refused before the header could lie.
    @Test func dataBeyondALayoutWithoutRoomIsRefused() throws {
        #expect(throws: SynthError.self) {
            _ = try Self.write(frames: 1000, format: .s16, maxDataBytes: 40, riffLimit: 1000)
        }
    }
}
