import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reading a file whose size has a limit: its size is checked with `fstat` before a byte is
/// read, and no more than the limit is read even when the file grows meanwhile, so a 3 GB file
/// (sparse or not) costs a stat, never its size in memory.
public enum BoundedRead {
    public enum Failure: Error, Equatable, Sendable {
        /// Larger than the limit (`size` from the stat, or the limit + 1 when it grew).
        case tooLarge(size: Int64)
        case unreadable
    }

    /// The file's bytes, at most `limit` of them.
    public static func bytes(_ path: String, limit: Int) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.unreadable) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(.unreadable) }
        if Int64(st.st_size) > Int64(limit) { return .failure(.tooLarge(size: Int64(st.st_size))) }
        var out: [UInt8] = []
        out.reserveCapacity(Int(max(0, st.st_size)) + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable)
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            if out.count > limit { return .failure(.tooLarge(size: Int64(out.count))) }
        }
        return .success(out)
    }

    /// "3,072 MB", "900 KB": a size as a limit message gives it.
    public static func size(_ bytes: Int64) -> String {
        let f = NumberFormatter()
        f.numberStyle = .decimal
        f.locale = Locale(identifier: "en_US_POSIX")
        f.groupingSeparator = ","
        f.usesGroupingSeparator = true
        if bytes >= 1 << 20 { return "\(f.string(from: NSNumber(value: bytes >> 20)) ?? "\(bytes >> 20)") MB" }
        return "\(max(1, bytes >> 10)) KB"
    }

    /// The one wording of a refusal: "the file is 3,072 MB; Etude reads MIDI files up to 64 MB".
    public static func tooLargeMessage(size: Int64, limit: Int, what: String) -> String {
        "the file is \(BoundedRead.size(size)); Etude reads \(what) up to \(BoundedRead.size(Int64(limit)))"
    }
}
