package org.llmnpu.sw.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The llama2.c {@code tokenizer.bin}: int32 max token length, then per token a float32 merge score,
 * an int32 byte length and the UTF-8 bytes. Encoding is score-greedy BPE as in llama2.c: start from
 * single characters (falling back to byte tokens {@code <0xNN>} at ids 3 + byte), then repeatedly merge
 * the adjacent pair whose merged string has the highest score. BOS = 1 is prepended on request.
 */
public final class Llama2cTokenizer implements TextTokenizer {

    private final String[] vocab;
    private final float[] scores;
    private final Map<String, Integer> ids = new HashMap<>();
    private final int maxTokenLength;
    /** The file it was read from (or "in-memory tokenizer"), named in every error. */
    private final String source;

    public Llama2cTokenizer(String[] vocab, float[] scores) {
        this(vocab, scores, "in-memory tokenizer");
    }

    private Llama2cTokenizer(String[] vocab, float[] scores, String source) {
        if (vocab.length != scores.length) {
            throw new IllegalArgumentException("vocab and scores must have the same length");
        }
        this.vocab = vocab.clone();
        this.scores = scores.clone();
        int max = 1;
        for (int i = 0; i < vocab.length; i++) {
            ids.putIfAbsent(vocab[i], i);
            max = Math.max(max, vocab[i].getBytes(StandardCharsets.UTF_8).length);
        }
        this.maxTokenLength = max;
        this.source = source;
    }

    /**
     * Reads {@code vocabSize} pieces. Errors are one-line {@link ModelFileException}s naming the file: missing
     * file or a directory, a truncated file, a negative or oversized piece length, a byte piece
     * {@code <0x..>} whose two characters are not hexadecimal.
     */
    public static Llama2cTokenizer read(Path file, int vocabSize) throws IOException {
        ModelFileException.checkRegularFile(file, "a llama2.c tokenizer.bin");
        byte[] all = Files.readAllBytes(file);
        ByteBuffer b = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
        String[] vocab = new String[vocabSize];
        float[] scores = new float[vocabSize];
        try {
            b.getInt();
            for (int i = 0; i < vocabSize; i++) {
                scores[i] = b.getFloat();
                int len = b.getInt();
                if (len < 0 || len > b.remaining()) {
                    throw new ModelFileException(file + ": token " + i + " claims " + len + " bytes but " + b.remaining() + " remain");
                }
                byte[] s = new byte[len];
                b.get(s);
                vocab[i] = new String(s, StandardCharsets.UTF_8);
                if (isBytePiece(vocab[i]) && byteValue(vocab[i]) < 0) {
                    throw new ModelFileException(file + ": token " + i + " is the byte piece '" + vocab[i]
                            + "' but its two characters after <0x are not hexadecimal");
                }
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new ModelFileException(file + ": truncated tokenizer, " + all.length + " bytes hold fewer than " + vocabSize + " tokens", e);
        }
        return new Llama2cTokenizer(vocab, scores, file.toString());
    }

    private static boolean isBytePiece(String piece) {
        return piece.length() == 6 && piece.startsWith("<0x") && piece.endsWith(">");
    }

    /** The byte of a {@code <0xNN>} piece, or -1 if NN is not two hexadecimal digits. */
    private static int byteValue(String piece) {
        int hi = Character.digit(piece.charAt(3), 16);
        int lo = Character.digit(piece.charAt(4), 16);
        return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
    }

    public void write(Path file) throws IOException {
        var out = new java.io.ByteArrayOutputStream();
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        out.write(b.putInt(maxTokenLength).array(), 0, 4);
        for (int i = 0; i < vocab.length; i++) {
            byte[] s = vocab[i].getBytes(StandardCharsets.UTF_8);
            b.clear();
            b.putFloat(scores[i]).putInt(s.length);
            out.write(b.array(), 0, 8);
            out.write(s, 0, s.length);
        }
        Files.write(file, out.toByteArray());
    }

    public int size() {
        return vocab.length;
    }

    /** The text of piece {@code id} as stored (spaces as ' ', byte pieces as {@code <0xNN>}). */
    public String piece(int id) {
        return vocab[id];
    }

    /** The merge score of piece {@code id} (higher merges first). */
    public float score(int id) {
        return scores[id];
    }

    @Override
    public List<Integer> encode(String text, boolean bos) {
        List<Integer> tokens = new ArrayList<>();
        text.codePoints().forEach(cp -> {
            String ch = new String(Character.toChars(cp));
            Integer id = ids.get(ch);
            if (id != null) {
                tokens.add(id);
            } else {
                for (byte by : ch.getBytes(StandardCharsets.UTF_8)) {
                    int byteId = (by & 0xFF) + 3;
                    if (byteId >= vocab.length) {
                        throw new IllegalArgumentException(source + ": cannot encode '" + ch + "': no piece for it and its byte 0x"
                                + String.format("%02X", by & 0xFF) + " would be id " + byteId + ", beyond the " + vocab.length
                                + " pieces of the vocabulary");
                    }
                    tokens.add(byteId);
                }
            }
        });
        while (true) {
            float best = Float.NEGATIVE_INFINITY;
            int bestId = -1;
            int bestAt = -1;
            for (int i = 0; i + 1 < tokens.size(); i++) {
                Integer merged = ids.get(vocab[tokens.get(i)] + vocab[tokens.get(i + 1)]);
                if (merged != null && scores[merged] > best) {
                    best = scores[merged];
                    bestId = merged;
                    bestAt = i;
                }
            }
            if (bestAt < 0) {
                break;
            }
            tokens.set(bestAt, bestId);
            tokens.remove(bestAt + 1);
        }
        if (bos) {
            tokens.add(0, 1);
        }
        return tokens;
    }

    /** The text of a token; byte tokens {@code <0xNN>} decode to their byte as a Latin-1 char. */
    public String decode(int token) {
        if (token < 0 || token >= vocab.length) {
            throw new IllegalArgumentException(source + ": token id " + token + " is beyond the vocabulary (ids 0.."
                    + (vocab.length - 1) + ")");
        }
        String piece = vocab[token];
        if (isBytePiece(piece) && byteValue(piece) >= 0) {
            return String.valueOf((char) byteValue(piece));
        }
        return piece;
    }

    /** The pieces of {@code tokens} concatenated ({@link #decode(int)} each). */
    @Override
    public String decode(int[] tokens) {
        StringBuilder s = new StringBuilder();
        for (int t : tokens) {
            s.append(decode(t));
        }
        return s.toString();
    }
}
