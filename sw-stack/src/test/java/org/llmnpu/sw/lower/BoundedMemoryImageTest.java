package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/**
 * A golden run on an NPU with more external memory than a JVM array holds ({@link MemoryImage}: edge-64 has 4 GiB):
 * the lowered model's image is bounded to what its program uses, and stories260K's fused prefill and decode step on the
 * default NPU with 4 GiB give the logits and every counter of the same NPU with its 16 MiB.
 */
class BoundedMemoryImageTest {
  @Test
  void aGoldenRunOnFourGibibytesEqualsTheSameRunOnSixteenMebibytes() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams small = NpuTargets.defaultNpu();
    MachineParams big = small.withExtMemBytes(4L << 30);
    LoweredModel smallModel = WeightFormats.lower(w, "int8", small, 24, 16);
    LoweredModel bigModel = WeightFormats.lower(w, "int8", big, 24, 16);
    byte[] image = bigModel.image();
    assertTrue(image.length < small.extMemBytes() + MemoryImage.BOUNDED_POOL_BYTES, "image of " + image.length
        + " bytes");
    assertTrue(bigModel.epilogues.applies, "the fused model's epilogue data at the bounded image's top");
    assertEquals(image.length, bigModel.epilogues.top);
    NpuDecoder a = new NpuDecoder(smallModel, 6, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder b = new NpuDecoder(bigModel, 6, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step pa = a.prefill(FusedLoweringTest.PROMPT, true);
    NpuDecoder.Step pb = b.prefill(FusedLoweringTest.PROMPT, true);
    for (int t = 0; t < FusedLoweringTest.PROMPT.length; t++) {
      assertArrayEquals(pa.logits()[t], pb.logits()[t], "token " + t);
    }
    assertArrayEquals(pa.counters(), pb.counters(), "prefill counters");
    NpuDecoder.Step da = a.decode(301);
    NpuDecoder.Step db = b.decode(301);
    assertArrayEquals(da.logits()[0], db.logits()[0]);
    assertArrayEquals(da.counters(), db.counters(), "decode counters");
  }

  @Test
  void anImageBeyondAJvmArrayIsAClearError() {
    MachineParams big = NpuTargets.defaultNpu().withExtMemBytes(4L << 30);
    // a program whose regions end at the array's limit: its bounded image would not fit one either
    long top = MemoryImage.top(big, MemoryImage.MAX_BYTES, 0);
    assertEquals(MemoryImage.MAX_BYTES + MemoryImage.BOUNDED_POOL_BYTES, top);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> MemoryImage.length(top, big));
    assertTrue(e.getMessage().contains("more than a JVM byte array holds"), e.getMessage());
    // an NPU whose memory an array holds keeps its whole memory as the image
    MachineParams small = NpuTargets.defaultNpu();
    assertEquals(small.extMemBytes(), MemoryImage.top(small, 1 << 20, 1 << 20));
  }
}
