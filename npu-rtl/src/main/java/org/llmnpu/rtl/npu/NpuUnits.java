package org.llmnpu.rtl.npu;

import java.util.IdentityHashMap;
import java.util.Map;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.rtl.dsp.VectorDsp;
import org.llmnpu.rtl.mac.GemmBackend;
import org.llmnpu.rtl.ppm.LinePpm;

/**
 * The unit modules of an {@link Npu}, made (not yet instantiated) from its configuration: the top instantiates them
 * beside its {@link NpuController}, whose ports mirror the unit ports it reads and drives
 * ({@link NpuController#io}). Each unit's name is its instance name in the top and the prefix of the controller's
 * ports that face it.
 */
final class NpuUnits {
  final NpuFetchUnit fetch;
  final NpuDmaUnit dma;
  final NpuScratchpad spad;
  final NpuBackEnd back;
  final NpuWatchdog watchdog;
  final GemmBackend engine;
  final VectorDsp dsp;
  final LinePpm ppm;
  final NpuLoad4 load4;
  /** The load path's MX decoders, or null without {@code mxLoad}. */
  final NpuLoadMx loadMx;
  final NpuPredecode predecode;
  final NpuSnapshot snapshot;
  final NpuCounters counters;
  private final Map<HwModule, String> names = new IdentityHashMap<>();

  NpuUnits(NpuConfig c) {
    fetch = named("fetch", new NpuFetchUnit(c));
    dma = named("dma", new NpuDmaUnit(c));
    spad = named("spad", new NpuScratchpad(c));
    back = named("back", new NpuBackEnd(c));
    watchdog = named("watchdog", new NpuWatchdog(c));
    engine = named("gemm", c.gemmEngine());
    dsp = named("dsp", NpuDsp.module(c));
    ppm = named("ppm", NpuPpm.module(c));
    load4 = named("load4", new NpuLoad4(c));
    loadMx = c.mxLoad() ? named("loadMx", new NpuLoadMx(c)) : null;
    predecode = named("predecode", new NpuPredecode(c));
    snapshot = named("snapshot", new NpuSnapshot(c));
    counters = named("counters", new NpuCounters(c));
  }

  private <M extends HwModule> M named(String name, M unit) {
    names.put(unit, name);
    return unit;
  }

  /** The name of {@code unit} (its instance in the top), or null if it is none of these units. */
  String nameOf(HwModule unit) {
    return names.get(unit);
  }
}
