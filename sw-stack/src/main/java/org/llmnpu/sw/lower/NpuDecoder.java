package org.llmnpu.sw.lower;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * A generation session on the NPU: the memory image of a {@link LoweredModel} (weights, the KV
 * cache filled so far, the DSP programs placed so far), one program per step built by
 * {@link DecoderLowering}, run by an {@link NpuEngine}. The image after a step is the image of the
 * next: the cache is appended in place, nothing is copied.
 */
public final class NpuDecoder {
  /**
   * One step.
   *
   * @param phase        "prefill" or "decode"
   * @param tokens       tokens fed
   * @param logits       FP16 logits (as float) of the last token, or of every token when asked
   * @param counters     the run's counters by {@code Counter.ordinal()}
   * @param commands     commands in the program
   * @param lowerSeconds wall time to build the program
   * @param runSeconds   wall time of the engine's run
   */
  public record Step(String phase, int tokens, float[][] logits, long[] counters, int commands, double lowerSeconds,
                     double runSeconds) {
    public long counter(Counter c) {
      return counters[c.ordinal()];
    }
  }

  private final LoweredModel model;
  private final DecoderLowering lowering;
  private final NpuEngine engine;
  private final Map<List<Long>, Long> placed = new HashMap<>();
  private byte[] image;
  private long poolNext;
  private int length;

  public NpuDecoder(LoweredModel model, int blockMax, NpuEngine engine) {
    this(model, blockMax, engine, Fusion.NONE);
  }

  /** A session whose programs are lowered at fusion level {@code fusion} ({@link DecoderLowering}). */
  public NpuDecoder(LoweredModel model, int blockMax, NpuEngine engine, Fusion fusion) {
    this.model = model;
    this.engine = engine;
    this.poolNext = model.dspPool;
    this.lowering = new DecoderLowering(model, blockMax, this::place, fusion);
    this.image = model.image();  // after the lowering: a fused one writes its epilogue data first
  }

  public LoweredModel model() {
    return model;
  }

  public DecoderLowering lowering() {
    return lowering;
  }

  /** Slots of the KV cache filled so far. */
  public int length() {
    return length;
  }

  /** The current memory image (a copy). */
  public byte[] image() {
    return image.clone();
  }

  /**
   * Feeds a prompt (the cache must be empty); logits of every token when {@code allLogits}. A prompt longer than the
   * engine's {@code maxM} is a chunked prefill: chunks of {@code maxM} tokens, each its own program (in blocks of
   * the lowering's block), each chunk attending to the slots the chunks before it stored; the step's counters are
   * the sum over the chunks' programs (run one after the other), its commands too.
   */
  public Step prefill(int[] tokens, boolean allLogits) {
    int chunk = lowering.prefillChunk();
    if (tokens.length <= chunk) {
      return feed(tokens, allLogits, "prefill");
    }
    long[] counters = null;
    int commands = 0;
    double lower = 0;
    double run = 0;
    java.util.List<float[]> logits = new java.util.ArrayList<>();
    for (int start = 0; start < tokens.length; start += chunk) {
      int[] part = java.util.Arrays.copyOfRange(tokens, start, Math.min(tokens.length, start + chunk));
      Step s = feed(part, allLogits, "prefill");
      if (allLogits || start + part.length == tokens.length) {
        logits.addAll(java.util.Arrays.asList(s.logits()));
      }
      if (counters == null) {
        counters = s.counters().clone();
      } else {
        for (int i = 0; i < counters.length; i++) {
          counters[i] += s.counters()[i];
        }
      }
      commands += s.commands();
      lower += s.lowerSeconds();
      run += s.runSeconds();
    }
    return new Step("prefill", tokens.length, logits.toArray(new float[0][]), counters, commands, lower, run);
  }

  /** Tokens per program of a chunked prefill: the engine's {@code maxM}. */
  public static int prefillChunk(org.llmnpu.isa.MachineParams machine) {
    return machine.maxM();
  }

  /** Feeds one token at the next position. */
  public Step decode(int token) {
    return feed(new int[] {token}, false, "decode");
  }

  /**
   * Feeds {@code tokens} at the next positions and returns every token's logits (a speculative
   * verification pass: one program for all of them).
   */
  public Step verify(int[] tokens) {
    return feed(tokens, true, "verify");
  }

  /**
   * Forgets the slots from {@code length} on (rejected speculative tokens): attention only ever
   * reads the slots below the current length, so the stale rows are overwritten later, never copied.
   */
  public void rewind(int newLength) {
    if (newLength < 0 || newLength > length) {
      throw new IllegalArgumentException("rewind to " + newLength + " outside 0.." + length);
    }
    length = newLength;
  }

  /** The program of the next step without running it (and the image it needs, via {@link #image()}). */
  public Program program(int[] tokens, boolean allLogits) {
    Program program = lowering.step(tokens, length, allLogits);
    writeProgram(program);
    return program;
  }

  private Step feed(int[] tokens, boolean allLogits, String phase) {
    long t0 = System.nanoTime();
    Program program = program(tokens, allLogits);
    long t1 = System.nanoTime();
    NpuEngine.Run run = engine.run(model.machine(), image, 0, phase + " at position " + length);
    long t2 = System.nanoTime();
    if (run.error() != ErrorCause.NONE) {
      throw new IllegalStateException(phase + " program halted with " + run.error() + " at command "
          + run.errorCommand() + " of " + program.size() + ": a lowering error");
    }
    image = run.memory();
    length += tokens.length;
    int rows = allLogits ? tokens.length : 1;
    float[][] logits = new float[rows][];
    for (int i = 0; i < rows; i++) {
      logits[i] = readLogits(i);
    }
    return new Step(phase, tokens.length, logits, run.counters(), program.size(), (t1 - t0) / 1e9, (t2 - t1) / 1e9);
  }

  private float[] readLogits(int row) {
    int vocab = model.config().vocabSize();
    float[] out = new float[vocab];
    int at = (int) (model.logits + (long) row * model.logitsStride);
    for (int i = 0; i < vocab; i++) {
      out[i] = Fp16.toFloat((short) ((image[at + 2 * i] & 0xFF) | (image[at + 2 * i + 1] & 0xFF) << 8));
    }
    return out;
  }

  private void writeProgram(Program program) {
    byte[] bytes = program.bytes();
    if (bytes.length + 32 > LoweredModel.PROGRAM_BYTES) {
      throw new IllegalArgumentException("the step's program has " + program.size() + " commands, more than the "
          + LoweredModel.PROGRAM_BYTES / 32 + " the command area holds: feed fewer tokens per step");
    }
    System.arraycopy(bytes, 0, image, 0, bytes.length);
  }

  private long place(DspProgram program) {
    long[] words = program.words();
    List<Long> key = java.util.Arrays.stream(words).boxed().toList();
    Long at = placed.get(key);
    if (at != null) {
      return at;
    }
    long address = poolNext;
    if (address + 8L * words.length > model.dspPoolEnd) {
      throw new IllegalStateException("the DSP program area of external memory is full");
    }
    for (int i = 0; i < words.length; i++) {
      for (int k = 0; k < 8; k++) {
        image[(int) (address + 8L * i + k)] = (byte) (words[i] >>> (8 * k));
      }
    }
    // programs start on a command (32 bytes) and on a memory line, which the DSP's program fetch reads whole
    poolNext = LoweredModel.roundUp(address + 8L * words.length, Math.max(32, model.machine().lineBytes()));
    placed.put(key, address);
    return address;
  }
}
