package org.llmnpu.flow.graph;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * How a job's result is stored in the content-addressed cache: as named text files ({@code Map<file, text>}), the
 * form of a {@code ContentCache} entry. {@link #decode} of {@link #encode} gives back an equal result.
 *
 * @param <T> the job's result
 */
public interface JobCodec<T> {
  Map<String, String> encode(T value);

  T decode(Map<String, String> files);

  /** A string result, stored as {@code name}. */
  static JobCodec<String> text(String name) {
    return new JobCodec<>() {
      @Override
      public Map<String, String> encode(String value) {
        return Map.of(name, value);
      }

      @Override
      public String decode(Map<String, String> files) {
        return files.get(name);
      }
    };
  }

  /** A record or bean stored as {@code result.json} (Jackson; records need public components). */
  static <T> JobCodec<T> json(Class<T> type) {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
    return new JobCodec<>() {
      @Override
      public Map<String, String> encode(T value) {
        try {
          return Map.of("result.json", mapper.writerWithDefaultPrettyPrinter().writeValueAsString(value) + "\n");
        } catch (IOException e) {
          throw new UncheckedIOException("cannot encode a " + type.getSimpleName() + " as JSON: " + e.getMessage(), e);
        }
      }

      @Override
      public T decode(Map<String, String> files) {
        try {
          return mapper.readValue(files.get("result.json"), type);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot decode a cached " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
      }
    };
  }
}
