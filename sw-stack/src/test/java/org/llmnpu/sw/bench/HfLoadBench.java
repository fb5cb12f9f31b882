package org.llmnpu.sw.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.io.hf.HfCheckpoint;
import org.llmnpu.sw.io.hf.SafetensorsDtype;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Load time of stories260K from a llama2.c {@code .bin} file and from Hugging Face directories (safetensors F32,
 * BF16, F32 in 3 shards): median of 200 loads each, the loaders interleaved round-robin (so a busy machine slows them alike) after 20
 * warm-up rounds, files in the page cache. Run with
 * {@code mvn -pl sw-stack -am test -Pbench -Dbench -Dtest='org.llmnpu.sw.bench.HfLoadBench'
 * -Dsurefire.failIfNoSpecifiedTests=false}, or its {@code main}.
 */
@ExtendWith(BenchRecord.class)
class HfLoadBench {

    @Test
    void loadTimes() throws Exception {
        main(new String[0]);
    }

    @FunctionalInterface
    interface Load {
        ModelWeights load() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Path tmp = Files.createTempDirectory("hf-load-bench");
        try {
            ModelWeights w = ModelCatalog.load("stories260K", 1);
            Path bin = tmp.resolve("stories260K.bin");
            Llama2cCheckpoint.write(w, bin);
            Path f32 = tmp.resolve("f32");
            HfCheckpoint.write(w, f32, SafetensorsDtype.F32, null);
            Path bf16 = tmp.resolve("bf16");
            HfCheckpoint.write(w, bf16, SafetensorsDtype.BF16, null);
            Path sharded = tmp.resolve("sharded");
            HfCheckpoint.write(w, sharded, SafetensorsDtype.F32, null, 3);
            System.out.printf(Locale.ROOT, "stories260K load time (median of 200 loads each, the four loaders interleaved "
                    + "round-robin after 20 warm-up rounds; 260K parameters; load average %.1f on %d cores at start):%n",
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                    Runtime.getRuntime().availableProcessors());
            String[] names = {"llama2.c .bin (Llama2cCheckpoint.read)", "safetensors F32 (HfCheckpoint.read)", "safetensors BF16",
                "safetensors F32, 3 shards + index"};
            Load[] loads = {() -> Llama2cCheckpoint.read(bin), () -> HfCheckpoint.read(f32), () -> HfCheckpoint.read(bf16),
                () -> HfCheckpoint.read(sharded)};
            double[][] ms = new double[loads.length][200];
            for (int round = -20; round < 200; round++) {
                for (int k = 0; k < loads.length; k++) {
                    long t0 = System.nanoTime();
                    loads[k].load();
                    if (round >= 0) {
                        ms[k][round] = (System.nanoTime() - t0) / 1e6;
                    }
                }
            }
            for (int k = 0; k < loads.length; k++) {
                Arrays.sort(ms[k]);
                System.out.printf(Locale.ROOT, "  %-42s %7.2f ms (min %.2f, max %.2f)%n", names[k], ms[k][100], ms[k][0], ms[k][199]);
            }
        } finally {
            try (var s = Files.walk(tmp)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
