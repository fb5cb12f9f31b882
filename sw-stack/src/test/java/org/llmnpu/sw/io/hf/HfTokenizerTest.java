package org.llmnpu.sw.io.hf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.sw.io.ModelFileException;

/**
 * A LLaMA-style tokenizer.json (test resource: 3 specials, 256 byte pieces {@code <0xNN>} at ids 3..258, 20 merged
 * pieces with "▁" for spaces, a Prepend("▁") + Replace(" ", "▁") normalizer, 11 merges): BPE by merge rank, byte
 * fallback for characters without a piece, BOS on request, decoding back to the text.
 */
class HfTokenizerTest {

    static Path fixture(Path dir) throws IOException {
        Path f = dir.resolve("tokenizer.json");
        try (InputStream in = HfTokenizerTest.class.getResourceAsStream("tokenizer.json")) {
            Files.write(f, in.readAllBytes());
        }
        return f;
    }

    @Test
    void bpeMergesByRankAndFallsBackToBytes(@TempDir Path tmp) throws IOException {
        try (HfTokenizer t = HfTokenizer.read(fixture(tmp), 512, 1)) {
            // "▁hello" (merges ▁h, ▁he, l l, ll o, ▁he llo), "▁world", then "▁w" + bytes of é (C3 A9) and '!' (21)
            List<Integer> ids = t.encode("hello world wé!", true);
            assertEquals(List.of(1, 274, 277, 269, 3 + 0xC3, 3 + 0xA9, 3 + 0x21), ids);
            assertEquals(List.of(274), t.encode("hello", false));
            assertEquals("hello world wé!", t.decode(ids.subList(1, ids.size()).stream().mapToInt(Integer::intValue).toArray()));
        }
    }

    @Test
    void idsBeyondTheModelsVocabularyOrABadFileAreErrorsNamingTheFile(@TempDir Path tmp) throws IOException {
        Path f = fixture(tmp);
        try (HfTokenizer small = HfTokenizer.read(f, 200, 1)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> small.encode("hello", false));
            assertTrue(e.getMessage().startsWith(f.toString()) && e.getMessage().contains("beyond the model's 200 tokens"));
        }
        Path bad = tmp.resolve("bad.json");
        Files.writeString(bad, "{\"model\": {\"type\": \"BPE\", \"vocab\": 3}}");
        ModelFileException e = assertThrows(ModelFileException.class, () -> HfTokenizer.read(bad, 512, 1));
        assertTrue(e.getMessage().startsWith(bad + ": not a usable tokenizer.json"), e.getMessage());
        assertThrows(ModelFileException.class, () -> HfTokenizer.read(tmp.resolve("missing.json"), 512, 1));
    }
}
