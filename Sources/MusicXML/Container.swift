import Foundation
#if canImport(ZIPFoundation)
import ZIPFoundation
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
        let archive: Archive
        do {
            archive = try Archive(data: Data(bytes), accessMode: .read)
        } catch {
            throw MusicXMLError("not a readable .mxl (zip) archive: its directory is damaged or missing")
        }
        guard let containerEntry = archive["META-INF/container.xml"] else {
            throw MusicXMLError("the .mxl archive has no META-INF/container.xml naming its score (rootfile); it is not compressed MusicXML")
        }
        let containerBytes = try extract(containerEntry, from: archive, limit: 1 << 20)
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
        return try extract(entry, from: archive, limit: limits.maxXMLBytes)
    }

    private struct TooLarge: Error {}

    static func extract(_ entry: Entry, from archive: Archive, limit: Int) throws(MusicXMLError) -> [UInt8] {
        guard entry.type == .file else {
            throw MusicXMLError("\(entry.path) in the .mxl archive is not a file")
        }
        guard entry.uncompressedSize <= UInt64(limit) else {
            throw MusicXMLError("\(entry.path) in the .mxl archive unpacks to \(entry.uncompressedSize >> 20) MB; Etude reads scores up to \(limit >> 20) MB")
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
