package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link MachineParams#builder()}, {@link MachineParams#toBuilder()} and {@link MachineParams#with}. */
class MachineParamsBuilderTest {
  private static MachineParamsBuilder sizes() {
    return MachineParams.builder().rows(16).lineBytes(16).spadBytes(1 << 16).spadBanks(4).extMemBytes(1 << 20)
        .mTile(16).accWidth(32).icAccumDepth(0).maxM(64).maxK(512).maxN(128).memLatency(8).memBytesPerCycle(16)
        .watchdogCycles(4096);
  }

  /** Every component set to a value other than the builder's default (the units of an edge-64-like NPU). */
  private static MachineParams everyUnit() {
    return sizes().dsp(MachineParams.DspParams.DEFAULT.withPermute(true)).weightRowsPerCycle(4).ppmLatency(9)
        .ppu(true).sparsity(Command.S2_4).mxLoad(true).commandQueueDepth(4).ppmGate(true).xKeep(true).ppmWide(true)
        .build();
  }

  /** A new record component without its builder setter (named as the component, of its type) fails here. */
  @Test
  void everyComponentHasItsSetter() throws NoSuchMethodException {
    for (java.lang.reflect.RecordComponent rc : MachineParams.class.getRecordComponents()) {
      assertEquals(MachineParamsBuilder.class,
          MachineParamsBuilder.class.getMethod(rc.getName(), rc.getType()).getReturnType(), rc.getName());
    }
  }

  @Test
  void fromNothingTheUnitsAreThePlainestMachines() {
    MachineParams p = sizes().build();
    assertEquals(MachineParams.DspParams.DEFAULT, p.dsp());
    assertEquals(1, p.weightRowsPerCycle());
    assertEquals(0, p.ppmLatency());
    assertFalse(p.hasPpm() || p.ppu() || p.ppmGate() || p.ppmWide() || p.mxLoad() || p.xKeep());
    assertEquals(Command.DENSE, p.sparsity());
    assertEquals(1, p.commandQueueDepth());
    assertEquals(16, p.rows());
    assertEquals(1 << 20, p.extMemBytes());
    assertEquals(4096, p.watchdogCycles());
  }

  @Test
  void aMachineWithoutItsSizesNamesEachOneMissing() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> MachineParams.builder().rows(16).lineBytes(16).spadBytes(1 << 16).spadBanks(4).mTile(16).build());
    assertEquals("MachineParams.builder(): set extMemBytes, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,"
        + " memBytesPerCycle, watchdogCycles", e.getMessage());
  }

  @Test
  void theRecordsChecksStillApply() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> sizes().ppmGate(true).build());
    assertEquals("ppmGate needs a PPM (ppmLatency > 0)", e.getMessage());
  }

  @Test
  void toBuilderKeepsEveryComponent() {
    MachineParams p = everyUnit();
    assertEquals(p, p.toBuilder().build());
    assertEquals(p, p.with(b -> { }));
  }

  @Test
  void withChangesOnlyWhatItSets() {
    MachineParams p = everyUnit();
    MachineParams q = p.with(b -> b.maxN(256).memLatency(100));
    assertNotEquals(p, q);
    assertEquals(256, q.maxN());
    assertEquals(100, q.memLatency());
    assertEquals(p, q.with(b -> b.maxN(p.maxN()).memLatency(p.memLatency())));
    assertTrue(q.ppmGate() && q.xKeep() && q.ppmWide() && q.mxLoad());
  }

  @Test
  void theWithMethodsChangeOneUnitEach() {
    MachineParams p = everyUnit();
    assertEquals(p.with(b -> b.memLatency(3).memBytesPerCycle(4)), p.withMemory(3, 4));
    assertEquals(p.with(b -> b.weightRowsPerCycle(2)), p.withWeightRowsPerCycle(2));
    assertEquals(p.with(b -> b.ppmLatency(5).ppu(false).sparsity(Command.S4_8)), p.withUnits(5, false, Command.S4_8));
    assertEquals(p.with(b -> b.commandQueueDepth(2)), p.withCommandQueueDepth(2));
    assertEquals(p.with(b -> b.ppmGate(false)), p.withPpmGate(false));
    assertEquals(p.with(b -> b.ppmWide(false)), p.withPpmWide(false));
    assertEquals(p.with(b -> b.mxLoad(false)), p.withMxLoad(false));
    assertEquals(p.with(b -> b.xKeep(false)), p.withXKeep(false));
    assertEquals(p.with(b -> b.dsp(MachineParams.DspParams.DEFAULT)), p.withDsp(MachineParams.DspParams.DEFAULT));
  }
}
