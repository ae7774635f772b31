import Clocks
import Foundation

/// Key → sound on PulseAudio, for the PulseAudio test and `make bench`: `parecord` records a
/// sink's `.monitor` (what the sink plays) while keys go into Etude's MIDI input (a FIFO); the
/// recording is dated as it arrives (`KeyToSound`).
public final class PulseMeter: @unchecked Sendable {
    public let rate: Int
    private let process = Process()
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private var arrivals: [KeyToSound.Arrival] = []
    private var reader: Thread?

    /// Starts `parecord` on `device` (e.g. `etude_lat.monitor`) with `environment`: mono
    /// 16-bit at `rate`, asking for 2 ms fragments. nil when it cannot start.
    public init?(parecord: String, device: String, environment: [String: String], rate: Int = 48_000) {
        self.rate = rate
        process.executableURL = URL(fileURLWithPath: parecord)
        process.arguments = ["-d", device, "--raw", "--rate=\(rate)", "--channels=1", "--format=s16le", "--latency-msec=2"]
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let fd = pipe.fileHandleForReading.fileDescriptor
        let thread = Thread { [self] in
            var buf = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = read(fd, &buf, buf.count)
                let now = MonotonicClock.seconds()
                guard n > 0 else { return }
                lock.withLock {
                    bytes.append(contentsOf: buf[0..<n])
                    arrivals.append(KeyToSound.Arrival(seconds: now, frames: bytes.count / 2))
                }
            }
        }
        thread.name = "etude-pulse-meter"
        reader = thread
        thread.start()
    }

    /// Frames recorded so far.
    public var frames: Int { lock.withLock { bytes.count / 2 } }

    /// Plays `count` keys into `fd` (raw MIDI: C5 at full velocity, 150 ms long, one every
    /// `spacing` seconds); returns the monotonic second each note-on was written.
    public static func play(count: Int, into fd: Int32, key: UInt8 = 72, spacing: Double = 0.7) -> [Double] {
        play(count: count, spacing: spacing) { on in
            var bytes: [UInt8] = on ? [0x90, key, 127] : [0x80, key, 0]
            return write(fd, &bytes, 3) == 3
        }
    }

    /// Plays `count` keys through `key` (true: down, false: up; false back when it failed).
    public static func play(count: Int, spacing: Double = 0.7, key: (Bool) -> Bool) -> [Double] {
        var times: [Double] = []
        for _ in 0..<count {
            let t = MonotonicClock.seconds()
            guard key(true) else { break }
            times.append(t)
            usleep(150_000)
            _ = key(false)
            usleep(UInt32(max(0, spacing - 0.15) * 1_000_000))
        }
        return times
    }

    /// Stops the recorder (after `tail` seconds more) and measures each key.
    public func finish(keys: [Double], tail: Double = 0.5, threshold: Float = 0.02) -> [Double?] {
        usleep(UInt32(tail * 1_000_000))
        // The recording is already here: parecord need not end politely (it may ignore SIGINT).
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let deadline = MonotonicClock.seconds() + 2
        while reader?.isFinished == false && MonotonicClock.seconds() < deadline { usleep(1_000) }
        let (raw, dated) = lock.withLock { (bytes, arrivals) }
        let samples: [Float] = stride(from: 0, to: raw.count - 1, by: 2).map {
            Float(Int16(bitPattern: UInt16(raw[$0]) | UInt16(raw[$0 + 1]) << 8)) / 32768
        }
        return KeyToSound.latencies(samples: samples, rate: Double(rate), arrivals: dated, keys: keys, threshold: threshold)
    }
}
