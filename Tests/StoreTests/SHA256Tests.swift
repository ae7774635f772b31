import Foundation
import Testing
import TestSupport
@testable import Store

@Suite struct SHA256Tests {
    @Test func standardVectors() {
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func incrementalEqualsOneShot() {
        let data = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var s = SHA256()
        s.update(data[0..<1]); s.update(data[1..<64]); s.update(data[64..<65]); s.update(data[65...])
        let hex = s.finalize().map { String(format: "%02x", $0) }.joined()
        #expect(hex == SHA256.hex(data))
        // Every chunk size from 1 to 130 bytes gives the same digest.
        for chunk in 1...130 {
            var h = SHA256()
            var i = 0
            while i < data.count {
                h.update(data[i..<min(data.count, i + chunk)])
                i += chunk
            }
            #expect(h.finalize().map { String(format: "%02x", $0) }.joined() == hex, "chunk \(chunk)")
        }
    }

    /// Every padding boundary (55, 56, 63, 64, 119, 120 bytes...) against coreutils' sha256sum.
    @Test(.enabled(if: Tools.sha256sum.available, Tools.sha256sum.reason))
    func matchesSha256sumAcrossBlockBoundaries() throws {
        let sha256sum = try #require(Tools.sha256sum.path)
        let dir = try TempDir()
        for n in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }
            let path = dir.file("b\(n)")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let out = try ProcessRunner.run(sha256sum, [path]).stdout
            #expect(String(out.prefix(64)) == SHA256.hex(bytes), "length \(n)")
        }
    }
}
