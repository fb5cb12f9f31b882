package org.llmnpu.sw.io.hf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.sw.io.ModelFileException;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * Every bad Hugging Face input is one line naming the file (and the tensor or field): truncated, overlapping or
 * out-of-file safetensors headers, an unknown dtype or architecture, a shape that disagrees with config.json, NaN
 * weights, a missing LM head, a tensor LLaMA does not have, a shard outside the directory.
 */
class HfModelFileTest {

    static final ModelConfig SMALL = new ModelConfig(16, 40, 2, 4, 2, 32, 64);

    static Path writeModel(Path dir, ModelWeights w) throws IOException {
        HfCheckpoint.write(w, dir, SafetensorsDtype.F32, null);
        return dir;
    }

    static Path validModel(Path tmp) throws IOException {
        return writeModel(tmp.resolve("model"), SyntheticWeights.generate(SMALL, 2));
    }

    /** A safetensors file with this header JSON and {@code dataBytes} zero bytes of data. */
    static Path crafted(Path file, String header, int dataBytes) throws IOException {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(h.length).put(h);
        Files.write(file, b.array());
        return file;
    }

    static String fails(Path what) {
        ModelFileException e = assertThrows(ModelFileException.class, () -> {
            if (Files.isDirectory(what)) {
                HfCheckpoint.read(what);
            } else {
                SafetensorsFile.open(what).close();
            }
        });
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void aHeaderLengthBeyondTheFileIsATruncatedHeader(@TempDir Path tmp) throws IOException {
        Path f = tmp.resolve("t.safetensors");
        ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN).putLong(1000);
        Files.write(f, b.array());
        String m = fails(f);
        assertTrue(m.startsWith(f.toString()) && m.contains("truncated or corrupt safetensors header") && m.contains("1000"), m);
        Files.write(f, new byte[5]);
        assertTrue(fails(f).contains("5 bytes hold no 8-byte header length"));
    }

    @Test
    void aTruncatedDataSectionNamesTheTensorThatEndsBeyondTheFile(@TempDir Path tmp) throws IOException {
        Path dir = validModel(tmp);
        Path f = dir.resolve(HfCheckpoint.WEIGHTS);
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(raf.length() - 100);
        }
        String m = fails(dir);
        assertTrue(m.startsWith(f.toString()) && m.contains("tensor lm_head.weight: data_offsets [23872, 25920) end beyond the "
                + "file's 25820 data bytes"), m);
    }

    @Test
    void overlappingTensorsAreRefusedWithBothNames(@TempDir Path tmp) throws IOException {
        Path f = crafted(tmp.resolve("o.safetensors"), "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
                + "\"b\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,24]}}", 24);
        String m = fails(f);
        assertTrue(m.contains("tensors a [0, 16) and b [8, 24) overlap"), m);
    }

    @Test
    void offsetsOutsideTheFileOrOfTheWrongLengthAreRefused(@TempDir Path tmp) throws IOException {
        Path out = crafted(tmp.resolve("x.safetensors"), "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 8);
        assertTrue(fails(out).contains("tensor w: data_offsets [0, 16) end beyond the file's 8 data bytes"));
        Path neg = crafted(tmp.resolve("n.safetensors"), "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[16,0]}}", 16);
        assertTrue(fails(neg).contains("are not 0 <= begin <= end"));
        Path len = crafted(tmp.resolve("l.safetensors"), "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,16]}}", 16);
        assertTrue(fails(len).contains("hold 16 bytes but shape [3] of F32 needs 12"));
        Path huge = crafted(tmp.resolve("h.safetensors"),
                "{\"w\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904,4],\"data_offsets\":[0,16]}}", 16);
        assertTrue(fails(huge).contains("overflows 64-bit"), fails(huge));
        Path json = crafted(tmp.resolve("j.safetensors"), "{\"w\": [", 0);
        assertTrue(fails(json).contains("header is not valid JSON"));
    }

    @Test
    void anUnknownDtypeNamesTheTensorAndTheAllowedOnes(@TempDir Path tmp) throws IOException {
        Path f = crafted(tmp.resolve("d.safetensors"), "{\"q\":{\"dtype\":\"I8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 4);
        assertTrue(fails(f).contains("tensor q: dtype 'I8' is not supported (allowed: F32, F16, BF16)"));
    }

    @Test
    void aShapeThatDisagreesWithConfigJsonNamesTheTensorAndBothShapes(@TempDir Path tmp) throws IOException {
        Path dir = validModel(tmp);
        Path cfg = dir.resolve("config.json");
        Files.writeString(cfg, Files.readString(cfg).replace("\"intermediate_size\" : 40", "\"intermediate_size\" : 48"));
        String m = fails(dir);
        assertTrue(m.contains("tensor model.layers.0.mlp.gate_proj.weight has shape [40, 16] but config.json implies [48, 16]"), m);
    }

    @Test
    void anUnknownArchitectureOrActivationIsRefused(@TempDir Path tmp) throws IOException {
        Path dir = validModel(tmp);
        Path cfg = dir.resolve("config.json");
        String text = Files.readString(cfg);
        Files.writeString(cfg, text.replace("LlamaForCausalLM", "MistralForCausalLM"));
        String m = fails(dir);
        assertTrue(m.startsWith(cfg.toString()) && m.contains("architectures [MistralForCausalLM] is not supported (allowed: LlamaForCausalLM)"), m);
        Files.writeString(cfg, text.replace("\"silu\"", "\"gelu\""));
        assertTrue(fails(dir).contains("hidden_act 'gelu' is not supported"));
        Files.writeString(cfg, text.replace("\"rope_scaling\" : null", "\"rope_scaling\" : {\"type\": \"linear\", \"factor\": 2}"));
        assertTrue(fails(dir).contains("rope_scaling"));
    }

    @Test
    void aNanWeightNamesTheTensorRowAndColumn(@TempDir Path tmp) throws IOException {
        ModelWeights w = SyntheticWeights.generate(SMALL, 2);
        w.layers()[1].wv()[3][5] = Float.NaN;
        String m = fails(writeModel(tmp.resolve("nan"), w));
        assertTrue(m.contains("tensor model.layers.1.self_attn.v_proj.weight holds a non-finite weight (NaN) at row 3, column 5"), m);
    }

    @Test
    void anUntiedModelWithoutLmHeadOrWithABiasIsRefused(@TempDir Path tmp) throws IOException {
        Path dir = validModel(tmp);
        ModelWeights w = HfCheckpoint.read(dir);
        SafetensorsWriter st = new SafetensorsWriter();
        st.matrix("model.embed_tokens.weight", SafetensorsDtype.F32, w.tokenEmbedding());
        for (int l = 0; l < SMALL.layers(); l++) {
            var lw = w.layers()[l];
            String p = "model.layers." + l + ".";
            st.vector(p + "input_layernorm.weight", SafetensorsDtype.F32, lw.attnNorm())
                    .matrix(p + "self_attn.q_proj.weight", SafetensorsDtype.F32, lw.wq())
                    .matrix(p + "self_attn.k_proj.weight", SafetensorsDtype.F32, lw.wk())
                    .matrix(p + "self_attn.v_proj.weight", SafetensorsDtype.F32, lw.wv())
                    .matrix(p + "self_attn.o_proj.weight", SafetensorsDtype.F32, lw.wo())
                    .vector(p + "post_attention_layernorm.weight", SafetensorsDtype.F32, lw.ffnNorm())
                    .matrix(p + "mlp.gate_proj.weight", SafetensorsDtype.F32, lw.w1())
                    .matrix(p + "mlp.down_proj.weight", SafetensorsDtype.F32, lw.w2())
                    .matrix(p + "mlp.up_proj.weight", SafetensorsDtype.F32, lw.w3());
        }
        st.vector("model.norm.weight", SafetensorsDtype.F32, w.finalNorm());
        st.write(dir.resolve(HfCheckpoint.WEIGHTS));
        assertTrue(fails(dir).contains("tie_word_embeddings is false but the weights have no lm_head.weight"));
        st.matrix("lm_head.weight", SafetensorsDtype.F32, w.lmHead());
        st.vector("model.layers.0.self_attn.q_proj.bias", SafetensorsDtype.F32, new float[16]);
        st.write(dir.resolve(HfCheckpoint.WEIGHTS));
        assertTrue(fails(dir).contains("tensor model.layers.0.self_attn.q_proj.bias is not part of LlamaForCausalLM"));
    }

    @Test
    void aShardOutsideTheDirectoryOrAMissingWeightsFileIsRefused(@TempDir Path tmp) throws IOException {
        Path dir = tmp.resolve("sharded");
        HfCheckpoint.write(SyntheticWeights.generate(SMALL, 2), dir, SafetensorsDtype.BF16, null, 2);
        Path index = dir.resolve(HfCheckpoint.INDEX);
        String text = Files.readString(index);
        Files.writeString(index, text.replaceFirst("model-00001-of-00002.safetensors", "../evil.safetensors"));
        assertTrue(fails(dir).contains("not a file name inside the model directory"));
        Files.delete(index);
        assertTrue(fails(dir).contains("has neither model.safetensors nor model.safetensors.index.json"));
    }

    @Test
    void f16AndBf16ConvertExactly(@TempDir Path tmp) throws IOException {
        float[] values = {0f, -0f, 1.5f, -2f, 65504f, 6.1035156e-5f, 5.9604645e-8f, 0.099975586f};
        for (SafetensorsDtype d : SafetensorsDtype.values()) {
            Path f = tmp.resolve(d + ".safetensors");
            new SafetensorsWriter().vector("v", d, values).write(f);
            try (SafetensorsFile s = SafetensorsFile.open(f)) {
                float[] got = s.read("v", 1, values.length, "the test")[0];
                for (int i = 0; i < values.length; i++) {
                    float expect = d == SafetensorsDtype.BF16
                            ? Float.intBitsToFloat((Float.floatToIntBits(values[i]) + 0x7FFF + ((Float.floatToIntBits(values[i]) >>> 16) & 1)) & 0xFFFF0000)
                            : values[i];
                    assertEquals(expect, got[i], d + " value " + values[i]);
                }
            }
        }
    }
}
