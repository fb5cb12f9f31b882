package org.llmnpu.sw.io;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.sw.TestModels;
import org.llmnpu.sw.model.ModelConfig;

/** Model files that are wrong or large: each case fails fast with one line naming the file and the problem. */
class ModelFileReliabilityTest {

    @TempDir
    Path dir;

    private static byte[] header(int dim, int hidden, int layers, int heads, int kvHeads, int vocab, int seqLen) {
        return ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN).putInt(dim).putInt(hidden).putInt(layers).putInt(heads)
                .putInt(kvHeads).putInt(vocab).putInt(seqLen).array();
    }

    private static void assertOneLine(String message, String... parts) {
        assertEquals(1, message.lines().count(), message);
        for (String p : parts) {
            assertTrue(message.contains(p), "'" + p + "' missing from: " + message);
        }
    }

    @Test
    void craftedHeaderWhoseSizeWouldWrapIsRejectedWithoutAllocating() throws IOException {
        Path f = dir.resolve("crafted.bin");
        // sizes chosen so that 32-bit size arithmetic wraps: dim·dim·layers overflows int many times over
        Files.write(f, header(65536, 262144, 1024, 32768, 32768, -2097152, 1048576));
        ModelFileException e = assertThrows(ModelFileException.class, () -> Llama2cCheckpoint.read(f));
        assertOneLine(e.getMessage(), "crafted.bin", "expected", "found 28");
        Files.write(f, header(Integer.MAX_VALUE, 4, 1, 2, 1, 8, 8));
        e = assertThrows(ModelFileException.class, () -> Llama2cCheckpoint.read(f));
        assertOneLine(e.getMessage(), "crafted.bin", "dim must be in 1..65536");
        Files.write(f, header(64, 172, 5, 8, 4, Integer.MIN_VALUE, 512));
        e = assertThrows(ModelFileException.class, () -> Llama2cCheckpoint.read(f));
        assertOneLine(e.getMessage(), "crafted.bin", "vocab");
    }

    /** A sparse file of the exact size a header asks for: no disk space used, nothing real in it. */
    private Path sparse(String name, Llama2cHeader h) throws IOException {
        Path f = dir.resolve(name);
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(h.fileBytes());
            ByteBuffer b = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
            h.write(b);
            raf.seek(0);
            raf.write(b.array());
        }
        return f;
    }

    @Test
    void sevenBillionShapedCheckpointIsRefusedWithTheMemoryItNeeds() throws IOException {
        // LLaMA-2-7B: dim 4096, hidden 11008, 32 layers, 32 heads, vocab 32000 (separate classifier), 2048 tokens
        Llama2cHeader h = new Llama2cHeader(new ModelConfig(4096, 11008, 32, 32, 32, 32000, 2048), false);
        assertEquals(26_954_711_068L, h.fileBytes(), "26.9 GB");
        Path f = sparse("llama2-7b.bin", h);
        long t0 = System.nanoTime();
        ModelFileException e = assertThrows(ModelFileException.class, () -> Llama2cCheckpoint.read(f, 8L << 30));
        assertTrue((System.nanoTime() - t0) / 1e9 < 5, "refused before reading anything");
        assertOneLine(e.getMessage(), "llama2-7b.bin", "26.95 GB of Java heap", "-Xmx");
    }

    @Test
    void checkpointBeyond2GiBIsMappedPerTensorNotAsOneBuffer() throws IOException {
        // a 1.1B-class shape, 4.14 GB: like the 3.76 GB file of issue 12, beyond one int-sized buffer ("capacity < 0" before)
        Llama2cHeader h = new Llama2cHeader(new ModelConfig(2048, 5632, 22, 32, 4, 32000, 2048), true);
        assertTrue(h.fileBytes() > (1L << 31), "beyond a 2 GiB buffer");
        Path f = sparse("tinyllama.bin", h);
        ModelFileException e = assertThrows(ModelFileException.class, () -> Llama2cCheckpoint.read(f, 1L << 30));
        assertOneLine(e.getMessage(), "tinyllama.bin", "GB of Java heap but only 1.07 GB");
    }

    @Test
    void tensorsBeyondFourGiBAreMappedAndReadBack() throws IOException {
        // 1,024-wide, one layer, vocabulary 2, but 2^20 positions: 4 GiB of legacy RoPE tables (skipped, never
        // read) put the separate classifier beyond 4 GiB; the weights themselves are 17 MB
        Llama2cHeader h = new Llama2cHeader(new ModelConfig(1024, 4, 1, 1, 1, 2, 1 << 20), false);
        Path f = sparse("far.bin", h);
        long classifier = h.fileBytes() - 2L * 1024 * 4;
        assertTrue(classifier > (4L << 30));
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.seek(classifier + 4 * 1030);
            raf.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(0.625f).array());
        }
        var w = Llama2cCheckpoint.read(f, 1L << 30);
        assertEquals(0.625f, w.lmHead()[1][6]);
        assertEquals(0f, w.lmHead()[1][5]);
        assertNotSame(w.tokenEmbedding(), w.lmHead());
    }

    @Test
    void nonFiniteWeightNamesTheTensorAndTheFile() throws IOException {
        Path f = dir.resolve("nan.bin");
        Llama2cCheckpoint.write(TestModels.micro(3), f);
        ModelConfig c = TestModels.MICRO;
        byte[] all = Files.readAllBytes(f);
        // first float of layer 1's wk: after header, embedding, rms_att, all wq, layer 0's wk
        long floatIndex = (long) c.vocabSize() * c.dim() + (long) c.layers() * c.dim() + (long) c.layers() * c.dim() * c.dim()
                + (long) c.kvDim() * c.dim() + 5;
        ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN).putFloat((int) (28 + 4 * floatIndex), Float.NaN);
        Files.write(f, all);
        ModelFileException e = assertThrows(ModelFileException.class, () -> Llama2cCheckpoint.read(f));
        assertOneLine(e.getMessage(), "nan.bin", "tensor layers[1].wk", "NaN", "row 0, column 5");
    }

    @Test
    void randomBytesBehindAValidHeaderAreRejected() throws IOException {
        Path f = dir.resolve("random.bin");
        Llama2cCheckpoint.write(TestModels.micro(3), f);
        byte[] all = Files.readAllBytes(f);
        Random r = new Random(1);
        for (int i = 28; i < all.length; i++) {
            all[i] = (byte) r.nextInt(256);
        }
        Files.write(f, all);
        ModelFileException e = assertThrows(ModelFileException.class, () -> Llama2cCheckpoint.read(f));
        assertOneLine(e.getMessage(), "random.bin", "non-finite weight", "tensor token_embedding");
    }

    @Test
    void missingFileAndDirectoryAreOneLineNamingThePath() {
        Path missing = dir.resolve("nope.bin");
        ModelFileException e = assertThrows(ModelFileException.class, () -> Llama2cCheckpoint.read(missing));
        assertOneLine(e.getMessage(), "nope.bin", "no such file");
        e = assertThrows(ModelFileException.class, () -> Llama2cCheckpoint.read(dir));
        assertOneLine(e.getMessage(), dir.toString(), "is a directory, expected a llama2.c .bin checkpoint");
        e = assertThrows(ModelFileException.class, () -> Llama2cTokenizer.read(dir, 10));
        assertOneLine(e.getMessage(), "is a directory, expected a llama2.c tokenizer.bin");
        e = assertThrows(ModelFileException.class, () -> Llama2cCheckpoint.readBundled("stories15M"));
        assertOneLine(e.getMessage(), "no bundled model named 'stories15M'");
    }

    private Path tokenizer(String... pieces) throws IOException {
        Path f = dir.resolve("tok.bin");
        new Llama2cTokenizer(pieces, new float[pieces.length]).write(f);
        return f;
    }

    @Test
    void tokenizerWithAMalformedBytePieceNamesFileAndToken() throws IOException {
        Path f = tokenizer("<unk>", "<s>", "</s>", "<0x00>", "<0xZZ>");
        ModelFileException e = assertThrows(ModelFileException.class, () -> Llama2cTokenizer.read(f, 5));
        assertOneLine(e.getMessage(), "tok.bin", "token 4", "<0xZZ>", "not hexadecimal");
    }

    @Test
    void idsBeyondTheVocabularyAreOneLineErrors() throws IOException {
        Path f = tokenizer("<unk>", "<s>", "</s>", "a", "b");
        Llama2cTokenizer t = Llama2cTokenizer.read(f, 5);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.decode(7));
        assertOneLine(e.getMessage(), "tok.bin", "token id 7 is beyond the vocabulary (ids 0..4)");
        e = assertThrows(IllegalArgumentException.class, () -> t.encode("z", true));
        assertOneLine(e.getMessage(), "tok.bin", "0x7A", "beyond the 5 pieces");
        assertEquals("ab", t.decode(3) + t.decode(4));
    }
}
