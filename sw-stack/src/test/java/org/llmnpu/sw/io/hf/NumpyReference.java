package org.llmnpu.sw.io.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs {@code hf_llama_reference.py} (test resources: an independent float64 NumPy forward pass of a Hugging Face
 * LLaMA directory) with python3. Without python3 and NumPy the calling test is skipped with a message, except in
 * CI ({@code CI=true}), where that is a failure.
 */
final class NumpyReference {

    /** Greedy tokens after the prompt and the logits each was chosen from. */
    record Result(int[] tokens, float[][] logits) {
        /** Top-1 minus top-2 logit of step {@code i}. */
        double margin(int i) {
            float[] l = logits[i].clone();
            java.util.Arrays.sort(l);
            return l[l.length - 1] - l[l.length - 2];
        }
    }

    private NumpyReference() {
    }

    static void requirePythonWithNumpy() {
        boolean ok;
        try {
            Process p = new ProcessBuilder("python3", "-c", "import numpy").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            ok = p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            ok = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ok = false;
        }
        if (!ok && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI needs python3 with numpy for the independent Hugging Face reference");
        }
        Assumptions.assumeTrue(ok, "python3 with numpy not found: the NumPy reference comparison is skipped");
    }

    static Result run(Path modelDir, int steps, int[] prompt) throws Exception {
        requirePythonWithNumpy();
        Path script = Files.createTempFile("hf_llama_reference", ".py");
        try (InputStream in = NumpyReference.class.getResourceAsStream("hf_llama_reference.py")) {
            Files.write(script, in.readAllBytes());
        }
        StringBuilder ids = new StringBuilder();
        for (int t : prompt) {
            ids.append(ids.length() == 0 ? "" : ",").append(t);
        }
        try {
            Process p = new ProcessBuilder("python3", script.toString(), modelDir.toString(), Integer.toString(steps), ids.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError("the NumPy reference failed on " + modelDir);
            }
            JsonNode root = new ObjectMapper().readTree(out);
            int[] tokens = new int[root.get("tokens").size()];
            float[][] logits = new float[tokens.length][];
            for (int i = 0; i < tokens.length; i++) {
                tokens[i] = root.get("tokens").get(i).asInt();
                JsonNode l = root.get("logits").get(i);
                logits[i] = new float[l.size()];
                for (int v = 0; v < l.size(); v++) {
                    logits[i][v] = (float) l.get(v).asDouble();
                }
            }
            return new Result(tokens, logits);
        } finally {
            Files.deleteIfExists(script);
        }
    }
}
