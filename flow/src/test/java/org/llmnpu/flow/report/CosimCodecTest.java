package org.llmnpu.flow.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.cosim.report.DecoderPhases;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.flow.graph.JobCodec;
import org.llmnpu.reports.npu.NpuReport;

class CosimCodecTest {
  @Test
  void theCosimJobsResultComesBackEqualFromTheCache() {
    NpuReportPipeline.Cosim c = new NpuReportPipeline.Cosim(
        List.of(new NpuReport.CyclePoint("random 1 (in order)", "random DMA/GEMM", 1234, 1234, true, List.of("dspOps"))),
        List.of(new DecoderPhases.PhaseRun("decode", 1, "lowered decoder", false, Map.of("cycles", 60493L, "macs", 9L),
            true, 60493, 60493, List.of())), true);
    JobCodec<NpuReportPipeline.Cosim> codec = JobCodec.json(NpuReportPipeline.Cosim.class);
    Map<String, String> files = codec.encode(c);
    assertEquals(c, codec.decode(files));
    assertEquals(files, codec.encode(codec.decode(files)));
  }
}
