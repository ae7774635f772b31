import Foundation
#if canImport(ZIPFoundation)
import ZIPFoundation
#endif
#if canImport(CZlib)
import CZlib
#endif

/// Compressed MusicXML (.mxl): a zip archive whose `META-INF/container.xml` names the score
/// (the first `<rootfile full-path=…>`). Read with ZIPFoundation in memory; every entry read is
/// bounded by its declared and its actual size, so a zip bomb stops at the limit.
enum MXLContainer {
    static func isZip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x50 && bytes[1] == 0x4B && (bytes[2] == 3 || bytes[2] == 5) && (bytes[3] == 4 || bytes[3] == 6)
    }

    #if !canImport(ZIPFoundation)
    // Built without ZIPFoundation (the fuzz target over the text reader): no archives.
    static func rootfile(_ bytes: [UInt8], limits: MusicXMLLimits) throws(MusicXMLError) -> [UInt8] {
        throw MusicXMLError("compressed MusicXML (.mxl) is not read by this build")
    }
    #else
    /// The score document inside an .mxl archive.
    static func rootfile(_ bytes: [UInt8], limits: MusicXMLLimits) throws(MusicXMLError) -> [UInt8] {
        guard bytes.count <= limits.maxArchiveBytes else {
            throw MusicXMLError("the .mxl archive is \(bytes.count >> 20) MB; Etude reads archives up to \(limits.maxArchiveBytes >> 20) MB")
        }
        // ZIPFoundation traps on an offset past the end of an in-memory archive: every offset
        // it will follow is checked first.
        if let problem = ZipDirectory.problem(bytes) {
            throw MusicXMLError("not a readable .mxl (zip) archive: \(problem)")
        }
        let archive: Archive
        do {
            archive = try Archive(data: Data(bytes), accessMode: .read)
        } catch {
            throw MusicXMLError("not a readable .mxl (zip) archive: its directory is damaged or missing")
        }
        guard let containerEntry = archive["META-INF/container.xml"] else {
            throw MusicXMLError("the .mxl archive has no META-INF/container.xml naming its score (rootfile); it is not compressed MusicXML")
        }
        let containerBytes = try extract(containerEntry, from: archive, limit: 1 << 20, bytes: bytes)
        let tree: XMLTree
        do {
            tree = try XMLTreeReader.read(containerBytes, limits: limits)
        } catch {
            throw MusicXMLError("META-INF/container.xml: \(error.oneLine)")
        }
        var path: String?
        for (i, node) in tree.nodes.enumerated() where tree.names[Int(node.name)] == "rootfile" {
            if let p = tree.attribute(i, "full-path"), !p.isEmpty {
                path = p
                break
            }
        }
        guard let path else {
            throw MusicXMLError("the .mxl archive's META-INF/container.xml names no rootfile (full-path); it is not compressed MusicXML")
        }
        let clean = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard let entry = archive[clean] else {
            throw MusicXMLError("the .mxl archive's rootfile \(clean) is not in the archive")
        }
        return try extract(entry, from: archive, limit: limits.maxXMLBytes, bytes: bytes)
    }

    private struct TooLarge: Error {}

    static func extract(_ entry: Entry, from archive: Archive, limit: Int, bytes: [UInt8]) throws(MusicXMLError) -> [UInt8] {
        guard entry.type == .file else {
            throw MusicXMLError("\(entry.path) in the .mxl archive is not a file")
        }
        guard entry.uncompressedSize <= UInt64(limit) else {
            throw MusicXMLError("\(entry.path) in the .mxl archive unpacks to \(entry.uncompressedSize >> 20) MB; Etude reads scores up to \(limit >> 20) MB")
        }
        // ZIPFoundation's inflater spins for ever on a deflate stream that does not end within
        // the entry's compressed size: the stream is checked to end there first.
        if let problem = ZipDirectory.streamProblem(of: entry.path, in: bytes, limit: limit) {
            throw MusicXMLError("\(entry.path) in the .mxl archive cannot be unpacked (\(problem))")
        }
        var out: [UInt8] = []
        out.reserveCapacity(Int(min(entry.uncompressedSize, UInt64(limit))))
        do {
            _ = try archive.extract(entry, skipCRC32: false) { chunk in
                guard out.count + chunk.count <= limit else { throw TooLarge() }
                out.append(contentsOf: chunk)
            }
        } catch is TooLarge {
            throw MusicXMLError("\(entry.path) in the .mxl archive unpacks to more than \(limit >> 20) MB (more than its header says); not read")
        } catch {
            throw MusicXMLError("\(entry.path) in the .mxl archive cannot be unpacked (damaged: \(type(of: error)))")
        }
        return out
    }
    #endif
}

/// The zip structure an .mxl must have before ZIPFoundation reads it: the end-of-central-
/// directory record it finds (the last one in the file), the central directory, every entry's
/// local header and data, all inside the bytes; ZIP64 and multi-disk archives (no score needs
/// them) refused. ZIPFoundation seeks to each of these offsets in memory and traps past the end.
enum ZipDirectory {
    /// Where an entry's data lies: its compression method and bytes.
    struct Span {
        var method: Int
        var data: Range<Int>
    }

    /// Why the archive cannot be read, nil when every offset lies within the bytes.
    static func problem(_ b: [UInt8]) -> String? {
        var spans: [String: Span] = [:]
        return problem(b, spans: &spans)
    }

    /// Why the entry `path` cannot be unpacked, nil when it can: a stored entry, or a deflate
    /// stream that ends within its compressed bytes and unpacks to at most `limit` bytes.
    static func streamProblem(of path: String, in b: [UInt8], limit: Int) -> String? {
        var spans: [String: Span] = [:]
        if let p = problem(b, spans: &spans) { return p }
        guard let span = spans[path] else { return "not found in its directory" }
        switch span.method {
        case 0: return nil
        case 8: return Inflate.problem(Array(b[span.data]), limit: limit)
        default: return "compression method \(span.method), which Etude does not read"
        }
    }

    static func problem(_ b: [UInt8], spans: inout [String: Span]) -> String? {
        let n = b.count
        func u16(_ k: Int) -> Int { Int(b[k]) | Int(b[k + 1]) << 8 }
        func u32(_ k: Int) -> Int { u16(k) | u16(k + 2) << 16 }
        func signature(_ k: Int, _ third: UInt8, _ fourth: UInt8) -> Bool {
            k >= 0 && k + 4 <= n && b[k] == 0x50 && b[k + 1] == 0x4B && b[k + 2] == third && b[k + 3] == fourth
        }
        guard n >= 22 else { return "too short to be a zip archive" }
        // As ZIPFoundation looks for it: backwards from the end, over the whole file.
        var end = n - 22
        while end >= 0, !signature(end, 5, 6) { end -= 1 }
        guard end >= 0 else { return "no end of its central directory (the file is cut short or not a zip)" }
        let entries = u16(end + 10), size = u32(end + 12), start = u32(end + 16), comment = u16(end + 20)
        guard end + 22 + comment <= n else { return "its end record's comment runs past the end of the file" }
        guard u16(end + 4) == 0, u16(end + 6) == 0, u16(end + 8) == entries else { return "it spans several disks" }
        guard entries != 0xFFFF, size != 0xFFFF_FFFF, start != 0xFFFF_FFFF else { return "it is a ZIP64 archive, which Etude does not read" }
        guard entries > 0 else { return "it holds no files" }
        // Room for a ZIP64 locator before the end record, which ZIPFoundation may look for.
        guard end >= 20, start + size <= end else { return "its central directory points past the end of the file" }
        var p = start
        for _ in 0..<entries {
            guard p + 46 <= start + size, signature(p, 1, 2) else { return "its central directory is damaged" }
            let flags = u16(p + 8), method = u16(p + 10)
            let compressed = u32(p + 20), uncompressed = u32(p + 24)
            let nameLength = u16(p + 28), extraLength = u16(p + 30), commentLength = u16(p + 32)
            let local = u32(p + 42)
            guard compressed != 0xFFFF_FFFF, uncompressed != 0xFFFF_FFFF, local != 0xFFFF_FFFF else {
                return "it is a ZIP64 archive, which Etude does not read"
            }
            let name = String(decoding: b[min(n, p + 46)..<min(n, p + 46 + nameLength)], as: UTF8.self)
            p += 46 + nameLength + extraLength + commentLength
            guard p <= start + size else { return "its central directory is damaged" }
            guard local + 30 <= start, signature(local, 3, 4) else { return "an entry points past its data (a damaged local header)" }
            let data = local + 30 + u16(local + 26) + u16(local + 28)
            let stored = method == 0 ? uncompressed : compressed
            guard data + compressed <= start, data + stored <= start else { return "an entry's data runs past the end of the file" }
            if flags & 0x08 != 0, data + stored + 16 > n { return "an entry's data descriptor is past the end of the file" }
            if spans[name] == nil { spans[name] = Span(method: method, data: data..<(data + compressed)) }
        }
        return nil
    }
}

/// A raw deflate stream inflated to nothing, to learn whether it ends within its bytes.
enum Inflate {
    static func problem(_ input: [UInt8], limit: Int) -> String? {
        #if canImport(CZlib)
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return "the unpacker cannot start"
        }
        defer { inflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        return input.withUnsafeBufferPointer { inBuffer -> String? in
            stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
            stream.avail_in = UInt32(inBuffer.count)
            while true {
                let result = out.withUnsafeMutableBufferPointer { o -> Int32 in
                    stream.next_out = o.baseAddress
                    stream.avail_out = UInt32(o.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                total += out.count - Int(stream.avail_out)
                if total > limit { return "it unpacks to more than \(limit >> 20) MB" }
                if result == Z_STREAM_END { return nil }
                if result != Z_OK { return "its compressed data is damaged" }
                if stream.avail_in == 0 && stream.avail_out != 0 { return "its compressed data ends too soon" }
            }
        }
        #else
        return nil
        #endif
    }
}
