package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link DispatchRules} on a {@link GemmBackEnd} with one GEMM of 8×64×16 running (results at [4096, 4096 + 512)):
 * each rule's first cycle against the formulas of the npu-isa README (Overlap) — the back-end is idle in
 * {@code D + M·ceil(4N/line) + 1} ({@code D} = the drain's start, {@code + L} through the PPM), a command that waits
 * for it starts the cycle after, one beside it the cycle after its decode.
 */
class DispatchRulesTest {
  /** {@link DspCommandTest#P} with a PPM of 5 cycles' latency (its codes land 5 cycles after their lines). */
  static final MachineParams P = DspCommandTest.P.withUnits(5, false, Command.DENSE);
  static final long Y = 4096;
  static final long Y_END = Y + 8 * 64;
  static final int M = 8;
  static final int N = 16;

  private final GemmBackEnd back = new GemmBackEnd(P, EngineTiming.SYSTOLIC);
  private final DispatchRules rules = new DispatchRules(back);
  /** The controller's first cycle after the GEMM command. */
  private final long next;

  DispatchRulesTest() {
    next = back.gemm(10, M, 64, N, 64, false, false);
    back.results(Y, Y_END);
  }

  private long lines() {
    return M * ((4L * N + P.lineBytes() - 1) / P.lineBytes());
  }

  @Test
  void aCommandThatWaitsStartsTheCycleAfterTheBackEndIsIdle() {
    long idle = back.drainCandidate() + lines() + 1;
    assertEquals(idle, back.idleFrom(next));
    assertEquals(idle + 1, rules.dispatch(next + 1, false, false, true));
    assertFalse(back.pending(), "resolved");
    assertEquals(idle + 5, rules.dispatch(idle + 5, false, false, true), "no GEMM pending: the decode cycle + 1");
  }

  @Test
  void aLoadGoesBeforeTheDrainAndHoldsItsStartAndWaitsOnceTheDrainMayStart() {
    long candidate = back.drainCandidate();
    assertTrue(candidate > next + 3);
    assertEquals(next + 1, rules.dispatch(next + 1, true, false, true), "beside the engine");
    back.holdDrain(next + 1, candidate + 7);
    assertEquals(candidate + 7, back.drainCandidate(), "held to the load's end");
    assertEquals(candidate + 7 + lines() + 1 + 1, rules.dispatch(candidate + 8, true, false, true),
        "a load decoded once the drain may start waits for the back-end");
  }

  @Test
  void theStoreRuleReadsTheResultRangeAndTheDrainsReadPort() {
    assertTrue(rules.storeWaits(Y_END - 1, Y_END + 16));
    assertFalse(rules.storeWaits(Y_END, Y_END + 64));
    assertFalse(rules.storeWaits(0, Y));
    rules.drainReadsY();
    assertTrue(rules.storeWaits(0, Y), "a drain that reads Y holds the read port");
  }

  @Test
  void copiesClearOfTheResultsGoBesideTheEngineAndCopiesOfThemWait() {
    long idle = back.drainCandidate() + lines() + 1;
    assertEquals(next + 1, rules.dspCopy(next + 1, true, 0, Y), "dspin clear of Y");
    assertEquals(next + 1, rules.dspCopy(next + 1, false, Y_END, Y_END + 64), "dspout clear of Y, before the drain");
    assertEquals(idle + 1, rules.dspCopy(next + 1, true, Y, Y + 16), "dspin of Y");
  }

  @Test
  void aDspoutBesideARunningDrainGoesAtOnceAndPausesTheDrainForItsCycles() {
    long candidate = back.drainCandidate();
    long decoded = candidate + 3;
    long first = rules.dspCopy(decoded + 1, false, Y_END, Y_END + 64);
    assertEquals(decoded + 1, first, "its first cycle: the cycle after its decode, the drain running");
    rules.copied(false, first, first + 10);
    assertEquals(candidate, back.drainCandidate(), "the drain's start stays");
    assertEquals(candidate + lines() + 10 + 1, back.idleFrom(first + 10),
        "the drain's idle cycle pushed by the dspout's 10 cycles");
  }

  @Test
  void aDspoutInTheDrainsLastLineCyclePausesItAndOneAfterItLeavesItAlone() {
    long candidate = back.drainCandidate();
    rules.copied(false, candidate + lines(), candidate + lines() + 4);
    assertEquals(candidate + lines() + 4 + 1, back.idleFrom(next), "the last line waits for the dspout");
    rules.copied(false, candidate + lines() + 4 + 1, candidate + lines() + 4 + 9);
    assertEquals(candidate + lines() + 4 + 1, back.idleFrom(next), "a dspout after the last line changes nothing");
  }

  @Test
  void aDspoutBeforeTheDrainStartsHoldsTheStartToItsEnd() {
    long candidate = back.drainCandidate();
    long first = rules.dspCopy(next + 1, false, Y_END, Y_END + 64);
    assertEquals(next + 1, first);
    rules.copied(false, first, candidate + 5);
    assertEquals(candidate + 5, back.drainCandidate(), "held to the dspout's end");
    assertEquals(candidate + 5 + lines() + 1, back.idleFrom(next), "then all its lines");
  }

  @Test
  void aDspoutBeforeADrainThroughThePpmStartsGoesAtOnceAndHoldsItsStart() {
    back.drainThroughPpm(0);
    long candidate = back.drainCandidate();
    long first = rules.dspCopy(next + 1, false, Y_END, Y_END + 64);
    assertEquals(next + 1, first);
    rules.copied(false, first, candidate + 5);
    assertEquals(candidate + 5, back.drainCandidate());
  }

  @Test
  void aDspoutBesideADrainThroughThePpmStopsItsFeedAtDecodeAndGoesOnceItsCodesLanded() {
    back.drainThroughPpm(0);
    int latency = P.ppmLatency();
    assertTrue(latency > 1, "a latency the rule can show");
    long candidate = back.drainCandidate();
    long decoded = candidate + 3;
    long first = rules.dspCopy(decoded + 1, false, Y_END, Y_END + 64);
    assertEquals(Math.max(decoded, candidate + 2 + latency) + 1, first,
        "its last fed line (decode − 1)'s codes land, then it writes");
    rules.copied(false, first, first + 10);
    assertEquals(candidate + lines() + (first + 10 - decoded) + latency + 1, back.idleFrom(first + 10),
        "the feed paused from the decode to the dspout's end");
  }

  @Test
  void aDspoutInTheTailOfADrainThroughThePpmWaitsForTheLastCodesOnly() {
    back.drainThroughPpm(0);
    long lastLine = back.drainCandidate() + lines();
    long first = rules.dspCopy(lastLine + 2 + 1, false, Y_END, Y_END + 64);
    assertEquals(Math.max(lastLine + 2, lastLine + P.ppmLatency()) + 1, first);
    rules.copied(false, first, first + 10);
    assertEquals(lastLine + P.ppmLatency() + 1, back.idleFrom(first + 10), "nothing left to pause");
  }

  @Test
  void aDspinBesideAGatedDrainGoesAtOnceAndPausesItsFeedWhileItReads() {
    back.drainThroughPpm(0);
    rules.drainReadsY();
    long candidate = back.drainCandidate();
    long decoded = candidate + 2;
    long first = rules.dspCopy(decoded + 1, true, 0, Y);
    assertEquals(decoded + 1, first, "beside the running drain");
    rules.copied(true, first, first + 7);
    assertEquals(candidate + lines() + 6 + P.ppmLatency() + 1, back.idleFrom(first + 7),
        "paused for its 6 read cycles (not its DSP_DRAIN cycle)");
  }

  @Test
  void aDspinBesideADrainThatReadsNothingLeavesItAlone() {
    long candidate = back.drainCandidate();
    long first = rules.dspCopy(candidate + 2, true, 0, Y);
    rules.copied(true, first, first + 7);
    assertEquals(candidate + lines() + 1, back.idleFrom(first + 7));
  }

  @Test
  void aPpmcfgWaitsOnlyForTheBankTheRunningGemmsPpmReads() {
    back.drainThroughPpm(1);
    long idle = back.drainCandidate() + lines() + P.ppmLatency() + 1;
    assertEquals(idle, back.idleFrom(next));
    assertEquals(next + 1, rules.ppmCfg(next + 1, 0), "the other bank");
    assertEquals(idle + 1, rules.ppmCfg(next + 1, 1), "the bank its PPM reads");
  }
}
