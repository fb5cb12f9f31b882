package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.MxLoad;
import org.llmnpu.isa.Program;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxQuantizer;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * {@code loadmx} on the RTL ({@code NpuConfig.mxLoad}): every element byte of every format, MX blocks
 * of the OCP quantizer (random, subnormal-only, top-binade, zero blocks, NaN elements) with ragged rows
 * and strides feeding GEMMs whose drains overlap the loads — memory bit-exact with the golden ISA
 * simulator, every counter (cycles included) equal to the golden/model; the error statuses.
 */
class MxLoadCosimTest {
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(SharedNpus.SMALL_FEATURED);

  private static void assertPasses(ProgramCosim.Outcome o) {
    assertTrue(o.bitExact(), "first difference at " + o.firstDifference());
    assertTrue(o.statusMatches(), o.rtl().error() + " vs " + o.golden().error());
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o));
  }

  @Test
  void everyElementByteOfEveryFormat() {
    MachineParams p = NPU.rtl().config().machine();
    byte[] image = new byte[(int) p.extMemBytes()];
    for (int i = 0; i < 256; i++) {
      image[0x10000 + i] = (byte) i;
    }
    Program.Builder b = Program.builder();
    for (int format = 0; format <= MxLoad.LAST; format++) {
      // 256 bytes as 11 rows of 23 (ragged: 23 = 5 lines + 3 bytes), then back to memory
      b.loadmx(0x10000, 24, 0, 32, 23, 11, format).store(0x20000 + 0x400L * format, 32, 0, 32, 23, 11);
    }
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image, b.halt().build(), 0), 0);
    assertPasses(o);
    for (int format = 0; format <= MxLoad.LAST; format++) {
      for (int r = 0; r < 11; r++) {
        for (int c = 0; c < 23; c++) {
          int element = 24 * r + c < 256 ? 24 * r + c : 0;
          assertEquals((byte) MxLoad.code(format, element), o.rtl().memory()[0x20000 + 0x400 * format + 32 * r + c]);
        }
      }
    }
  }

  @Test
  void quantizedBlocksFeedGemmsWhileDrainsOverlap() {
    MachineParams p = NPU.rtl().config().machine();
    Random rnd = new Random(14);
    for (int trial = 0; trial < 6; trial++) {
      int format = trial % 2 == 0 ? MxLoad.E4M3 : trial == 5 ? MxLoad.INT8 : MxLoad.E5M2;
      int k = 32 + rnd.nextInt(33);
      int n = 1 + rnd.nextInt(9);
      int m = 1 + rnd.nextInt(5);
      byte[] image = new byte[(int) p.extMemBytes()];
      rnd.nextBytes(image);
      int wStride = 16;
      for (int col = 0; col < n; col++) {
        for (int k0 = 0; k0 < k; k0 += MxBlock.SIZE) {
          double[] v = new double[Math.min(MxBlock.SIZE, k - k0)];
          int kind = rnd.nextInt(5);
          for (int i = 0; i < v.length; i++) {
            v[i] = switch (kind) {
              case 0 -> rnd.nextGaussian();
              case 1 -> rnd.nextGaussian() * (rnd.nextBoolean() ? 1 : 1e-4);  // subnormal elements
              case 2 -> i == 0 ? 1e6 : rnd.nextGaussian();                    // one top-binade element
              case 3 -> 0;                                                      // zero block
              default -> Math.scalb(rnd.nextGaussian(), rnd.nextInt(60) - 30);
            };
          }
          MxBlock block = MxQuantizer.quantize(MxLoad.type(format), v, Rounding.NEAREST_EVEN);
          for (int i = 0; i < v.length; i++) {
            image[0x40000 + (k0 + i) * wStride + col] = (byte) block.element(i);
          }
        }
        if (format == MxLoad.E4M3 && col == 0) {
          image[0x40000 + col] = 0x7F;               // NaN elements
          image[0x40000 + wStride + col] = (byte) 0xFF;
        }
      }
      int xStride = 64;
      int y = 0x800;
      int w = 0x200;
      Program prog = Program.builder()
          .load(0x10000, xStride, 0, xStride, k, m)
          .loadmx(0x40000, wStride, w, wStride, n, k, format)
          .gemm(m, k, n, 0, xStride, w, wStride, y, 48)
          .loadmx(0x40000, wStride, 0xC00, wStride, n, k, format)     // overlaps the GEMM's array run and drain
          .store(0x50000, 48, y, 48, 4L * n, m)
          .store(0x60000, wStride, 0xC00, wStride, n, k)
          .halt().build();
      assertPasses(ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image, prog, 0), 0));
    }
  }

  @Test
  void errors() {
    MachineParams p = NPU.rtl().config().machine();
    byte[] image = new byte[(int) p.extMemBytes()];
    Program badFormat = Program.builder().loadmx(0x1000, 4, 0, 4, 4, 1, 3).halt().build();
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image.clone(), badFormat, 0), 0);
    assertPasses(o);
    assertEquals(ErrorCause.BAD_SHAPE, o.rtl().error());
    Program misaligned = Program.builder().load(0x1000, 4, 0, 4, 4, 1).loadmx(0x1002, 4, 0, 4, 4, 1, 0).halt().build();
    o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image.clone(), misaligned, 0), 0);
    assertPasses(o);
    assertEquals(ErrorCause.EXT_ADDRESS, o.rtl().error());
    assertEquals(1, o.rtl().errorCommand());
  }

  @Test
  void anNpuWithoutMxDecodingHaltsUnsupported() {
    try (NpuRtl plain = NpuRtl.start(NpuConfig.small(), SimModes.local())) {
      byte[] image = new byte[(int) plain.config().machine().extMemBytes()];
      Program prog = Program.builder().loadmx(0x1000, 4, 0, 4, 4, 1, 0).halt().build();
      ProgramCosim.Outcome o = ProgramCosim.run(plain, RandomPrograms.place(image, prog, 0), 0);
      assertPasses(o);
      assertEquals(ErrorCause.UNSUPPORTED, o.rtl().error());
    }
  }
}
