package org.llmnpu.sw.io;

import java.util.List;

/** Text ↔ token ids for {@code --prompt "text"} and for printing generated text. */
public interface TextTokenizer {

    /** The ids of {@code text}, BOS first when {@code bos}. */
    List<Integer> encode(String text, boolean bos);

    /** The text of {@code tokens} (generated ids, no BOS). */
    String decode(int[] tokens);
}
