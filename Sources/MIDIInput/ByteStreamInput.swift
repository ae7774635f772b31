#if canImport(Glibc)
import Clocks
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MIDIFile

/// Played notes from a raw MIDI byte stream: a `/dev/midi*` device node or a FIFO another
/// program writes to. A regular file is refused (it is no instrument, and /etc/passwd read as
/// one would "end" at once), as is anything else that is not a character device or a FIFO.
///
/// The stream ends — with one `.ended` message and no further events — when the FIFO's writer
/// closes it or the device goes away; the caller carries on without input. A stream that is not
/// MIDI stops with one `.failed` message instead of being read forever: no status byte in its
/// first `maxBytesWithoutStatus` bytes (`/dev/zero`), or more than `maxBurstBytes` within
/// `burstSeconds` (a keyboard on a 31,250-baud MIDI cable sends at most 3,125 bytes a second,
/// 780 in a quarter of one; `/dev/urandom` fills the first read). Either is found before the
/// bytes that show it are delivered, so no note of such a stream reaches the caller.
public final class ByteStreamInput: InputSource, @unchecked Sendable {
    public let path: String
    public var name: String { path }
    /// The absolute path of the device or FIFO.
    public var deviceID: String { InputDeviceID.path(path) }
    private let clock: any TimeSource
    private var reader: ReaderThread?

    public init(path: String, clock: any TimeSource = MonotonicClock()) {
        self.path = path
        self.clock = clock
    }

    /// Whether `path` is a character device (a MIDI instrument's `/dev/midiN`, `/dev/snd/midiC1D0`)
    /// rather than a FIFO or file another program writes: only an instrument can sound itself.
    public static func isCharacterDevice(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFCHR
    }

    /// What `path` is, refused unless a character device or a FIFO: one line naming it.
    /// Commands check it before anything opens (the synth, the screen).
    public static func check(_ path: String) throws(InputError) -> mode_t {
        var st = stat()
        let shown = TextDecoding.sanitize(path)
        guard stat(path, &st) == 0 else {
            throw InputError("cannot read MIDI input \(shown): \(String(cString: strerror(errno))); pass an existing MIDI device or FIFO (e.g. --input /dev/midi1), or midi")
        }
        let type = st.st_mode & S_IFMT
        switch type {
        case S_IFCHR, S_IFIFO:
            return type
        case S_IFDIR:
            throw InputError("MIDI input \(shown) is a directory; pass a MIDI device (--input /dev/midi1), a FIFO, or midi for a keyboard on ALSA")
        case S_IFREG:
            throw InputError("MIDI input \(shown) is a regular file, not an instrument; pass a MIDI device (--input /dev/midi1), a FIFO, or midi for a keyboard on ALSA")
        default:
            throw InputError("MIDI input \(shown) is neither a MIDI device nor a FIFO; pass --input /dev/midi1, a FIFO, or midi for a keyboard on ALSA")
        }
    }

    public func start(_ handler: @escaping @Sendable (InputEvent) -> Void) throws(InputError) {
        stop()  // a second start replaces the first reader
        let type = try Self.check(path)
        let shown = TextDecoding.sanitize(path)
        // Non-blocking open: opening a FIFO must not wait for its writer.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let why = String(cString: strerror(errno))
            let hint = errno == EACCES ? " (add yourself to the audio group or fix the permissions)" : ""
            throw InputError("cannot open MIDI input \(shown): \(why)\(hint)")
        }
        let reader = try ReaderThread()
        self.reader = reader
        let kind: StreamKind = type == S_IFIFO ? .fifo : .device
        let path = self.path
        let clock = self.clock
        reader.start {
            Self.loop(fd: fd, kind: kind, path: path, clock: clock, reader: reader, handler: handler)
            close(fd)
        }
        reader.waitUntilRunning()
    }

    public func stop() {
        reader?.stopAndJoin()
    }

    enum StreamKind { case fifo, device }

    /// Bytes read before the first status byte after which a stream is taken for not MIDI.
    public static let maxBytesWithoutStatus = 1024
    /// Bytes within `burstSeconds` beyond which a stream is faster than any keyboard (8 KB a
    /// second, more than twice a MIDI cable's most).
    public static let maxBurstBytes = 2048
    public static let burstSeconds = 0.25

    private static func loop(fd: Int32, kind: StreamKind, path: String, clock: any TimeSource,
                             reader: ReaderThread, handler: @Sendable (InputEvent) -> Void) {
        var parser = MIDIByteParser()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let shown = TextDecoding.sanitize(path)
        var sawStatus = false
        var bytesBeforeStatus = 0
        // Rate over wall-clock seconds (the session clock may be a test's virtual one).
        var windowStart = MonotonicClock.seconds()
        var windowBytes = 0
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: reader.wakeFD, events: Int16(POLLIN), revents: 0)]
        while !reader.stopRequested {
            fds[0].revents = 0
            fds[1].revents = 0
            let r = poll(&fds, 2, -1)
            if r < 0 {
                if errno == EINTR { continue }
                handler(.ended("MIDI input \(shown) failed: \(String(cString: strerror(errno))); input ended"))
                return
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                if !sawStatus {
                    if let first = buffer[0..<n].firstIndex(where: { $0 >= 0x80 }) {
                        sawStatus = true
                        bytesBeforeStatus += first
                    } else {
                        bytesBeforeStatus += n
                    }
                    if bytesBeforeStatus > maxBytesWithoutStatus {
                        handler(.failed("MIDI input \(shown) is not MIDI (no status byte in its first \(maxBytesWithoutStatus) bytes); give a MIDI device, a FIFO of MIDI bytes, or midi"))
                        return
                    }
                }
                let wall = MonotonicClock.seconds()
                if wall - windowStart >= burstSeconds {
                    windowStart = wall
                    windowBytes = 0
                }
                windowBytes += n
                if windowBytes > maxBurstBytes {
                    handler(.failed("MIDI input \(shown) sends data faster than any keyboard (over \(Int(Double(maxBurstBytes) / burstSeconds / 1024)) KB a second): not an instrument; give a MIDI device, a FIFO of MIDI bytes, or midi"))
                    return
                }
                let time = clock.now
                for i in 0..<n {
                    guard let message = parser.feed(buffer[i]) else { continue }
                    if let note = PlayedNote(message, time: time) {
                        handler(.note(note))
                    } else {
                        handler(.control(message, time: time))
                    }
                }
            } else if n == 0 {
                switch kind {
                case .fifo: handler(.ended("MIDI input \(shown): the writer closed the FIFO; input ended"))
                case .device: handler(.ended("MIDI input \(shown): the device closed; input ended (plug it back and restart input)"))
                }
                return
            } else {
                let e = errno
                let broken = fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
                if (e == EAGAIN || e == EINTR) && !broken { continue }
                handler(.ended("MIDI input \(shown) stopped: \(String(cString: strerror(e))); input ended (device unplugged?)"))
                return
            }
        }
    }
}
