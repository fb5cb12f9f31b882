package org.llmnpu.soc.dllm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.reports.html.StaircaseSvg;
import org.llmnpu.sw.dllm.DenoiserProgram;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The NPU's staircase in the token rows of a denoiser pass (llada.cpp, seed 004), from the cycle model: for 1 to
 * three row tiles plus one, the whole pass's cycles ({@link DenoiserProgram#gemmCycles}) and the array's share
 * ({@link DenoiserProgram#engineCycles}), every row's logits, over a fixed number of keys. The array is flat within a
 * tile and steps at each tile boundary; the program adds a ramp a row on top. {@link #svg} plots it for the default
 * NPU and a SoC preset's NPU (edge-64 on sd8gen3) with the reports module's charts.
 */
public final class DllmStaircase {
  private DllmStaircase() {
  }

  /** Rows 1 .. 3 mTile + 1 of a pass over {@code keys} keys on {@code p}. */
  public static List<DllmStudy.Stair> rows(MachineParams p, ModelConfig c, int keys) {
    List<DllmStudy.Stair> out = new ArrayList<>();
    for (int r = 1; r <= 3 * p.mTile() + 1; r++) {
      out.add(new DllmStudy.Stair(r, DenoiserProgram.gemmCycles(p, c, r, keys, r),
          DenoiserProgram.engineCycles(p, c, r, keys, r)));
    }
    return out;
  }

  /** A machine's name as the study and the plot show it. */
  public static String machineName(String name, MachineParams p) {
    return name + " (" + p.rows() + "x" + p.rows() + ", mTile " + p.mTile() + ")";
  }

  /** The staircase SVG: the default NPU, then the preset's NPU, for model {@code c} over {@code keys} keys. */
  public static String svg(String model, ModelConfig c, int keys, String preset) {
    MachineParams def = NpuTargets.defaultNpu();
    MachineParams edge = DllmSoc.of(preset).machine();
    return StaircaseSvg.svg("NPU cycles of a " + model + " denoiser pass over " + keys + " keys against its token "
        + "rows", List.of(panel(machineName("default NPU", def), def, c, keys),
            panel(machineName(preset + " NPU", edge), edge, c, keys)));
  }

  /** Writes {@link #svg} to {@code file} atomically. */
  public static void write(Path file, String model, ModelConfig c, int keys, String preset) throws IOException {
    OutputDirectory.writeAtomically(file, svg(model, c, keys, preset));
  }

  private static StaircaseSvg.Panel panel(String name, MachineParams p, ModelConfig c, int keys) {
    List<DllmStudy.Stair> st = rows(p, c, keys);
    return new StaircaseSvg.Panel(name, p.mTile(), st.stream().map(DllmStudy.Stair::programCycles).toList(),
        st.stream().map(DllmStudy.Stair::arrayCycles).toList());
  }
}
