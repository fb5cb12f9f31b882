package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * A head group's attention DSP runs over {@code len} slots for tests and benches, rows apart as the lowering's: the
 * query scale row 0, the K scales from row 1, each head's scores, x and probabilities after; the probabilities'
 * quantization with the V scales (row 1). {@code before}: the separate scale and SoftMax runs as the lowering emitted
 * them before {@link AttentionSoftmax}; {@code now}: {@link DspRoutines#scaledSoftmaxes}; both end with the
 * quantization. Unchained.
 */
record HeadGroupRuns(List<AttentionSoftmax.Head> heads, List<DspProgram> before, List<DspProgram> now) {
  static HeadGroupRuns of(DspRoutines r, int len, int group) {
    int rows = r.rows(len);
    List<AttentionSoftmax.Head> heads = new ArrayList<>();
    List<DspProgram> scales = new ArrayList<>();
    List<DspProgram> softmaxes = new ArrayList<>();
    List<DspQuantizer.Vector> probabilities = new ArrayList<>();
    for (int i = 0; i < group; i++) {
      int base = 1 + rows + 3 * rows * i;
      heads.add(new AttentionSoftmax.Head(base, 0, 1, (short) 0x3C00, base + rows, base + 2 * rows));
      scales.add(r.scale(base, len, 0, 1, (short) 0x3C00, -1, base + rows));
      softmaxes.add(r.kernel(DspKernel.SOFTMAX, len, new int[] {base + rows}, new int[] {base + 2 * rows}));
      probabilities.add(new DspQuantizer.Vector(base + 2 * rows, len, 1, base, 20000 + i));
    }
    List<DspProgram> quantize = r.quantizeRuns(probabilities);
    List<DspProgram> before = new ArrayList<>(r.merged(scales));
    before.addAll(r.mergedKernels(softmaxes));
    before.addAll(quantize);
    List<DspProgram> now = new ArrayList<>(r.scaledSoftmaxes(heads, len, quantize));
    now.addAll(quantize);
    return new HeadGroupRuns(heads, before, now);
  }
}
