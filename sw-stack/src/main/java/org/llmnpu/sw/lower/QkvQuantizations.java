package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspProgram;

/** The q, k, v quantization runs of a token's QKV post ({@link AttentionLowering}, {@link QkvPostWalk}). */
final class QkvQuantizations {
  private QkvQuantizations() {}

  /**
   * The runs quantizing {@code vectors} (q, k, v): the dynamic absmax runs ({@link DspRoutines#quantizeRuns}), or
   * with {@code scales} each vector's static quantization ({@code x·(1/s)} rounded and saturated, {@code s} to its
   * scale row).
   */
  static List<DspProgram> of(DspRoutines r, List<DspQuantizer.Vector> vectors, double[] scales) {
    if (scales == null) {
      return r.quantizeRuns(vectors);
    }
    List<DspProgram> runs = new ArrayList<>();
    for (int i = 0; i < vectors.size(); i++) {
      var v = vectors.get(i);
      runs.add(r.quantizeStatic(v.in(), v.len(), v.vec(), LoweringEmitter.half(1 / scales[i]), v.out(), v.scaleRow(),
          LoweringEmitter.half(scales[i])));
    }
    return runs;
  }
}
