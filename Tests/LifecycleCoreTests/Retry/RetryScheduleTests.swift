import Testing

@testable import LifecycleCore

@Suite("Retry schedule: capped exponential backoff with full jitter")
struct RetryScheduleTests {
    let schedule = RetrySchedule(
        baseDelayMilliseconds: 1_000, multiplier: 2, maximumDelayMilliseconds: 60_000, maximumAttempts: 10)

    @Test("the cap doubles from the base until it reaches the maximum, then stays there")
    func capsGrowThenStop() {
        let caps = (1...9).map { schedule.cap(afterAttempt: $0) }
        #expect(caps == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000])
    }

    @Test(
        "caps never decrease and never exceed the maximum, whatever the configuration", arguments: [1.0, 1.5, 2, 3, 10])
    func monotoneCaps(multiplier: Double) {
        let schedule = RetrySchedule(
            baseDelayMilliseconds: 250, multiplier: multiplier, maximumDelayMilliseconds: 90_000,
            maximumAttempts: 200)
        var previous: Int64 = 0
        for n in 1..<200 {
            let cap = schedule.cap(afterAttempt: n)!
            #expect(cap >= previous, "cap after attempt \(n)")
            #expect(cap <= 90_000)
            previous = cap
        }
    }

    @Test("no delay exceeds the cap or the maximum, even for a random value just under 1")
    func neverExceedsMaximum() {
        var generator = SplitMix64(seed: 42)
        for n in 1..<10 {
            let cap = schedule.cap(afterAttempt: n)!
            for _ in 0..<200 {
                let delay = schedule.delay(afterAttempt: n, random: Double.random(in: 0..<1, using: &generator))!
                #expect(delay >= 0 && delay < cap && delay <= 60_000)
            }
            #expect(schedule.delay(afterAttempt: n, random: 1.0.nextDown)! < cap)
            #expect(schedule.delay(afterAttempt: n, random: 0) == 0)
        }
    }

    @Test("after the last allowed attempt there is no delay: the item is dead or failed")
    func nilAfterLimit() {
        #expect(schedule.delay(afterAttempt: 9, random: 0.5) != nil)
        #expect(schedule.delay(afterAttempt: 10, random: 0.5) == nil)
        #expect(schedule.delay(afterAttempt: 11, random: 0.5) == nil)
        #expect(RetrySchedule(maximumAttempts: 1).delay(afterAttempt: 1, random: 0.5) == nil)
    }

    @Test("the same attempt and random value always give the same delay")
    func deterministic() {
        #expect(schedule.delay(afterAttempt: 3, random: 0.5) == 2_000)
        #expect(schedule.delay(afterAttempt: 3, random: 0.25) == 1_000)
        #expect(schedule.delay(afterAttempt: 3, random: 0.5) == schedule.delay(afterAttempt: 3, random: 0.5))
        #expect(schedule.delay(afterAttempt: 8, random: 0.5) == 30_000)
    }

    @Test("out-of-range random values and huge attempt numbers are clamped, not trapped")
    func clamping() {
        let long = RetrySchedule(
            baseDelayMilliseconds: 1_000, multiplier: 10, maximumDelayMilliseconds: 3_600_000,
            maximumAttempts: .max)
        #expect(long.delay(afterAttempt: 1_000_000, random: 2)! < 3_600_000)
        #expect(long.delay(afterAttempt: 5, random: -1) == 0)
        #expect(long.delay(afterAttempt: 5, random: .nan) == 0)
        #expect(long.delay(afterAttempt: 0, random: 0.5) == nil)
    }

    @Test("documented defaults: 1 s base, doubling, 1 h maximum, 12 attempts")
    func defaults() {
        let defaults = RetrySchedule()
        #expect(defaults.baseDelayMilliseconds == 1_000)
        #expect(defaults.multiplier == 2)
        #expect(defaults.maximumDelayMilliseconds == 3_600_000)
        #expect(defaults.maximumAttempts == 12)
    }
}
