package org.llmnpu.sw.lower;

import java.security.MessageDigest;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

class HashProbeTest {
  @Test
  void hashes() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    StringBuilder sb = new StringBuilder();
    for (int bits : new int[] {8, 4}) {
      for (int block : new int[] {16, 3}) {
        LoweredModel m = new LoweredModel(w, NpuTargets.defaultNpu(), 40, 16, bits);
        NpuDecoder d = new NpuDecoder(m, block, NpuEngine.GOLDEN);
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        md.update(d.program(new int[] {1, 403, 407, 261, 378, 5, 6}, true).bytes());
        md.update(d.image());
        d.prefill(new int[] {1, 403, 407, 261, 378}, false);
        md.update(d.program(new int[] {300}, false).bytes());
        md.update(d.image());
        sb.append(bits).append('/').append(block).append(' ').append(java.util.HexFormat.of().formatHex(md.digest())).append('\n');
      }
    }
    java.nio.file.Files.writeString(java.nio.file.Path.of(System.getProperty("hashOut", "/tmp/dec14/hash.txt")), sb.toString());
  }
}
