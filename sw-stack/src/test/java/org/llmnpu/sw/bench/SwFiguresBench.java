package org.llmnpu.sw.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;

/**
 * Prints every figure table of the sw-stack README. Not part of the default test run; run with
 * {@code mvn -pl sw-stack -am test -Pbench -Dbench -Dtest='org.llmnpu.sw.bench.SwFiguresBench'
 * -Dsurefire.failIfNoSpecifiedTests=false} (about 13 minutes on 2 cores; the stories260K tables about 4).
 */
@ExtendWith(BenchRecord.class)
class SwFiguresBench {

    @Test
    void realModelWeightCompression() throws Exception {
        RealModelFigures.main(new String[0]);
    }

    @Test
    void realModelKvCache() throws Exception {
        RealKvFigures.main(new String[] {"448", "16"});
        RealKvFigures.main(new String[] {"192", "16"});
    }

    @Test
    void compressionAndSpeculativeDecoding() throws Exception {
        CompressionFigures.main(new String[] {"tiny", "medium"});
    }

    @Test
    void kvCache() {
        KvFigures.main(new String[] {"tiny", "2048"});
    }

    @Test
    void fusionAndTiling() {
        PassesFigures.main(new String[0]);
    }
}
