package org.llmnpu.sw.graph;

/** Dispatches (kernels), bytes of intermediates written off-chip and total off-chip bytes of a graph run. */
public record TrafficSummary(int kernels, long intermediateBytes, long totalBytes) {
}
