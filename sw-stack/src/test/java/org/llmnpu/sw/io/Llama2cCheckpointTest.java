package org.llmnpu.sw.io;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.sw.TestModels;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

class Llama2cCheckpointTest {

    @TempDir
    Path dir;

    @Test
    void writtenCheckpointReadsBackToTheSameLogits() throws IOException {
        ModelWeights w = TestModels.micro(3);
        Path file = dir.resolve("micro.bin");
        Llama2cCheckpoint.write(w, file);
        assertEquals(Llama2cCheckpoint.expectedBytes(w.config(), false), Files.size(file));
        ModelWeights back = Llama2cCheckpoint.read(file);
        assertEquals(w.config(), back.config());
        int[] tokens = {1, 5, 9, 33, 2};
        Transformer a = new Transformer(w);
        Transformer b = new Transformer(back);
        float[][] la = a.forwardAll(tokens, a.newCache(5));
        float[][] lb = b.forwardAll(tokens, b.newCache(5));
        for (int i = 0; i < 5; i++) {
            assertArrayEquals(la[i], lb[i]);
        }
    }

    @Test
    void sharedClassifierIsStoredOnce() throws IOException {
        ModelWeights w = TestModels.micro(3);
        ModelWeights tied = new ModelWeights(w.config(), w.tokenEmbedding(), w.layers(), w.finalNorm(), w.tokenEmbedding());
        Path file = dir.resolve("tied.bin");
        Llama2cCheckpoint.write(tied, file);
        ModelWeights back = Llama2cCheckpoint.read(file);
        assertSame(back.tokenEmbedding(), back.lmHead());
    }

    @Test
    void truncatedCheckpointNamesFileAndBothSizes() throws IOException {
        Path file = dir.resolve("cut.bin");
        Llama2cCheckpoint.write(TestModels.micro(3), file);
        byte[] all = Files.readAllBytes(file);
        Files.write(file, java.util.Arrays.copyOf(all, all.length - 100));
        IOException e = assertThrows(IOException.class, () -> Llama2cCheckpoint.read(file));
        assertTrue(e.getMessage().contains("cut.bin"), e.getMessage());
        assertTrue(e.getMessage().contains("expected " + all.length + " bytes, found " + (all.length - 100)), e.getMessage());
    }

    @Test
    void garbageHeaderIsRejected() throws IOException {
        Path file = dir.resolve("garbage.bin");
        Files.write(file, new byte[40]);
        IOException e = assertThrows(IOException.class, () -> Llama2cCheckpoint.read(file));
        assertTrue(e.getMessage().contains("garbage.bin") && e.getMessage().contains("dim"), e.getMessage());
    }

    @Test
    void tokenizerRoundTripsAndMergesByScore() throws IOException {
        String[] vocab = new String[3 + 256 + 4];
        float[] scores = new float[vocab.length];
        vocab[0] = "<unk>";
        vocab[1] = "<s>";
        vocab[2] = "</s>";
        for (int b = 0; b < 256; b++) {
            vocab[3 + b] = String.format("<0x%02X>", b);
        }
        vocab[259] = "a";
        vocab[260] = "b";
        vocab[261] = "ab";
        vocab[262] = "abab";
        scores[261] = 1f;
        scores[262] = 2f;
        Llama2cTokenizer t = new Llama2cTokenizer(vocab, scores);
        Path file = dir.resolve("tok.bin");
        t.write(file);
        Llama2cTokenizer back = Llama2cTokenizer.read(file, vocab.length);
        assertEquals(List.of(1, 262, 259), back.encode("ababa", true));
        assertEquals(List.of(3 + 'z'), back.encode("z", false), "unknown characters fall back to byte tokens");
        assertEquals("z", back.decode(3 + 'z'));
        Files.write(file, java.util.Arrays.copyOf(Files.readAllBytes(file), 30));
        IOException e = assertThrows(IOException.class, () -> Llama2cTokenizer.read(file, vocab.length));
        assertTrue(e.getMessage().contains("tok.bin"), e.getMessage());
    }
}
