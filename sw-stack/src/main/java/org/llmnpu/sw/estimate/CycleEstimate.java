package org.llmnpu.sw.estimate;

import java.util.LinkedHashMap;
import java.util.Map;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.lower.PhaseCost;

/**
 * The cycles, traffic and counters of a prefill and the decode step after it ({@link CycleEstimator}), in the
 * NPU's own units (cycles, bytes); seconds and energy come with a clock and an energy table.
 *
 * @param shape     the model's shape
 * @param machine   the NPU the programs are costed on
 * @param quant     the block weights' format
 * @param promptLen prompt tokens of the prefill; the decode step feeds the token at position {@code promptLen}
 * @param staging   how weights reach the array (see {@link CycleEstimator.Staging})
 * @param stagingReason why the lowering's own program was not costed (empty when it was)
 * @param block     tokens per block of the prefill (the GEMMs' M)
 * @param prefill   every counter of the prefill's program (the prompt, the LM head of its last token)
 * @param decode    every counter of the decode step's program
 * @param fusion    the fusion level asked for, the one costed and each fusion not applied, with why
 * @param qkvPost   how q, k and v are scaled and post-processed ({@code --qkv-scales})
 * @param prefillOrder how the prefill's token blocks go ({@link CycleEstimator#ONE_BLOCK},
 *                  {@link CycleEstimator#TWO_BLOCKS_SKEWED}, {@link CycleEstimator#TWO_BLOCKS_STAGGERED} or
 *                  {@link CycleEstimator#TWO_BLOCKS_WOVEN_GATED}), and why
 *                  not two where they were tried
 */
public record CycleEstimate(ModelShapes.Shape shape, MachineParams machine, String quant, int promptLen,
                            CycleEstimator.Staging staging, String stagingReason, int block, PhaseCost prefill,
                            PhaseCost decode, org.llmnpu.sw.lower.Fusion.Applied fusion, String qkvPost,
                            String prefillOrder) {
  /** An estimate with each token's q/k/v scales (the default), one token block at a time. */
  public CycleEstimate(ModelShapes.Shape shape, MachineParams machine, String quant, int promptLen,
                       CycleEstimator.Staging staging, String stagingReason, int block, PhaseCost prefill,
                       PhaseCost decode, org.llmnpu.sw.lower.Fusion.Applied fusion) {
    this(shape, machine, quant, promptLen, staging, stagingReason, block, prefill, decode, fusion,
        "q/k/v scales each token's absmax, post per token", CycleEstimator.ONE_BLOCK);
  }

  /** MACs the array can do per cycle (rows × columns). */
  public long macsPerCycle() {
    return (long) machine.rows() * machine.rows();
  }

  /**
   * Prefill MAC utilization: the MACs the array executes (useful ones: a 2:4 GEMM's kept weights) over what it could
   * do in the prefill's cycles, {@code macs / (rows² · cycles)}.
   */
  public double prefillMacUtilization() {
    return prefill.macs() / ((double) macsPerCycle() * prefill.cycles());
  }

  /**
   * Decode bandwidth utilization: bytes read from external memory (weights, KV cache, vectors, command words, DSP
   * programs) over what the memory could deliver in the step's cycles, {@code readBytes / (bytesPerCycle · cycles)}
   * with the memory's effective bytes per cycle (a line every {@code ceil(line / memBytesPerCycle)} cycles).
   */
  public double decodeBandwidthUtilization() {
    return decode.readBytes() / (bytesPerCycle() * decode.cycles());
  }

  /** The memory's effective bytes per cycle: a line every {@link MachineParams#beatInterval()} cycles. */
  public double bytesPerCycle() {
    return machine.lineBytes() / (double) machine.beatInterval();
  }

  /** External-memory bytes a decode step moves (read and written). */
  public long decodeDramBytesPerToken() {
    return decode.readBytes() + decode.writeBytes();
  }

  /** Each unit's busy cycles over the phase's cycles: fetch, DMA, GEMM unit, MAC array, Vector DSP, PPM, memory stalls. */
  public static Map<String, Double> busyShares(PhaseCost phase) {
    Map<String, Double> m = new LinkedHashMap<>();
    double cycles = Math.max(1, phase.cycles());
    m.put("fetch", phase.counter(Counter.FETCH_CYCLES) / cycles);
    m.put("dma", phase.counter(Counter.DMA_CYCLES) / cycles);
    m.put("gemm", phase.counter(Counter.GEMM_CYCLES) / cycles);
    m.put("array", phase.counter(Counter.ARRAY_CYCLES) / cycles);
    m.put("dsp", phase.counter(Counter.DSP_CYCLES) / cycles);
    m.put("ppm", phase.counter(Counter.PPM_CYCLES) / cycles);
    m.put("memStall", phase.counter(Counter.MEM_STALL_CYCLES) / cycles);
    return m;
  }
}
