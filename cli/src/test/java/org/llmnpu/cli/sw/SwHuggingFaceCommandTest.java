package org.llmnpu.cli.sw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --model DIR} (a Hugging Face directory) on the sw commands, {@code sw export --format hf}, and bad directories. */
class SwHuggingFaceCommandTest {

    private static SwOutcome run(String... args) {
        return SwOutcome.run(args);
    }

    @Test
    void exportedStories260KRunsFromItsDirectoryWithATextPrompt(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("stories-hf");
        SwOutcome export = run("export", "--model", "stories260K", "--format", "hf", "-o", dir.toString());
        assertEquals(0, export.code(), export.err());
        assertTrue(Files.isRegularFile(dir.resolve("config.json")) && Files.isRegularFile(dir.resolve("model.safetensors")));
        try (InputStream in = SwHuggingFaceCommandTest.class.getResourceAsStream("tokenizer.json")) {
            Files.write(dir.resolve("tokenizer.json"), in.readAllBytes());
        }
        SwOutcome hf = run("run", "--model", dir.toString(), "--prompt", "hello world", "--max-new", "6");
        assertEquals(0, hf.code(), hf.err());
        assertTrue(hf.out().contains("output: "), hf.out());
        SwOutcome passes = run("passes", "--model", dir.toString(), "--prefill", "64", "--context", "128", "--json");
        assertEquals(0, passes.code(), passes.err());
        SwOutcome kv = run("kv", "--model", dir.toString(), "--context", "32", "--decode", "4", "--kv", "hybrid4,g8,r16");
        assertEquals(0, kv.code(), kv.err());
        SwOutcome eval = run("eval", "--model", dir.toString(), "--compressions", "fp32,int8", "--calibration", "2x16",
                "--held-out", "2x17");
        assertEquals(0, eval.code(), eval.err());
    }

    @Test
    void exportConvertsALlama2cTokenizerToTokenizerJson(@TempDir Path tmp) throws Exception {
        String[] vocab = new String[512];
        float[] scores = new float[512];
        for (int i = 0; i < vocab.length; i++) {
            vocab[i] = i < 3 ? new String[] {"<unk>", "\n<s>\n", "\n</s>\n"}[i]
                    : i < 259 ? String.format("<0x%02X>", i - 3) : "p" + i;
        }
        vocab[300] = " ";
        vocab[301] = "h";
        vocab[302] = "i";
        vocab[303] = " h";
        vocab[304] = " hi";
        scores[303] = 1;
        scores[304] = 2;
        Path bin = tmp.resolve("tokenizer.bin");
        new org.llmnpu.sw.io.Llama2cTokenizer(vocab, scores).write(bin);
        Path dir = tmp.resolve("hf");
        SwOutcome export = run("export", "--format", "hf", "--tokenizer", bin.toString(), "-o", dir.toString());
        assertEquals(0, export.code(), export.err());
        assertTrue(Files.isRegularFile(dir.resolve("tokenizer.json")));
        SwOutcome hf = run("run", "--model", dir.toString(), "--prompt", "hi", "--max-new", "3");
        assertEquals(0, hf.code(), hf.err());
        assertTrue(hf.out().contains("prompt 2 tokens"), hf.out());  // BOS and " hi" (id 304)
    }

    @Test
    void badDirectoriesAndFormatsExitWithTwoAndOneLine(@TempDir Path tmp) throws Exception {
        SwOutcome none = run("run", "--model", tmp.resolve("nowhere").toString());
        assertEquals(2, none.code());
        assertTrue(none.err().startsWith("--model: model must be one of stories260K, tiny, medium or a Hugging Face model directory"),
                none.err());
        Path empty = Files.createDirectory(tmp.resolve("empty"));
        SwOutcome noConfig = run("run", "--model", empty.toString());
        assertEquals(2, noConfig.code());
        assertTrue(noConfig.err().contains("config.json: no such file"), noConfig.err());
        Path dir = tmp.resolve("hf");
        assertEquals(0, run("export", "--format", "hf", "-o", dir.toString()).code());
        Path weights = dir.resolve("model.safetensors");
        byte[] bytes = Files.readAllBytes(weights);
        Files.write(weights, java.util.Arrays.copyOf(bytes, 5000));
        SwOutcome truncated = run("run", "--model", dir.toString(), "--max-new", "2");
        assertEquals(2, truncated.code());
        assertEquals(1, truncated.err().strip().lines().count(), truncated.err());
        assertTrue(truncated.err().contains("end beyond the file"), truncated.err());
        SwOutcome format = run("export", "--format", "onnx", "-o", tmp.resolve("x").toString());
        assertEquals(2, format.code());
        assertTrue(format.err().startsWith("--format: must be one of hf, llama2c"), format.err());
    }
}
