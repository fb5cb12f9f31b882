package org.llmnpu.sw.dllm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Properties;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.train.ModelBackprop;
import org.llmnpu.sw.train.TrainableWeights;

/**
 * Masked-diffusion adaptation of stories260K: training runs the denoiser's block-causal mask, a few steps lower the
 * held-out masked-token loss, and the shipped checkpoint loads and beats the autoregressive weights as a denoiser.
 */
class DiffusionAdaptationTest {
  private static final DiffusionAdaptation.Recipe SMALL = new DiffusionAdaptation.Recipe(30, 4, 1e-3, 8, 6, 40, 16, 6,
      3, 5);

  @Test
  void trainingForwardIsTheDenoisersBlockCausalPass() throws Exception {
    ModelWeights w = Llama2cCheckpoint.readBundled("stories260K");
    Transformer model = new Transformer(w);
    int[] tokens = SampledSequences.sample(model, 1, 23, 11)[0];
    tokens[9] = 0;
    tokens[14] = 0;
    int prompt = 5;
    int block = 4;
    double[][] train = ModelBackprop.logits(TrainableWeights.of(w), tokens,
        DiffusionAdaptation.blockCausalEnds(tokens.length, prompt, block));
    BlockDenoiser den = new BlockDenoiser(model, tokens.length, prompt, block);
    int[] rows = new int[tokens.length];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = i;
    }
    float[][] decode = den.forward(tokens, rows);
    for (int p = 0; p < tokens.length; p++) {
      for (int v = 0; v < decode[p].length; v++) {
        assertEquals(decode[p][v], train[p][v], 2e-3, "position " + p + " token " + v);
      }
    }
    // a row of block 1 does not see block 2: changing a later token leaves it unchanged
    int[] later = tokens.clone();
    later[20] = (later[20] + 1) % 512;
    double[][] again = ModelBackprop.logits(TrainableWeights.of(w), later,
        DiffusionAdaptation.blockCausalEnds(tokens.length, prompt, block));
    assertEquals(train[6][3], again[6][3], 0.0);
    assertTrue(Math.abs(train[19][3] - again[19][3]) > 1e-9, "a row sees its own block in both directions");
  }

  @Test
  void trainingStepsLowerTheHeldOutMaskedLoss() throws Exception {
    ModelWeights w = Llama2cCheckpoint.readBundled("stories260K");
    DiffusionAdaptation.Result r = DiffusionAdaptation.train(w, SMALL);
    assertTrue(r.after().loss() < r.before().loss() - 0.05, r.before() + " -> " + r.after());
    DiffusionAdaptation.Result none = DiffusionAdaptation.train(w, SMALL.withSteps(0));
    assertEquals(none.before().loss(), none.after().loss(), 1e-6, "no step, no change");
  }

  @Test
  void examplesMaskOnlyTheTargetBlockAndCutLaterBlocks() {
    int[] seq = new int[40];
    for (int i = 0; i < seq.length; i++) {
      seq[i] = 1 + i;
    }
    Random r = new Random(3);
    for (int k = 0; k < 50; k++) {
      DiffusionAdaptation.Example e = DiffusionAdaptation.example(seq, r, 8, 6, 0);
      int end = e.input().length;
      int start = end - e.blockTokens();
      int masked = 0;
      for (int p = 0; p < end; p++) {
        assertEquals(e.masked()[p] ? 0 : seq[p], e.input()[p]);
        assertTrue(!e.masked()[p] || p >= start, "masked outside the target block");
        masked += e.masked()[p] ? 1 : 0;
        assertTrue(e.visibleEnd()[p] > p && e.visibleEnd()[p] <= end);
      }
      assertTrue(masked >= 1 && e.t() > 0 && e.t() <= 1);
    }
  }

  @Test
  void shippedCheckpointLoadsAndDenoisesBetterThanTheArWeights() throws Exception {
    ModelWeights ar = Llama2cCheckpoint.readBundled("stories260K");
    ModelWeights mdm = DiffusionAdaptation.trained();
    assertEquals(ar.config(), mdm.config());
    Properties p = DiffusionAdaptation.trainedFigures();
    assertTrue(Double.parseDouble(p.getProperty("after.loss")) < Double.parseDouble(p.getProperty("before.loss")));
    // the recorded held-out figures are reproduced from the shipped weights
    List<DiffusionAdaptation.Example> held = DiffusionAdaptation.heldOut(new Transformer(ar),
        DiffusionAdaptation.Recipe.DEFAULT);
    DiffusionAdaptation.Quality before = DiffusionAdaptation.evaluate(TrainableWeights.of(ar), held);
    DiffusionAdaptation.Quality after = DiffusionAdaptation.evaluate(TrainableWeights.of(mdm), held);
    assertEquals(Double.parseDouble(p.getProperty("before.loss")), before.loss(), 1e-4);
    assertEquals(Double.parseDouble(p.getProperty("after.loss")), after.loss(), 1e-3);
    assertEquals(Double.parseDouble(p.getProperty("after.accuracy")), after.accuracy(), 1e-4);
    assertTrue(after.loss() < before.loss() && after.accuracy() > before.accuracy(), before + " -> " + after);
  }
}
