package org.llmnpu.sw.bench;

import org.junit.jupiter.api.Test;

/**
 * Prints every figure table of the sw-stack README. Not part of the default test run; run with
 * {@code mvn -pl sw-stack -am test -Pbench -Dbench -Dtest='org.llmnpu.sw.bench.SwFiguresBench'
 * -Dsurefire.failIfNoSpecifiedTests=false} (about 10 minutes on 2 cores).
 */
class SwFiguresBench {

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
