import Clocks
import Foundation
import Judge
import Lesson
import MIDIFile
import Synchronization
import Synth
import Testing
@testable import Practice

/// The runtime as a mailbox (issue 36 step 4): every message in goes through one `post` that
/// never waits for the owner, drained by the owner in order; effects leave through one outbox.
@Suite("Practice mailbox and outbox")
struct MailboxTests {
    /// Several threads post thousands of messages each while the owner drains: nothing is lost,
    /// nothing is handled twice, and each sender's messages come out in the order it sent them.
    @Test func aHammerFromSeveralThreadsLosesNothingAndKeepsEachSendersOrder() {
        let senders = 4
        let each = 20_000
        let box = Mailbox<PracticeMessage>(capacity: senders * each)
        let received = Mutex<[PracticeMessage]>([])
        let stop = Atomic<Bool>(false)
        let done = DispatchGroup()
        // The owner: drains as it is woken, here in a loop of its own.
        done.enter()
        Thread {
            while true {
                let batch = box.takeAll()
                if !batch.isEmpty { received.withLock { $0 += batch } }
                if batch.isEmpty && stop.load(ordering: .acquiring) && box.count == 0 { break }
                if batch.isEmpty { usleep(50) }
            }
            done.leave()
        }.start()
        let posters = DispatchGroup()
        for sender in 0..<senders {
            posters.enter()
            Thread {
                for n in 0..<each {
                    // Sender in the pitch, sequence in the time; commands and ticks among the notes.
                    let message: PracticeMessage = n % 7 == 0 ? .pedal(down: n % 2 == 0, at: Double(n))
                        : .played(LearnerNote(pitch: 40 + sender, velocity: 64, isOn: true, time: Double(n)))
                    #expect(box.post(message) != .refused)
                }
                posters.leave()
            }.start()
        }
        #expect(posters.wait(timeout: .now() + 60) == .success)
        stop.store(true, ordering: .releasing)
        #expect(done.wait(timeout: .now() + 60) == .success)
        let all = received.withLock { $0 }
        #expect(all.count == senders * each, "nothing lost")
        #expect(box.dropped == 0)
        // Per sender (the pedal messages are everyone's: their times still rise per sender's run).
        for sender in 0..<senders {
            let times = all.compactMap { m -> Double? in
                if case .played(let note) = m, note.pitch == 40 + sender { return note.time } else { return nil }
            }
            #expect(times.count == each - (each + 6) / 7, "sender \(sender)'s notes all arrived")
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "sender \(sender)'s order kept")
        }
    }

    /// A full mailbox refuses and counts, and never blocks the one posting.
    @Test func aFullMailboxRefusesAndCountsWithoutWaiting() {
        let box = Mailbox<PracticeMessage>(capacity: 10)
        let start = Date()
        var posted: [Mailbox<PracticeMessage>.Posted] = []
        for n in 0..<15 { posted.append(box.post(.tick(Double(n)))) }
        #expect(Date().timeIntervalSince(start) < 1)
        #expect(posted.first == .first)
        #expect(posted.filter { $0 == .refused }.count == 5)
        #expect(box.dropped == 5)
        #expect(box.takeAll() == (0..<10).map { .tick(Double($0)) })
        #expect(box.post(.tick(99)) == .first, "empty again: the next post wakes the owner")
    }

    /// A real-time session: notes, pedal and commands posted from several threads at once while
    /// the runner plays. No post waits for the runner; every note is judged (the held keys go
    /// back to none), every command reaches the front end once, in each sender's order.
    @Test func postsToARunningSessionNeverWaitAndArriveInOrder() throws {
        let plan = PracticePlan(tempo: .percent(100), repeatMode: .forever)
        let settings = PracticeSession.Settings(mode: .play, countIn: false, holdAfterPass: false)
        let session = try PracticeSession(lesson: TransportRunnerTests().lesson(), plan: plan, clock: MonotonicClock(),
                                          output: RecordingOutput(), settings: settings)
        session.start()
        defer { session.stop() }
        let slowest = Mutex<Double>(0)
        let commands = Mutex<[PracticeCommand]>([])
        let stop = Atomic<Bool>(false)
        // The front end: takes the notices as a screen would, each frame.
        let frontEnd = DispatchGroup()
        frontEnd.enter()
        Thread {
            while !stop.load(ordering: .acquiring) {
                let taken = session.takeNotices().compactMap { n -> PracticeCommand? in
                    if case .command(let c) = n { return c } else { return nil }
                }
                commands.withLock { $0 += taken }
                usleep(2000)
            }
            frontEnd.leave()
        }.start()
        let senders = DispatchGroup()
        let perSender = 3000
        // Two inputs playing their own key, on and off; one gesture sender with its commands.
        for pitch in [61, 63] {
            senders.enter()
            Thread {
                for n in 0..<perSender {
                    let t0 = MonotonicClock.seconds()
                    let now = session.now
                    #expect(session.post(.played(LearnerNote(pitch: pitch, velocity: n % 2 == 0 ? 70 : 0, isOn: n % 2 == 0, time: now))))
                    if n % 10 == 0 { #expect(session.post(.pedal(down: n % 20 == 0, at: now))) }
                    let took = MonotonicClock.seconds() - t0
                    slowest.withLock { $0 = max($0, took) }
                    if n % 50 == 0 { usleep(500) }
                }
                senders.leave()
            }.start()
        }
        let gestures: [PracticeCommand] = (0..<200).map { $0 % 2 == 0 ? .toggleNoteNames : .toggleHelp }
        senders.enter()
        Thread {
            for c in gestures {
                #expect(session.post(.command(c)))
                usleep(200)
            }
            senders.leave()
        }.start()
        #expect(senders.wait(timeout: .now() + 60) == .success)
        // Let the owner drain, then the front end take the last notices.
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline && commands.withLock({ $0.count }) < gestures.count { usleep(10_000) }
        stop.store(true, ordering: .releasing)
        #expect(frontEnd.wait(timeout: .now() + 10) == .success)
        #expect(commands.withLock { $0 } == gestures, "every command once, in order")
        #expect(session.droppedMessages == 0)
        // Each key was played an even number of times (on, off): judged in order, none is held.
        let settled = Date(timeIntervalSinceNow: 5)
        while Date() < settled && !session.coach.learnerKeys.held.isEmpty { usleep(10_000) }
        #expect(session.coach.learnerKeys.held.isEmpty, "every note-off came after its note-on")
        #expect(slowest.withLock { $0 } < 0.05, "a post never waits for the runner: slowest \(slowest.withLock { $0 }) s")
    }

    /// The screen's own keys never wait for the runner (issue 36 step 4): with the runner held
    /// inside a tick, a thousand commands from the screen's controller return at once and change
    /// nothing yet; when it goes on, all of them are applied in order — the same notices, in the
    /// same order, as the same keys on a virtual clock, where each is applied at once.
    @Test func aThousandScreenCommandsToAStalledRunnerReturnAtOnceAndApplyInOrderAfter() throws {
        let pattern: [PracticeCommand] = [.tempoUp, .tempoUp, .tempoUp, .tempoDown, .toggleMetronome, .tempoDown,
                                          .toggleNoteNames, .cycleOtherHand, .tempoUp, .loopStartHere, .loopEndHere,
                                          .toggleLoop, .tempoDown, .cycleHand]
        let commands = (0..<1000).map { pattern[$0 % pattern.count] }
        let plan = PracticePlan(tempo: .percent(100), repeatMode: .forever)
        let lesson = try TransportRunnerTests().lesson()

        // What the keys do, applied one by one as they are given (a virtual clock: no runner
        // thread, a post is applied at once; the notices read here, before a controller takes them).
        let reference = try PracticeSession(lesson: lesson, plan: plan, clock: VirtualClock(), output: RecordingOutput())
        reference.start()
        reference.pause()
        _ = reference.takeNotices()
        var expected: [PracticeNotice] = []
        for c in commands {
            reference.post(.apply(.key(c)))
            expected += reference.takeNotices()
        }
        #expect(expected.count >= commands.count, "every key says something")

        // The same keys to a real-time session whose runner is held inside a tick.
        let session = try PracticeSession(lesson: lesson, plan: plan, clock: MonotonicClock(), output: RecordingOutput())
        session.start()
        defer { session.stop() }
        session.pause()
        let paused = Date(timeIntervalSinceNow: 10)
        while session.transport.state != .paused && Date() < paused { usleep(1000) }
        #expect(session.transport.state == .paused)
        let holding = Atomic<Bool>(true)
        let held = DispatchSemaphore(value: 0)
        let letGo = DispatchSemaphore(value: 0)
        session.onTick = { _ in
            guard holding.exchange(false, ordering: .acquiringAndReleasing) else { return }
            held.signal()
            letGo.wait()  // the runner stalls here
        }
        #expect(held.wait(timeout: .now() + 10) == .success, "the runner reached its tick")
        _ = session.takeNotices()
        let tempoBefore = session.transport.tempoPercent

        // The screen: its controller made and used on a thread of its own, so a wait would show
        // as a timeout here instead of hanging the test.
        let posted = DispatchSemaphore(value: 0)
        let postingTook = Mutex<Double>(-1)
        Thread {
            let keys = PracticeController(session: session)
            let t0 = MonotonicClock.seconds()
            for c in commands { keys.handle(c) }
            postingTook.withLock { $0 = MonotonicClock.seconds() - t0 }
            posted.signal()
        }.start()
        let returned = posted.wait(timeout: .now() + 20) == .success
        #expect(returned, "posting a thousand commands returned while the runner was stalled")
        // Nothing applied while the runner stands still.
        #expect(session.transport.tempoPercent == tempoBefore)
        #expect(session.takeNotices().isEmpty, "nothing applied before the runner goes on")
        letGo.signal()
        guard returned else { return }
        print("1,000 screen commands posted to a stalled runner in \(postingTook.withLock { $0 }) s")

        var got: [PracticeNotice] = []
        let deadline = Date(timeIntervalSinceNow: 20)
        while got.count < expected.count && Date() < deadline {
            got += session.takeNotices()
            usleep(2000)
        }
        got += session.takeNotices()
        #expect(got.count == expected.count)
        if let i = zip(got, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("notice \(i) differs: \(got[i]) where the keys one by one said \(expected[i])")
        }
        #expect(session.transport.tempoPercent == reference.transport.tempoPercent)
        #expect(session.transport.plan == reference.transport.plan)
        #expect(session.droppedMessages == 0)
    }

    /// On a virtual clock there is no runner thread: a post is handled at once, as before.
    @Test func onAVirtualClockAPostIsHandledAtOnce() throws {
        let clock = VirtualClock()
        let settings = PracticeSession.Settings(mode: .play, countIn: false)
        let session = try PracticeSession(lesson: TransportRunnerTests().lesson(), plan: PracticePlan(), clock: clock,
                                          output: RecordingOutput(), settings: settings)
        session.start()
        session.post(.played(LearnerNote(pitch: 60, velocity: 80, isOn: true, time: 0)))
        #expect(session.coach.learnerKeys.held == [60])
        session.post(.played(LearnerNote(pitch: 60, velocity: 0, isOn: false, time: 0.2)))
        #expect(session.coach.learnerKeys.held.isEmpty)
    }

    /// The owner is checked without a lock: its own thread while it runs, anyone before and after.
    @Test func theOwnerIsTheRunnersThreadWhileItRuns() throws {
        let transport = try Transport(lesson: TransportRunnerTests().lesson(), plan: PracticePlan(), clock: MonotonicClock())
        let runner = TransportRunner(transport: transport, clock: MonotonicClock(), output: RecordingOutput())
        #expect(runner.isOnOwner, "before start, the thread that made it")
        runner.start()
        #expect(!runner.isOnOwner, "another thread while it runs")
        #expect(runner.run { runner.isOnOwner }, "its own thread")
        runner.stop()
        #expect(runner.isOnOwner, "after stop, the thread that stopped it")
    }

    /// Effects leave through one outbox, each taken once, in the order emitted; the pass
    /// results callers take leave the others in their order.
    @Test func theOutboxHandsEachEffectOnceInOrder() {
        let outbox = EffectOutbox()
        let loop = LoopSnapshot(bars: 1...2, hands: .both, tempoPercent: 80, otherHand: .play)
        let effects: [PracticeEffect] = [.guide(true), .saveLoop(loop), .guide(false),
                                         .savePass(bytes: [1, 2, 3], directory: "/tmp", at: Date(timeIntervalSince1970: 0))]
        for e in effects { outbox.emit(e) }
        #expect(outbox.take(where: { if case .guide = $0 { return true } else { return false } }) == [.guide(true), .guide(false)])
        #expect(outbox.wait(timeout: 1) == [effects[1], effects[3]])
        #expect(outbox.take().isEmpty)
        let start = Date()
        #expect(outbox.wait(timeout: 0.05).isEmpty)
        #expect(Date().timeIntervalSince(start) < 1)
    }
}
