package org.llmnpu.sw.io.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.sw.io.ModelFileException;

/**
 * One {@code .safetensors} file: an unsigned little-endian 64-bit header length N, N bytes of UTF-8 JSON
 * mapping each tensor name to {@code dtype}, {@code shape} and {@code data_offsets [begin, end)} (relative to
 * the first byte after the header; an optional {@code __metadata__} object of strings), then the raw
 * little-endian data.
 *
 * <p>The header is checked before any tensor is read, each fault a one-line {@link ModelFileException}
 * naming the file and the tensor: a file shorter than 8 bytes; a header length beyond the file or above
 * {@link #MAX_HEADER_BYTES}; JSON that is not an object; a dtype other than F32, F16, BF16; a negative or
 * non-integer dimension; offsets that are not two integers with begin ≤ end, that end beyond the file, whose
 * length is not elements × element size (computed with overflow checks), or that overlap another tensor's.
 *
 * <p>Tensors are read through {@link FileChannel#map} views of at most {@value #MAX_VIEW_BYTES} bytes at a
 * time, converted to FP32 row by row straight into the caller's arrays: the file is never copied whole, and
 * files beyond 2 GiB read without a 2 GiB buffer. Every converted weight is checked finite.
 */
public final class SafetensorsFile implements AutoCloseable {

    /** Headers above this size are refused (the format's reference reader uses the same bound). */
    public static final long MAX_HEADER_BYTES = 100L << 20;
    static final int MAX_VIEW_BYTES = 1 << 28;
    /** Thread-safe once configured; shared because building one costs more than parsing a small header. */
    static final ObjectMapper JSON = new ObjectMapper();

    /** One tensor's entry in the header. */
    public record Entry(String name, SafetensorsDtype dtype, long[] shape, long begin, long end) {
        public long elements() {
            long n = 1;
            for (long d : shape) {
                n *= d;
            }
            return n;
        }

        public String shapeText() {
            return Arrays.toString(shape);
        }
    }

    private final Path file;
    private final FileChannel channel;
    private final long dataStart;
    private final Map<String, Entry> entries;

    private SafetensorsFile(Path file, FileChannel channel, long dataStart, Map<String, Entry> entries) {
        this.file = file;
        this.channel = channel;
        this.dataStart = dataStart;
        this.entries = entries;
    }

    /** Opens {@code file} and validates its header; nothing else is read. */
    public static SafetensorsFile open(Path file) throws IOException {
        ModelFileException.checkRegularFile(file, "a .safetensors file");
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        try {
            long size = ch.size();
            if (size < 8) {
                throw new ModelFileException(file + ": truncated safetensors file, " + size + " bytes hold no 8-byte header length");
            }
            ByteBuffer lenBuf = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readFully(ch, lenBuf, 0, file);
            long headerLen = lenBuf.flip().getLong();
            if (headerLen < 2 || headerLen > size - 8) {
                throw new ModelFileException(file + ": truncated or corrupt safetensors header: its length field says "
                        + Long.toUnsignedString(headerLen) + " bytes but the file has " + (size - 8) + " bytes after it");
            }
            if (headerLen > MAX_HEADER_BYTES) {
                throw new ModelFileException(file + ": safetensors header of " + headerLen + " bytes exceeds the "
                        + MAX_HEADER_BYTES + "-byte limit");
            }
            ByteBuffer json = ByteBuffer.allocate((int) headerLen);
            readFully(ch, json, 8, file);
            Map<String, Entry> entries = parseHeader(json.array(), size - 8 - headerLen, file);
            return new SafetensorsFile(file, ch, 8 + headerLen, entries);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private static Map<String, Entry> parseHeader(byte[] json, long dataBytes, Path file) throws ModelFileException {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException e) {
            throw new ModelFileException(file + ": safetensors header is not valid JSON (" + firstLine(e.getMessage()) + ")", e);
        }
        if (root == null || !root.isObject()) {
            throw new ModelFileException(file + ": safetensors header is not a JSON object");
        }
        Map<String, Entry> entries = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            if (f.getKey().equals("__metadata__")) {
                continue;
            }
            entries.put(f.getKey(), parseEntry(f.getKey(), f.getValue(), dataBytes, file));
        }
        List<Entry> byOffset = new ArrayList<>(entries.values());
        byOffset.sort(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end));
        for (int i = 1; i < byOffset.size(); i++) {
            Entry prev = byOffset.get(i - 1);
            Entry cur = byOffset.get(i);
            if (cur.begin() < prev.end() && cur.end() > cur.begin()) {
                throw new ModelFileException(file + ": tensors " + prev.name() + " [" + prev.begin() + ", " + prev.end()
                        + ") and " + cur.name() + " [" + cur.begin() + ", " + cur.end() + ") overlap in the safetensors data");
            }
        }
        return Collections.unmodifiableMap(entries);
    }

    private static Entry parseEntry(String name, JsonNode node, long dataBytes, Path file) throws ModelFileException {
        String where = file + ": tensor " + name;
        if (!node.isObject()) {
            throw new ModelFileException(where + ": header entry is not an object");
        }
        String dtypeName = node.path("dtype").asText("");
        SafetensorsDtype dtype = SafetensorsDtype.parse(dtypeName);
        if (dtype == null) {
            throw new ModelFileException(where + ": dtype '" + dtypeName + "' is not supported (allowed: F32, F16, BF16)");
        }
        JsonNode shapeNode = node.path("shape");
        if (!shapeNode.isArray()) {
            throw new ModelFileException(where + ": shape is missing or not an array");
        }
        long[] shape = new long[shapeNode.size()];
        long elements = 1;
        for (int i = 0; i < shape.length; i++) {
            JsonNode d = shapeNode.get(i);
            if (!d.canConvertToLong() || !d.isIntegralNumber() || d.asLong() < 0) {
                throw new ModelFileException(where + ": shape " + shapeNode + " has a dimension that is not a non-negative integer");
            }
            shape[i] = d.asLong();
            try {
                elements = Math.multiplyExact(elements, shape[i]);
            } catch (ArithmeticException e) {
                throw new ModelFileException(where + ": shape " + shapeNode + " overflows 64-bit element counts");
            }
        }
        JsonNode off = node.path("data_offsets");
        if (!off.isArray() || off.size() != 2 || !off.get(0).isIntegralNumber() || !off.get(1).isIntegralNumber()
                || !off.get(0).canConvertToLong() || !off.get(1).canConvertToLong()) {
            throw new ModelFileException(where + ": data_offsets must be two integers [begin, end], got " + off);
        }
        long begin = off.get(0).asLong();
        long end = off.get(1).asLong();
        if (begin < 0 || end < begin) {
            throw new ModelFileException(where + ": data_offsets [" + begin + ", " + end + "] are not 0 <= begin <= end");
        }
        if (end > dataBytes) {
            throw new ModelFileException(where + ": data_offsets [" + begin + ", " + end + ") end beyond the file's "
                    + dataBytes + " data bytes (truncated file?)");
        }
        long expected;
        try {
            expected = Math.multiplyExact(elements, dtype.bytes());
        } catch (ArithmeticException e) {
            throw new ModelFileException(where + ": shape " + shapeNode + " overflows 64-bit byte counts");
        }
        if (end - begin != expected) {
            throw new ModelFileException(where + ": data_offsets hold " + (end - begin) + " bytes but shape " + shapeNode
                    + " of " + dtype + " needs " + expected);
        }
        return new Entry(name, dtype, shape, begin, end);
    }

    public Path file() {
        return file;
    }

    /** The tensors of this file, in header order. */
    public Map<String, Entry> entries() {
        return entries;
    }

    /** The entry named {@code name}, or a one-line error naming the file and the tensor. */
    public Entry entry(String name) throws ModelFileException {
        Entry e = entries.get(name);
        if (e == null) {
            throw new ModelFileException(file + ": no tensor named " + name);
        }
        return e;
    }

    /**
     * Tensor {@code name} as FP32 rows: a 2-D tensor must have shape [rows, cols], a 1-D one (rows = 1) shape
     * [cols]; another shape is an error naming the tensor, its shape and the expected one ({@code why} says
     * where the expectation comes from). Non-finite weights are an error naming the row and column.
     */
    public float[][] read(String name, int rows, int cols, String why) throws IOException {
        Entry e = entry(name);
        long[] want = rows == 1 && e.shape().length == 1 ? new long[] {cols} : new long[] {rows, cols};
        if (!Arrays.equals(e.shape(), want)) {
            throw new ModelFileException(file + ": tensor " + name + " has shape " + e.shapeText() + " but " + why
                    + " implies " + Arrays.toString(want));
        }
        float[][] m = new float[rows][cols];
        long rowBytes = (long) cols * e.dtype().bytes();
        int rowsPerView = (int) Math.max(1, Math.min(rows, MAX_VIEW_BYTES / Math.max(1, rowBytes)));
        for (int r0 = 0; r0 < rows; r0 += rowsPerView) {
            int n = Math.min(rowsPerView, rows - r0);
            ByteBuffer view = channel.map(FileChannel.MapMode.READ_ONLY, dataStart + e.begin() + r0 * rowBytes, n * rowBytes)
                    .order(ByteOrder.LITTLE_ENDIAN);
            java.nio.FloatBuffer floats = e.dtype() == SafetensorsDtype.F32 ? view.asFloatBuffer() : null;
            java.nio.ShortBuffer halves = e.dtype() == SafetensorsDtype.F32 ? null : view.asShortBuffer();
            short[] raw = halves == null ? null : new short[cols];
            for (int r = r0; r < r0 + n; r++) {
                float[] row = m[r];
                if (floats != null) {
                    floats.get(row);
                } else {
                    halves.get(raw);
                    e.dtype().convert(raw, row);
                }
                for (int c = 0; c < cols; c++) {
                    if (!Float.isFinite(row[c])) {
                        throw new ModelFileException(file + ": tensor " + name + " holds a non-finite weight (" + row[c]
                                + ") at row " + r + ", column " + c);
                    }
                }
            }
        }
        return m;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long position, Path file) throws IOException {
        long p = position;
        while (b.hasRemaining()) {
            int n = ch.read(b, p);
            if (n < 0) {
                throw new ModelFileException(file + ": truncated safetensors file");
            }
            p += n;
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "no detail";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
