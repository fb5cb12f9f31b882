package org.llmnpu.soc;

/**
 * The cost of an operator's calls on a backend.
 *
 * @param opS     time the backend computes (the roofline, or the NPU's cycles), s
 * @param callS   wall time of the calls: op time plus dispatch, communication and synchronization, s
 * @param commS   the part of {@code callS} spent moving data or synchronizing across backends, s
 * @param energyJ energy, J
 * @param backend where it ran ({@code cpu}, {@code gpu}, {@code npu}; a fallback says {@code cpu (fallback)})
 */
public record OpCost(double opS, double callS, double commS, double energyJ, String backend) {
  /** {@code times} calls of this one. */
  public OpCost times(double times) {
    return new OpCost(opS * times, callS * times, commS * times, energyJ * times, backend);
  }
}
