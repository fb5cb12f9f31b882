package org.llmnpu.isa;

/**
 * The NPU's performance counters, numbered as the hardware's {@code counterSelect} port reads them.
 * {@link #golden()} ones are counts of work that the golden ISA simulator derives from the program
 * alone; the others are cycle counts that the {@link CycleModel} predicts.
 */
public enum Counter {
  CYCLES("cycles from start to done or error", false),
  COMMANDS("commands decoded (including halt)", true),
  DMA_LOAD_BYTES("bytes moved external memory → scratchpad", true),
  DMA_STORE_BYTES("bytes moved scratchpad → external memory", true),
  EXT_READ_BEATS("external-memory read beats (command fetch and DMA loads)", true),
  EXT_WRITE_BEATS("external-memory write beats", true),
  MACS("multiply-accumulates the MAC array executes (M·K·N dense; M·N·E·ceil(K/G) for an E:G sparse GEMM)", true),
  PSUM_WRITEBACKS("partial sums written back (extended IC accumulation)", true),
  SPAD_READS("scratchpad line reads", true),
  SPAD_WRITES("scratchpad line writes", true),
  FETCH_CYCLES("cycles fetching and decoding commands", false),
  DMA_CYCLES("cycles the DMA engine is busy (loads and stores)", false),
  GEMM_CYCLES("cycles the GEMM unit is busy (operand load, array, drain)", false),
  ARRAY_CYCLES("cycles the MAC array runs (start to done)", false),
  MEM_STALL_CYCLES("cycles a memory request waited for the memory to accept it", false),
  DSP_INSTRUCTIONS("Vector DSP instructions issued (loop bodies once per iteration, HALT included; interlock stalls not)", true),
  DSP_ELEMENTS("FP16 elements moved between the scratchpad and the Vector DSP buffer (both ways)", true),
  DSP_CYCLES("cycles the Vector DSP unit is busy (table and program loads, copies, runs)", false),
  DENSE_MACS("dense-equivalent multiply-accumulates of the GEMMs (M·K·N, sparse or not)", true),
  PPM_ELEMENTS("INT32 elements the PPM requantized (M·N per ppm and per gemm ppm=1)", true),
  PPM_CYCLES("cycles the PPM unit is busy (ppmcfg, pputab and ppm from their first cycle to their last)", false);

  private final String meaning;
  private final boolean golden;

  Counter(String meaning, boolean golden) {
    this.meaning = meaning;
    this.golden = golden;
  }

  public String meaning() {
    return meaning;
  }

  public boolean golden() {
    return golden;
  }

  /** The counter's name in JSON and reports (camelCase). */
  public String key() {
    StringBuilder b = new StringBuilder();
    boolean up = false;
    for (char ch : name().toLowerCase(java.util.Locale.ROOT).toCharArray()) {
      if (ch == '_') {
        up = true;
      } else {
        b.append(up ? Character.toUpperCase(ch) : ch);
        up = false;
      }
    }
    return b.toString();
  }
}
