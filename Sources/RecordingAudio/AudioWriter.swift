import CSndFile
import Foundation

/// Writes 16-bit PCM WAV through libsndfile into a file the caller opened (a temporary file
/// `OutputFile` renames into place), so a failure never leaves a half-written output.
public enum AudioWriter {
    public static func writeWAV(fd: Int32, channels: [[Float]], sampleRate: Int) throws(RecordingError) {
        let count = channels.first?.count ?? 0
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(max(1, channels.count))
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        guard let file = sf_open_fd(fd, Int32(SFM_WRITE), &info, 0) else {
            throw RecordingError("cannot be written (\(RecordingFile.clean(String(cString: sf_strerror(nil)))))")
        }
        defer { sf_close(file) }
        let ch = channels.count
        let block = 8192
        var buffer = [Float](repeating: 0, count: block * ch)
        var at = 0
        while at < count {
            let n = min(block, count - at)
            for f in 0..<n { for c in 0..<ch { buffer[f * ch + c] = max(-1, min(1, channels[c][at + f])) } }
            let wrote = buffer.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(n)) }
            guard wrote == sf_count_t(n) else {
                throw RecordingError("writing the WAV failed (\(RecordingFile.clean(String(cString: sf_strerror(file))))); check the disk space")
            }
            at += n
        }
    }
}
