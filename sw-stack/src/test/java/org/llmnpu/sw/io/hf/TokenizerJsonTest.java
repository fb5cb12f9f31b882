package org.llmnpu.sw.io.hf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.sw.io.Llama2cTokenizer;

/**
 * A llama2.c tokenizer converted to tokenizer.json encodes like llama2.c (with its leading-space dummy prefix) when
 * run by the Hugging Face tokenizers library, and decodes back to the text.
 */
class TokenizerJsonTest {

    static Llama2cTokenizer llama2cStyle() {
        List<String> vocab = new ArrayList<>(List.of("<unk>", "\n<s>\n", "\n</s>\n"));
        List<Float> scores = new ArrayList<>(List.of(0f, 0f, 0f));
        for (int b = 0; b < 256; b++) {
            vocab.add(String.format("<0x%02X>", b));
            scores.add(0f);
        }
        String[] pieces = {" ", "a", "b", "c", "e", "n", "o", "t", "u", "p", "i", "m", " o", "on", " on", "ce", " once",
            " onc", "up", " up", "on ", "ti", "me", " ti", " time", "pon", " upon", " a", " t"};
        for (int i = 0; i < pieces.length; i++) {
            vocab.add(pieces[i]);
            // single characters score lowest; longer pieces merge first the later they come (distinct scores)
            scores.add(pieces[i].length() == 1 ? -1000f - i : -(float) i);
        }
        float[] s = new float[scores.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = scores.get(i);
        }
        return new Llama2cTokenizer(vocab.toArray(new String[0]), s);
    }

    @Test
    void convertedTokenizerEncodesAndDecodesLikeLlama2c(@TempDir Path tmp) throws Exception {
        Llama2cTokenizer l2c = llama2cStyle();
        Path file = tmp.resolve("tokenizer.json");
        Files.writeString(file, TokenizerJson.fromLlama2c(l2c));
        try (HfTokenizer hf = HfTokenizer.read(file, l2c.size(), 1)) {
            for (String text : List.of("once upon a time", "upon", "a", "time once", "once upon a timé!", "mice  on a cup")) {
                List<Integer> expected = l2c.encode(" " + text, true);
                List<Integer> got = hf.encode(text, true);
                assertEquals(expected, got, "'" + text + "'");
                assertEquals(text, hf.decode(got.subList(1, got.size()).stream().mapToInt(Integer::intValue).toArray()));
            }
        }
    }
}
