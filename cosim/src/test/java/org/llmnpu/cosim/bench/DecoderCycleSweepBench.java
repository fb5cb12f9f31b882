package org.llmnpu.cosim.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.cosim.decoder.DecoderSweepTable;
import org.llmnpu.hdl.bench.BenchRecord;

/**
 * The cycle model against the RTL over NPU configurations: the table of
 * {@code DecoderSweepTable} (configuration, model and RTL cycles of a 4-token prefill and a decode
 * step of stories260K, error, wall time). Run with {@code mvn -B -o test -pl cosim -am -Dbench
 * -Dtest='DecoderCycleSweepBench' -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class DecoderCycleSweepBench {
  @Test
  void sweep() throws Exception {
    DecoderSweepTable.print(4, 2);
  }
}
