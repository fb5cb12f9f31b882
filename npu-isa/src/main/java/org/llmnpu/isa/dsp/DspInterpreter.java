package org.llmnpu.isa.dsp;

import java.util.Arrays;
import java.util.List;
import org.llmnpu.numerics.fp.Fma;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.fp16.IntFormat;
import org.llmnpu.numerics.vector.Fp16Math;

/**
 * The DSP instruction set in plain Java on the numerics golden arithmetic ({@link Fp16}, Java
 * {@code float}): the reference the RTL is compared with instruction by instruction, and a fast
 * check that a compiled kernel equals the golden kernel before any Verilog runs.
 */
public final class DspInterpreter {
  private static final int CANONICAL_NAN32 = 0x7FC00000;
  private final int lanes;
  private final int[][] buffer;
  private DspMath math;
  private final int[][] regs;
  private long cycles;
  private long issued;
  /** Operations each {@link DspPipe} issued in the last run, indexed by its ordinal. */
  private final long[] issuedByPipe = new long[DspPipe.values().length];
  private DspPipeline pipeline = DspPipeline.DEFAULT;
  private boolean fma32;
  private boolean permute;
  private DspRunParameters parameters = DspRunParameters.NONE;
  private static final DspInstruction NOP = new DspInstruction(DspOp.NOP, 0, 0, 0, 0, false, 0, 0);

  public DspInterpreter(int lanes, int rows, DspMath math) {
    this.lanes = lanes;
    this.buffer = new int[rows][lanes];
    this.math = math;
    this.regs = new int[lanes][DspInstruction.REGISTERS];
  }

  /** Counts cycles for a DSP with {@code pipeline} (default {@link DspPipeline#DEFAULT}). */
  public DspInterpreter pipeline(DspPipeline p) {
    this.pipeline = p;
    return this;
  }

  /**
   * Models a DSP built with the FP32 FMA unit ({@code vector-dsp} parameter {@code fma32}): {@link DspOp#FMA32}
   * executes. Without it (default) its code is undefined and runs as a {@code NOP}.
   */
  public DspInterpreter fma32(boolean enabled) {
    this.fma32 = enabled;
    return this;
  }

  /**
   * Models a DSP built with the buffer permutations ({@code vector-dsp} parameter {@code permute}):
   * {@link DspOp#LDS}, {@link DspOp#STS}, {@link DspOp#ROT}, {@link DspOp#LDG}, {@link DspOp#STG} execute.
   * Without it (default) their codes are undefined and run as {@code NOP}s.
   */
  public DspInterpreter permute(boolean enabled) {
    this.permute = enabled;
    return this;
  }

  /** The row bases and length the next runs hand their programs ({@link DspRunParameters}; none at first). */
  public DspInterpreter parameters(DspRunParameters p) {
    this.parameters = java.util.Objects.requireNonNull(p, "parameters");
    return this;
  }

  /** Replaces the polynomial tables (a {@code dsptab}). */
  public void tables(DspMath tables) {
    this.math = tables;
  }

  public int lanes() {
    return lanes;
  }

  public int rows() {
    return buffer.length;
  }

  /** Cycles of the last run. */
  public long cycles() {
    return cycles;
  }

  /** Instructions the last run issued: its {@link #cycles()} less the interlock stalls. */
  public long issued() {
    return issued;
  }

  /** Operations of each pipelined unit the last run issued, indexed by {@link DspPipe#ordinal()} (a copy). */
  public long[] issuedByPipe() {
    return issuedByPipe.clone();
  }

  /**
   * Fills the buffer (16-bit elements) and the registers with values from {@code r}: the state an earlier program may
   * have left in these memories without reset, where the interpreter starts with zeros.
   */
  public void scramble(java.util.Random r) {
    for (int[] row : buffer) {
      for (int l = 0; l < row.length; l++) {
        row[l] = r.nextInt() & 0xFFFF;
      }
    }
    for (int[] lane : regs) {
      for (int k = 0; k < lane.length; k++) {
        lane[k] = r.nextInt();
      }
    }
  }

  public void write(int element, short value) {
    buffer[element / lanes][element % lanes] = value & 0xFFFF;
  }

  public short read(int element) {
    return (short) buffer[element / lanes][element % lanes];
  }

  public void run(DspProgram program) {
    run(program.instructions(), Long.MAX_VALUE);
  }

  /** Runs {@code code} from address 0: {@link #run(List, long, int)}. */
  public boolean run(List<DspInstruction> code, long maxCycles) {
    return run(code, maxCycles, 0);
  }

  /**
   * Runs {@code code} (the program memory) from address {@code entry} until {@code HALT}; the program counter
   * wraps at the end of {@code code}. Cycles count issues and interlock stalls ({@link DspPipeline}). Returns false when the program had not halted after
   * {@code maxCycles} cycles ({@link #cycles()} then equals {@code maxCycles}).
   */
  public boolean run(List<DspInstruction> code, long maxCycles, int entry) {
    int pc = entry;
    int len = 0;
    int loopStart = -1;
    int loopEnd = -1;
    int loopCount = 0;
    int idx = 0;
    cycles = 0;
    issued = 0;
    Arrays.fill(issuedByPipe, 0);
    DspIssueWindow window = new DspIssueWindow(pipeline);
    while (true) {
      if (cycles >= maxCycles) {
        return false;
      }
      DspInstruction in = code.get(pc);
      if (in.op() == DspOp.FMA32 && !fma32 || in.op().permutes() && !permute) {
        in = NOP;
      }
      cycles += window.stallsOf(in);
      if (cycles >= maxCycles) {
        cycles = maxCycles;
        return false;
      }
      cycles++;
      issued++;
      DspPipe.of(in.op()).ifPresent(u -> issuedByPipe[u.ordinal()]++);
      window.issue(in);
      if (in.op() == DspOp.HALT) {
        return true;
      }
      if (in.op() == DspOp.LOOP) {
        loopStart = (pc + 1) % code.size();
        loopEnd = (pc + (in.imm() >>> 16)) % code.size();
        loopCount = in.imm() & 0xFFFF;
        idx = 0;
        pc = (pc + 1) % code.size();
        continue;
      }
      if (in.op() == DspOp.SETLEN) {
        len = in.imm() + parameters.offsetOf(in);
      } else if (in.op() != DspOp.NOP) {
        execute(in, idx, len);
      }
      if (loopEnd == pc) {
        if (idx + 1 < loopCount) {
          idx++;
          pc = loopStart;
          continue;
        }
        loopEnd = -1;
        idx = 0;
      }
      pc = (pc + 1) % code.size();
    }
  }

  private void execute(DspInstruction in, int idx, int len) {
    int[] result = new int[lanes];
    int at = in.imm() + parameters.offsetOf(in);
    for (int l = 0; l < lanes; l++) {
      int ra = regs[l][in.ra()];
      int rb = regs[l][in.rb()];
      int rc = regs[l][in.rc()];
      result[l] = switch (in.op()) {
        case LI -> in.imm();
        case LD -> buffer[Math.floorMod(at + idx, buffer.length)][l];
        case ST, STS, STG -> 0;
        case LDS -> buffer[Math.floorMod(at + (Math.floorMod(l - idx, lanes) << in.aux()), buffer.length)][l];
        case LDG -> buffer[Math.floorMod(at + idx + ra, buffer.length)][l];
        case ROT -> regs[Math.floorMod(l + in.imm() + idx, lanes)][in.ra()];
        case ADD16 -> h(Fp16.add((short) ra, (short) rb));
        case SUB16 -> h(Fp16.sub((short) ra, (short) rb));
        case MUL16 -> h(Fp16.mul((short) ra, (short) rb));
        case MIN16 -> h(Fp16.min((short) ra, (short) rb));
        case MAX16 -> h(Fp16.max((short) ra, (short) rb));
        case LT16 -> Fp16.lt((short) ra, (short) rb) ? 1 : 0;
        case EQ16 -> Fp16.eq((short) ra, (short) rb) ? 1 : 0;
        case FMA16 -> h(Fp16.fma((short) ra, (short) rb, (short) rc));
        case FMA32 -> Fma.fp32Bits(ra, rb, rc);
        case ADD32 -> f(Float.intBitsToFloat(ra) + Float.intBitsToFloat(rb));
        case SUB32 -> f(Float.intBitsToFloat(ra) - Float.intBitsToFloat(rb));
        case MUL32 -> f(Float.intBitsToFloat(ra) * Float.intBitsToFloat(rb));
        case WIDEN -> f(Fp16.toFloat((short) ra));
        case NARROW -> h(Fp16.fromDouble(Math.scalb((double) Float.intBitsToFloat(ra), rb)));
        case SCALB16 -> h(Fp16.scalb((short) ra, rb));
        case TOINT -> Fp16.toInt((short) ra, (short) rb, IntFormat.values()[Math.min(in.aux() & 3, 2)]);
        case FROMINT -> h(Fp16.fromInt(ra, (short) rb));
        case IADD -> ra + rb;
        case ISUB -> ra - rb;
        case IHALF -> ra >> 1;
        case EXPO -> exponent(ra, in.aux() & 1);
        case TSEG -> segment(table(in.aux() & 3), (short) ra);
        case TSTART -> start(table(in.aux() & 3), ra & 15);
        case TCOEF -> coefficient(table(in.aux() & 3), ra & 15, in.aux() >> 2);
        case FIX -> fix(DspFix.values()[in.aux() & 3], (short) ra, (short) rb);
        case SELNEG -> (rc & 0x8000) != 0 ? ra : rb;
        case NEGABS -> (ra & 0xFFFF) | 0x8000;
        case ABS -> ra & 0x7FFF;
        case LSHIFT -> in.imm() > 0 && Integer.bitCount(in.imm()) == 1 && l + in.imm() < lanes
            ? regs[l + in.imm()][in.ra()] : 0;
        case BCAST -> regs[0][in.ra()];
        default -> throw new IllegalStateException("unexpected " + in);
      };
    }
    for (int l = 0; l < lanes; l++) {
      boolean valid = !in.masked() || (long) idx * lanes + l < Integer.toUnsignedLong(len);
      if (!valid) {
        continue;
      }
      if (in.op() == DspOp.ST || in.op() == DspOp.STS || in.op() == DspOp.STG) {
        int row = switch (in.op()) {
          case STS -> at + (Math.floorMod(l + idx, lanes) << in.aux());
          case STG -> at + idx + regs[l][in.rb()];
          default -> at + idx;
        };
        buffer[Math.floorMod(row, buffer.length)][l] = regs[l][in.ra()] & 0xFFFF;
      } else if (in.op().writesRegister()) {
        regs[l][in.rd()] = result[l];
      }
    }
  }

  private static int h(short v) {
    return v & 0xFFFF;
  }

  private static int f(float v) {
    return Float.isNaN(v) ? CANONICAL_NAN32 : Float.floatToRawIntBits(v);
  }

  private static int exponent(int v, int aux) {
    if (aux == 0) {
      int bits = v & 0x7FFF;
      return bits == 0 || bits >= 0x7C00 ? 0 : Fp16Math.exponentOf((short) bits);
    }
    float x = Math.abs(Float.intBitsToFloat(v));
    if (x == 0 || !Float.isFinite(x)) {
      return 0;
    }
    return Math.getExponent((double) x);
  }

  /** The table in slot 0..2, or null for the unused slot 3 (all starts NaN, coefficients 0). */
  private DspTable table(int slot) {
    return slot == 3 ? null : math.table(slot);
  }

  private static int start(DspTable table, int segment) {
    return table == null || segment >= table.segments() ? 0x7E00 : table.starts()[segment];
  }

  private static int coefficient(DspTable table, int segment, int k) {
    return table == null || segment >= table.segments() || k > table.degree() ? 0 : table.coefficients()[segment][k];
  }

  private static int segment(DspTable table, short v) {
    if (table == null) {
      return 0;
    }
    int s = 0;
    for (int i = 1; i < table.segments(); i++) {
      if (Fp16.le((short) table.starts()[i], v)) {
        s = i;
      }
    }
    return s;
  }

  private static int fix(DspFix kind, short x, short y) {
    boolean nan = Fp16.isNaN(x);
    boolean negative = Fp16.signBit(x);
    return switch (kind) {
      case EXP, EXP_PARTS -> nan ? 0x7E00 : Fp16.le((short) 0x4A00, x) ? 0x7C00
          : Fp16.le(x, (short) (kind == DspFix.EXP ? 0xCC80 : 0xD100)) ? 0 : h(y);
      case RECIPROCAL -> nan ? 0x7E00 : Fp16.isZero(x) ? (negative ? 0xFC00 : 0x7C00)
          : Fp16.isInfinite(x) ? (negative ? 0x8000 : 0) : h(y) ^ (negative ? 0x8000 : 0);
      case RSQRT -> nan ? 0x7E00 : Fp16.isZero(x) ? (negative ? 0xFC00 : 0x7C00) : negative ? 0x7E00
          : Fp16.isInfinite(x) ? 0 : h(y);
    };
  }
}
