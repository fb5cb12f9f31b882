package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The residency what-if replays the lowering's runs: with the programs rewritten for the four row bases and the
 * length ({@link DspRunParameterizer}, as the lowering keys its residency), the NPU's program memory and the lowering's
 * policy it finds exactly the resident runs and {@code dspld}s the lowering emits, more than with rows compiled in,
 * and routines with rows and lengths at run time never find fewer.
 */
class ResidencyWhatIfTest {
  @Test
  void todaysReplayIsTheLoweringsAndRunTimeRowsFindMore() throws Exception {
    ModelConfig c = ModelCatalog.load("stories260K", 1).config();
    MachineParams p = NpuTargets.defaultNpu();
    List<ResidencyWhatIf.Row> rows = ResidencyWhatIf.of(c, p, 18, 16, "int8", 16, 0, p.dsp().programDepth(), 512);
    assertEquals(12, rows.size());
    // the lowering keys residency on the programs rewritten for run parameters: the four bases' plain-run replay
    ResidencyWhatIf.Row today = rows.get(4);
    assertEquals(p.dsp().programDepth(), today.depth());
    List<CommandKindProfile.Row> emitted = CommandKindProfile.of(c, p, 18, 16, "int8", Fusion.FULL, 16, 0);
    assertEquals(emitted.stream().filter(r -> r.kind().equals("dsprun resident"))
        .mapToLong(CommandKindProfile.Row::commands).sum(), today.resident(), today.toString());
    assertEquals(emitted.stream().filter(r -> r.kind().startsWith("dspld"))
        .mapToLong(CommandKindProfile.Row::commands).sum(), today.dsplds(), today.toString());
    assertTrue(today.dsplds() > 0, "the QKV programs are kept in the program memory: " + today);
    for (int i = 0; i < rows.size(); i += 6) {
      ResidencyWhatIf.Row compiledIn = rows.get(i);
      ResidencyWhatIf.Row runTime = rows.get(i + 2);
      ResidencyWhatIf.Row fourBases = rows.get(i + 4);
      assertTrue(runTime.beatsAvoided() >= compiledIn.beatsAvoided(), runTime + " vs " + compiledIn);
      assertTrue(fourBases.beatsAvoided() >= compiledIn.beatsAvoided(), fourBases + " vs " + compiledIn);
    }
    assertTrue(rows.get(2).resident() > 2 * rows.get(0).resident(), rows.get(2).toString());
    assertTrue(today.resident() > rows.get(0).resident(), today + " vs " + rows.get(0));
  }
}
