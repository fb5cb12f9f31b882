package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link LoweredModel}'s external-memory allocator: named regions placed one after the other from a start address,
 * each starting on a multiple of {@code align} bytes, and the name of the region an address falls in; and, for a region
 * with a second layout of some kind (a block weight's streamed 2:4 layout, its group-scaled copy), where that lives.
 */
final class MemoryRegions {
  private final Map<Long, String> regions = new TreeMap<>();
  /** The second layouts: by kind, the copy's address by the address of the region it is a copy of. */
  private final Map<String, Map<Long, Long>> copies = new HashMap<>();
  private final int align;
  private long next;

  /** Regions from {@code start}, each starting on a multiple of {@code align} bytes. */
  MemoryRegions(long start, int align) {
    this.next = start;
    this.align = align;
  }

  /** Places a region of {@code bytes} bytes named {@code name}; returns its start address. */
  long alloc(String name, long bytes) {
    long at = next;
    regions.put(at, name);
    next = at + LoweredModel.roundUp(bytes, align);
    return at;
  }

  /** Places {@code name}, the {@code kind} layout of the region at {@code staged}; returns its start address. */
  long allocCopy(String kind, long staged, String name, long bytes) {
    long at = alloc(name, bytes);
    copies.computeIfAbsent(kind, k -> new HashMap<>()).put(staged, at);
    return at;
  }

  /** The {@code kind} layout of the region at {@code staged}; throws {@code missing} + the address if there is none. */
  long copyOf(String kind, long staged, String missing) {
    Long at = copies.getOrDefault(kind, Map.of()).get(staged);
    if (at == null) {
      throw new IllegalStateException(missing + staged);
    }
    return at;
  }

  /** The name of the last region starting at or below {@code address}, or "unused". */
  String nameAt(long address) {
    String name = "unused";
    for (Map.Entry<Long, String> e : regions.entrySet()) {
      if (e.getKey() <= address) {
        name = e.getValue();
      }
    }
    return name;
  }

  /** Named regions by start address. */
  List<String> names() {
    return new ArrayList<>(regions.values());
  }
}
