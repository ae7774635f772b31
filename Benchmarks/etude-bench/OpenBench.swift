import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `etude-bench practice-open FILE --etude PATH [--seconds S] [--title T] [-- OPTIONS]`: the built `etude practice FILE`
/// on a pseudo-terminal (120×40, no audio device, its own empty database), as a user opens a
/// lesson: seconds from start to the first frame (the screen showing the lesson's title), the
/// longest gap between frames over the next S seconds of playing (a freeze shows here), and
/// the peak resident memory (VmHWM) by then. Issue 16's target for a 1,000,000-note lesson:
/// first frame under 1 s, under 400 MB.
enum OpenBench {
    static func run(_ args: [String]) -> String {
        guard let file = args.first, !file.hasPrefix("--") else { return usage }
        var etude = ""
        var seconds = 3.0
        var title = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        var extra: [String] = []
        var i = 1
        while i < args.count {
            if args[i] == "--" { extra = Array(args[(i + 1)...]); break }
            if args[i] == "--etude", i + 1 < args.count { etude = args[i + 1]; i += 2; continue }
            if args[i] == "--seconds", i + 1 < args.count { seconds = Double(args[i + 1]) ?? seconds; i += 2; continue }
            if args[i] == "--title", i + 1 < args.count { title = args[i + 1]; i += 2; continue }
            i += 1
        }
        guard !etude.isEmpty else { return usage }
        let home = NSTemporaryDirectory() + "etude-bench-open-\(getpid())"
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        _ = FileManager.default.createFile(atPath: home + "/asound.conf", contents: Data())
        let env = ["HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "TERM": "xterm-256color",
                   "ETUDE_DB": home + "/etude.sqlite", "ETUDE_LESSONS": home + "/no-lessons",
                   "XDG_RUNTIME_DIR": home, "PULSE_SERVER": "unix:\(home)/no-such-socket",
                   "PIPEWIRE_REMOTE": "\(home)/no-such-pipewire", "ALSA_CONFIG_PATH": "\(home)/asound.conf"]

        var master: Int32 = -1, slave: Int32 = -1
        var size = winsize(ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { return "{\"error\":\"no pseudo-terminal\"}" }
        defer { close(master) }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_adddup2(&actions, slave, fd) }
        posix_spawn_file_actions_addclose(&actions, master)
        let words: [String] = [etude, "practice", file] + extra
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let started = now()
        guard posix_spawn(&pid, etude, &actions, nil, argv, envp) == 0 else { return "{\"error\":\"cannot start \(etude)\"}" }
        close(slave)

        var output: [UInt8] = []
        var firstFrame: Double?
        var lastChunk = 0.0
        var maxGap = 0.0
        let titleBytes = Array(title.utf8)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = started + 60
        while now() < deadline {
            var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 10)
            let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            let t = now()
            if n > 0 {
                if firstFrame == nil {
                    output += buffer[0..<n]
                    if contains(output, Array("\u{1B}[?1049h".utf8)), contains(output, titleBytes) {
                        firstFrame = t - started
                        lastChunk = t
                    }
                } else {
                    maxGap = max(maxGap, t - lastChunk)
                    lastChunk = t
                }
            } else if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
                break  // the program ended
            }
            if let f = firstFrame, t - started - f >= seconds { break }
        }
        if let _ = firstFrame { maxGap = max(maxGap, now() - lastChunk) }
        let peakKB = peakResidentKB(pid)
        _ = "q".withCString { write(master, $0, 1) }
        var status: Int32 = 0
        let quitBy = now() + 10
        while waitpid(pid, &status, WNOHANG) == 0 {
            if now() > quitBy { kill(pid, SIGKILL); _ = waitpid(pid, &status, 0); break }
            // Keep the pseudo-terminal drained so the program's last writes never block.
            _ = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            usleep(10_000)
        }
        guard let first = firstFrame else {
            let tail = String(decoding: output.suffix(300), as: UTF8.self).replacingOccurrences(of: "\u{1B}", with: "\\e")
            return "{\"bench\":\"practice-open\",\"error\":\"no frame showing \(title) within 60 s\",\"output\":\(quote(tail))}"
        }
        return "{\"bench\":\"practice-open\",\"file\":\(quote(file)),\"firstFrameSeconds\":\(ParseBench.fmt(first)),"
            + "\"maxFrameGapSeconds\":\(ParseBench.fmt(maxGap)),\"playedSeconds\":\(ParseBench.fmt(seconds)),"
            + "\"peakRSSMB\":\(ParseBench.fmt(Double(peakKB) / 1024))}"
    }

    static let usage = "usage: etude-bench practice-open FILE.mid --etude PATH [--seconds S] [--title T (default: the file name)] [-- PRACTICE OPTIONS]"

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// VmHWM of a running process, in kB (0 when unknown).
    static func peakResidentKB(_ pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBufferPointer { h in
            for i in 0...(h.count - needle.count) where h[i] == needle[0] {
                if Array(h[i..<(i + needle.count)]) == needle { return true }
            }
            return false
        }
    }

    static func quote(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
