import Judge
import Lesson
@testable import Reports
import Screen
import Synth
import Testing

/// The option values with a range or a fixed set: one parser and one message each, and the
/// parser's generic complaint turned into that message.
@Suite struct OptionValuesTests {
    @Test func eachValueIsReadOnceWithItsRangeChecked() throws {
        #expect(try TimingWindowMilliseconds(parsing: "120ms").milliseconds == 120)
        #expect(throws: OptionProblem.self) { try TimingWindowMilliseconds(parsing: "5") }
        #expect(try AccuracyThreshold(parsing: "85%").percent == 85)
        #expect(throws: OptionProblem.self) { try AccuracyThreshold(parsing: "101") }
        #expect(try InputOffsetMilliseconds(parsing: "-12.4").milliseconds == -12)
        #expect(throws: OptionProblem.self) { try InputOffsetMilliseconds(parsing: "501") }
        #expect(try AudioBufferMilliseconds(parsing: "20").milliseconds == 20)
        #expect(try NoteArgument(parsing: "F#3").pitch == 54)
        #expect(try NoteNaming(parsing: "C3") == .yamaha)
        #expect(try WAVSampleFormat(parsing: "FLOAT") == .float)
        #expect(try AudioDriver(parsing: "no-such-driver").name == "no-such-driver", "passed on to FluidSynth as it is")
        #expect(try MetronomeVolume(parsing: "50%").fraction == 0.5)
        #expect(try PracticePlan.Hands(parsing: "rh") == .right)
        #expect(try PracticePlan.OtherHand(parsing: "Quiet") == .quietDefault)
        #expect(try PracticePlan.Repeat(parsing: "forever") == .forever)
        #expect(try PracticePlan.SpeedTrainer(parsing: "60:100:10") == PracticePlan.SpeedTrainer(start: 60, target: 100, step: 10))
    }

    @Test func aRefusalIsWordedWithTheOptionsName() {
        #expect(OptionProblem("5", "give the timing window in milliseconds, 10–2000 (e.g. 150)").worded(option: "--window")
                == "--window 5: give the timing window in milliseconds, 10–2000 (e.g. 150)")
        let plan = PlanError(.other, "hide", "use play, quiet or mute")
        #expect(plan.worded(option: "--other-hand") == "--other-hand hide: use play, quiet or mute")
        #expect(OptionProblem("\u{1B}[2J", "x").worded(option: "--split") == "--split \(safe("\u{1B}[2J")): x", "no control byte reaches the terminal")
    }

    @Test func theParsersComplaintBecomesTheTypesLine() {
        #expect(OptionRefusals.parse("middle") { try PracticePlan.Hands(parsing: $0) } == nil)
        let parser = "Error: The value 'middle' is invalid for '--hand <hand>'. Please provide one of 'right', 'left' or 'both'."
        #expect(OptionRefusals.message(forParserMessage: parser) == "--hand middle: use left, right or both")
        #expect(OptionRefusals.message(forParserMessage: "Error: Unknown option '--bogus'") == nil, "another complaint is left alone")
        #expect(OptionRefusals.message(forParserMessage: "The value 'other' is invalid for '--hand <hand>'") == nil,
                "only the value that was refused")
        #expect(OptionRefusals.parse("left") { try PracticePlan.Hands(parsing: $0) } == .left)
    }
}
