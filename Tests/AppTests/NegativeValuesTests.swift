import Reports
import Testing

/// A negative number after an option is its value, not a cluster of short flags.
struct NegativeValuesTests {
    @Test func aNegativeNumberIsJoinedToTheOptionBeforeIt() {
        #expect(OptionRefusals.negativeValuesJoined(["calibrate", "--offset", "-12"]) == ["calibrate", "--offset=-12"])
        #expect(OptionRefusals.negativeValuesJoined(["practice", "x", "--tempo", "-5%", "--transpose", "-.5"])
                == ["practice", "x", "--tempo=-5%", "--transpose=-.5"])
        #expect(OptionRefusals.negativeValuesJoined(["play", "--no-screen", "-h"]) == ["play", "--no-screen", "-h"], "a flag stays a flag")
        #expect(OptionRefusals.negativeValuesJoined(["--bpm=-3", "--", "--x", "-1"]) == ["--bpm=-3", "--", "--x", "-1"], "after -- nothing is touched")
    }
}
