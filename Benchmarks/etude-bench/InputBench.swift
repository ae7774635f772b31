#if canImport(Glibc)
import Clocks
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import MIDIInput

/// `etude-bench input`: internal input → note-on latency.
///
/// Bytes are written to a FIFO that a `ByteStreamInput` reads; the time from just before the
/// `write` to the moment the parsed note-on reaches the handler (where the synth would be
/// called) is measured per note. Also measures raw `MIDIByteParser` throughput. Prints JSON.
enum InputBench {
    /// Where the handler leaves the delivery time for the writer to collect.
    final class Mailbox: @unchecked Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        var deliveredAt = 0.0
    }

    /// Notes are sent 2 ms apart (500 a second, a MIDI cable's pace): the input refuses a
    /// stream faster than any keyboard, as a hostile one would be.
    static func run(iterations: Int = 2000, warmup: Int = 200, spacingMicroseconds: UInt32 = 2000) -> String {
        let clock = MonotonicClock()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("etude-bench-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("input.fifo").path
        guard mkfifo(path, 0o600) == 0 else {
            return "{\"bench\":\"input\",\"error\":\"cannot create a FIFO in \(dir.path)\"}"
        }
        let box = Mailbox()
        let input = ByteStreamInput(path: path, clock: clock)
        do {
            try input.start { event in
                if case .note(let n) = event, n.isOn {
                    box.deliveredAt = clock.now
                    box.semaphore.signal()
                }
            }
        } catch {
            return "{\"bench\":\"input\",\"error\":\"\(error.message)\"}"
        }
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else {
            input.stop()
            return "{\"bench\":\"input\",\"error\":\"cannot open the FIFO for writing\"}"
        }
        var latencies: [Double] = []
        latencies.reserveCapacity(iterations)
        for i in 0..<(warmup + iterations) {
            let pitch = UInt8(48 + i % 36)
            var bytes: [UInt8] = [0x90, pitch, 100]
            let sent = clock.now
            let written = write(fd, &bytes, 3)
            guard written == 3 else { break }
            // Never hangs: a note that does not arrive within a second ends the run with an error.
            guard box.semaphore.wait(timeout: .now() + 1) == .success else {
                close(fd)
                input.stop()
                return "{\"bench\":\"input\",\"error\":\"note \(i) did not arrive within 1 s\"}"
            }
            if i >= warmup { latencies.append((box.deliveredAt - sent) * 1_000_000) }
            var off: [UInt8] = [0x80, pitch, 0]
            _ = write(fd, &off, 3)
            usleep(spacingMicroseconds)
        }
        close(fd)
        input.stop()
        latencies.sort()
        func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return latencies[min(latencies.count - 1, Int(Double(latencies.count - 1) * p))]
        }

        // Parser throughput: a 1 MB stream of running-status note pairs with clock bytes mixed in.
        var stream: [UInt8] = []
        stream.reserveCapacity(1 << 20)
        stream.append(0x90)
        while stream.count < (1 << 20) {
            stream += [60, 100, 0xF8, 60, 0]
        }
        var parser = MIDIByteParser()
        var messages = 0
        let start = clock.now
        for b in stream where parser.feed(b) != nil { messages += 1 }
        let seconds = clock.now - start
        let mbps = Double(stream.count) / 1_000_000 / max(seconds, 1e-9)

        let p50 = percentile(0.5), p99 = percentile(0.99), maxUs = latencies.last ?? 0
        func f(_ x: Double) -> String { String(format: "%.1f", x) }
        return "{\"bench\":\"input\",\"iterations\":\(latencies.count),\"latencyUs\":{\"p50\":\(f(p50)),\"p99\":\(f(p99)),\"max\":\(f(maxUs))},"
            + "\"targetUs\":1000,\"pass\":\(p99 < 1000),\"parser\":{\"bytes\":\(stream.count),\"messages\":\(messages),\"MBps\":\(f(mbps))}}"
    }
}
