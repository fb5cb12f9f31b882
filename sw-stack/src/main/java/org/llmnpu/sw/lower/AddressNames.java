package org.llmnpu.sw.lower;

/** Names of external-memory addresses of a {@link LoweredModel} ({@link LoweredModel#describe}). */
final class AddressNames {
  private AddressNames() {
  }

  /** The region an external-memory address falls in (e.g. "layers[2].w13", "k cache layer 1 slot 5"). */
  static String describe(LoweredModel m, MemoryRegions regions, long address) {
    if (address < LoweredModel.PROGRAM_BYTES) {
      return "command stream";
    }
    if (address >= m.kCache && address < m.kCache + (long) m.config().layers() * m.maxContext() * m.kvBytes) {
      long slot = (address - m.kCache) / m.kvBytes;
      return "k cache layer " + slot / m.maxContext() + " slot " + slot % m.maxContext();
    }
    if (address >= m.vCache && address < m.vCache + (long) m.config().layers() * m.maxContext() * m.kvBytes) {
      long slot = (address - m.vCache) / m.kvBytes;
      return "v cache layer " + slot / m.maxContext() + " slot " + slot % m.maxContext();
    }
    if (address >= m.kTCache && address < m.kTCache + (long) m.config().layers() * m.config().kvDim() * m.kTStride) {
      long row = (address - m.kTCache) / m.kTStride;
      return "k cache transposed layer " + row / m.config().kvDim() + " row " + row % m.config().kvDim();
    }
    if (address >= m.logits && address < m.logits + (long) m.maxStepTokens * m.logitsStride) {
      return "logits of token " + (address - m.logits) / m.logitsStride;
    }
    return regions.nameAt(address);
  }
}
