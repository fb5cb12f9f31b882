package org.llmnpu.reports.energy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * The calibration in parts, as a job graph runs it (the engines' halves and the NPU data paths' simulations ahead,
 * each power run on its own, then the table), gives the table of the calibration in one piece, bit for bit.
 */
class CalibrationSplitTest {
  @Test
  void thePartsGiveTheTableOfTheWhole() {
    RequiredTools.require("yosys", "sta");
    NpuConfig npu = TestDesigns.tinyNpu();
    List<String> log = new ArrayList<>();
    Calibration dense = new Calibration(TestDesigns.options(), SimModes.local(), log::add).gemmDense(2, 2, 4, 8, 4, 3);
    Calibration sparse = new Calibration(TestDesigns.options(), SimModes.local(), log::add).gemm24(2, 2, 4, 8, 4, 3);
    Calibration parts = new Calibration(TestDesigns.options(), SimModes.local(), log::add);
    NpuDataPathActivity activity = parts.npuActivity(npu, 3);
    assertEquals(NpuDataPathActivity.RUNS, activity.runs().stream().map(NpuDataPathActivity.Run::name).toList());
    assertTrue(activity.runs().get(1).counters().get(org.llmnpu.isa.Counter.COMMANDS.key()) > NpuDataPathCalibration.FENCES,
        activity.runs().get(1).counters().toString());
    for (int i = 0; i < NpuDataPathActivity.RUNS.size(); i++) {
      parts.npuPower(activity, i);
    }
    EnergyTable split = parts.gemm(2, 2, 4, 8, 4, 3).npu(npu, TestDesigns.NPU_PPM_INPUT_LANES, 3, activity).table();

    Calibration whole = new Calibration(TestDesigns.options(), SimModes.local(), log::add).gemm(2, 2, 4, 8, 4, 3)
        .npu(npu, TestDesigns.NPU_PPM_INPUT_LANES, 3);
    assertEquals(whole.table().json(), split.json(), String.join("\n", log));
    assertEquals(whole.powers(), parts.powers());
    // each engine's half gives the whole's entries of that engine
    Map<EnergyAction, EnergyTable.Entry> w = whole.table().entries();
    for (EnergyAction a : List.of(EnergyAction.MAC, EnergyAction.MAC_IDLE, EnergyAction.PSUM_WRITEBACK)) {
      assertEquals(w.get(a), dense.table().entries().get(a), a.name());
    }
    assertEquals(w.get(EnergyAction.MAC_2_4), sparse.table().entries().get(EnergyAction.MAC_2_4));
    assertTrue(!dense.table().entries().containsKey(EnergyAction.MAC_2_4)
        && !sparse.table().entries().containsKey(EnergyAction.MAC), "each half makes only its own engine's entries");
    // the halves as their jobs made them, merged, then the data paths: the whole's table and runs, no block run made
    // again (a job graph's energy table)
    assertTrue(dense.measuredGemmDense() && !dense.measuredGemm24() && sparse.measuredGemm24()
        && !sparse.measuredGemmDense());
    Calibration merged = Calibration.merged(TestDesigns.options(), SimModes.local(), log::add, List.of(dense, sparse));
    assertEquals(dense.powers().size() + sparse.powers().size(), merged.powers().size());
    assertEquals(whole.table().json(), merged.npu(npu, TestDesigns.NPU_PPM_INPUT_LANES, 3, activity).table().json());
    assertEquals(whole.powers(), merged.powers());
    assertThrows(IllegalArgumentException.class, () -> new NpuDataPathActivity(npu, 3, List.of()));
  }
}
