// A tiny full-screen program for the pseudo-terminal tests: it opens a TerminalSession, says
// READY, echoes decoded keys, and ends the way the test asks: `q` exits 0, `t` throws an error
// out of the session (exit 3), Ctrl-Z suspends; signals are sent by the test itself.
import Terminal
#if canImport(Glibc)
import Glibc
#endif

struct ProbeFailure: Error {}

func say(_ s: TerminalSession, _ text: String) { s.write(Array((text + "\r\n").utf8)) }

do {
    try TerminalSession.run { session in
        say(session, "READY")
        var decoder = KeyDecoder()
        while true {
            let bytes = session.readInput(timeoutMilliseconds: 50)
            let events = session.takeEvents()
            if events.contains(.resumed) { say(session, "RESUMED") }
            if events.contains(.inputClosed) { return }
            var keys = decoder.feed(bytes)
            if bytes.isEmpty && decoder.hasPending { keys += decoder.flush() }
            for key in keys {
                say(session, "KEY \(key)")
                if key == Key("q") { return }
                if key == Key("t") { throw ProbeFailure() }
                if key == Key.ctrl("z") { session.suspend() }
            }
        }
    }
    exit(0)
} catch let error as TerminalError {
    FileHandleless.stderr("etude-tty-probe: \(error)")
    exit(2)
} catch {
    FileHandleless.stderr("etude-tty-probe: error thrown out of the session")
    exit(3)
}

enum FileHandleless {
    static func stderr(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
