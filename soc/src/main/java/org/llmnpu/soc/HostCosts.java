package org.llmnpu.soc;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the host (the CPU's driver side) costs around accelerator work, and the shared DRAM's limits.
 *
 * @param submissionUs     per program submitted to the NPU (driver call, doorbell), µs
 * @param perOpDispatchUs  per operator when a runtime submits one NPU graph per operator (llama.cpp's NPU backend), µs
 * @param commandStreamUs  per command stream: cache maintenance of its buffers and the completion wait, µs
 * @param copyGBs          copy bandwidth of a tensor crossing backends without the shared-buffer path, GB/s
 * @param driverSyncUs     a cross-backend synchronization through the driver (sleep-based wait), µs
 * @param pollSyncUs       the fast synchronization: predicted wait then polling a flag next to the output, µs
 * @param dramGBs          the shared DRAM's achievable bandwidth: concurrent streams together never exceed it, GB/s
 * @param dramPjPerByte    DRAM energy per byte, pJ
 * @param bitsPerWeight    bits a CPU/GPU weight takes (4-bit with a scale per 32 weights: 4.5)
 * @param npuStandardMin   the smallest standard sequence length of a static-shape NPU graph (standard lengths are its
 *                         power-of-two multiples)
 */
public record HostCosts(Cited submissionUs, Cited perOpDispatchUs, Cited commandStreamUs, Cited copyGBs,
                        Cited driverSyncUs, Cited pollSyncUs, Cited dramGBs, Cited dramPjPerByte, Cited bitsPerWeight,
                        Cited npuStandardMin) {
  /** The same costs without any host overhead (submission, dispatch, command stream, sync set to 0). */
  public HostCosts withoutOverhead() {
    Cited zeroUs = new Cited(0, "us", "host overhead removed (--no-host-overhead)");
    return new HostCosts(zeroUs, zeroUs, zeroUs, copyGBs, zeroUs, zeroUs, dramGBs, dramPjPerByte, bitsPerWeight,
        npuStandardMin);
  }

  /** Every figure with its name. */
  public Map<String, Cited> figures() {
    Map<String, Cited> m = new LinkedHashMap<>();
    m.put("host.submissionUs", submissionUs);
    m.put("host.perOpDispatchUs", perOpDispatchUs);
    m.put("host.commandStreamUs", commandStreamUs);
    m.put("host.copyGBs", copyGBs);
    m.put("host.driverSyncUs", driverSyncUs);
    m.put("host.pollSyncUs", pollSyncUs);
    m.put("host.dramGBs", dramGBs);
    m.put("host.dramPjPerByte", dramPjPerByte);
    m.put("host.bitsPerWeight", bitsPerWeight);
    m.put("host.npuStandardMin", npuStandardMin);
    return m;
  }

  static HostCosts read(JsonNode n) {
    String w = "host";
    return new HostCosts(Cited.read(n, "submissionUs", w), Cited.read(n, "perOpDispatchUs", w),
        Cited.read(n, "commandStreamUs", w), Cited.read(n, "copyGBs", w), Cited.read(n, "driverSyncUs", w),
        Cited.read(n, "pollSyncUs", w), Cited.read(n, "dramGBs", w), Cited.read(n, "dramPjPerByte", w),
        Cited.read(n, "bitsPerWeight", w), Cited.read(n, "npuStandardMin", w));
  }
}
