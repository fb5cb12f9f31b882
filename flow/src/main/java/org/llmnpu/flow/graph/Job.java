package org.llmnpu.flow.graph;

import java.util.List;
import java.util.Objects;

/**
 * One step of the toolkit's flow as a node of a job graph: an id, the jobs whose results it reads (its
 * dependencies), the content that determines its result besides them (its declared inputs: Verilog files, options,
 * tool versions, the toolkit's own build), and its body.
 *
 * <p>A <em>cached</em> job (with a {@link JobCodec}) keeps its result in the content-addressed cache under the
 * SHA-256 of its id, its inputs and its dependencies' keys ({@link JobRunner}): when none of them changed, the job
 * never runs again, its result is read back. An uncached job runs every time — for steps that are cheap, write to the
 * output directory, or call a tool flow that has its own content-addressed cache (the PPA flow's synthesis and
 * timing); its key is still derived from its inputs, so the jobs that depend on it are keyed correctly.
 *
 * <p>The dependencies are fixed at construction, so a graph of jobs can have no cycle.
 *
 * @param <T> the result
 */
public final class Job<T> {
  /** The job's work: reads its dependencies' results from the context, returns its own. */
  @FunctionalInterface
  public interface Body<T> {
    T run(JobContext context) throws Exception;
  }

  private final String id;
  private final List<Job<?>> deps;
  private final List<String> inputs;
  private final JobCodec<T> codec;
  private final Body<T> body;

  private Job(String id, List<Job<?>> deps, List<String> inputs, JobCodec<T> codec, Body<T> body) {
    Objects.requireNonNull(id, "id");
    if (!id.matches("[A-Za-z0-9._:/-]+")) {
      throw new IllegalArgumentException("job id must match [A-Za-z0-9._:/-]+, got '" + id + "'");
    }
    this.id = id;
    this.deps = List.copyOf(deps);
    this.inputs = List.copyOf(inputs);
    this.codec = codec;
    this.body = Objects.requireNonNull(body, "body");
  }

  /** A job whose result is kept in the cache under its inputs and its dependencies' keys. */
  public static <T> Job<T> cached(String id, List<Job<?>> deps, List<String> inputs, JobCodec<T> codec,
                                  Body<T> body) {
    return new Job<>(id, deps, inputs, Objects.requireNonNull(codec, "codec"), body);
  }

  /** A job that runs every time (its inputs still key the jobs that depend on it). */
  public static <T> Job<T> uncached(String id, List<Job<?>> deps, List<String> inputs, Body<T> body) {
    return new Job<>(id, deps, inputs, null, body);
  }

  public String id() {
    return id;
  }

  public List<Job<?>> deps() {
    return deps;
  }

  public List<String> inputs() {
    return inputs;
  }

  /** The codec of a cached job, null for an uncached one. */
  JobCodec<T> codec() {
    return codec;
  }

  Body<T> body() {
    return body;
  }

  public boolean isCached() {
    return codec != null;
  }

  @Override
  public String toString() {
    return id;
  }
}
