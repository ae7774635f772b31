import Foundation
import Testing

/// A JACK server of a test's own: `jackd -n NAME -d dummy -r 48000 -p 64` (no sound card), under
/// a name no other test uses. Clients reach it through `environment` (`JACK_DEFAULT_SERVER`);
/// an in-process client through `JackServer.use` (which sets it for this process). The server
/// is killed when the value goes away. Tests that need one say
/// `.enabled(if: JackServer.available, JackServer.reason)`.
public final class JackServer: @unchecked Sendable {
    public let name: String
    public let rate: Int
    public let period: Int
    public let process: Spawned

    /// One server at a time in this test process: two dummy servers each running a 64-frame
    /// cycle on a loaded two-core machine starve each other's clients (a latency figure of 208
    /// frames, a microphone port that hears nothing), so every JACK test waits its turn here.
    private static let turn = DispatchSemaphore(value: 1)
    private let turnLock = NSLock()
    nonisolated(unsafe) private var holdsTurn = true

    private func endTurn() {
        turnLock.withLock {
            if holdsTurn { holdsTurn = false; Self.turn.signal() }
        }
    }

    /// Whether `jackd` is installed and a dummy server starts here (checked once).
    public static let available: Bool = {
        guard Tools.which("jackd") != nil else { return false }
        return (try? JackServer(tag: "probe")) != nil
    }()
    public static let reason: Comment = "jackd (Debian jackd2) is not installed or its dummy backend cannot start here"

    /// The environment a process needs to reach this server.
    public var environment: [String: String] { ["JACK_DEFAULT_SERVER": name, "JACK_NO_AUDIO_RESERVATION": "1"] }

    /// Starts the server and waits (at most 10 s) until a client can connect.
    public init(tag: String, rate: Int = 48_000, period: Int = 64) throws {
        name = "etude-test-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.rate = rate
        self.period = period
        Self.turn.wait()
        do {
            process = try Spawned("jackd", ["-n", name, "-d", "dummy", "-r", String(rate), "-p", String(period)],
                                  extra: ["JACK_NO_AUDIO_RESERVATION": "1"])
        } catch {
            Self.turn.signal()
            throw error
        }
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            if !process.isRunning { break }
            let probe = try Spawned("jack_lsp", [], extra: environment)
            if probe.wait(timeout: 5) == 0 { return }
            usleep(100_000)
        }
        stop()
        throw SpawnError(message: "jackd -n \(name) did not start")
    }

    deinit {
        stop()
        endTurn()
    }

    /// Sets `JACK_DEFAULT_SERVER` in this process so in-process clients reach this server.
    public func use() { setenv("JACK_DEFAULT_SERVER", name, 1) }

    /// Stops the server under its clients' feet (SIGTERM: they get the server's shutdown, as when
    /// it crashes, and no stale shared memory is left behind on the machine) and reaps it.
    public func kill() {
        Foundation.kill(process.pid, SIGTERM)
        process.wait(timeout: 5)
    }

    /// Stops the server (SIGTERM, then SIGKILL after 3 s); the next JACK test may start.
    public func stop() {
        defer { endTurn() }
        guard process.isRunning else { return }
        Foundation.kill(process.pid, SIGTERM)
        if process.wait(timeout: 3) == 128 + SIGKILL { return }
    }

    /// Runs `jack_lsp` with `arguments` on this server: the ports (and connections with `-c`).
    public func lsp(_ arguments: [String] = []) -> String {
        guard let p = try? Spawned("jack_lsp", arguments, extra: environment) else { return "" }
        p.wait(timeout: 5)
        return (try? String(contentsOfFile: p.stdoutPath, encoding: .utf8)) ?? ""
    }

    /// Waits until a port named `port` exists (at most `timeout` seconds).
    public func waitForPort(_ port: String, timeout: Double = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if lsp().split(separator: "\n").contains(where: { $0 == port }) { return true }
            usleep(100_000)
        }
        return false
    }
}
