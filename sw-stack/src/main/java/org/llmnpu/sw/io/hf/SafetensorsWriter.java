package org.llmnpu.sw.io.hf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a {@code .safetensors} file: tensors in the order added, each row-major, little-endian, the JSON
 * header padded with spaces to a multiple of 8 bytes (so F32 data is 8-byte aligned, as the format's own
 * writer does), an optional {@code __metadata__}. The file is written next to its destination and moved into
 * place atomically, so a reader never sees half a file. Same tensors → byte-identical file.
 */
public final class SafetensorsWriter {

    private record Pending(String name, SafetensorsDtype dtype, long[] shape, float[][] rows) {
    }

    private final List<Pending> tensors = new ArrayList<>();
    private final ObjectNode metadata = new ObjectMapper().createObjectNode();

    /** Adds a 2-D tensor [rows.length, rows[0].length]. */
    public SafetensorsWriter matrix(String name, SafetensorsDtype dtype, float[][] rows) {
        tensors.add(new Pending(name, dtype, new long[] {rows.length, rows[0].length}, rows));
        return this;
    }

    /** Adds a 1-D tensor. */
    public SafetensorsWriter vector(String name, SafetensorsDtype dtype, float[] values) {
        tensors.add(new Pending(name, dtype, new long[] {values.length}, new float[][] {values}));
        return this;
    }

    public SafetensorsWriter metadata(String key, String value) {
        metadata.put(key, value);
        return this;
    }

    /** The header JSON bytes, padded with spaces to a multiple of 8. */
    byte[] header() {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        if (!metadata.isEmpty()) {
            root.set("__metadata__", metadata);
        }
        long offset = 0;
        for (Pending t : tensors) {
            ObjectNode e = root.putObject(t.name());
            e.put("dtype", t.dtype().name());
            ArrayNode shape = e.putArray("shape");
            long elements = 1;
            for (long d : t.shape()) {
                shape.add(d);
                elements *= d;
            }
            long bytes = elements * t.dtype().bytes();
            e.putArray("data_offsets").add(offset).add(offset + bytes);
            offset += bytes;
        }
        byte[] text = root.toString().getBytes(StandardCharsets.UTF_8);
        int padded = (text.length + 7) / 8 * 8;
        byte[] out = new byte[padded];
        java.util.Arrays.fill(out, (byte) ' ');
        System.arraycopy(text, 0, out, 0, text.length);
        return out;
    }

    /** Writes the file atomically (a temporary file in the same directory, then a move). */
    public void write(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = AtomicFiles.ordinary(Files.createTempFile(dir, "." + file.getFileName(), ".tmp"));
        try {
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
                byte[] header = header();
                ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(header.length);
                out.write(b.array());
                out.write(header);
                for (Pending t : tensors) {
                    for (float[] row : t.rows()) {
                        ByteBuffer rb = ByteBuffer.allocate(row.length * t.dtype().bytes()).order(ByteOrder.LITTLE_ENDIAN);
                        for (float x : row) {
                            t.dtype().put(rb, x);
                        }
                        out.write(rb.array());
                    }
                }
            }
            AtomicFiles.move(tmp, file);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
