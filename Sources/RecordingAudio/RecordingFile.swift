import CSndFile
import Foundation
import Recording
#if canImport(Glibc)
import Glibc
#endif

/// A recording that cannot be used, in words that name the problem and the fix (the caller
/// puts the file's name before them).
public struct RecordingError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A recording opened with libsndfile (WAV, FLAC, Ogg/Vorbis, Opus, MP3 and the rest it reads).
/// Everything is checked before a sample is decoded: the path is a regular file (a directory, a
/// FIFO or a device such as /dev/zero is refused without blocking), its size, that libsndfile
/// knows its format, and its length (at most `maxSeconds`).
public final class RecordingFile {
    public let sampleRate: Int
    public let channels: Int
    /// Frames libsndfile announces (an MP3's is its estimate).
    public let frames: Int
    /// The container and encoding, as libsndfile names them ("FLAC", "MPEG Layer III").
    public let format: String
    /// The title tag, when the file has one.
    public let title: String?
    private let file: OpaquePointer

    /// Sixty minutes: the longest recording a learner practises from.
    public static let maxSeconds = 3600.0
    /// The largest file opened: an hour of 24-bit stereo at 96 kHz fits.
    public static let maxBytes: Int64 = 2 << 30

    public var seconds: Double { Double(frames) / Double(sampleRate) }

    /// Opens `path` for reading; a `RecordingError` for anything Etude cannot play.
    public init(path: String) throws(RecordingError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: throw RecordingError("no such file")
            case EACCES, EPERM: throw RecordingError("cannot be read (check its permissions)")
            default: throw RecordingError("cannot be opened (\(String(cString: strerror(errno))))")
            }
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw RecordingError("cannot be read (\(String(cString: strerror(errno))))")
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: close(fd); throw RecordingError("is a directory, not a recording; give an audio file (WAV, FLAC, Ogg, Opus or MP3)")
        case S_IFIFO: close(fd); throw RecordingError("is a pipe, not a recording file; save the recording to a file first")
        case S_IFCHR, S_IFBLK: close(fd); throw RecordingError("is a device, not a recording file; give an audio file (WAV, FLAC, Ogg, Opus or MP3)")
        default: close(fd); throw RecordingError("is not a regular file; give an audio file (WAV, FLAC, Ogg, Opus or MP3)")
        }
        guard st.st_size > 0 else { close(fd); throw RecordingError("is empty (0 bytes); record again or give another file") }
        guard Int64(st.st_size) <= Self.maxBytes else {
            close(fd)
            throw RecordingError("the file is \(Int64(st.st_size) >> 20) MB; Etude reads recordings up to \(Self.maxBytes >> 20) MB (cut the part you practise, e.g. with sox)")
        }
        // Blocking reads from here on (a regular file never blocks long).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var info = SF_INFO()
        guard let file = sf_open_fd(fd, Int32(SFM_READ), &info, 1) else {
            close(fd)
            let why = String(cString: sf_strerror(nil))
            throw RecordingError("not a recording Etude can read (\(Self.clean(why))); give a WAV, FLAC, Ogg/Vorbis, Opus or MP3 file")
        }
        self.file = file
        guard info.samplerate >= 4_000, info.samplerate <= 384_000, info.channels >= 1, info.channels <= 16 else {
            sf_close(file)
            throw RecordingError("damaged or unusual: \(info.channels) channels at \(info.samplerate) Hz; give a recording of 1–16 channels at 4–384 kHz")
        }
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        frames = Int(max(0, info.frames))
        format = Self.formatName(info.format)
        title = sf_get_string(file, Int32(SF_STR_TITLE)).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        guard frames > 0 else {
            sf_close(file)
            throw RecordingError("holds no sound (0 frames); record again or give another file")
        }
        guard seconds <= Self.maxSeconds else {
            sf_close(file)
            throw RecordingError("lasts \(Int(seconds / 60)) minutes; Etude practises from recordings up to \(Int(Self.maxSeconds / 60)) minutes (cut the part you practise, e.g. with sox)")
        }
    }

    deinit { sf_close(file) }

    static func clean(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(200).map(Character.init))
    }

    static func formatName(_ format: Int32) -> String {
        var info = SF_FORMAT_INFO()
        info.format = format & Int32(SF_FORMAT_TYPEMASK)
        var major = "audio"
        if sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0, let name = info.name {
            major = String(cString: name)
        }
        return clean(major)
    }

    /// Reads frames `from`..<`to` (clamped) block by block, handing each block, interleaved, to
    /// `body`. A read error part way is a `RecordingError` saying where the file is damaged.
    public func read(from: Int = 0, to: Int? = nil, body: (UnsafeBufferPointer<Float>, Int) throws -> Void) throws {
        let end = min(to ?? frames, frames)
        var at = max(0, from)
        guard at < end else { return }
        guard sf_seek(file, sf_count_t(at), SEEK_SET) >= 0 else {
            throw RecordingError("damaged: cannot seek to \(String(format: "%.1f", Double(at) / Double(sampleRate))) s")
        }
        let block = 8192
        var buffer = [Float](repeating: 0, count: block * channels)
        while at < end {
            let want = min(block, end - at)
            let got = buffer.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(want)) }
            if sf_error(file) != 0 {
                throw RecordingError("damaged at \(String(format: "%.1f", Double(at) / Double(sampleRate))) s (\(Self.clean(String(cString: sf_strerror(file)))))")
            }
            if got <= 0 { break }
            try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<Int(got) * channels]), Int(got)) }
            at += Int(got)
        }
    }

    /// The whole recording as one mono channel at `AlignmentFeatures.analysisRate`, read block by
    /// block (an hour costs 160 MB here, never the hour at its own rate).
    public func analysisSamples() throws -> [Float] {
        var down = Downsampler(from: sampleRate)
        var mono = [Float](repeating: 0, count: 8192)
        let ch = channels
        try read { block, n in
            if mono.count < n { mono = [Float](repeating: 0, count: n) }
            let scale = 1 / Float(ch)
            for f in 0..<n {
                var s: Float = 0
                for c in 0..<ch { s += block[f * ch + c] }
                mono[f] = s * scale
            }
            mono.withUnsafeBufferPointer { down.push(UnsafeBufferPointer(rebasing: $0[0..<n])) }
        }
        return down.output
    }

    /// Frames `from`..<`to` as two channels (a mono recording doubled, more than two: the first two).
    public func stereo(from: Int, to: Int) throws -> (left: [Float], right: [Float]) {
        var left: [Float] = [], right: [Float] = []
        left.reserveCapacity(max(0, min(to, frames) - from))
        right.reserveCapacity(left.capacity)
        let ch = channels
        try read(from: from, to: to) { block, n in
            for f in 0..<n {
                left.append(block[f * ch])
                right.append(block[f * ch + (ch > 1 ? 1 : 0)])
            }
        }
        return (left, right)
    }
}
