#if canImport(Glibc)
import Clocks
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MIDIFile

/// Played notes from a raw MIDI byte stream: a `/dev/midi*` device node, a FIFO another program
/// writes to, or any file of captured bytes.
///
/// The stream ends — with one `.ended` message and no further events — when the FIFO's writer
/// closes it, the file reaches its end, or the device goes away; the caller carries on without
/// input.
public final class ByteStreamInput: InputSource, @unchecked Sendable {
    public let path: String
    public var name: String { path }
    private let clock: any TimeSource
    private var reader: ReaderThread?

    public init(path: String, clock: any TimeSource = MonotonicClock()) {
        self.path = path
        self.clock = clock
    }

    public func start(_ handler: @escaping @Sendable (InputEvent) -> Void) throws(InputError) {
        stop()  // a second start replaces the first reader
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw InputError("cannot read MIDI input \(path): \(String(cString: strerror(errno))); pass an existing device, FIFO or file (e.g. --input /dev/midi1)")
        }
        let type = st.st_mode & S_IFMT
        if type == S_IFDIR {
            throw InputError("MIDI input \(path) is a directory; pass a device, FIFO or file (e.g. --input /dev/midi1)")
        }
        // Non-blocking open: opening a FIFO must not wait for its writer.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let why = String(cString: strerror(errno))
            let hint = errno == EACCES ? " (add yourself to the audio group or fix the permissions)" : ""
            throw InputError("cannot open MIDI input \(path): \(why)\(hint)")
        }
        let reader = try ReaderThread()
        self.reader = reader
        let kind: StreamKind = type == S_IFIFO ? .fifo : (type == S_IFCHR ? .device : .file)
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

    enum StreamKind { case fifo, device, file }

    private static func loop(fd: Int32, kind: StreamKind, path: String, clock: any TimeSource,
                             reader: ReaderThread, handler: @Sendable (InputEvent) -> Void) {
        var parser = MIDIByteParser()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: reader.wakeFD, events: Int16(POLLIN), revents: 0)]
        while !reader.stopRequested {
            fds[0].revents = 0
            fds[1].revents = 0
            let r = poll(&fds, 2, -1)
            if r < 0 {
                if errno == EINTR { continue }
                handler(.ended("MIDI input \(path) failed: \(String(cString: strerror(errno))); input ended"))
                return
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
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
                case .fifo: handler(.ended("MIDI input \(path): the writer closed the FIFO; input ended, the lesson carries on"))
                case .file: handler(.ended("MIDI input \(path): end of file; input ended"))
                case .device: handler(.ended("MIDI input \(path): the device closed; input ended (plug it back and restart input)"))
                }
                return
            } else {
                let e = errno
                let broken = fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
                if (e == EAGAIN || e == EINTR) && !broken { continue }
                handler(.ended("MIDI input \(path) stopped: \(String(cString: strerror(e))); input ended (device unplugged?)"))
                return
            }
        }
    }
}
