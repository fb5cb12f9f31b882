package org.llmnpu.isa;

import java.util.Optional;

/**
 * The NPU's command opcodes (bits 7:0 of word 0 of a command). Code 0 is deliberately
 * undefined, so a program that runs off its end into zeroed memory halts with
 * {@link ErrorCause#UNDEFINED_OPCODE} instead of doing something.
 */
public enum Opcode {
  /** 2-D strided DMA from external memory into the scratchpad. */
  LOAD(0x01, Queue.LOAD),
  /** 2-D strided DMA from the scratchpad to external memory. */
  STORE(0x02, Queue.STORE),
  /** INT8 GEMM {@code Y[M×N] = X[M×K] · W[K×N]} on the MAC array, operands and INT32 results in the scratchpad. */
  GEMM(0x03, Queue.EXECUTE),
  /** Loads the Vector DSP's three polynomial tables (exp, reciprocal, rsqrt) from external memory. */
  DSPTAB(0x04, Queue.EXECUTE),
  /** Copies scratchpad rows into the Vector DSP's buffer, converting INT8/INT32/FP16 to FP16 on the way. */
  DSPIN(0x05, Queue.EXECUTE),
  /** Copies Vector DSP buffer elements into scratchpad rows as FP16 or INT8 codes. */
  DSPOUT(0x06, Queue.EXECUTE),
  /**
   * Loads a Vector DSP program from external memory (or, resident, nothing) and runs it from its entry address
   * until its HALT.
   */
  DSPRUN(0x07, Queue.EXECUTE),
  /** Writes every performance counter (64 bits each, in {@link Counter} order) to external memory. */
  SNAPSHOT(0x08, Queue.NONE),
  /** 2-D strided DMA like {@link #LOAD} that unpacks two signed INT4 per source byte into INT8. */
  LOAD4(0x09, Queue.LOAD),
  /** Loads the PPM's per-channel requantization parameters (one 16-byte record per lane) from external memory. */
  PPMCFG(0x0A, Queue.EXECUTE),
  /** Loads the PPU's C-LUT (boundaries, coefficients, fractional bits) from external memory. */
  PPUTAB(0x0B, Queue.EXECUTE),
  /** Requantizes scratchpad INT32 rows to INT8 codes on the PPM (bias, scale, shift, zero point, PPU table). */
  PPM(0x0C, Queue.EXECUTE),
  /**
   * 2-D strided DMA like {@link #LOAD} that decodes MX elements (FP8 E4M3, FP8 E5M2 or INT8) into INT8
   * codes aligned to the format's top binade ({@link MxLoad}).
   */
  LOADMX(0x0D, Queue.LOAD),
  /** Waits until every earlier command has finished (all queues drained). */
  FENCE(0x0E, Queue.NONE),
  /** Ends the program: the NPU raises {@code done}. */
  HALT(0x0F, Queue.NONE),
  /** Loads Vector DSP program words from external memory into program memory at a word offset, without running. */
  DSPLD(0x10, Queue.EXECUTE);

  /** The decoupled queue that executes a command. */
  public enum Queue { LOAD, EXECUTE, STORE, NONE }

  private final int code;
  private final Queue queue;

  Opcode(int code, Queue queue) {
    this.code = code;
    this.queue = queue;
  }

  public int code() {
    return code;
  }

  public Queue queue() {
    return queue;
  }

  /** The mnemonic in {@code .npu} text: the lower-case name. */
  public String mnemonic() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  public static Optional<Opcode> fromCode(int code) {
    for (Opcode o : values()) {
      if (o.code == code) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }

  public static Optional<Opcode> fromMnemonic(String text) {
    for (Opcode o : values()) {
      if (o.mnemonic().equals(text)) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }
}
