package org.llmnpu.sw.io.hf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.sw.io.Llama2cTokenizer;

/**
 * A llama2.c {@code tokenizer.bin} as a Hugging Face {@code tokenizer.json} of the LLaMA kind: model BPE with byte
 * fallback over the same ids (pieces with ' ' written as '▁'), the normalizer Prepend("▁") + Replace(" ", "▁")
 * (sentencepiece's dummy prefix, which llama2.c's encoder adds as a leading space), and the decoder Replace("▁",
 * " "), ByteFallback, Fuse, Strip one leading space. Merges: every split of a piece into two pieces, ranked by the
 * merged piece's score (highest first, then lower id) — llama2.c merges the adjacent pair whose merge scores
 * highest, which is the same order. Ids 0, 1, 2 are {@code <unk>}, {@code <s>}, {@code </s>}.
 */
public final class TokenizerJson {

    private TokenizerJson() {
    }

    private record Merge(String left, String right, float score, int id) {
    }

    public static String fromLlama2c(Llama2cTokenizer t) {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        ArrayNode added = root.putArray("added_tokens");
        String[] specials = {"<unk>", "<s>", "</s>"};
        String[] pieces = new String[t.size()];
        Map<String, Integer> ids = new HashMap<>();
        for (int i = 0; i < t.size(); i++) {
            pieces[i] = i < specials.length ? specials[i] : t.piece(i).replace(' ', '▁');
            ids.putIfAbsent(pieces[i], i);
        }
        for (int i = 0; i < specials.length && i < t.size(); i++) {
            added.addObject().put("id", i).put("content", specials[i]).put("single_word", false).put("lstrip", false)
                    .put("rstrip", false).put("normalized", false).put("special", true);
        }
        ObjectNode norm = root.putObject("normalizer").put("type", "Sequence");
        ArrayNode ns = norm.putArray("normalizers");
        ns.addObject().put("type", "Prepend").put("prepend", "▁");
        ObjectNode replace = ns.addObject().put("type", "Replace");
        replace.putObject("pattern").put("String", " ");
        replace.put("content", "▁");
        root.putNull("pre_tokenizer");
        root.putNull("post_processor");
        ObjectNode dec = root.putObject("decoder").put("type", "Sequence");
        ArrayNode ds = dec.putArray("decoders");
        ObjectNode r = ds.addObject().put("type", "Replace");
        r.putObject("pattern").put("String", "▁");
        r.put("content", " ");
        ds.addObject().put("type", "ByteFallback");
        ds.addObject().put("type", "Fuse");
        ds.addObject().put("type", "Strip").put("content", " ").put("start", 1).put("stop", 0);
        ObjectNode model = root.putObject("model");
        model.put("type", "BPE").putNull("dropout");
        model.put("unk_token", "<unk>").putNull("continuing_subword_prefix");
        model.putNull("end_of_word_suffix");
        model.put("fuse_unk", true).put("byte_fallback", true).put("ignore_merges", false);
        ObjectNode vocab = model.putObject("vocab");
        for (int i = 0; i < pieces.length; i++) {
            if (ids.get(pieces[i]) == i) {
                vocab.put(pieces[i], i);
            }
        }
        List<Merge> merges = new ArrayList<>();
        for (int i = specials.length; i < pieces.length; i++) {
            String p = pieces[i];
            if (ids.get(p) != i || isBytePiece(p)) {
                continue;
            }
            for (int k = p.offsetByCodePoints(0, 1); k < p.length(); k = p.offsetByCodePoints(k, 1)) {
                String left = p.substring(0, k);
                String right = p.substring(k);
                if (ids.containsKey(left) && ids.containsKey(right)) {
                    merges.add(new Merge(left, right, t.score(i), i));
                }
            }
        }
        merges.sort(Comparator.comparingDouble((Merge m) -> -m.score()).thenComparingInt(Merge::id));
        ArrayNode ms = model.putArray("merges");
        for (Merge m : merges) {
            ms.addArray().add(m.left()).add(m.right());
        }
        try {
            return json.writeValueAsString(root) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean isBytePiece(String p) {
        return p.length() == 6 && p.startsWith("<0x") && p.endsWith(">");
    }
}
